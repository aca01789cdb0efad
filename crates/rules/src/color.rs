//! The two sides. Black (sente) moves first and sits at ranks m–s.

use std::fmt;

/// A side of the game.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Color {
    Black,
    White,
}

impl Color {
    /// Both sides, Black first (matches [`Color::index`]).
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The other side.
    pub fn opposite(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The KSFEN side letter (`b` / `w`).
    pub fn ksfen_char(self) -> char {
        match self {
            Color::Black => 'b',
            Color::White => 'w',
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    fn not(self) -> Color {
        self.opposite()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "black",
            Color::White => "white",
        })
    }
}

/// A side named as [`Color`]'s `Display` writes it (`black`, `white`), or by its KSFEN letter.
impl std::str::FromStr for Color {
    type Err = String;

    fn from_str(text: &str) -> Result<Color, String> {
        match text {
            "black" | "b" => Ok(Color::Black),
            "white" | "w" => Ok(Color::White),
            _ => Err(format!("`{text}` is not a side (black or white)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_side_reads_back_from_its_name_and_its_letter() {
        for color in Color::ALL {
            assert_eq!(color.to_string().parse::<Color>(), Ok(color));
            assert_eq!(color.ksfen_char().to_string().parse::<Color>(), Ok(color));
        }
        assert!("sente".parse::<Color>().unwrap_err().contains("`sente`"));
    }
}
