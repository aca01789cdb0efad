//! Test positions for the baselines, set up piece by piece as the rules' own tests do.

use koshogi_rules::{Color, Game, Piece, PieceKind, Position, RulesOptions, Square};

/// A game from a position holding exactly `pieces`, under the default rules.
pub(crate) fn game(black_to_move: bool, pieces: &[(&str, Color, PieceKind)]) -> Game {
    let mut position = Position::empty(if black_to_move {
        Color::Black
    } else {
        Color::White
    });
    for &(square, color, kind) in pieces {
        position.set_piece(
            square.parse::<Square>().unwrap(),
            Some(Piece::new(color, kind)),
        );
    }
    Game::from_position(position, RulesOptions::default())
}

/// Black to move with its pawn on 10i attacked down the file by White's chariot on 10e, and its
/// aide on `aide` (out of every white piece's reach on the squares the tests use): the threats'
/// and the evasion ordering's position.
pub(crate) fn pawn_under_a_chariot(aide: &str) -> Game {
    game(
        true,
        &[
            ("19s", Color::Black, PieceKind::General),
            ("1a", Color::White, PieceKind::General),
            ("10e", Color::White, PieceKind::Chariot),
            ("10i", Color::Black, PieceKind::Pawn),
            (aide, Color::Black, PieceKind::Aide),
        ],
    )
}

/// Black's aide (steps forward, back, sideways and diagonally forward) can take a white pawn on
/// 10i, which a white aide de camp on 10h retakes: +1 then −4 (or more, if the aide promotes on
/// capturing), so a search that looks two plies ahead declines it. The generals sit in far
/// corners. Shared by the `ab:N` and the classical engine's tests.
pub(crate) fn poisoned_pawn() -> Game {
    game(
        true,
        &[
            ("19s", Color::Black, PieceKind::General),
            ("1a", Color::White, PieceKind::General),
            ("10j", Color::Black, PieceKind::Aide),
            ("10i", Color::White, PieceKind::Pawn),
            ("10h", Color::White, PieceKind::AideDeCamp),
        ],
    )
}

/// Black's chariot unit on 5s can run up file 5 to White's general on 5c, White's only
/// commanding piece (taking it wins at once), or step left onto a white dragon ascending on 6s.
/// Shared by greedy's and `ab:N`'s tests.
pub(crate) fn chariot_unit_takes_the_last_general() -> Game {
    game(
        true,
        &[
            ("10s", Color::Black, PieceKind::General),
            ("5s", Color::Black, PieceKind::ChariotUnit),
            ("5c", Color::White, PieceKind::General),
            ("6s", Color::White, PieceKind::DragonAscending),
        ],
    )
}

/// Two white elephants on 7j and 13j, six points apart on rank j, and Black's chariot on
/// `chariot`. A chariot moves 1–5 points orthogonally and an elephant ranges diagonally, so from
/// 10n the chariot can move to 10j, three points from each elephant, where neither can take it:
/// a fork that wins one of them, as White can move only one away. The threats' and the hanging
/// stand-pat's position.
pub(crate) fn chariot_and_two_elephants(chariot: &str, black_to_move: bool) -> Game {
    game(
        black_to_move,
        &[
            ("19s", Color::Black, PieceKind::General),
            ("1a", Color::White, PieceKind::General),
            (chariot, Color::Black, PieceKind::Chariot),
            ("7j", Color::White, PieceKind::Elephant),
            ("13j", Color::White, PieceKind::Elephant),
        ],
    )
}
