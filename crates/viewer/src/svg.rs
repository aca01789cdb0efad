//! SVG rendering of a position: the 19×19 grid with coordinates (files 19…1 across, ranks a…s
//! down, as Black sees the board), black and white stones with the piece's kanji (White's
//! written upside down, facing its owner), promoted pieces' names in red as in the rules
//! reference, and the last move: origin, path through every leg, shots, and the points where
//! pieces were removed (captures, shots, burns).

use std::fmt::Write as _;

use koshogi_rules::{Color, Move, Position, Square, BOARD_SIZE};

/// Distance between neighbouring points, in picture units (public so that clients such as the
/// web viewer can map a click on the picture to a point).
pub const CELL: f64 = 40.0;
/// Distance from the picture's edge to the outermost lines (where the coordinates are written).
pub const MARGIN: f64 = 44.0;
const STONE_RADIUS: f64 = 17.5;
/// Width and height of the (square) picture: its `viewBox` is `0 0 SIZE SIZE`.
pub const SIZE: f64 = MARGIN * 2.0 + CELL * 18.0;

/// The move that led to the position, with the position it was played from (to tell which
/// points lost a piece).
#[derive(Clone, Copy, Debug)]
pub struct LastMove<'a> {
    pub before: &'a Position,
    pub mv: Move,
}

/// Centre of a point on the picture: file 19 at the left, rank a at the top.
pub fn point_centre(square: Square) -> (f64, f64) {
    centre(square)
}

fn centre(square: Square) -> (f64, f64) {
    let x = MARGIN + CELL * f64::from(BOARD_SIZE - square.file());
    let y = MARGIN + CELL * f64::from(square.rank() - 1);
    (x, y)
}

/// The whole picture as an SVG document.
pub fn render_svg(position: &Position, last: Option<LastMove<'_>>) -> String {
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {SIZE} {SIZE}" width="{SIZE}" height="{SIZE}" font-family="'Noto Sans CJK JP','Noto Serif CJK JP',serif">"#
    );
    let _ = writeln!(
        svg,
        r##"<rect width="{SIZE}" height="{SIZE}" fill="#dcb35c"/>"##
    );
    grid(&mut svg);
    if let Some(last) = last {
        highlight(&mut svg, last);
    }
    for index in 0..Square::COUNT {
        let square = Square::from_index(index).expect("index below COUNT");
        if let Some(piece) = position.piece_at(square) {
            stone(
                &mut svg,
                square,
                piece.color,
                piece.kind.kanji(),
                piece.promoted,
            );
        }
    }
    if let Some(last) = last {
        mark_removed(&mut svg, position, last);
    }
    svg.push_str("</svg>\n");
    svg
}

fn grid(svg: &mut String) {
    let (first, last) = (MARGIN, MARGIN + CELL * f64::from(BOARD_SIZE - 1));
    for i in 0..BOARD_SIZE {
        let offset = MARGIN + CELL * f64::from(i);
        let _ = writeln!(
            svg,
            r##"<line x1="{first}" y1="{offset}" x2="{last}" y2="{offset}" stroke="#333" stroke-width="1"/>"##
        );
        let _ = writeln!(
            svg,
            r##"<line x1="{offset}" y1="{first}" x2="{offset}" y2="{last}" stroke="#333" stroke-width="1"/>"##
        );
        let file = BOARD_SIZE - i;
        let rank = char::from(b'a' + i);
        for y in [MARGIN - 26.0, last + 32.0] {
            let _ = writeln!(
                svg,
                r##"<text x="{offset}" y="{y}" font-size="13" text-anchor="middle" fill="#222">{file}</text>"##
            );
        }
        for x in [MARGIN - 30.0, last + 30.0] {
            let _ = writeln!(
                svg,
                r##"<text x="{x}" y="{}" font-size="13" text-anchor="middle" fill="#222">{rank}</text>"##,
                offset + 4.5
            );
        }
    }
}

