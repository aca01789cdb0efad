//! What the opponent threatens to capture, and which of the mover's moves answer it.
//!
//! Why: the Gumbel root compares only a handful of moves (4 of ~250 with 16 simulations), the
//! prior's favourites and the biggest captures. When the opponent attacks the general, the move
//! that saves it is rarely among them, so the search could only watch it being taken: the
//! first trained networks lost their command to the one-ply greedy player in 30-100 plies.
//! Engines answer this with check evasions; here the root keeps the best answers to the
//! biggest threat among its candidates (`GumbelConfig::evasion_candidates`). Like the capture
//! candidates it only chooses which moves are searched, never their values.
//!
//! A threat is a capture the opponent could make were it its turn (a null move). A move
//! answers the threat to a piece if it moves that piece away, or removes one of its attackers.
//! Blocks and counter-threats are left to the prior and the search.

use koshogi_rules::material::search_piece_value;
use koshogi_rules::{Move, Position, RulesOptions, Square};

/// The mover's pieces the opponent could capture now, with their values and attackers.
#[derive(Debug, Default)]
pub struct Threats {
    /// (threatened point, value of the piece there, points the opponent captures it from).
    threatened: Vec<(Square, f32, Vec<Square>)>,
}

impl Threats {
    /// The threats against the side to move of `position`.
    pub fn against_mover(position: &Position, options: &RulesOptions) -> Threats {
        let mut replies = Vec::new();
        position.generate_captures_for(position.side_to_move().opposite(), options, &mut replies);
        let mut threats = Threats::default();
        for reply in &replies {
            for point in reply.removed_points() {
                let Some(piece) = position.piece_at(point) else {
                    continue;
                };
                match threats.threatened.iter_mut().find(|(p, _, _)| *p == point) {
                    Some((_, _, attackers)) => {
                        if !attackers.contains(&reply.origin()) {
                            attackers.push(reply.origin());
                        }
                    }
                    None => threats.threatened.push((
                        point,
                        search_piece_value(piece.kind),
                        vec![reply.origin()],
                    )),
                }
            }
        }
        threats
    }

    /// The value of the most valuable threatened piece `mv` answers for (0 if none): it moves
    /// that piece to another point, or removes a piece attacking it.
    pub fn answered_by(&self, mv: &Move) -> f32 {
        let moves_away = mv.destination() != mv.origin();
        let removed = mv.removed_points();
        self.threatened
            .iter()
            .filter(|(point, _, attackers)| {
                (moves_away && mv.origin() == *point)
                    || attackers.iter().any(|a| removed.contains(a))
            })
            .map(|&(_, value, _)| value)
            .fold(0.0, f32::max)
    }

    /// Whether the opponent threatens nothing.
    pub fn is_empty(&self) -> bool {
        self.threatened.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use koshogi_rules::{Color, Game};

    /// A mid-game position of a seeded random game in which the side to move has a threatened
    /// piece, with its threats.
    fn threatened_position() -> (Game, Threats) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let mut game = Game::new(RulesOptions::default());
        for _ in 0..400 {
            let moves = game.legal_moves();
            if moves.is_empty() {
                break;
            }
            let threats = Threats::against_mover(game.position(), game.options());
            if game.plies_played() > 20 && !threats.is_empty() {
                return (game, threats);
            }
            game.play(moves[rng.random_range(0..moves.len())]);
        }
        panic!("no threatened position found");
    }

    #[test]
    fn at_the_start_the_chariot_units_face_each_other() {
        // Ko shogi's chariot units (CU) reach each other across the empty middle from the
        // first move: Black's two are what White could take now, each attacked by White's own.
        let game = Game::new(RulesOptions::default());
        let position = game.position();
        let threats = Threats::against_mover(position, game.options());
        assert_eq!(threats.threatened.len(), 2, "{:?}", threats.threatened);
        for (point, value, attackers) in &threats.threatened {
            let piece = position.piece_at(*point).unwrap();
            assert_eq!((piece.color, piece.kind.code()), (Color::Black, "CU"));
            assert_eq!(*value, search_piece_value(piece.kind));
            assert_eq!(attackers.len(), 1);
            let attacker = position.piece_at(attackers[0]).unwrap();
            assert_eq!((attacker.color, attacker.kind.code()), (Color::White, "CU"));
        }
    }

    #[test]
    fn moving_a_threatened_piece_away_or_taking_its_attacker_answers_the_threat() {
        let (game, threats) = threatened_position();
        let position = game.position();
        let moves = game.legal_moves();
        let (point, value, attackers) = threats
            .threatened
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap();
        // Every move of the threatened piece that leaves its point answers at least its value.
        let escapes: Vec<&Move> = moves
            .iter()
            .filter(|m| m.origin() == *point && m.destination() != *point)
            .collect();
        for mv in &escapes {
            assert!(threats.answered_by(mv) >= *value, "{mv}");
        }
        // A capture of an attacker answers it too.
        for mv in moves
            .iter()
            .filter(|m| m.removed_points().iter().any(|r| attackers.contains(r)))
        {
            assert!(threats.answered_by(mv) >= *value, "{mv}");
        }
        // A quiet move of an unthreatened piece answers nothing.
        let threatened_points: Vec<Square> = threats.threatened.iter().map(|t| t.0).collect();
        let quiet = moves
            .iter()
            .find(|m| !m.is_capture() && !threatened_points.contains(&m.origin()))
            .expect("a quiet move");
        assert_eq!(threats.answered_by(quiet), 0.0);
        // The value is the threatened piece's.
        let kind = position.piece_at(*point).unwrap().kind;
        assert_eq!(*value, search_piece_value(kind));
    }
}
