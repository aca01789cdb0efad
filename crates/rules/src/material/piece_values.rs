//! Piece values in pawns: the one table of what each [`PieceKind`] is worth, on two scales.
//!
//! Why here: the search's material evaluator (koshogi-mcts), the training targets
//! (koshogi-replay's `targets`) and the fixed baseline opponents (koshogi-baselines' greedy and
//! alpha-beta players) all value pieces, and the rules crate owns [`PieceKind`], so an
//! exhaustive `match` here breaks the build when a type is added rather than falling back to a
//! guess.
//!
//! Why two scales: Ko shogi has no established piece values, so both are documented
//! heuristics, and each is fixed by what was measured with it.
//! * [`search_piece_value`] feeds the search's material value `tanh(balance / 10)`
//!   ([`super::material_value`]): the self-play bootstrap, threat detection and the trainer's
//!   material outlook were tuned and the trained networks were bootstrapped with it. The
//!   commanders are worth 20: the tanh saturates long before, so more would change nothing but
//!   the balance of the other pieces.
//! * [`baseline_piece_value`] is the scale of the greedy and `ab:N` baselines, whose ratings
//!   the ladders and evaluation tables of every run compare against. The commanders are worth
//!   50 so that no exchange of ordinary pieces ever outweighs one.
//!
//! Changing either scale changes a player whose strength has been measured, so they stay two.

use crate::PieceKind;

/// Value of one piece of `kind` on the search's scale (pawn = 1), as a rough mobility table:
/// step movers 1.5–3, short riders and artillery 3–5, long riders 5–9, promoted and lion-like
/// pieces 8–13, and the two commanders (G, GV) 20 since losing one can end the game.
pub const fn search_piece_value(kind: PieceKind) -> f32 {
    use PieceKind::*;
    match kind {
        General | Governor => 20.0,
        Clerk | StaffOfficer | AideDeCamp | Aide | Staff | ChiefOfStaff => 3.0,
        MiddleTroop | Drum | Banner | Sentry | Longbow | HorseSoldier | Vanguard => 3.0,
        Engineer => 2.5,
        SumoWrestler | AdvanceGuard | RearGuard | FrankishCannon | Elephant | Cavalry => 5.0,
        ShieldUnit => 5.0,
        TaoistPriest | SpiritualMonk | Cannon | PatrolUnit | Chariot => 4.0,
        Crossbow => 3.5,
        Pawn => 1.0,
        Shield => 1.5,
        ChariotUnit | TownBrigade | VillageBrigade | PoisonFlame | LongbowCavalry => 6.0,
        CrossbowCavalry => 6.5,
        Quartermaster | Centuria | WarCart => 7.0,
        MasterAtArms | BannerAndDrum | Deputy | Thunderclap | FlagWaver => 8.0,
        ChariotOfTheGods | Commissar => 8.0,
        Millenary | FiveLiFog | HolyLamp | WingedHorse | HeavenlyFortress => 9.0,
        SkywardNet | TigerWing | Warhawk | EarthwardNet => 10.0,
        DragonAscending => 13.0,
    }
}

/// Value of one piece of `kind` on the baselines' scale (pawn = 1).
///
/// Each is roughly the piece's mobility on an open board relative to a pawn, plus a premium for
/// special powers, plus a large premium for the pieces the game is decided by (§10: the
/// general, the governor, and the middle-troop + banner pair). The greedy player only compares
/// immediate gains, so only the ordering and rough ratios matter: it must prefer a general to a
/// chariot to a pawn, and must see that burning its own pieces (poison flame) costs material.
///
/// | group | values |
/// |---|---|
/// | commanders | G 50, GV 50, MA 15, B 10, FL 14 |
/// | drum | D 6, TC 12 |
/// | back-rank steppers | SC 5, PL 5, A 4, SR 4, GH 4, CS 4, EN 3, SN 3 |
/// | their promotions | AM 12, BD 12, Q 9, TN 8, VB 8, DP 9, PF 10 |
/// | sumo wrestler | WR 8 |
/// | priests | TB 8, SM 6, FG 16, HL 14 |
/// | guards and nets | FD 5, R 5, SK 12, EW 12 |
/// | range pieces | DU 12, DR 16, TW 13, FH 8, HK 12, E 7 |
/// | artillery | LB 4, SB 5, C 5, FW 8, LC 8, CC 9, WC 10, CG 14 |
/// | horses | HS 3, CA 6, WH 10 |
/// | pawns, shields, chariots | P 1, PU 5, CM 11, VA 3, SP 1.5, SU 5, HF 10, CH 4, CU 8 |
///
/// A piece is valued by its current type (a promoted aide de camp moving as a quartermaster is
/// worth a quartermaster).
pub fn baseline_piece_value(kind: PieceKind) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (search, baseline) value, in `PieceKind::ALL` order: the measured players depend
    /// on these numbers, so a change must be deliberate (and change this list).
    #[rustfmt::skip]
    const MEASURED: [(f32, f64); PieceKind::COUNT] = [
        (20.0, 50.0), (3.0, 5.0), (3.0, 5.0), (3.0, 4.0), (5.0, 8.0), (3.0, 4.0), (3.0, 4.0),
        (3.0, 4.0), (2.5, 3.0), (4.0, 8.0), (4.0, 6.0), (5.0, 5.0), (3.0, 15.0), (3.0, 6.0),
        (3.0, 10.0), (3.0, 3.0), (9.0, 12.0), (7.0, 9.0), (7.0, 8.0), (5.0, 5.0), (5.0, 8.0),
        (5.0, 7.0), (3.0, 4.0), (3.5, 5.0), (4.0, 5.0), (3.0, 3.0), (5.0, 6.0), (1.0, 1.0),
        (4.0, 5.0), (1.5, 1.5), (5.0, 5.0), (4.0, 4.0), (6.0, 8.0), (3.0, 3.0), (8.0, 12.0),
        (8.0, 12.0), (6.0, 8.0), (6.0, 8.0), (8.0, 9.0), (6.0, 10.0), (9.0, 16.0), (9.0, 14.0),
        (10.0, 12.0), (20.0, 50.0), (8.0, 12.0), (8.0, 14.0), (13.0, 16.0), (10.0, 13.0),
        (10.0, 12.0), (10.0, 12.0), (8.0, 14.0), (6.0, 8.0), (6.5, 9.0), (7.0, 10.0),
        (9.0, 10.0), (8.0, 11.0), (9.0, 10.0),
    ];

    #[test]
    fn the_scales_are_the_measured_ones() {
        for (kind, &(search, baseline)) in PieceKind::ALL.iter().zip(&MEASURED) {
            assert_eq!(search_piece_value(*kind), search, "{kind:?}");
            assert_eq!(baseline_piece_value(*kind), baseline, "{kind:?}");
        }
    }

    #[test]
    fn commanders_dominate_the_baseline_scale_and_promotions_never_lose_value() {
        let decisive = baseline_piece_value(PieceKind::General);
        for kind in PieceKind::ALL {
            if !matches!(kind, PieceKind::General | PieceKind::Governor) {
                assert!(baseline_piece_value(kind) < decisive, "{kind:?}");
            }
            assert!(baseline_piece_value(kind) >= 1.0, "{kind:?}");
        }
        for kind in PieceKind::ALL {
            if let Some(promoted) = kind.promotes_to() {
                assert!(
                    baseline_piece_value(promoted) >= baseline_piece_value(kind),
                    "{kind:?} -> {promoted:?}"
                );
            }
        }
    }
}
