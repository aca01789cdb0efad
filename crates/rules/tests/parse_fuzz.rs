//! Parsers never panic: KSFEN and move text (both notations) on arbitrary strings, on strings
//! close to the grammar, and on mutations of valid text. Errors are fine; panics are not.

use koshogi_rules::notation::{parse_canonical, parse_canonical_path, parse_hodges};
use koshogi_rules::{Game, Position, RulesOptions, START_KSFEN};
use proptest::prelude::*;

fn mid_game() -> Game {
    // A fixed, legal mid-game position reached by always playing the median legal move.
    let mut game = Game::new(RulesOptions::default());
    for _ in 0..60 {
        let legal = game.legal_moves();
        if legal.is_empty() || game.outcome().is_some() {
            break;
        }
        game.play(legal[legal.len() / 2]);
    }
    game
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn ksfen_parsing_never_panics_on_arbitrary_text(text in "\\PC{0,300}") {
        let _ = Position::from_ksfen(&text);
    }

    #[test]
    fn ksfen_parsing_never_panics_near_the_grammar(text in "([0-9]{1,3}|\\+?[a-zA-Z]{1,3})(,([0-9]{1,3}|\\+?[a-zA-Z]{1,3})){0,25}(/([0-9]{1,3}|\\+?[a-zA-Z]{1,3})(,([0-9]{1,3}|\\+?[a-zA-Z]{1,3})){0,25}){0,20}( [bwx]( -?[0-9]{1,12})?)?") {
        let _ = Position::from_ksfen(&text);
    }

    #[test]
    fn ksfen_parsing_never_panics_on_mutated_start(pos in 0usize..START_KSFEN.len(), replacement in "[\\PC]{0,3}", cut in any::<bool>()) {
        let mut text = START_KSFEN.as_bytes()[..pos].to_vec();
        text.extend_from_slice(replacement.as_bytes());
        if !cut {
            text.extend_from_slice(&START_KSFEN.as_bytes()[(pos + 1).min(START_KSFEN.len())..]);
        }
        let text = String::from_utf8_lossy(&text).to_string();
        if let Ok(p) = Position::from_ksfen(&text) {
            // Whatever is accepted must round-trip.
            let again = Position::from_ksfen(&p.to_ksfen(true)).expect("own output accepted");
            prop_assert_eq!(again.to_ksfen(true), p.to_ksfen(true));
        }
    }

    #[test]
    fn move_parsing_never_panics(text in "\\PC{0,40}") {
        let _ = parse_canonical_path(&text);
        let game = Game::new(RulesOptions::default());
        let legal = game.legal_moves();
        let _ = parse_canonical(game.position(), &legal, &text);
        let _ = parse_hodges(game.position(), &legal, &text);
    }

    #[test]
    fn move_parsing_never_panics_near_the_grammar(text in "\\+?[A-Za-z]{0,3}([0-9]{1,3}[a-zA-Z])?([-xX!*][0-9]{1,3}[a-zA-Z]){0,7}[+=]?") {
        let game = mid_game();
        let legal = game.legal_moves();
        let _ = parse_canonical(game.position(), &legal, &text);
        let _ = parse_hodges(game.position(), &legal, &text);
        let _ = koshogi_rules::notation::parse_move(&game, &text);
    }
}
