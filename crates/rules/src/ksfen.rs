//! KSFEN (§14.1): the one-line position text `<board> <side> [<move number>]`.
//! Parsing is strict: anything off the grammar is an error naming the rank and the token.

use crate::{Color, Piece, PieceKind, Position, Square, BOARD_SIZE};

/// Why a KSFEN line was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KsfenError {
    #[error("KSFEN must have 2 or 3 fields separated by single spaces (board, side, optional move number), found {0}")]
    FieldCount(usize),
    #[error("unexpected field {0:?} after the move number")]
    ExtraField(String),
    #[error("KSFEN board must have 19 ranks separated by '/', found {0}")]
    RankCount(usize),
    #[error("rank {rank}: invalid token {token:?}: {reason}")]
    Token {
        rank: char,
        token: String,
        reason: &'static str,
    },
    #[error("rank {rank}: tokens cover {points} points, expected 19 (last token {token:?})")]
    RankWidth {
        rank: char,
        points: usize,
        token: String,
    },
    #[error("invalid side to move {0:?}: expected 'b' or 'w'")]
    Side(String),
    #[error("invalid move number {0:?}: expected a positive integer")]
    MoveNumber(String),
}

fn parse_piece(token: &str) -> Result<Piece, &'static str> {
    let (promoted_flag, code) = match token.strip_prefix('+') {
        Some(rest) => (true, rest),
        None => (false, token),
    };
    if code.is_empty() {
        return Err("empty piece code");
    }
    let color = if code.bytes().all(|b| b.is_ascii_uppercase()) {
        Color::Black
    } else if code.bytes().all(|b| b.is_ascii_lowercase()) {
        Color::White
    } else {
        return Err("a piece code is all upper case (Black) or all lower case (White)");
    };
    let kind = PieceKind::from_code(code).ok_or("unknown piece code")?;
    if promoted_flag && !kind.can_carry_promoted_flag() {
        return Err("'+' is allowed only on Q, FH, CA, PU, SU, CU, DU");
    }
    Ok(Piece {
        color,
        kind,
        promoted: promoted_flag || kind.is_promoted_only(),
    })
}

impl Position {
    /// Parses a KSFEN line (§14.1). The move number defaults to 1.
    pub fn from_ksfen(text: &str) -> Result<Position, KsfenError> {
        let fields: Vec<&str> = text.trim_end_matches(['\n', '\r']).split(' ').collect();
        if fields.len() > 3 {
            return Err(KsfenError::ExtraField(fields[3..].join(" ")));
        }
        if fields.len() < 2 {
            return Err(KsfenError::FieldCount(fields.len()));
        }
        let side = match fields[1] {
            "b" => Color::Black,
            "w" => Color::White,
            other => return Err(KsfenError::Side(other.to_string())),
        };
        let move_number: u32 = match fields.get(2) {
            None => 1,
            Some(s) => {
                let ok =
                    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && !s.starts_with('0');
                let n = if ok { s.parse().ok() } else { None };
                match n {
                    Some(n) if (1..u32::MAX / 2).contains(&n) => n,
                    _ => return Err(KsfenError::MoveNumber(s.to_string())),
                }
            }
        };
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != usize::from(BOARD_SIZE) {
            return Err(KsfenError::RankCount(ranks.len()));
        }
        let mut pos = Position::empty(side);
        for (r, rank_text) in ranks.iter().enumerate() {
            let rank_char = (b'a' + r as u8) as char;
            let mut file = i32::from(BOARD_SIZE); // next file to fill, counting down
            let mut previous_was_number = false;
            let mut last_token = "";
            for token in rank_text.split(',') {
                last_token = token;
                let bad = |reason| KsfenError::Token {
                    rank: rank_char,
                    token: token.to_string(),
                    reason,
                };
                if token.is_empty() {
                    return Err(bad("empty token"));
                }
                if token.bytes().all(|b| b.is_ascii_digit()) {
                    if previous_was_number {
                        return Err(bad("two numbers may not stand next to each other"));
                    }
                    if token.starts_with('0') {
                        return Err(bad(
                            "an empty-point count is a positive integer without leading zeros",
                        ));
                    }
                    let n: i32 = token.parse().map_err(|_| bad("count too large"))?;
                    if n > file {
                        return Err(KsfenError::RankWidth {
                            rank: rank_char,
                            points: (i32::from(BOARD_SIZE) - file + n) as usize,
                            token: token.to_string(),
                        });
                    }
                    file -= n;
                    previous_was_number = true;
                } else {
                    let piece = parse_piece(token).map_err(bad)?;
                    if file < 1 {
                        return Err(KsfenError::RankWidth {
                            rank: rank_char,
                            points: usize::from(BOARD_SIZE) + 1,
                            token: token.to_string(),
                        });
                    }
                    let sq = Square::new(file as u8, r as u8 + 1).expect("file and rank in range");
                    pos.set_piece(sq, Some(piece));
                    file -= 1;
                    previous_was_number = false;
                }
            }
            if file != 0 {
                return Err(KsfenError::RankWidth {
                    rank: rank_char,
                    points: (i32::from(BOARD_SIZE) - file) as usize,
                    token: last_token.to_string(),
                });
            }
        }
        pos.ply = (move_number - 1) * 2 + side.index() as u32;
        Ok(pos)
    }

