//! Per-type movement descriptors (§5, table §5.12a) as padded-board offsets, one table per side.
//! Directions are owner-relative (§1.4): White's offsets are Black's negated.

use crate::mailbox::offset;
use crate::{Color, PieceKind};
use std::sync::LazyLock;

/// Δrank of one step forward for `color` (Black moves towards rank a).
#[inline]
pub(crate) const fn forward(color: Color) -> i32 {
    match color {
        Color::Black => -1,
        Color::White => 1,
    }
}

/// What the mover may capture by displacement (§7.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Displace {
    Any,
    /// TB, SM, FG, HL: only enemy priest-family pieces.
    PriestFamilyOnly,
    /// CH, CU, WC, CG: anything but a heavenly fortress.
    NotFortress,
}

/// The kind of shot a shooter makes after its move (§4.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shot {
    None,
    /// Bows: nearest piece within range, bow immunities.
    Bow(u8),
    /// C, WC: over screens, blocked by SU/HF, range 5.
    Cannon,
    /// FW, CG: up to two direct shots, range 7.
    Frankish,
    /// TB, SM: one adjacent shot after the jump.
    Adjacent,
}

impl Shot {
    /// The line distance a shot of this kind reaches (§4.7; an adjacent shot 1, none 0), one
    /// more with `shot_range = free_points` (AMB-22: that many free points, then the target).
    pub(crate) fn range(self, free_points: bool) -> i32 {
        let base = match self {
            Shot::None => return 0,
            Shot::Adjacent => return 1,
            Shot::Bow(range) => i32::from(range),
            Shot::Cannon => 5,
            Shot::Frankish => 7,
        };
        base + i32::from(free_points)
    }
}

/// Movements that need their own enumeration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Special {
    None,
    /// P: W steps, forward only while the drum lives (§8.7).
    Pawn,
    /// CA: N, N + same-major N, N + return (§5.10).
    Cavalry,
    /// TC: five W steps (§5.2).
    Thunderclap,
    /// FL: 1–5 W steps in one line (§5.2).
    FlagWaver,
    /// FG, HL: (jump ⇒ adjacent shot)^2 (§5.6).
    PriestDouble,
}

/// Movement of one piece type for one side.
#[derive(Clone, Debug)]
pub(crate) struct KindMoves {
    pub steps: Vec<i32>,
    pub slides: Vec<(i32, u8)>,
    pub jumps: Vec<i32>,
    /// Atoms of a two-leg lion move, sorted ascending (ascending landing points, §11.2).
    pub lion: Vec<i32>,
    pub special: Special,
    pub shot: Shot,
    pub displace: Displace,
}

const F: (i32, i32) = (0, -1);
const B: (i32, i32) = (0, 1);
const L: (i32, i32) = (1, 0);
const R: (i32, i32) = (-1, 0);
const FL: (i32, i32) = (1, -1);
const FR: (i32, i32) = (-1, -1);
const BL: (i32, i32) = (1, 1);
const BR: (i32, i32) = (-1, 1);
const ORTH: [(i32, i32); 4] = [F, B, L, R];
const DIAG: [(i32, i32); 4] = [FL, FR, BL, BR];
const KING: [(i32, i32); 8] = [F, B, L, R, FL, FR, BL, BR];
const DAB: [(i32, i32); 4] = [(0, -2), (0, 2), (2, 0), (-2, 0)];
const ALF: [(i32, i32); 4] = [(2, -2), (-2, -2), (2, 2), (-2, 2)];
const KNIGHT: [(i32, i32); 8] = [
    (1, -2),
    (-1, -2),
    (1, 2),
    (-1, 2),
    (2, -1),
    (2, 1),
    (-2, -1),
    (-2, 1),
];
/// Unlimited range.
pub(crate) const INF: u8 = 18;

/// Index of the flying-ox variant of the heavenly fortress (AMB-20) in the tables.
pub(crate) const FORTRESS_FLYING_OX: usize = PieceKind::COUNT;

