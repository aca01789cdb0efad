//! koshogi-viewer: pictures of Ko shogi positions.
//!
//! A 361-point board with up to 180 pieces is hard to read as text; [`svg::render_svg`] draws it
//! as a go board with round stones carrying each piece's kanji, and highlights the last move
//! (its path, shots and removed pieces); [`text::board_diagram`] is the plain-text board of
//! `koshogi show` and of the Python package's environments, and [`text::position_report`] that
//! board with the state derived from it, as `koshogi show` and `koshogi play` print it.

pub mod svg;
pub mod text;

pub use svg::{point_centre, render_svg, LastMove, CELL, MARGIN, SIZE};
pub use text::{board_diagram, position_report};
