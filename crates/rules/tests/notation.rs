//! Notation (§11): canonical notation accepts any legal path of a move and rejects bad text with a
//! clear error; Hodges-style notation follows §11.1 (designations, disambiguation only when
//! needed, igui `!`, passes, shots, promotion marks) and round-trips.

mod common;

use common::*;
use koshogi_rules::notation::{
    format_hodges, parse_canonical, parse_hodges, parse_move, NotationError,
};
use koshogi_rules::{Game, Position, RulesOptions};

fn canonical(g: &Game, text: &str) -> Result<String, NotationError> {
    parse_canonical(g.position(), &g.legal_moves(), text).map(|m| m.to_string())
}

fn hodges_of(g: &Game, canonical_text: &str) -> String {
    format_hodges(
        g.position(),
        &g.legal_moves(),
        &find_move(g, canonical_text),
    )
}

fn hodges(g: &Game, text: &str) -> Result<String, NotationError> {
    parse_hodges(g.position(), &g.legal_moves(), text).map(|m| m.to_string())
}

fn start() -> Game {
    Game::new(RulesOptions::default())
}

#[test]
fn canonical_examples_of_section_11_2_at_the_start() {
    let g = start();
    for text in ["10m-10h", "19nx19f+", "19nx19f=", "13s-13r-13s"] {
        assert_eq!(canonical(&g, text).unwrap(), text);
    }
}

#[test]
fn canonical_parsing_accepts_any_legal_path() {
    // A dragon's one-step move written as a two-leg detour.
    let g = g_with_generals(&[("DR", "10j")]);
    assert_eq!(canonical(&g, "10j-11i-10i").unwrap(), "10j-10i");
    // A pass through any free neighbour is the one pass (canonical via the smallest point, 9i).
    assert_eq!(canonical(&g, "10j-11k-10j").unwrap(), "10j-9i-10j");
    // A thunderclap path in another order.
    let mut pieces = vec![("TC", "1s"), ("TB", "10s"), ("p", "1q")];
    for r in ["2s", "2r", "2q", "2p", "2o", "2n"] {
        pieces.push(("SP", r));
    }
    let g = g_with_generals(&pieces);
    assert_eq!(
        canonical(&g, "1s-1rx1q-1r-1s-1r").unwrap(),
        "1s-1rx1q-1p-1q-1r"
    );
    // Two independent Frankish-cannon shots in either order.
    let g = g_with_generals(&[("FW", "10j"), ("p", "11h"), ("p", "12i")]);
    assert_eq!(canonical(&g, "10j-11i*12i*11h").unwrap(), "10j-11i*11h*12i");
}

fn g_with_generals(pieces: &[(&str, &str)]) -> Game {
    game(position_with_generals(pieces, 'b'))
}

#[test]
fn canonical_parsing_explains_what_is_wrong() {
    let g = g_with_generals(&[("WR", "10j"), ("p", "10i"), ("P", "11i"), ("D", "5s")]);
    assert!(matches!(
        canonical(&g, "9j-9i"),
        Err(NotationError::NoPieceAtOrigin { .. })
    ));
    assert!(matches!(
        canonical(&g, "2a-3a"),
        Err(NotationError::NotSideToMove { .. })
    ));
    assert!(matches!(
        canonical(&g, "10j-10i"),
        Err(NotationError::CaptureMarker { expected: 'x', .. })
    ));
    assert!(matches!(
        canonical(&g, "10jx9i"),
        Err(NotationError::CaptureMarker { expected: '-', .. })
    ));
    assert!(matches!(
        canonical(&g, "10j-11i"),
        Err(NotationError::LandsOnFriend { .. })
    ));
    assert!(matches!(
        canonical(&g, "10j-10a"),
        Err(NotationError::Illegal { .. })
    ));
    assert!(matches!(
        canonical(&g, "10j-9i+"),
        Err(NotationError::Illegal { .. })
    ));
    assert!(matches!(
        canonical(&g, "10j~9i"),
        Err(NotationError::Syntax { .. })
    ));
    assert!(matches!(canonical(&g, ""), Err(NotationError::Empty)));
    let message = canonical(&g, "10j-10i").unwrap_err().to_string();
    assert!(
        message.contains("10i") && message.contains("'x'"),
        "{message}"
    );
}