fn build(kind_index: usize, color: Color) -> KindMoves {
    use PieceKind::*;
    let sign = if color == Color::Black { 1 } else { -1 };
    let off = |v: &(i32, i32)| sign * offset(v.0, v.1);
    let list = |v: &[(i32, i32)]| v.iter().map(off).collect::<Vec<i32>>();
    let slides = |v: &[(i32, i32)], n: u8| v.iter().map(|d| (off(d), n)).collect::<Vec<_>>();
    let mut m = KindMoves {
        steps: vec![],
        slides: vec![],
        jumps: vec![],
        lion: vec![],
        special: Special::None,
        shot: Shot::None,
        displace: Displace::Any,
    };
    if kind_index == FORTRESS_FLYING_OX {
        m.slides = slides(&[FL, FR, BL, BR, F, B], INF);
        return m;
    }
    let kind = PieceKind::ALL[kind_index];
    match kind {
        General | MiddleTroop | Governor => m.steps = list(&KING),
        Drum | Banner => m.steps = list(&[FL, FR, BL, BR, L, R]),
        Thunderclap => m.special = Special::Thunderclap,
        FlagWaver => m.special = Special::FlagWaver,
        Sentry => m.steps = list(&[B, L, R, FL, FR, BL, BR]),
        AideDeCamp => m.steps = list(&[F, L, R, FL, FR, BL, BR]),
        Aide => m.steps = list(&[F, B, L, R, FL, FR]),
        Staff => m.steps = list(&[F, FL, FR, BL, BR]),
        ChiefOfStaff => m.steps = list(&[F, B, FL, FR, BL, BR]),
        Engineer | PoisonFlame => m.steps = list(&[F, FL, FR, B]),
        TownBrigade => {
            m.steps = list(&[L, R, FL, FR, BL, BR]);
            m.slides = slides(&[F, B], INF);
        }
        VillageBrigade => {
            m.steps = list(&[F, B, FL, FR, BL, BR]);
            m.slides = slides(&[L, R], INF);
        }
        Deputy => m.slides = slides(&[FL, FR, BL, BR, F], INF),
        SumoWrestler => m.lion = list(&KING),
        Clerk => {
            m.steps = list(&DIAG);
            m.jumps = list(&DAB);
        }
        MasterAtArms => m.lion = [list(&DIAG), list(&DAB)].concat(),
        StaffOfficer => {
            m.steps = list(&ORTH);
            m.jumps = list(&ALF);
        }
        BannerAndDrum => m.lion = [list(&ORTH), list(&ALF)].concat(),
        TaoistPriest | SpiritualMonk => {
            m.jumps = [list(&DAB), list(&ALF)].concat();
            m.shot = Shot::Adjacent;
            m.displace = Displace::PriestFamilyOnly;
        }
        FiveLiFog | HolyLamp => {
            m.jumps = [list(&DAB), list(&ALF)].concat();
            m.special = Special::PriestDouble;
            m.displace = Displace::PriestFamilyOnly;
        }
        AdvanceGuard => {
            m.steps = list(&[B]);
            m.slides = slides(&[F], INF);
        }
        SkywardNet => {
            m.steps = list(&[B]);
            m.slides = slides(&[FL, FR, L, R], INF);
        }
        RearGuard => {
            m.steps = list(&[F]);
            m.slides = slides(&[B], INF);
        }
        EarthwardNet => {
            m.steps = list(&[F]);
            m.slides = slides(&[BL, BR, L, R], INF);
        }
        Millenary => m.slides = slides(&KING, INF),
        DragonAscending => {
            m.slides = slides(&KING, INF);
            m.lion = list(&KING);
        }
        Quartermaster => {
            m.steps = list(&DIAG);
            m.slides = slides(&ORTH, INF);
        }
        TigerWing => {
            m.slides = slides(&ORTH, INF);
            m.lion = list(&DIAG);
        }
        Centuria => {
            m.steps = list(&ORTH);
            m.slides = slides(&DIAG, INF);
        }
        Warhawk => {
            m.slides = slides(&DIAG, INF);
            m.lion = list(&ORTH);
        }
        Elephant => m.slides = slides(&DIAG, INF),
        Longbow | Crossbow | Cannon | FrankishCannon => {
            m.steps = list(&DIAG);
            m.shot = match kind {
                Longbow => Shot::Bow(3),
                Crossbow => Shot::Bow(5),
                Cannon => Shot::Cannon,
                _ => Shot::Frankish,
            };
        }
        LongbowCavalry | CrossbowCavalry => {
            m.jumps = list(&KNIGHT);
            m.shot = if kind == LongbowCavalry {
                Shot::Bow(3)
            } else {
                Shot::Bow(5)
            };
        }
        WarCart | ChariotOfTheGods => {
            m.slides = slides(&ORTH, 5);
            m.shot = if kind == WarCart {
                Shot::Cannon
            } else {
                Shot::Frankish
            };
            m.displace = Displace::NotFortress;
        }
        HorseSoldier => m.jumps = list(&KNIGHT),
        Cavalry => {
            m.jumps = list(&KNIGHT);
            m.special = Special::Cavalry;
        }
        WingedHorse => m.lion = list(&KNIGHT),
        Pawn => {
            m.steps = list(&[B, L, R]);
            m.special = Special::Pawn;
        }
        PatrolUnit => {
            m.steps = list(&[L, R]);
            m.slides = slides(&[F, B], INF);
        }
        Commissar => m.slides = slides(&[FL, FR, BL, BR, F, B], INF),
        Vanguard => m.slides = slides(&[F], 5),
        Shield => m.steps = list(&DIAG),
        ShieldUnit => {
            m.steps = list(&DIAG);
            m.slides = slides(&[L, R], INF);
        }
        HeavenlyFortress => m.slides = slides(&[FL, FR, BL, BR, L, R], INF),
        Chariot => {
            m.slides = slides(&ORTH, 5);
            m.displace = Displace::NotFortress;
        }
        ChariotUnit => {
            m.slides = slides(&ORTH, INF);
            m.displace = Displace::NotFortress;
        }
    }
    m.lion.sort_unstable();
    m
}

/// `TABLES[color][kind index]` (plus the flying-ox fortress at [`FORTRESS_FLYING_OX`]).
pub(crate) static TABLES: LazyLock<[Vec<KindMoves>; 2]> =
    LazyLock::new(|| Color::ALL.map(|c| (0..=PieceKind::COUNT).map(|k| build(k, c)).collect()));

/// Knight offsets in Black's frame (Δfile, Δrank), for the cavalry's major-direction rule.
pub(crate) const KNIGHT_VECTORS: [(i32, i32); 8] = KNIGHT;

/// Major (2-point) direction of a knight vector as a unit vector (§4.4).
pub(crate) fn knight_major(v: (i32, i32)) -> (i32, i32) {
    if v.0.abs() == 2 {
        (v.0.signum(), 0)
    } else {
        (0, v.1.signum())
    }
}

/// The eight prime-direction offsets.
pub(crate) const PRIME: [i32; 8] = [
    offset(0, -1),
    offset(0, 1),
    offset(1, 0),
    offset(-1, 0),
    offset(1, -1),
    offset(-1, -1),
    offset(1, 1),
    offset(-1, 1),
];

/// Orthogonal step offsets in ascending order (ascending landing point).
pub(crate) const ORTH_ASC: [i32; 4] = [offset(0, -1), offset(-1, 0), offset(1, 0), offset(0, 1)];
