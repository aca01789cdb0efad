//! KSFEN positions (`Position::from_ksfen`, as `koshogi moves|show`, the engine's `position
//! ksfen`, game records' `Start` tag and the HTTP API read them): never a panic; whatever is
//! accepted writes back to KSFEN that reads the same, and move generation and the game-end
//! checks work on it (an accepted position is played on).
#![no_main]

use koshogi_rules::{Game, Position, RulesOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(position) = Position::from_ksfen(&text) else {
        return;
    };
    let written = position.to_ksfen(true);
    let again = Position::from_ksfen(&written).expect("a position's own KSFEN is accepted");
    assert_eq!(again.to_ksfen(true), written, "KSFEN round trip");
    let _ = position.to_ksfen(false);
    let game = Game::from_position(position, RulesOptions::default());
    let legal = game.legal_moves();
    let _ = game.outcome();
    if let Some(&mv) = legal.first() {
        let mut game = game;
        game.play(mv);
        let _ = game.outcome();
    }
});
