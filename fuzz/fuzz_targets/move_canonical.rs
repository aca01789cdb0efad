//! Canonical move notation (§11.2: `10m-9l`, `4e*5e`, …): `parse_canonical_path` on the text
//! alone, then `parse_canonical` and `parse_move` against one of a few fixed positions (first
//! byte). A move that is read back is legal, and its canonical and Hodges texts read back to
//! the same move.
#![no_main]

use koshogi_rules::notation::{
    format_canonical, format_hodges, parse_canonical, parse_canonical_path, parse_hodges,
    parse_move,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((game, legal, text)) = koshogi_fuzz::game_and_text(data) else {
        return;
    };
    let _ = parse_canonical_path(&text);
    let position = game.position();
    if let Ok(mv) = parse_canonical(position, legal, &text) {
        assert!(legal.contains(&mv), "a parsed move is legal");
        let canonical = format_canonical(&mv);
        let back = parse_canonical(position, legal, &canonical).expect("own canonical text");
        assert_eq!(back, mv, "canonical round trip of {canonical}");
        let hodges = format_hodges(position, legal, &mv);
        let back = parse_hodges(position, legal, &hodges).expect("own Hodges text");
        assert_eq!(back, mv, "Hodges round trip of {hodges}");
    }
    let _ = parse_move(game, &text);
});
