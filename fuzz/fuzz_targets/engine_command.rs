//! Engine protocol input, parse only: the bytes are split into lines by
//! `koshogi_engine::line_reader::read_bounded_line` (as the engine and the arena's engine player
//! read a peer; here through a 7-byte buffer and a 1 KiB bound so chunking and over-long lines
//! are exercised) and each line goes to `koshogi_engine::parse_command` (handshake,
//! `setoption`, `position startpos|ksfen … moves …`, `go` with its limits;
//! docs/engine-protocol.md), which its crate documents as "pure and total: any text yields a
//! command or an error message, never a panic". A `position` command is also set up as the
//! engine does (its KSFEN read, its moves played in either notation, stopping at the first
//! error).
#![no_main]

use std::io::BufReader;

use koshogi_engine::line_reader::{read_bounded_line, Line};
use koshogi_engine::{parse_command, Command, PositionSpec};
use koshogi_rules::notation::parse_move;
use koshogi_rules::{Game, Position, RulesOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut input = BufReader::with_capacity(7, data);
    let mut lines = 0;
    while let Some(line) = read_bounded_line(&mut input, 1024).expect("reading a slice") {
        lines += 1;
        assert!(lines <= data.len(), "more lines than bytes");
        let Line::Text(line) = line else {
            continue;
        };
        assert!(line.len() <= 1024 && !line.contains('\n'));
        let Ok(Some(Command::Position { start, moves })) = parse_command(&line) else {
            continue;
        };
        let position = match start {
            PositionSpec::StartPos => Position::startpos(),
            PositionSpec::Ksfen(ksfen) => match Position::from_ksfen(&ksfen) {
                Ok(position) => position,
                Err(_) => continue,
            },
        };
        let mut game = Game::from_position(position, RulesOptions::default());
        for text in moves.iter().take(8) {
            if game.outcome().is_some() {
                break;
            }
            match parse_move(&game, text) {
                Ok(mv) => game.play(mv),
                Err(_) => break,
            }
        }
    }
});