fn stone(svg: &mut String, square: Square, color: Color, kanji: &str, promoted: bool) {
    let (x, y) = centre(square);
    let (fill, stroke, ink) = match color {
        Color::Black => ("#1b1b1b", "#000", "#f4f4f4"),
        Color::White => ("#fafafa", "#555", "#111"),
    };
    let ink = if promoted { "#d01010" } else { ink };
    let _ = writeln!(
        svg,
        r#"<circle cx="{x}" cy="{y}" r="{STONE_RADIUS}" fill="{fill}" stroke="{stroke}" stroke-width="1.2"/>"#
    );
    // Up to three characters: one line, smaller for longer names.
    let chars = kanji.chars().count().max(1);
    let size = match chars {
        1 => 18.0,
        2 => 13.0,
        _ => 10.0,
    };
    let rotate = match color {
        Color::Black => String::new(),
        Color::White => format!(r#" transform="rotate(180 {x} {y})""#),
    };
    let _ = writeln!(
        svg,
        r#"<text x="{x}" y="{}" font-size="{size}" text-anchor="middle" fill="{ink}"{rotate}>{kanji}</text>"#,
        y + size * 0.36
    );
}

/// Origin square and the path through every leg, and shot lines (under the stones).
fn highlight(svg: &mut String, last: LastMove<'_>) {
    let (ox, oy) = centre(last.mv.origin());
    let _ = writeln!(
        svg,
        r##"<rect x="{}" y="{}" width="{CELL}" height="{CELL}" fill="#7fb3ff" fill-opacity="0.35"/>"##,
        ox - CELL / 2.0,
        oy - CELL / 2.0
    );
    let mut points = format!("{ox},{oy}");
    for &leg in last.mv.legs() {
        let (x, y) = centre(leg);
        let _ = write!(points, " {x},{y}");
    }
    let _ = writeln!(
        svg,
        r##"<polyline points="{points}" fill="none" stroke="#1f5fd0" stroke-width="4" stroke-opacity="0.7" stroke-linejoin="round"/>"##
    );
    let (dx, dy) = centre(last.mv.destination());
    for &shot in last.mv.shots() {
        let (x, y) = centre(shot);
        let _ = writeln!(
            svg,
            r##"<line x1="{dx}" y1="{dy}" x2="{x}" y2="{y}" stroke="#d01010" stroke-width="2.5" stroke-dasharray="6 4"/>"##
        );
    }
}

/// Marks every point where a piece was removed: a cross on a point left empty (shots, burns,
/// igui), a red ring around the piece now standing where it captured.
fn mark_removed(svg: &mut String, position: &Position, last: LastMove<'_>) {
    for index in 0..Square::COUNT {
        let square = Square::from_index(index).expect("index below COUNT");
        let before = last.before.piece_at(square);
        let after = position.piece_at(square);
        let (x, y) = centre(square);
        match (before, after) {
            (Some(_), None) if square != last.mv.origin() => {
                let d = STONE_RADIUS * 0.8;
                let _ = writeln!(
                    svg,
                    r##"<path d="M{} {} L{} {} M{} {} L{} {}" stroke="#d01010" stroke-width="3"/>"##,
                    x - d,
                    y - d,
                    x + d,
                    y + d,
                    x - d,
                    y + d,
                    x + d,
                    y - d
                );
            }
            (Some(b), Some(a)) if b.color != a.color => {
                let _ = writeln!(
                    svg,
                    r##"<circle cx="{x}" cy="{y}" r="{}" fill="none" stroke="#d01010" stroke-width="3"/>"##,
                    STONE_RADIUS + 2.5
                );
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corner_points_sit_on_the_margins_and_stones_are_drawn_at_their_centres() {
        let top_left = Square::new(19, 1).unwrap();
        let bottom_right = Square::new(1, 19).unwrap();
        assert_eq!(point_centre(top_left), (MARGIN, MARGIN));
        assert_eq!(point_centre(bottom_right), (SIZE - MARGIN, SIZE - MARGIN));
        let position = Position::startpos();
        let svg = render_svg(&position, None);
        assert!(svg.contains(&format!(r#"viewBox="0 0 {SIZE} {SIZE}""#)));
        let (square, _) = position.pieces().next().unwrap();
        let (x, y) = point_centre(square);
        assert!(
            svg.contains(&format!(r#"<circle cx="{x}" cy="{y}""#)),
            "{square}"
        );
    }
}