    /// Formats the position as KSFEN; the move number is `ply / 2 + 1`.
    pub fn to_ksfen(&self, with_move_number: bool) -> String {
        let mut out = String::with_capacity(400);
        for rank in 1..=19u8 {
            if rank > 1 {
                out.push('/');
            }
            let mut empty = 0;
            let mut first = true;
            let mut push = |out: &mut String, tok: &str| {
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str(tok);
            };
            for file in (1..=19u8).rev() {
                match self.piece_at(Square::new(file, rank).expect("on board")) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            push(&mut out, &empty.to_string());
                            empty = 0;
                        }
                        push(&mut out, &p.ksfen_token());
                    }
                }
            }
            if empty > 0 {
                push(&mut out, &empty.to_string());
            }
        }
        out.push(' ');
        out.push(self.side.ksfen_char());
        if with_move_number {
            out.push(' ');
            out.push_str(&(self.ply / 2 + 1).to_string());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::START_KSFEN;

    /// §3.4, transcribed independently of the KSFEN string.
    const SECTION_3_4: [(&str, &str); 14] = [
        ("a", "19 FD, 18 TB, 17 EN, 16 CS, 15 GH, 14 SR, 13 WR, 12 A, 11 PL, 10 G, 9 SC, 8 A, 7 WR, 6 SR, 5 GH, 4 CS, 3 EN, 2 SM, 1 FD"),
        ("b", "19 R, 18 FH, 16 Q, 14 DU, 12 SN, 11 B, 10 MA, 9 D, 8 SN, 6 DU, 4 Q, 2 FH, 1 R"),
        ("c", "19 E, 18 C, 17 SB, 16 LB, 15 E, 14 C, 13 SB, 12 LB, 11 E, 10 FW, 9 E, 8 LB, 7 SB, 6 C, 5 E, 4 LB, 3 SB, 2 C, 1 E"),
        ("d", "19 CA, 17 HS, 15 HS, 13 HS, 11 HS, 9 HS, 7 HS, 5 HS, 3 HS, 1 CA"),
        ("e", "18 PU, 16 P, 14 P, 12 P, 10 PU, 8 P, 6 P, 4 P, 2 PU"),
        ("f", "19 CU, 18 SU, 17 CH, 16 SP, 15 CH, 14 SP, 13 CH, 12 SP, 11 CH, 10 SU, 9 CH, 8 SP, 7 CH, 6 SP, 5 CH, 4 SP, 3 CH, 2 SU, 1 CU"),
        ("g", "10 VA"),
        ("m", "10 VA"),
        ("n", "19 CU, 18 SU, 17 CH, 16 SP, 15 CH, 14 SP, 13 CH, 12 SP, 11 CH, 10 SU, 9 CH, 8 SP, 7 CH, 6 SP, 5 CH, 4 SP, 3 CH, 2 SU, 1 CU"),
        ("o", "18 PU, 16 P, 14 P, 12 P, 10 PU, 8 P, 6 P, 4 P, 2 PU"),
        ("p", "19 CA, 17 HS, 15 HS, 13 HS, 11 HS, 9 HS, 7 HS, 5 HS, 3 HS, 1 CA"),
        ("q", "19 E, 18 C, 17 SB, 16 LB, 15 E, 14 C, 13 SB, 12 LB, 11 E, 10 FW, 9 E, 8 LB, 7 SB, 6 C, 5 E, 4 LB, 3 SB, 2 C, 1 E"),
        ("r", "19 R, 18 FH, 16 Q, 14 DU, 12 SN, 11 D, 10 MA, 9 B, 8 SN, 6 DU, 4 Q, 2 FH, 1 R"),
        ("s", "19 FD, 18 SM, 17 EN, 16 CS, 15 GH, 14 SR, 13 WR, 12 A, 11 SC, 10 G, 9 PL, 8 A, 7 WR, 6 SR, 5 GH, 4 CS, 3 EN, 2 TB, 1 FD"),
    ];

    #[test]
    fn start_position_matches_the_explicit_list_of_section_3_4() {
        let pos = Position::startpos();
        let mut expected = Position::empty(Color::Black);
        for (rank, list) in SECTION_3_4 {
            let rank_no = rank.as_bytes()[0] - b'a' + 1;
            let color = if rank_no <= 7 {
                Color::White
            } else {
                Color::Black
            };
            for item in list.split(", ") {
                let (file, code) = item.split_once(' ').unwrap();
                let sq = Square::new(file.parse().unwrap(), rank_no).unwrap();
                expected.set_piece(
                    sq,
                    Some(Piece::new(color, PieceKind::from_code(code).unwrap())),
                );
            }
        }
        assert_eq!(pos, expected);
        assert_eq!(pos.piece_count(Color::Black), 90);
        assert_eq!(pos.piece_count(Color::White), 90);
        // White's army is Black's rotated by 180°.
        for (sq, p) in pos.pieces() {
            let q = pos.piece_at(sq.rotate()).unwrap();
            assert_eq!((q.kind, q.color), (p.kind, p.color.opposite()));
        }
        // §3 structural fact (i): priests and monks on even file, odd rank.
        for (sq, p) in pos.pieces() {
            if matches!(p.kind, PieceKind::TaoistPriest | PieceKind::SpiritualMonk) {
                assert!(sq.file() % 2 == 0 && sq.rank() % 2 == 1);
            }
        }
    }

    #[test]
    fn start_ksfen_round_trips_exactly() {
        let pos = Position::from_ksfen(START_KSFEN).unwrap();
        assert_eq!(pos.to_ksfen(true), START_KSFEN);
        assert_eq!(pos.ply(), 0);
        assert_eq!(pos.hash(), pos.compute_hash());
    }

    #[test]
    fn promoted_flag_and_move_number_round_trip() {
        let text = "+Q,GV,17/19/19/19/19/19/19/19/19/19/19/19/19/19/19/19/19/19/18,+cu w 12";
        let pos = Position::from_ksfen(text).unwrap();
        assert_eq!(pos.to_ksfen(true), text);
        assert_eq!(pos.ply(), 23);
        let q = pos.piece_at("19a".parse().unwrap()).unwrap();
        assert!(q.promoted && q.kind == PieceKind::Quartermaster && q.color == Color::Black);
        let cu = pos.piece_at("1s".parse().unwrap()).unwrap();
        assert!(cu.promoted && cu.color == Color::White);
        assert_eq!(pos.to_ksfen(false), text.trim_end_matches(" 12"));
    }

    #[test]
    fn malformed_lines_name_rank_and_token() {
        let good_rest = "/19".repeat(18);
        let cases = [
            (format!("XX,18{good_rest} b"), "rank a", "XX"),
            (format!("+G,18{good_rest} b"), "rank a", "+G"),
            (format!("Sc,18{good_rest} b"), "rank a", "Sc"),
            (format!("19/9,9{} b", "/19".repeat(17)), "rank b", "9"),
            (format!("19/19/20{} b", "/19".repeat(16)), "rank c", "20"),
            (format!("18{good_rest} b"), "rank a", "18"),
            (format!("0,19{good_rest} b"), "rank a", "0"),
            (format!("19,,{good_rest} b"), "rank a", ""),
        ];
        for (text, rank, token) in cases {
            let err = Position::from_ksfen(&text).unwrap_err().to_string();
            assert!(
                err.contains(rank) && err.contains(&format!("{token:?}")),
                "{text}: {err}"
            );
        }
        let board = format!("19{good_rest}");
        assert!(matches!(
            Position::from_ksfen(&format!("{board} x")),
            Err(KsfenError::Side(_))
        ));
        assert!(matches!(
            Position::from_ksfen(&format!("{board} b 0")),
            Err(KsfenError::MoveNumber(_))
        ));
        assert!(Position::from_ksfen(&format!("{board}  b")).is_err());
        assert!(matches!(
            Position::from_ksfen(&format!("{board} b 1 2")),
            Err(KsfenError::ExtraField(_))
        ));
        assert!(matches!(
            Position::from_ksfen("19/19 b"),
            Err(KsfenError::RankCount(2))
        ));
        assert!(Position::from_ksfen("").is_err());
    }
}

#[cfg(test)]
mod crowd_tests {
    use super::*;

    #[test]
    fn a_board_full_of_one_piece_type_is_accepted() {
        let rank = vec!["P"; 19].join(",");
        let text = format!("{} b", vec![rank.as_str(); 19].join("/"));
        let pos = Position::from_ksfen(&text).unwrap();
        assert_eq!(pos.count(Color::Black, PieceKind::Pawn), 361);
        assert_eq!(pos.to_ksfen(false), text);
        // Black has no general: no legal moves (§14.2)
        assert!(pos.legal_moves(&crate::RulesOptions::default()).is_empty());
    }
}
