//! The material scale of the greedy baseline (pawn = 1).
//!
//! Why these numbers: Ko shogi has no established piece values, so they are a documented
//! heuristic, not a claim of truth. Each is roughly the piece's mobility on an open board
//! relative to a pawn, plus a premium for special powers, plus a large premium for the pieces
//! the game is decided by (§10: the general, the governor, and the middle-troop + banner pair).
//! The greedy player only compares immediate gains, so only the ordering and rough ratios matter:
//! it must prefer a general to a chariot to a pawn, and must see that burning its own pieces
//! (poison flame) costs material.
//!
//! | group | values |
//! |---|---|
//! | commanders | G 50, GV 50, MA 15, B 10, FL 14 |
//! | drum | D 6, TC 12 |
//! | back-rank steppers | SC 5, PL 5, A 4, SR 4, GH 4, CS 4, EN 3, SN 3 |
//! | their promotions | AM 12, BD 12, Q 9, TN 8, VB 8, DP 9, PF 10 |
//! | sumo wrestler | WR 8 |
//! | priests | TB 8, SM 6, FG 16, HL 14 |
//! | guards and nets | FD 5, R 5, SK 12, EW 12 |
//! | range pieces | DU 12, DR 16, TW 13, FH 8, HK 12, E 7 |
//! | artillery | LB 4, SB 5, C 5, FW 8, LC 8, CC 9, WC 10, CG 14 |
//! | horses | HS 3, CA 6, WH 10 |
//! | pawns, shields, chariots | P 1, PU 5, CM 11, VA 3, SP 1.5, SU 5, HF 10, CH 4, CU 8 |
//!
//! A piece is valued by its current type (a promoted aide de camp moving as a quartermaster is
//! worth a quartermaster).

use koshogi_rules::{Color, PieceKind, Position};

/// Value of one piece of type `kind`, in pawns.
pub fn piece_value(kind: PieceKind) -> f64 {
    use PieceKind::*;
    match kind {
        General | Governor => 50.0,
        MiddleTroop => 15.0,
        Banner => 10.0,
        FlagWaver => 14.0,
        Drum => 6.0,
        Thunderclap => 12.0,
        Clerk | StaffOfficer => 5.0,
        AideDeCamp | Aide | Staff | ChiefOfStaff => 4.0,
        Engineer | Sentry => 3.0,
        MasterAtArms | BannerAndDrum => 12.0,
        Quartermaster | Deputy => 9.0,
        TownBrigade | VillageBrigade => 8.0,
        PoisonFlame => 10.0,
        SumoWrestler => 8.0,
        TaoistPriest => 8.0,
        SpiritualMonk => 6.0,
        FiveLiFog => 16.0,
        HolyLamp => 14.0,
        AdvanceGuard | RearGuard => 5.0,
        SkywardNet | EarthwardNet => 12.0,
        Millenary => 12.0,
        DragonAscending => 16.0,
        TigerWing => 13.0,
        Centuria => 8.0,
        Warhawk => 12.0,
        Elephant => 7.0,
        Longbow => 4.0,
        Crossbow | Cannon => 5.0,
        FrankishCannon => 8.0,
        LongbowCavalry => 8.0,
        CrossbowCavalry => 9.0,
        WarCart => 10.0,
        ChariotOfTheGods => 14.0,
        HorseSoldier => 3.0,
        Cavalry => 6.0,
        WingedHorse => 10.0,
        Pawn => 1.0,
        PatrolUnit => 5.0,
        Commissar => 11.0,
        Vanguard => 3.0,
        Shield => 1.5,
        ShieldUnit => 5.0,
        HeavenlyFortress => 10.0,
        Chariot => 4.0,
        ChariotUnit => 8.0,
    }
}

/// Material of `color` minus material of its opponent.
///
/// Read from the per-type piece counts the position keeps, not from a scan of the 361 points, so
/// that a search can afford it at every node.
pub fn material_balance(position: &Position, color: Color) -> f64 {
    let them = color.opposite();
    PieceKind::ALL
        .iter()
        .map(|&kind| {
            let difference =
                f64::from(position.count(color, kind)) - f64::from(position.count(them, kind));
            difference * piece_value(kind)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_balanced_and_commanders_dominate() {
        let start = Position::startpos();
        assert_eq!(material_balance(&start, Color::Black), 0.0);
        // The decisive pieces outweigh any ordinary piece.
        let decisive = piece_value(PieceKind::General);
        for kind in PieceKind::ALL {
            if !matches!(kind, PieceKind::General | PieceKind::Governor) {
                assert!(piece_value(kind) < decisive, "{kind:?}");
            }
            assert!(piece_value(kind) >= 1.0, "{kind:?}");
        }
        // Every promotion is worth at least as much as the piece it comes from.
        for kind in PieceKind::ALL {
            if let Some(promoted) = kind.promotes_to() {
                assert!(
                    piece_value(promoted) >= piece_value(kind),
                    "{kind:?} -> {promoted:?}"
                );
            }
        }
    }

    #[test]
    fn the_balance_from_counts_equals_a_scan_of_the_board() {
        // A lopsided position after the start position loses some pieces of each side.
        let mut position = Position::startpos();
        let squares: Vec<_> = position.pieces().map(|(sq, _)| sq).collect();
        for sq in squares.iter().step_by(7) {
            position.set_piece(*sq, None);
        }
        for color in Color::ALL {
            let scanned: f64 = position
                .pieces()
                .map(|(_, piece)| {
                    let value = piece_value(piece.kind);
                    if piece.color == color {
                        value
                    } else {
                        -value
                    }
                })
                .sum();
            assert_eq!(material_balance(&position, color), scanned);
            assert_ne!(scanned, 0.0);
        }
    }
}