#[test]
fn hodges_designations_and_disambiguation_at_the_start() {
    let g = start();
    assert_eq!(hodges_of(&g, "10m-10h"), "VA-10h");
    assert_eq!(hodges_of(&g, "19nx19f+"), "CUx19f+");
    // Both shields 16n and 14n reach 15m: the origin is needed (the §11.1 example).
    assert_eq!(hodges_of(&g, "16n-15m"), "SP16n-15m");
    assert_eq!(hodges_of(&g, "14n-15m"), "SP14n-15m");
    // Only one shield reaches 17m (16n; 18n is a shield unit).
    assert_eq!(hodges_of(&g, "16n-17m"), "SP-17m");
    // Elephants 19q and 15q both reach 17o.
    assert_eq!(hodges_of(&g, "19q-17o"), "E19q-17o");
    // A pass always names its origin (§11.1 "WR13s-13s").
    assert_eq!(hodges_of(&g, "13s-13r-13s"), "WR13s-13s");
    assert_eq!(hodges_of(&g, "13s-13r"), "WR-13r");
    // Parsing.
    assert_eq!(hodges(&g, "SP16n-15m").unwrap(), "16n-15m");
    assert_eq!(hodges(&g, "WR13s-13s").unwrap(), "13s-13r-13s");
    assert_eq!(hodges(&g, "CUx19f=").unwrap(), "19nx19f=");
    assert_eq!(hodges(&g, "cux19f=").unwrap(), "19nx19f=");
    match hodges(&g, "SP-15m") {
        Err(NotationError::Ambiguous { origins, .. }) => {
            assert!(origins.contains("14n") && origins.contains("16n"))
        }
        other => panic!("expected an ambiguity, got {other:?}"),
    }
    assert!(matches!(
        hodges(&g, "ZZ-10h"),
        Err(NotationError::UnknownPiece { .. })
    ));
    assert!(matches!(
        hodges(&g, "G-10r"),
        Err(NotationError::NoSuchPiece { .. }) | Err(NotationError::Illegal { .. })
    ));
    assert!(hodges(&g, "VA-10g").is_err());
}

#[test]
fn hodges_igui_shots_promotions_and_promoted_pieces() {
    let g = g_with_generals(&[("WR", "10j"), ("p", "10i"), ("p", "10h")]);
    assert_eq!(hodges_of(&g, "10jx10i-10j"), "WR!10i");
    assert_eq!(hodges(&g, "WR!10i").unwrap(), "10jx10i-10j");
    assert_eq!(hodges_of(&g, "10jx10ix10h"), "WRx10ix10h");
    let g = g_with_generals(&[("LB", "10j"), ("p", "11f")]);
    assert_eq!(hodges_of(&g, "10j-11i*11f"), "LB-11i*11f");
    let g = g_with_generals(&[("+Q", "10j"), ("GV", "5j"), ("+PU", "15j"), ("D", "5s")]);
    assert_eq!(hodges_of(&g, "10j-10i"), "+A-10i");
    assert_eq!(hodges_of(&g, "5j-5i"), "+MA-5i");
    assert_eq!(hodges_of(&g, "15j-15i"), "+P-15i");
    assert_eq!(hodges(&g, "+A-10i").unwrap(), "10j-10i");
    assert_eq!(hodges(&g, "GV-5i").unwrap(), "5j-5i");
    // "Q" (an unpromoted quartermaster) is not the promoted aide de camp.
    assert!(hodges(&g, "Q-10i").is_err());
    let g = g_with_generals(&[("P", "10g"), ("D", "5s")]);
    assert_eq!(hodges_of(&g, "10g-10f+"), "P-10f+");
    assert_eq!(hodges_of(&g, "10g-10f="), "P-10f=");
}

#[test]
fn parse_move_accepts_both_notations() {
    let g = start();
    assert_eq!(parse_move(&g, "10m-10h").unwrap().to_string(), "10m-10h");
    assert_eq!(parse_move(&g, " VA-10h ").unwrap().to_string(), "10m-10h");
    assert!(parse_move(&g, "").is_err());
    let _ = Position::startpos();
}
