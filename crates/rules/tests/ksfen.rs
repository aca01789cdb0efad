//! KSFEN (§14.1): the start position text, exact round trips, and rejection of every kind of
//! malformed line with a message that names the rank and the token.

mod common;

use common::*;
use koshogi_rules::{Color, Position, START_KSFEN};

#[test]
fn start_position_text_is_the_one_of_section_14_1() {
    assert_eq!(Position::startpos().to_ksfen(true), START_KSFEN);
    assert_eq!(
        Position::from_ksfen(START_KSFEN).unwrap().to_ksfen(true),
        START_KSFEN
    );
    assert!(START_KSFEN.ends_with(" b 1"));
    // §3.1: White's army is Black's rotated by 180°.
    let p = Position::startpos();
    for (sq, piece) in p.pieces() {
        let twin = p.piece_at(sq.rotate()).expect("rotated point occupied");
        assert_eq!(
            (twin.kind, twin.color),
            (piece.kind, piece.color.opposite()),
            "{sq}"
        );
    }
    assert_eq!(p.pieces().count(), 180);
}

#[test]
fn hand_built_positions_round_trip() {
    let text = ksfen(
        &[
            ("G", "18s"),
            ("g", "2a"),
            ("+Q", "10j"),
            ("+cu", "3c"),
            ("DR", "5e"),
            ("fg", "7g"),
        ],
        'w',
    );
    let p = Position::from_ksfen(&text).unwrap();
    assert_eq!(p.to_ksfen(false), text);
    assert_eq!(p.side_to_move(), Color::White);
    let q = p.piece_at(sq("10j")).unwrap();
    assert!(q.promoted && q.kind.code() == "Q");
    let with_number = format!("{text} 7");
    assert_eq!(
        Position::from_ksfen(&with_number).unwrap().to_ksfen(true),
        with_number
    );
}

#[test]
fn malformed_lines_are_rejected_with_rank_and_token() {
    let good = ksfen(&[("G", "18s"), ("g", "2a")], 'b');
    let cases: Vec<(String, &str)> = vec![
        (good.replacen("17,g,1", "17,zz,1", 1), "zz"), // unknown code
        (good.replacen("17,g,1", "16,g,1", 1), "a"),   // rank a covers 18 points
        (good.replacen("17,g,1", "18,g,1", 1), "a"),   // 20 points
        (good.replacen("17,g,1", "10,7,g,1", 1), "7"), // two numbers in a row
        (good.replacen("17,g,1", "17,+g,1", 1), "+g"), // '+' on a type that cannot carry it
        (good.replacen("17,g,1", "17,+am,1", 1), "+am"), // promoted-only types take no '+'
        (good.replace(" b", " x"), "x"),               // side letter
        (good.replacen("/19", "", 1), "19"),           // 18 ranks
        (format!("{good} 0"), "0"),                    // move numbers start at 1
        (format!("{good} 1 extra"), "extra"),          // a fourth field
    ];
    for (text, token) in cases {
        match Position::from_ksfen(&text) {
            Ok(_) => panic!("accepted malformed KSFEN {text}"),
            Err(e) => {
                let message = e.to_string();
                assert!(
                    message.contains(token),
                    "message {message:?} should name {token:?}"
                );
            }
        }
    }
    for bad in ["", " ", "b", "19/19 b", "startpos"] {
        assert!(Position::from_ksfen(bad).is_err(), "{bad:?}");
    }
}
