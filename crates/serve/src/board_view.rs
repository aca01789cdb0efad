//! A position and its moves as the page needs them: the board as SVG (drawn by
//! [`koshogi_viewer::render_svg`], last move highlighted), the picture's geometry so the page can
//! map clicks to points and draw arrows, and each move broken into its steps — origin, every leg
//! (lion-like pieces move up to five), shots (capture without moving) and the promotion choice —
//! so that moves can be chosen one click at a time.

use koshogi_rules::game_record::termination_text;
use koshogi_rules::notation::format_hodges;
use koshogi_rules::{Color, Game, Move, Outcome, Position, Promotion};
use koshogi_viewer::{render_svg, LastMove};
use serde::Serialize;

/// Where the points are on the SVG picture: the centre of point (file, rank) is at
/// `x = margin + cell * (19 - file)`, `y = margin + cell * (rank - 1)`; the `viewBox` is
/// `0 0 size size`.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Geometry {
    pub margin: f64,
    pub cell: f64,
    pub size: f64,
}

impl Geometry {
    pub fn of_viewer() -> Geometry {
        Geometry {
            margin: koshogi_viewer::MARGIN,
            cell: koshogi_viewer::CELL,
            size: koshogi_viewer::SIZE,
        }
    }
}

/// One move, step by step.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct MoveView {
    /// Canonical notation (§11.2): what the API takes back to play it.
    pub canonical: String,
    /// Hodges-style notation (§11.1), as in game records.
    pub hodges: String,
    pub origin: String,
    /// Landing points in order (a move ending where it started ends on the origin).
    pub legs: Vec<String>,
    /// Points shot from the destination, in order.
    pub shots: Vec<String>,
    /// `none` (no choice), `promote` or `decline`.
    pub promotion: &'static str,
    pub capture: bool,
}

impl MoveView {
    /// `legal` = the legal moves of `position` (Hodges notation disambiguates against them).
    pub fn new(position: &Position, legal: &[Move], mv: &Move) -> MoveView {
        MoveView {
            canonical: mv.to_string(),
            hodges: format_hodges(position, legal, mv),
            origin: mv.origin().to_string(),
            legs: mv.legs().iter().map(ToString::to_string).collect(),
            shots: mv.shots().iter().map(ToString::to_string).collect(),
            promotion: match mv.promotion() {
                Promotion::None => "none",
                Promotion::Promote => "promote",
                Promotion::Decline => "decline",
            },
            capture: mv.is_capture(),
        }
    }
}

/// A position of a game for the page.
#[derive(Clone, Debug, Serialize)]
pub struct BoardView {
    pub svg: String,
    pub ksfen: String,
    /// Plies played in the game so far.
    pub ply: usize,
    pub side_to_move: &'static str,
    pub last_move: Option<MoveView>,
    /// A sentence when the game is over ("Black wins: command destroyed").
    pub outcome: Option<String>,
    pub legal_moves: usize,
}

impl BoardView {
    /// The game's current position, with the move that led to it highlighted.
    pub fn of_game(game: &Game) -> BoardView {
        let position = game.position();
        let mut before = game.clone();
        let last = before.undo().map(|mv| {
            let legal = before.legal_moves();
            (
                before.position().clone(),
                mv,
                MoveView::new(before.position(), &legal, &mv),
            )
        });
        let svg = render_svg(
            position,
            last.as_ref()
                .map(|(before, mv, _)| LastMove { before, mv: *mv }),
        );
        BoardView {
            svg,
            ksfen: position.to_ksfen(true),
            ply: game.plies_played() as usize,
            side_to_move: color_name(position.side_to_move()),
            last_move: last.map(|(_, _, view)| view),
            outcome: game.outcome().map(outcome_text),
            legal_moves: game.legal_moves().len(),
        }
    }
}

pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// "Black wins: command destroyed", "Draw: fourfold repetition".
pub fn outcome_text(outcome: Outcome) -> String {
    let reason = termination_text(outcome);
    match outcome.winner() {
        Some(Color::Black) => format!("Black wins: {reason}"),
        Some(Color::White) => format!("White wins: {reason}"),
        None => format!("Draw: {reason}"),
    }
}

/// The moves of a game from its start, each with its ply (1-based) and notation.
#[derive(Clone, Debug, Serialize)]
pub struct PlayedMove {
    pub ply: usize,
    pub color: &'static str,
    #[serde(flatten)]
    pub mv: MoveView,
}

/// `moves` played one after the other from `game`'s position (a record's or a session's moves).
/// Stops early at a move that is not legal (records and sessions hold only legal moves).
pub fn played_moves(mut game: Game, moves: &[Move]) -> Vec<PlayedMove> {
    let mut out = Vec::with_capacity(moves.len());
    let mut legal = Vec::new();
    for (i, &mv) in moves.iter().enumerate() {
        game.generate_legal_moves(&mut legal);
        out.push(PlayedMove {
            ply: i + 1,
            color: color_name(game.position().side_to_move()),
            mv: MoveView::new(game.position(), &legal, &mv),
        });
        if !legal.contains(&mv) {
            break;
        }
        game.play(mv);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use koshogi_rules::RulesOptions;

    #[test]
    fn a_move_view_lists_its_steps_from_the_move_itself() {
        let game = Game::new(RulesOptions::default());
        let legal = game.legal_moves();
        for mv in &legal {
            let view = MoveView::new(game.position(), &legal, mv);
            assert_eq!(view.origin, mv.origin().to_string());
            assert_eq!(view.legs.len(), mv.legs().len());
            assert_eq!(
                view.legs.last().cloned(),
                mv.legs().last().map(ToString::to_string)
            );
            assert_eq!(view.canonical, mv.to_string());
            // The canonical text names the move back.
            let parsed = koshogi_rules::notation::parse_move(&game, &view.canonical).unwrap();
            assert_eq!(parsed, *mv);
        }
    }

    #[test]
    fn the_board_view_highlights_the_last_move_and_counts_plies() {
        let mut game = Game::new(RulesOptions::default());
        let start = BoardView::of_game(&game);
        assert_eq!(start.ply, 0);
        assert_eq!(start.side_to_move, "black");
        assert!(start.last_move.is_none());
        assert!(start.svg.starts_with("<svg"));
        let mv = game.legal_moves()[0];
        game.play(mv);
        let after = BoardView::of_game(&game);
        assert_eq!(after.ply, 1);
        assert_eq!(after.side_to_move, "white");
        assert_eq!(after.last_move.unwrap().canonical, mv.to_string());
        assert_ne!(after.svg, start.svg);
        // The highlight is the viewer's last-move path.
        assert!(after.svg.contains("<polyline"));
        assert!(!start.svg.contains("<polyline"));
    }
}
