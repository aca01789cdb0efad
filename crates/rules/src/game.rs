//! A game: position, rule options and history, with the game-end logic of §10 (commanding
//! pieces, no legal move, fourfold repetition, perpetual check against a sole target) and an
//! optional move cap for engine adjudication (a draw; not a rule of the game).

use crate::material::piece_count_balance;
use crate::options::{MutualDestruction, NoMoves, PerpetualCheck};
use crate::play::Undo;
use crate::{Color, DrawReason, Move, Outcome, Position, RulesOptions, WinReason};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Why [`Game::try_play`] refused a move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error("illegal move {0} in this position")]
    Illegal(String),
    #[error("the game is over ({0:?})")]
    GameOver(Outcome),
}

#[derive(Clone, Debug)]
struct Played {
    mv: Move,
    undo: Undo,
}

/// A game in progress.
#[derive(Clone, Debug)]
pub struct Game {
    position: Position,
    options: RulesOptions,
    max_plies: Option<u32>,
    /// At the cap, a side this many pieces ahead wins instead of a draw (engine-side, §10.8).
    cap_material_margin: Option<u32>,
    history: Vec<Played>,
    /// Hash of every position of the game, the current one last.
    hashes: Vec<u64>,
    /// How often each hash occurs in `hashes`: the repetition count is asked after every move
    /// (in search, and while a record is read), and a scan of the history made reading a long
    /// record quadratic (an 8 MiB record of ~1.4 M plies took ~10^12 comparisons).
    occurrences: HashMap<u64, u32>,
    outcome: OnceLock<Option<Outcome>>,
}

impl Game {
    /// A game from the start position.
    pub fn new(options: RulesOptions) -> Game {
        Game::from_position(Position::startpos(), options)
    }

    /// A game starting from `position` (its history starts here).
    pub fn from_position(position: Position, options: RulesOptions) -> Game {
        let hashes = vec![position.hash()];
        let occurrences = HashMap::from([(position.hash(), 1)]);
        Game {
            position,
            options,
            max_plies: None,
            cap_material_margin: None,
            history: Vec::new(),
            hashes,
            occurrences,
            outcome: OnceLock::new(),
        }
    }

    /// Sets the adjudication cap: after this many moves of this game the result is a draw
    /// (or a material win, see [`Game::with_material_adjudication`]).
    pub fn with_max_plies(mut self, max_plies: Option<u32>) -> Game {
        self.max_plies = max_plies;
        self.outcome = OnceLock::new();
        self
    }

    /// Scores a game stopped at the `max_plies` cap by material: the side with at least
    /// `margin` more pieces on the board wins ([`WinReason::MaterialAdjudication`]), a smaller
    /// difference is a draw. The lead must hold both after the last move and before it, so a
    /// capture on the very last move, which can no longer be answered, does not decide the game
    /// by itself (it did: capped self-play games went to White, who moves last, far more often). `None` (the default) keeps every capped game a draw. Not a rule of
    /// Ko shogi (§10.8): self-play uses it because early games almost never finish, so a
    /// draw-only cap leaves the value target empty; the arena uses it to score such games.
    /// A margin of 0 is treated as 1 (equal material never has a winner).
    pub fn with_material_adjudication(mut self, margin: Option<u32>) -> Game {
        self.cap_material_margin = margin.map(|m| m.max(1));
        self.outcome = OnceLock::new();
        self
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The rule options in force.
    pub fn options(&self) -> &RulesOptions {
        &self.options
    }

    /// The adjudication cap.
    pub fn max_plies(&self) -> Option<u32> {
        self.max_plies
    }

    /// The piece lead that wins a capped game ([`Game::with_material_adjudication`]), or
    /// `None` when capped games are drawn.
    pub fn cap_material_margin(&self) -> Option<u32> {
        self.cap_material_margin
    }

    /// Moves played so far, in order.
    pub fn moves(&self) -> impl Iterator<Item = &Move> + '_ {
        self.history.iter().map(|p| &p.mv)
    }

    /// The hash of every position of the game so far, the current one last (a search uses
    /// them to see that a line returns to a position already played).
    pub fn position_hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// Number of moves played in this game.
    pub fn plies_played(&self) -> u32 {
        self.history.len() as u32
    }

