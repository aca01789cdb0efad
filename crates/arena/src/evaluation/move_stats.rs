//! How a player moves: the share of its moves that are passes and captures.
//!
//! Why: a score alone hides *how* a network wins. The one-hour CPU run beat the random network
//! 75 % of the time while 82 % of its moves were passes, which no Elo figure shows; `koshogi
//! eval` prints both rates for every player so a degenerate habit is visible at once.
//!
//! Definitions:
//! * a **pass** is the rules crate's [`Move::is_pass`] (a lion-like piece stepping out and back,
//!   `13s-13r-13s`, after which every point holds the same piece as before). A move that ends
//!   on its origin but captures (igui `13sx12r-13s`, a pass with a shot `10j-10h-10j*10g`) or
//!   promotes is not a pass;
//! * a **capture** is a move after which the opponent has fewer pieces on the board (judged on
//!   the board before and after the move, so every effect the rules give a move counts):
//!   displacement, igui, shots and burning by the poison flame all count; the mover's own pieces
//!   lost to its flame do not. (`Move::is_capture` would miss burning.)
//!
//! A move is never both. Only the moves a player chose are counted: the arena's random opening
//! plies are played by the match runner, not by the players, so they are in no one's rates.
//!
//! The counting is a [`Player`] wrapper, [`CountingPlayer`], so the match runner needs no hook:
//! it sees each request's position and the move chosen for it.

use koshogi_rules::{Game, Move, Position, RulesOptions};

use crate::matches::{Choice, MoveRequest, Player, PlayerError};

/// What a move did, for [`MoveStats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveClass {
    pub pass: bool,
    pub capture: bool,
}

/// Classifies `mv`, which must be legal in `position` (see the module docs for the definitions).
pub fn classify_move(position: &Position, mv: &Move, options: &RulesOptions) -> MoveClass {
    let mut after = position.clone();
    let them = position.side_to_move().opposite();
    after.play(mv, options);
    MoveClass {
        pass: mv.is_pass(),
        capture: after.piece_count(them) < position.piece_count(them),
    }
}

/// Moves, passes and captures of one player over any number of games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MoveStats {
    pub moves: u64,
    pub passes: u64,
    pub captures: u64,
}

impl MoveStats {
    pub fn record(&mut self, class: MoveClass) {
        self.moves += 1;
        self.passes += class.pass as u64;
        self.captures += class.capture as u64;
    }

    /// Passes per move, `None` before the first move.
    pub fn pass_rate(&self) -> Option<f64> {
        (self.moves > 0).then(|| self.passes as f64 / self.moves as f64)
    }

    /// Captures per move, `None` before the first move.
    pub fn capture_rate(&self) -> Option<f64> {
        (self.moves > 0).then(|| self.captures as f64 / self.moves as f64)
    }
}

/// A player that counts its own moves' passes and captures in [`CountingPlayer::stats`].
pub struct CountingPlayer<'a> {
    pub inner: &'a mut dyn Player<Game>,
    pub stats: MoveStats,
    legal: Vec<Move>,
}

impl<'a> CountingPlayer<'a> {
    pub fn new(inner: &'a mut dyn Player<Game>) -> Self {
        Self {
            inner,
            stats: MoveStats::default(),
            legal: Vec::new(),
        }
    }
}

impl Player<Game> for CountingPlayer<'_> {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn choose_moves(
        &mut self,
        requests: &[MoveRequest<'_, Game>],
    ) -> Result<Vec<Move>, PlayerError> {
        let moves = self.inner.choose_moves(requests)?;
        for (request, mv) in requests.iter().zip(&moves) {
            self.count(request, mv);
        }
        Ok(moves)
    }

    /// Forwarded, so an engine player's forfeits stay forfeits when its moves are counted.
    fn choose_or_forfeit(
        &mut self,
        requests: &[MoveRequest<'_, Game>],
    ) -> Result<Vec<Choice<Move>>, PlayerError> {
        let choices = self.inner.choose_or_forfeit(requests)?;
        for (request, choice) in requests.iter().zip(&choices) {
            if let Choice::Play(mv) = choice {
                self.count(request, mv);
            }
        }
        Ok(choices)
    }
}

