//! Game records (`GameRecord::parse`, as `koshogi show --game`, the viewer and the arena read
//! them): never a panic; a record that is read writes back (`to_text`) to a record that reads
//! to the same start, moves and result, and replays.
#![no_main]

use koshogi_rules::game_record::GameRecord;
use koshogi_rules::RulesOptions;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let options = RulesOptions::default();
    let Ok(record) = GameRecord::parse(&text, options) else {
        return;
    };
    let written = record
        .to_text(options)
        .expect("a parsed record writes back");
    let again = GameRecord::parse(&written, options).expect("a record's own text reads back");
    assert_eq!(again.start.to_ksfen(true), record.start.to_ksfen(true));
    assert_eq!(again.moves, record.moves);
    assert_eq!(
        again.result.as_ref().map(|r| r.winner),
        record.result.as_ref().map(|r| r.winner)
    );
    let game = record
        .replay(options, None)
        .expect("a parsed record replays");
    assert_eq!(game.plies_played() as usize, record.moves.len());
});