    /// Legal moves of the side to move (repetition does not restrict them, §10.5).
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut v = Vec::new();
        self.generate_legal_moves(&mut v);
        v
    }

    /// Fills `out` (cleared first) with the legal moves.
    pub fn generate_legal_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        self.position.generate_moves(&self.options, out);
    }

    /// Plays `mv`, which must be legal in the current position.
    pub fn play(&mut self, mv: Move) {
        let undo = self.position.play(&mv, &self.options);
        let hash = self.position.hash();
        self.hashes.push(hash);
        *self.occurrences.entry(hash).or_insert(0) += 1;
        self.history.push(Played { mv, undo });
        self.outcome = OnceLock::new();
    }

    /// Plays `mv` if it is legal (any path with the effect of a legal move is accepted and the
    /// canonical move is played); returns the move played.
    pub fn try_play(&mut self, mv: Move) -> Result<Move, PlayError> {
        if let Some(o) = self.outcome() {
            return Err(PlayError::GameOver(o));
        }
        let legal = self.legal_moves();
        let found = legal
            .iter()
            .find(|m| **m == mv)
            .or_else(|| legal.iter().find(|m| m.same_effect(&mv)));
        match found {
            Some(&m) => {
                self.play(m);
                Ok(m)
            }
            None => Err(PlayError::Illegal(mv.to_string())),
        }
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Option<Move> {
        let played = self.history.pop()?;
        if let Some(hash) = self.hashes.pop() {
            if let Some(count) = self.occurrences.get_mut(&hash) {
                *count -= 1;
                if *count == 0 {
                    self.occurrences.remove(&hash);
                }
            }
        }
        self.position.undo(played.undo);
        self.outcome = OnceLock::new();
        Some(played.mv)
    }

    /// How many times the current position (with side to move) has occurred in this game.
    pub fn repetition_count(&self) -> u32 {
        let h = self.position.hash();
        self.occurrences.get(&h).copied().unwrap_or(0)
    }

    /// The result if the game is over (§10), evaluated in the order: commanding pieces,
    /// repetition, no legal move, then the `max_plies` adjudication.
    pub fn outcome(&self) -> Option<Outcome> {
        *self.outcome.get_or_init(|| self.compute_outcome())
    }

    fn compute_outcome(&self) -> Option<Outcome> {
        let opts = &self.options;
        let to_move = self.position.side_to_move();
        let mover = to_move.opposite();
        let to_move_alive = self.position.survives(to_move, opts);
        let mover_alive = self.position.survives(mover, opts);
        if !to_move_alive && !mover_alive {
            return Some(match opts.mutual_destruction {
                MutualDestruction::MoverWins => Outcome::Win {
                    winner: mover,
                    reason: WinReason::CommandDestroyed,
                },
                MutualDestruction::MoverLoses => Outcome::Win {
                    winner: to_move,
                    reason: WinReason::MutualDestruction,
                },
                MutualDestruction::Draw => Outcome::Draw(DrawReason::MutualDestruction),
            });
        }
        if !to_move_alive {
            return Some(Outcome::Win {
                winner: mover,
                reason: WinReason::CommandDestroyed,
            });
        }
        if !mover_alive {
            return Some(Outcome::Win {
                winner: to_move,
                reason: WinReason::CommandDestroyed,
            });
        }
        if self.repetition_count() >= 4 {
            if opts.perpetual_check == PerpetualCheck::CheckerLoses {
                if let Some(checker) = self.perpetual_checker() {
                    return Some(Outcome::Win {
                        winner: checker.opposite(),
                        reason: WinReason::PerpetualCheck,
                    });
                }
            }
            return Some(Outcome::Draw(DrawReason::Repetition));
        }
        let mut moves = Vec::new();
        self.position.generate_moves(opts, &mut moves);
        if moves.is_empty() {
            return Some(match opts.no_moves {
                NoMoves::Loss => Outcome::Win {
                    winner: mover,
                    reason: WinReason::NoLegalMoves,
                },
                NoMoves::Draw => Outcome::Draw(DrawReason::NoLegalMoves),
            });
        }
        if let Some(max) = self.max_plies {
            if self.plies_played() >= max {
                return Some(self.capped_outcome());
            }
        }
        None
    }

    /// The result of a game stopped at the ply cap.
    fn capped_outcome(&self) -> Outcome {
        let Some(margin) = self.cap_material_margin else {
            return Outcome::Draw(DrawReason::MaxPlies);
        };
        let now = piece_count_balance(&self.position, Color::Black);
        let before = match self.history.last() {
            Some(last) => {
                let mut previous = self.position.clone();
                previous.undo(last.undo.clone());
                piece_count_balance(&previous, Color::Black)
            }
            None => now,
        };
        match capped_material_winner(now, before, margin) {
            Some(winner) => Outcome::Win {
                winner,
                reason: WinReason::MaterialAdjudication,
            },
            None => Outcome::Draw(DrawReason::MaxPlies),
        }
    }

    /// §10.5: the player all of whose moves between the first and the fourth occurrence of the
    /// current position gave check against a sole target, if any.
    fn perpetual_checker(&self) -> Option<Color> {
        let h = self.position.hash();
        let first = self.hashes.iter().position(|&x| x == h)?;
        // Every move of the span, newest first: `after` is the position that move led to, and
        // undoing it gives the one before (one position in memory, however long the span).
        let mut after = self.position.clone();
        let mut checking = [true, true];
        let mut moved = [false, false];
        for played in self.history[first..].iter().rev() {
            let x = after.side_to_move().opposite(); // who made the move that led here
            if checking[x.index()] {
                moved[x.index()] = true;
                let y = x.opposite();
                if !(after.rests_on_sole_target(y, &self.options)
                    && gives_check(&after, x, &self.options))
                {
                    checking[x.index()] = false;
                }
            }
            if checking == [false, false] {
                break;
            }
            after.undo(played.undo.clone());
        }
        let candidates: Vec<Color> = Color::ALL
            .into_iter()
            .filter(|c| checking[c.index()] && moved[c.index()])
            .collect();
        match candidates.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }
}