impl CountingPlayer<'_> {
    fn count(&mut self, request: &MoveRequest<'_, Game>, mv: &Move) {
        // An illegal move is the match runner's to report; it is not counted here.
        request.game.generate_legal_moves(&mut self.legal);
        if self.legal.contains(mv) {
            let class = classify_move(request.game.position(), mv, request.game.options());
            self.stats.record(class);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use koshogi_rules::{Color, Piece, PieceKind, Square};

    /// Black to move with `pieces`, plus the generals on 1s and 19a if not given (a side
    /// without commanding pieces has no moves).
    fn position(pieces: &[(&str, Color, PieceKind)]) -> Position {
        let mut position = Position::empty(Color::Black);
        let generals = [
            ("1s", Color::Black, PieceKind::General),
            ("19a", Color::White, PieceKind::General),
        ];
        for &(square, color, kind) in generals.iter().chain(pieces) {
            position.set_piece(
                square.parse::<Square>().unwrap(),
                Some(Piece::new(color, kind)),
            );
        }
        position
    }

    fn class_of(position: &Position, text: &str) -> MoveClass {
        let options = RulesOptions::default();
        let moves = position.legal_moves(&options);
        let mv = moves
            .iter()
            .find(|m| m.to_string() == text)
            .unwrap_or_else(|| {
                panic!(
                    "{text} not among {:?}",
                    moves.iter().map(|m| m.to_string()).collect::<Vec<_>>()
                )
            });
        classify_move(position, mv, &options)
    }

    const PASS: MoveClass = MoveClass {
        pass: true,
        capture: false,
    };
    const CAPTURE: MoveClass = MoveClass {
        pass: false,
        capture: true,
    };
    const QUIET: MoveClass = MoveClass {
        pass: false,
        capture: false,
    };

    #[test]
    fn stepping_out_and_back_is_a_pass_and_an_ordinary_move_is_not() {
        let start = Position::startpos();
        assert_eq!(class_of(&start, "13s-13r-13s"), PASS);
        assert_eq!(class_of(&start, "10m-10h"), QUIET);
    }

    #[test]
    fn ending_on_the_origin_with_a_capture_is_a_capture_not_a_pass() {
        use Color::*;
        use PieceKind::*;
        let wrestler = position(&[
            ("13s", Black, SumoWrestler),
            ("12r", White, Pawn),
            ("11q", White, Pawn),
            ("13r", Black, Pawn),
        ]);
        assert_eq!(class_of(&wrestler, "13sx12r-13s"), CAPTURE); // igui
        assert_eq!(class_of(&wrestler, "13sx12rx11q"), CAPTURE);
        assert_eq!(class_of(&wrestler, "13s-14r-13s"), PASS);
        let lamp = position(&[
            ("10j", Black, HolyLamp),
            ("10g", White, Pawn),
            ("12g", White, Pawn),
        ]);
        assert_eq!(class_of(&lamp, "10j-10h-10j*10g"), CAPTURE); // a pass with a shot
        assert_eq!(class_of(&lamp, "10j-10h*10g"), CAPTURE);
    }

    #[test]
    fn burning_an_enemy_is_a_capture_and_burning_only_ones_own_piece_is_not() {
        use Color::*;
        use PieceKind::*;
        // The poison flame steps 10j → 10i and burns the eight neighbours of 10i.
        let flame = position(&[
            ("10j", Black, PoisonFlame),
            ("9h", Black, DragonAscending),
            ("11h", White, Drum),
        ]);
        let options = RulesOptions::default();
        let moves = flame.legal_moves(&options);
        let burn = moves.iter().find(|m| m.to_string() == "10j-10i").unwrap();
        assert!(
            !burn.is_capture(),
            "the rules crate does not call burning a capture"
        );
        assert_eq!(class_of(&flame, "10j-10i"), CAPTURE);
        let own_only = position(&[("10j", Black, PoisonFlame), ("9h", Black, DragonAscending)]);
        assert_eq!(class_of(&own_only, "10j-10i"), QUIET);
    }

    /// Plays the first listed move that is legal, so the test knows what was chosen.
    struct Scripted(Vec<&'static str>);

    impl Player<Game> for Scripted {
        fn name(&self) -> String {
            "scripted".into()
        }

        fn choose_moves(
            &mut self,
            requests: &[MoveRequest<'_, Game>],
        ) -> Result<Vec<Move>, PlayerError> {
            Ok(requests
                .iter()
                .map(|r| {
                    let legal = r.game.legal_moves();
                    self.0
                        .iter()
                        .find_map(|text| legal.iter().find(|m| m.to_string() == *text).copied())
                        .unwrap_or(legal[0])
                })
                .collect())
        }
    }

    #[test]
    fn the_counting_player_counts_the_moves_it_chose() {
        use Color::*;
        use PieceKind::*;
        let mut game = Game::from_position(
            position(&[("13s", Black, SumoWrestler), ("12r", White, Pawn)]),
            RulesOptions::default(),
        );
        let mut script = Scripted(vec!["13sx12r-13s", "13s-12r-13s"]);
        let mut counting = CountingPlayer::new(&mut script);
        assert_eq!(counting.name(), "scripted");
        for _ in 0..3 {
            let request = MoveRequest {
                game: &game,
                game_index: 0,
                seed: 0,
            };
            let mv = counting.choose_moves(&[request]).unwrap()[0];
            game.play(mv);
            // White's replies are not counted.
            let reply = game.legal_moves()[0];
            game.play(reply);
        }
        // The igui, then two passes (through 12r, now empty).
        let stats = counting.stats;
        assert_eq!(
            stats,
            MoveStats {
                moves: 3,
                passes: 2,
                captures: 1
            }
        );
        assert_eq!(stats.pass_rate(), Some(2.0 / 3.0));
        assert_eq!(stats.capture_rate(), Some(1.0 / 3.0));
        assert_eq!(MoveStats::default().pass_rate(), None);
    }

    #[test]
    fn in_a_match_the_two_players_count_every_ply_but_the_openings() {
        use crate::matches::{run_match, MatchSettings};
        let settings = MatchSettings {
            games: 4,
            max_plies: 80,
            opening_plies: 3,
            parallel_games: 4,
            ..MatchSettings::default()
        };
        let mut greedy = crate::GreedyPlayer::new();
        let mut random = crate::RandomPlayer::new();
        let mut a = CountingPlayer::new(&mut greedy);
        let mut b = CountingPlayer::new(&mut random);
        let report = run_match(
            &|| Game::new(RulesOptions::default()).with_max_plies(Some(80)),
            &mut a,
            &mut b,
            &settings,
            &mut (),
        )
        .unwrap();
        let plies: u64 = report.games.iter().map(|g| g.plies as u64).sum();
        assert_eq!(a.stats.moves + b.stats.moves, plies - 4 * 3);
        // Greedy takes whatever material is offered; over ~150 moves it finds something.
        assert!(a.stats.captures > 0, "{:?}", a.stats);
    }
}
