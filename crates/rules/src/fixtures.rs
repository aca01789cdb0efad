//! Positions and games that the tests of several crates build alike: the material tests here,
//! the search's material evaluator (koshogi-mcts), the network's material head (koshogi-nn) and
//! the material targets (koshogi-replay) all need a position where one side is ahead by exactly
//! one piece; the viewer's API tests (koshogi-serve) and the system tests of `koshogi serve`
//! need a short recorded game. One owner each, so they agree on which piece and which game.
//! Compiled for this crate's tests and behind the `fixtures` feature (which other crates enable
//! only as a dev-dependency), never in a release build.

use crate::game_record::{GameRecord, RecordResult};
use crate::{Color, Game, PieceKind, Position, RulesOptions};

/// The start position without White's first piece (in [`Position::pieces`] order), and the
/// kind of that piece: Black is ahead by exactly that piece, whichever side is to move.
pub fn start_without_a_white_piece() -> (Position, PieceKind) {
    let mut position = Position::startpos();
    let (square, piece) = position
        .pieces()
        .find(|(_, p)| p.color == Color::White)
        .expect("the start position has White pieces");
    position.set_piece(square, None);
    (position, piece.kind)
}

/// A short self-play game as a worker records one: `plies` moves from the start position, at
/// each ply the legal move at a varied index ((ply × 37 + 11) mod their count, so pieces other
/// than the first one generated move), both sides played by checkpoint step 10, ended by the
/// ply cap without a winner.
pub fn capped_selfplay_record(plies: usize) -> GameRecord {
    let mut game = Game::new(RulesOptions::default());
    let moves = (0..plies)
        .map(|ply| {
            let legal = game.legal_moves();
            let mv = legal[(ply * 37 + 11) % legal.len()];
            game.play(mv);
            mv
        })
        .collect();
    GameRecord {
        tags: vec![
            ("Event".into(), "koshogi selfplay".into()),
            ("Black".into(), "step 10".into()),
            ("White".into(), "step 10".into()),
        ],
        start: Position::startpos(),
        moves,
        result: Some(RecordResult {
            winner: None,
            termination: "max plies".into(),
        }),
    }
}