/// Who wins a game stopped at the ply cap on material ([`Game::with_material_adjudication`]),
/// from Black's piece lead in the final position (`lead_now`) and in the one before the last
/// move (`lead_before`): a lead counts only if both positions show it, and then by the smaller
/// amount, because the side that moves last could otherwise win any capped game with a capture
/// that can no longer be answered. `None` is a draw. Searches that know the cap score their
/// capped lines with it, so that the rule has one owner.
pub fn capped_material_winner(lead_now: i16, lead_before: i16, margin: u32) -> Option<Color> {
    let lead = if lead_now.signum() == lead_before.signum() {
        lead_now.signum() * lead_now.abs().min(lead_before.abs())
    } else {
        0
    };
    if u32::from(lead.unsigned_abs()) < margin.max(1) {
        return None;
    }
    Some(if lead > 0 { Color::Black } else { Color::White })
}

/// §10.3: `x` would have a move (were it `x`'s turn) after which the other side no longer
/// survives.
pub fn gives_check(pos: &Position, x: Color, opts: &RulesOptions) -> bool {
    let mut p = pos.clone();
    p.set_side_to_move(x);
    let y = x.opposite();
    let mut moves = Vec::new();
    p.generate_moves(opts, &mut moves);
    for mv in &moves {
        let undo = p.play(mv, opts);
        let dead = !p.survives(y, opts);
        p.undo(undo);
        if dead {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;
    use crate::{Color::*, PieceKind::*};

    fn play(g: &mut Game, name: &str) {
        let mv = g
            .legal_moves()
            .into_iter()
            .find(|m| m.to_string() == name)
            .unwrap_or_else(|| panic!("{name} not legal: {:?}", names(&g.legal_moves())));
        g.play(mv);
    }

    #[test]
    fn capturing_the_sole_general_wins() {
        let p = setup(
            &[("10j", Black, ChariotUnit), ("10c", White, General)],
            Black,
        );
        let mut g = Game::from_position(p, RulesOptions::default());
        assert_eq!(g.outcome(), None);
        play(&mut g, "10jx10c+");
        assert_eq!(
            g.outcome(),
            Some(Outcome::Win {
                winner: Black,
                reason: WinReason::CommandDestroyed
            })
        );
        assert!(g.legal_moves().is_empty());
        assert_eq!(
            g.undo().map(|m| m.to_string()),
            Some("10jx10c+".to_string())
        );
        assert_eq!(g.outcome(), None);
    }

    #[test]
    fn middle_troop_and_banner_keep_a_side_alive_without_its_general() {
        let p = setup(
            &[
                ("10j", Black, ChariotUnit),
                ("10c", White, General),
                ("5b", White, MiddleTroop),
                ("7b", White, Banner),
                ("12j", Black, Elephant),
            ],
            Black,
        );
        let mut g = Game::from_position(p, RulesOptions::default());
        play(&mut g, "10jx10c+");
        assert_eq!(g.outcome(), None);
        assert!(g.position().survives(White, g.options()));
        // a governor alone is a second general
        let p = setup(
            &[
                ("10j", Black, ChariotUnit),
                ("10c", White, General),
                ("5b", White, Governor),
            ],
            Black,
        );
        let mut g = Game::from_position(p, RulesOptions::default());
        play(&mut g, "10jx10c+");
        assert_eq!(g.outcome(), None);
    }

    #[test]
    fn mutual_destruction_by_own_flame_goes_to_the_mover_by_default() {
        // Black flame steps to 10i, burning White's general on 10h and its own on 9h... via 11j
        let pieces = [
            ("10j", Black, PoisonFlame),
            ("11h", White, General),
            ("9h", Black, General),
        ];
        let p = setup(&pieces, Black);
        let mut g = Game::from_position(p.clone(), RulesOptions::default());
        play(&mut g, "10j-10i");
        assert_eq!(
            g.outcome(),
            Some(Outcome::Win {
                winner: Black,
                reason: WinReason::CommandDestroyed
            })
        );
        let opts = RulesOptions {
            mutual_destruction: MutualDestruction::Draw,
            ..Default::default()
        };
        let mut g = Game::from_position(p.clone(), opts);
        play(&mut g, "10j-10i");
        assert_eq!(
            g.outcome(),
            Some(Outcome::Draw(DrawReason::MutualDestruction))
        );
        let opts = RulesOptions {
            mutual_destruction: MutualDestruction::MoverLoses,
            ..Default::default()
        };
        let mut g = Game::from_position(p, opts);
        play(&mut g, "10j-10i");
        assert_eq!(g.outcome().unwrap().winner(), Some(White));
    }

    #[test]
    fn burning_only_ones_own_command_loses() {
        let p = setup(
            &[("10j", Black, PoisonFlame), ("9h", Black, General)],
            Black,
        );
        let mut g = Game::from_position(p, RulesOptions::default());
        play(&mut g, "10j-10i");
        assert_eq!(
            g.outcome(),
            Some(Outcome::Win {
                winner: White,
                reason: WinReason::CommandDestroyed
            })
        );
    }

    fn passing_position() -> Position {
        // Black's chariot unit attacks White's sole general down file 10; both sides pass with
        // wrestlers; Black's general is out of White's reach.
        setup(
            &[
                ("10s", Black, ChariotUnit),
                ("10a", White, General),
                ("15o", Black, SumoWrestler),
                ("5e", White, SumoWrestler),
            ],
            Black,
        )
    }

    fn shuffle(g: &mut Game, times: usize) {
        for _ in 0..times {
            play(g, "15o-14n-15o");
            play(g, "5e-4d-5e");
        }
    }

    #[test]
    fn perpetual_check_against_a_sole_target_loses_on_the_fourth_occurrence() {
        let mut g = Game::from_position(passing_position(), RulesOptions::default());
        shuffle(&mut g, 2);
        assert_eq!(g.repetition_count(), 3);
        assert_eq!(g.outcome(), None);
        shuffle(&mut g, 1);
        assert_eq!(g.repetition_count(), 4);
        assert_eq!(
            g.outcome(),
            Some(Outcome::Win {
                winner: White,
                reason: WinReason::PerpetualCheck
            })
        );
        let opts = RulesOptions {
            perpetual_check: PerpetualCheck::Ignore,
            ..Default::default()
        };
        let mut g = Game::from_position(passing_position(), opts);
        shuffle(&mut g, 3);
        assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
    }

    #[test]
    fn the_repetition_count_follows_play_and_undo() {
        // The count kept per hash must agree with counting the history, through undos too.
        let naive = |g: &Game| {
            let h = g.position().hash();
            g.hashes.iter().filter(|&&x| x == h).count() as u32
        };
        let mut g = Game::from_position(passing_position(), RulesOptions::default());
        shuffle(&mut g, 2);
        assert_eq!((g.repetition_count(), naive(&g)), (3, 3));
        for _ in 0..2 {
            g.undo();
            assert_eq!(g.repetition_count(), naive(&g));
        }
        shuffle(&mut g, 1);
        assert_eq!(g.repetition_count(), naive(&g));
        while g.undo().is_some() {
            assert_eq!(g.repetition_count(), naive(&g));
        }
        assert_eq!(g.repetition_count(), 1);
        assert_eq!(
            g.occurrences.len(),
            1,
            "undone positions leave no count behind"
        );
    }

    #[test]
    fn fourfold_repetition_without_check_is_a_draw() {
        let mut p = passing_position();
        p.set_piece(sq("10s"), None);
        p.set_piece(sq("11s"), Some(crate::Piece::new(Black, ChariotUnit)));
        let mut g = Game::from_position(p, RulesOptions::default());
        shuffle(&mut g, 3);
        assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
    }

    #[test]
    fn a_side_without_legal_moves_loses() {
        // Black: a general frozen by White's skyward net on the same rank, a vanguard on rank a.
        let p = setup(
            &[
                ("10j", Black, General),
                ("5j", White, SkywardNet),
                ("15a", Black, Vanguard),
            ],
            Black,
        );
        assert!(p.is_immobilized(sq("10j")));
        let g = Game::from_position(p.clone(), RulesOptions::default());
        assert!(g.legal_moves().is_empty());
        assert_eq!(
            g.outcome(),
            Some(Outcome::Win {
                winner: White,
                reason: WinReason::NoLegalMoves
            })
        );
        let opts = RulesOptions {
            no_moves: NoMoves::Draw,
            ..Default::default()
        };
        assert_eq!(
            Game::from_position(p, opts).outcome(),
            Some(Outcome::Draw(DrawReason::NoLegalMoves))
        );
    }

    #[test]
    fn max_plies_adjudicates_a_draw() {
        let mut g = Game::new(RulesOptions::default()).with_max_plies(Some(2));
        play(&mut g, "10m-10h");
        assert_eq!(g.outcome(), None);
        play(&mut g, "19f-19g");
        assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::MaxPlies)));
    }

    #[test]
    fn material_adjudication_gives_a_capped_game_to_the_side_ahead_by_the_margin() {
        // Black: a general and `black` pawns; White: a general and `white` pawns.
        let capped = |black: u8, white: u8, margin: Option<u32>| {
            let mut pieces = vec![("10s".to_string(), Black, General)];
            pieces.push(("10a".to_string(), White, General));
            pieces.extend((1..=black).map(|f| (format!("{f}m"), Black, Pawn)));
            pieces.extend((1..=white).map(|f| (format!("{f}g"), White, Pawn)));
            let pieces: Vec<(&str, Color, crate::PieceKind)> = pieces
                .iter()
                .map(|(s, c, k)| (s.as_str(), *c, *k))
                .collect();
            Game::from_position(setup(&pieces, Black), RulesOptions::default())
                .with_max_plies(Some(0))
                .with_material_adjudication(margin)
                .outcome()
        };
        let material_win = |winner| {
            Some(Outcome::Win {
                winner,
                reason: WinReason::MaterialAdjudication,
            })
        };
        let cap_draw = Some(Outcome::Draw(DrawReason::MaxPlies));
        assert_eq!(capped(3, 1, Some(2)), material_win(Black));
        assert_eq!(capped(0, 5, Some(2)), material_win(White));
        assert_eq!(
            capped(2, 1, Some(2)),
            cap_draw,
            "one ahead is below the margin"
        );
        assert_eq!(capped(2, 2, Some(1)), cap_draw);
        assert_eq!(
            capped(6, 0, None),
            cap_draw,
            "without adjudication a cap is a draw"
        );
        assert_eq!(
            capped(1, 0, Some(0)),
            material_win(Black),
            "margin 0 acts as 1"
        );
    }

    #[test]
    fn a_capped_lead_counts_only_as_far_as_both_last_positions_show_it() {
        assert_eq!(capped_material_winner(3, 2, 2), Some(Black));
        assert_eq!(
            capped_material_winner(3, 1, 2),
            None,
            "the smaller lead counts"
        );
        assert_eq!(capped_material_winner(-2, -4, 2), Some(White));
        assert_eq!(
            capped_material_winner(2, -2, 1),
            None,
            "a lead that changed hands"
        );
        assert_eq!(capped_material_winner(0, 0, 0), None, "margin 0 acts as 1");
        assert_eq!(capped_material_winner(1, 1, 0), Some(Black));
    }

    #[test]
    fn a_capture_on_the_last_move_does_not_decide_a_capped_game() {
        // White's lance on 10h can take Black's pawn on 10m with the last move of the game.
        let start = || {
            setup(
                &[
                    ("10s", Black, General),
                    ("10a", White, General),
                    ("10m", Black, Pawn),
                    ("1m", Black, Pawn),
                    ("10h", White, ChariotUnit),
                ],
                White,
            )
        };
        // Black is one piece ahead (3 v 2). Capturing on the last move makes it 2 v 2: a draw.
        let mut g = Game::from_position(start(), RulesOptions::default())
            .with_max_plies(Some(1))
            .with_material_adjudication(Some(1));
        play(&mut g, "10hx10m");
        assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::MaxPlies)));
        // Without Black's extra pawn (2 v 2), White's capture leaves White ahead only after
        // the last move: still a draw, not a White win.
        let mut level_before = start();
        level_before.set_piece(sq("1m"), None);
        let mut g = Game::from_position(level_before, RulesOptions::default())
            .with_max_plies(Some(1))
            .with_material_adjudication(Some(1));
        play(&mut g, "10hx10m");
        assert_eq!(
            g.outcome(),
            Some(Outcome::Draw(DrawReason::MaxPlies)),
            "level before the last move"
        );
        // A lead held before and after the last move still wins.
        let mut clear_lead = start();
        clear_lead.set_piece(sq("3a"), Some(crate::Piece::new(White, Pawn)));
        clear_lead.set_piece(sq("4a"), Some(crate::Piece::new(White, Pawn)));
        clear_lead.set_piece(sq("5a"), Some(crate::Piece::new(White, Pawn)));
        let mut g = Game::from_position(clear_lead, RulesOptions::default())
            .with_max_plies(Some(1))
            .with_material_adjudication(Some(1));
        play(&mut g, "10hx10m");
        assert_eq!(
            g.outcome(),
            Some(Outcome::Win {
                winner: White,
                reason: WinReason::MaterialAdjudication
            })
        );
    }

    #[test]
    fn material_adjudication_only_applies_at_the_cap() {
        let mut g = Game::new(RulesOptions::default())
            .with_max_plies(Some(2))
            .with_material_adjudication(Some(1));
        play(&mut g, "10m-10h");
        assert_eq!(g.outcome(), None);
        play(&mut g, "19f-19g");
        // Equal material at the cap: still a draw.
        assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::MaxPlies)));
    }

    #[test]
    fn try_play_accepts_any_path_with_a_legal_effect() {
        let p = setup(&[("10j", Black, DragonAscending)], Black);
        let mut g = Game::from_position(p, RulesOptions::default());
        let detour = Move::from_parts(
            sq("10j"),
            &[(sq("10i"), false), (sq("10h"), false)],
            &[],
            crate::Promotion::None,
        )
        .unwrap();
        assert_eq!(g.try_play(detour).unwrap().to_string(), "10j-10h");
        let bad =
            Move::from_parts(sq("10h"), &[(sq("10a"), true)], &[], crate::Promotion::None).unwrap();
        assert!(matches!(g.try_play(bad), Err(PlayError::Illegal(_))));
    }
}
