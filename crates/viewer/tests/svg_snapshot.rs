//! SVG snapshots: the start position, and a position after a capturing move with its highlight.
//! Set `UPDATE_SNAPSHOTS=1` to rewrite the files after an intended change of the drawing.

use std::path::PathBuf;

use koshogi_rules::{Position, RulesOptions};
use koshogi_viewer::{render_svg, LastMove};

fn check_snapshot(name: &str, svg: &str) {
    let path = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()),
    )
    .join("tests/snapshots")
    .join(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, svg).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with UPDATE_SNAPSHOTS=1 to create it)",
            path.display()
        )
    });
    assert!(
        expected == svg,
        "{} differs from the rendering (UPDATE_SNAPSHOTS=1 rewrites it)",
        path.display()
    );
}

#[test]
fn start_position_snapshot_has_every_stone_and_coordinate() {
    let svg = render_svg(&Position::startpos(), None);
    assert_eq!(svg.matches("<circle").count(), 180, "90 pieces a side");
    assert_eq!(
        svg.matches(r#"rotate(180"#).count(),
        90,
        "White's pieces face White"
    );
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(
        svg.contains(">将<") && svg.contains(">佛狼機<"),
        "kanji of the general and the Frankish cannon"
    );
    check_snapshot("startpos.svg", &svg);
}

#[test]
fn a_capture_is_highlighted_with_its_path_and_a_cross() {
    // Chariot units face each other on the empty file 19 (reference §3 (ii)): 19n takes 19f,
    // entering its zone and declining to promote (`=`, §11.2).
    let before = Position::startpos();
    let options = RulesOptions::default();
    let mv = before
        .legal_moves(&options)
        .into_iter()
        .find(|m| m.to_string() == "19nx19f=")
        .expect("the chariot unit can capture on move 1");
    let mut after = before.clone();
    let _undo = after.play(&mv, &options);
    let svg = render_svg(
        &after,
        Some(LastMove {
            before: &before,
            mv,
        }),
    );
    assert_eq!(svg.matches("<polyline").count(), 1);
    assert_eq!(
        svg.matches(r##"fill="none" stroke="#d01010""##).count(),
        1,
        "one capture ring"
    );
    assert_eq!(
        svg.matches("<path d=\"M").count(),
        0,
        "no point was left empty by a removal"
    );
    assert_eq!(svg.matches("<circle").count(), 179 + 1);
    check_snapshot("capture.svg", &svg);
}
