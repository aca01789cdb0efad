//! Ko shogi in the arena: [`ArenaGame`] for `koshogi_rules::Game`.
//!
//! Records use the rules crate's Hodges-style notation (§11.1, disambiguated against the legal
//! moves) and its termination texts; the match runner lays them out with the rules crate's
//! `format_record` (tags `Game` and `OpeningPlies` added), so an arena record is a
//! `koshogi_rules::game_record::GameRecord` that `koshogi show --game FILE` can replay.

use koshogi_rules::game_record::termination_text;
use koshogi_rules::material::baseline_balance;
use koshogi_rules::notation::format_hodges;
use koshogi_rules::{Color, DrawReason, Game, Move, Outcome, RulesOptions, WinReason};

use super::ending::Ending;
use super::game::{ArenaGame, GameEnd, Side};
use super::runner::MatchSettings;

/// A new game from the standard start position under `options`, carrying the match's ply cap
/// (network players see the cap in their input features, and the search values it exactly) and
/// how a capped game is scored (`cap_material_margin`: see `Game::with_material_adjudication`).
pub fn new_game(options: &RulesOptions, settings: &MatchSettings) -> Game {
    Game::new(*options)
        .with_max_plies(Some(settings.max_plies))
        .with_material_adjudication(settings.cap_material_margin)
}

pub fn side_of(color: Color) -> Side {
    match color {
        Color::Black => Side::First,
        Color::White => Side::Second,
    }
}

/// The kind of a Ko shogi outcome (a win by mutual destruction or resignation is `Other`).
pub fn ending_of(outcome: Outcome) -> Ending {
    match outcome {
        Outcome::Win { reason, .. } => match reason {
            WinReason::CommandDestroyed => Ending::Command,
            WinReason::MaterialAdjudication => Ending::Material,
            WinReason::PerpetualCheck => Ending::Repetition,
            WinReason::NoLegalMoves => Ending::NoMoves,
            WinReason::MutualDestruction | WinReason::Resignation => Ending::Other,
        },
        Outcome::Draw(reason) => match reason {
            DrawReason::MaxPlies => Ending::Cap,
            DrawReason::Repetition => Ending::Repetition,
            DrawReason::NoLegalMoves => Ending::NoMoves,
            DrawReason::MutualDestruction => Ending::Other,
        },
    }
}

impl ArenaGame for Game {
    type Move = Move;

    fn legal_moves(&self, out: &mut Vec<Move>) {
        self.position().generate_moves(self.options(), out);
    }

    fn play(&mut self, mv: Move) {
        Game::play(self, mv);
    }

    fn end(&self) -> Option<GameEnd> {
        self.outcome().map(|outcome| GameEnd {
            winner: outcome.winner().map(side_of),
            ending: ending_of(outcome),
            reason: termination_text(outcome).to_string(),
        })
    }

    fn side_to_move(&self) -> Side {
        side_of(self.position().side_to_move())
    }

    fn position_text(&self) -> String {
        self.position().to_ksfen(true)
    }

    fn move_text(&self, mv: Move, legal: &[Move]) -> String {
        format_hodges(self.position(), legal, &mv)
    }

    /// On the baselines' scale (general 50, pawn 1), the one `greedy` and `ab:` count.
    fn material_balance(&self, side: Side) -> Option<f64> {
        Some(baseline_balance(self.position(), side.color()))
    }
}
