//! The 57 piece types of Ko shogi (§2): 34 initial types then 23 promoted-only types.
//!
//! The index order is part of the public contract (neural-network planes, move encoding).

use std::fmt;

/// A piece type (its *current* type; the promoted flag lives in [`crate::Piece`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum PieceKind {
    /// G — General 将
    General = 0,
    /// SC — Clerk 記室
    Clerk = 1,
    /// PL — Staff officer 参謀
    StaffOfficer = 2,
    /// A — Aide de camp 親兵
    AideDeCamp = 3,
    /// WR — Sumo wrestler 力士
    SumoWrestler = 4,
    /// SR — Aide 舎人
    Aide = 5,
    /// GH — Staff 舎餘
    Staff = 6,
    /// CS — Chief of staff 軍吏
    ChiefOfStaff = 7,
    /// EN — Engineer 軍匠
    Engineer = 8,
    /// TB — Taoist priest 高道
    TaoistPriest = 9,
    /// SM — Spiritual monk 神僧
    SpiritualMonk = 10,
    /// FD — Advance guard 前衝
    AdvanceGuard = 11,
    /// MA — Middle troop 中軍
    MiddleTroop = 12,
    /// D — Drum 鼓
    Drum = 13,
    /// B — Banner 旗
    Banner = 14,
    /// SN — Sentry 護兵
    Sentry = 15,
    /// DU — Millenary 千総
    Millenary = 16,
    /// Q — Quartermaster 把総
    Quartermaster = 17,
    /// FH — Centuria 百総
    Centuria = 18,
    /// R — Rear guard 後衝
    RearGuard = 19,
    /// FW — Frankish cannon 佛狼機
    FrankishCannon = 20,
    /// E — Elephant 象
    Elephant = 21,
    /// LB — Longbow 弓
    Longbow = 22,
    /// SB — Crossbow 弩
    Crossbow = 23,
    /// C — Cannon 砲
    Cannon = 24,
    /// HS — Horse soldier 馬兵
    HorseSoldier = 25,
    /// CA — Cavalry 騎総
    Cavalry = 26,
    /// P — Pawn 歩兵
    Pawn = 27,
    /// PU — Patrol unit 歩総
    PatrolUnit = 28,
    /// SP — Shield 牌
    Shield = 29,
    /// SU — Shield unit 牌総
    ShieldUnit = 30,
    /// CH — Chariot 車
    Chariot = 31,
    /// CU — Chariot unit 車総
    ChariotUnit = 32,
    /// VA — Vanguard 先鋒
    Vanguard = 33,
    /// AM — Master at arms 軍師
    MasterAtArms = 34,
    /// BD — Banner and drum 旗鼓
    BannerAndDrum = 35,
    /// TN — Town brigade 千戸
    TownBrigade = 36,
    /// VB — Village brigade 百戸
    VillageBrigade = 37,
    /// DP — Deputy 副司
    Deputy = 38,
    /// PF — Poison flame 毒火
    PoisonFlame = 39,
    /// FG — Five-li fog 五里霧
    FiveLiFog = 40,
    /// HL — Holy lamp 聖燈
    HolyLamp = 41,
    /// SK — Skyward net 天網
    SkywardNet = 42,
    /// GV — Governor 帥
    Governor = 43,
    /// TC — Thunderclap 霹靂
    Thunderclap = 44,
    /// FL — Flag waver 招揺
    FlagWaver = 45,
    /// DR — Dragon ascending 龍驤
    DragonAscending = 46,
    /// TW — Tiger wing 虎翼
    TigerWing = 47,
    /// HK — Warhawk 鷹揚
    Warhawk = 48,
    /// EW — Earthward net 地網
    EarthwardNet = 49,
    /// CG — Chariot of the gods 神機車
    ChariotOfTheGods = 50,
    /// LC — Longbow cavalry 彍騎
    LongbowCavalry = 51,
    /// CC — Crossbow cavalry 弩騎
    CrossbowCavalry = 52,
    /// WC — War cart 砲車
    WarCart = 53,
    /// WH — Winged horse 天馬
    WingedHorse = 54,
    /// CM — Commissar 都司
    Commissar = 55,
    /// HF — Heavenly fortress 天塁
    HeavenlyFortress = 56,
}

struct KindInfo {
    code: &'static str,
    name: &'static str,
    kanji: &'static str,
    promotes_to: Option<PieceKind>,
}

const INFO: [KindInfo; PieceKind::COUNT] = [
    KindInfo {
        code: "G",
        name: "General",
        kanji: "将",
        promotes_to: None,
    },
    KindInfo {
        code: "SC",
        name: "Clerk",
        kanji: "記室",
        promotes_to: Some(PieceKind::MasterAtArms),
    },
    KindInfo {
        code: "PL",
        name: "Staff officer",
        kanji: "参謀",
        promotes_to: Some(PieceKind::BannerAndDrum),
    },
    KindInfo {
        code: "A",
        name: "Aide de camp",
        kanji: "親兵",
        promotes_to: Some(PieceKind::Quartermaster),
    },
    KindInfo {
        code: "WR",
        name: "Sumo wrestler",
        kanji: "力士",
        promotes_to: None,
    },
    KindInfo {
        code: "SR",
        name: "Aide",
        kanji: "舎人",
        promotes_to: Some(PieceKind::TownBrigade),
    },
    KindInfo {
        code: "GH",
        name: "Staff",
        kanji: "舎餘",
        promotes_to: Some(PieceKind::VillageBrigade),
    },
    KindInfo {
        code: "CS",
        name: "Chief of staff",
        kanji: "軍吏",
        promotes_to: Some(PieceKind::Deputy),
    },
    KindInfo {
        code: "EN",
        name: "Engineer",
        kanji: "軍匠",
        promotes_to: Some(PieceKind::PoisonFlame),
    },
    KindInfo {
        code: "TB",
        name: "Taoist priest",
        kanji: "高道",
        promotes_to: Some(PieceKind::FiveLiFog),
    },
    KindInfo {
        code: "SM",
        name: "Spiritual monk",
        kanji: "神僧",
        promotes_to: Some(PieceKind::HolyLamp),
    },
    KindInfo {
        code: "FD",
        name: "Advance guard",
        kanji: "前衝",
        promotes_to: Some(PieceKind::SkywardNet),
    },
    KindInfo {
        code: "MA",
        name: "Middle troop",
        kanji: "中軍",
        promotes_to: Some(PieceKind::Governor),
    },
    KindInfo {
        code: "D",
        name: "Drum",
        kanji: "鼓",
        promotes_to: Some(PieceKind::Thunderclap),
    },
    KindInfo {
        code: "B",
        name: "Banner",
        kanji: "旗",
        promotes_to: Some(PieceKind::FlagWaver),
    },
    KindInfo {
        code: "SN",
        name: "Sentry",
        kanji: "護兵",
        promotes_to: Some(PieceKind::Centuria),
    },
    KindInfo {
        code: "DU",
        name: "Millenary",
        kanji: "千総",
        promotes_to: Some(PieceKind::DragonAscending),
    },
    KindInfo {
        code: "Q",
        name: "Quartermaster",
        kanji: "把総",
        promotes_to: Some(PieceKind::TigerWing),
    },
    KindInfo {
        code: "FH",
        name: "Centuria",
        kanji: "百総",
        promotes_to: Some(PieceKind::Warhawk),
    },
    KindInfo {
        code: "R",
        name: "Rear guard",
        kanji: "後衝",
        promotes_to: Some(PieceKind::EarthwardNet),
    },
    KindInfo {
        code: "FW",
        name: "Frankish cannon",
        kanji: "佛狼機",
        promotes_to: Some(PieceKind::ChariotOfTheGods),
    },
    KindInfo {
        code: "E",
        name: "Elephant",
        kanji: "象",
        promotes_to: None,
    },
    KindInfo {
        code: "LB",
        name: "Longbow",
        kanji: "弓",
        promotes_to: Some(PieceKind::LongbowCavalry),
    },
    KindInfo {
        code: "SB",
        name: "Crossbow",
        kanji: "弩",
        promotes_to: Some(PieceKind::CrossbowCavalry),
    },
    KindInfo {
        code: "C",
        name: "Cannon",
        kanji: "砲",
        promotes_to: Some(PieceKind::WarCart),
    },
    KindInfo {
        code: "HS",
        name: "Horse soldier",
        kanji: "馬兵",
        promotes_to: Some(PieceKind::Cavalry),
    },
    KindInfo {
        code: "CA",
        name: "Cavalry",
        kanji: "騎総",
        promotes_to: Some(PieceKind::WingedHorse),
    },
    KindInfo {
        code: "P",
        name: "Pawn",
        kanji: "歩兵",
        promotes_to: Some(PieceKind::PatrolUnit),
    },
    KindInfo {
        code: "PU",
        name: "Patrol unit",
        kanji: "歩総",
        promotes_to: Some(PieceKind::Commissar),
    },
    KindInfo {
        code: "SP",
        name: "Shield",
        kanji: "牌",
        promotes_to: Some(PieceKind::ShieldUnit),
    },
    KindInfo {
        code: "SU",
        name: "Shield unit",
        kanji: "牌総",
        promotes_to: Some(PieceKind::HeavenlyFortress),
    },
    KindInfo {
        code: "CH",
        name: "Chariot",
        kanji: "車",
        promotes_to: Some(PieceKind::ChariotUnit),
    },
    KindInfo {
        code: "CU",
        name: "Chariot unit",
        kanji: "車総",
        promotes_to: Some(PieceKind::Millenary),
    },
    KindInfo {
        code: "VA",
        name: "Vanguard",
        kanji: "先鋒",
        promotes_to: Some(PieceKind::Commissar),
    },
    KindInfo {
        code: "AM",
        name: "Master at arms",
        kanji: "軍師",
        promotes_to: None,
    },
    KindInfo {
        code: "BD",
        name: "Banner and drum",
        kanji: "旗鼓",
        promotes_to: None,
    },
    KindInfo {
        code: "TN",
        name: "Town brigade",
        kanji: "千戸",
        promotes_to: None,
    },
    KindInfo {
        code: "VB",
        name: "Village brigade",
        kanji: "百戸",
        promotes_to: None,
    },
    KindInfo {
        code: "DP",
        name: "Deputy",
        kanji: "副司",
        promotes_to: None,
    },
    KindInfo {
        code: "PF",
        name: "Poison flame",
        kanji: "毒火",
        promotes_to: None,
    },
    KindInfo {
        code: "FG",
        name: "Five-li fog",
        kanji: "五里霧",
        promotes_to: None,
    },
    KindInfo {
        code: "HL",
        name: "Holy lamp",
        kanji: "聖燈",
        promotes_to: None,
    },
    KindInfo {
        code: "SK",
        name: "Skyward net",
        kanji: "天網",
        promotes_to: None,
    },
    KindInfo {
        code: "GV",
        name: "Governor",
        kanji: "帥",
        promotes_to: None,
    },
    KindInfo {
        code: "TC",
        name: "Thunderclap",
        kanji: "霹靂",
        promotes_to: None,
    },
    KindInfo {
        code: "FL",
        name: "Flag waver",
        kanji: "招揺",
        promotes_to: None,
    },
    KindInfo {
        code: "DR",
        name: "Dragon ascending",
        kanji: "龍驤",
        promotes_to: None,
    },
    KindInfo {
        code: "TW",
        name: "Tiger wing",
        kanji: "虎翼",
        promotes_to: None,
    },
    KindInfo {
        code: "HK",
        name: "Warhawk",
        kanji: "鷹揚",
        promotes_to: None,
    },
    KindInfo {
        code: "EW",
        name: "Earthward net",
        kanji: "地網",
        promotes_to: None,
    },
    KindInfo {
        code: "CG",
        name: "Chariot of the gods",
        kanji: "神機車",
        promotes_to: None,
    },
    KindInfo {
        code: "LC",
        name: "Longbow cavalry",
        kanji: "彍騎",
        promotes_to: None,
    },
    KindInfo {
        code: "CC",
        name: "Crossbow cavalry",
        kanji: "弩騎",
        promotes_to: None,
    },
    KindInfo {
        code: "WC",
        name: "War cart",
        kanji: "砲車",
        promotes_to: None,
    },
    KindInfo {
        code: "WH",
        name: "Winged horse",
        kanji: "天馬",
        promotes_to: None,
    },
    KindInfo {
        code: "CM",
        name: "Commissar",
        kanji: "都司",
        promotes_to: None,
    },
    KindInfo {
        code: "HF",
        name: "Heavenly fortress",
        kanji: "天塁",
        promotes_to: None,
    },
];

impl PieceKind {
    /// Number of piece types.
    pub const COUNT: usize = 57;
    /// Number of types present at the start (§2.1).
    pub const INITIAL_COUNT: usize = 34;

    /// All types in index order (§2.1 order, then §2.2 order).
    pub const ALL: [PieceKind; PieceKind::COUNT] = [
        PieceKind::General,
        PieceKind::Clerk,
        PieceKind::StaffOfficer,
        PieceKind::AideDeCamp,
        PieceKind::SumoWrestler,
        PieceKind::Aide,
        PieceKind::Staff,
        PieceKind::ChiefOfStaff,
        PieceKind::Engineer,
        PieceKind::TaoistPriest,
        PieceKind::SpiritualMonk,
        PieceKind::AdvanceGuard,
        PieceKind::MiddleTroop,
        PieceKind::Drum,
        PieceKind::Banner,
        PieceKind::Sentry,
        PieceKind::Millenary,
        PieceKind::Quartermaster,
        PieceKind::Centuria,
        PieceKind::RearGuard,
        PieceKind::FrankishCannon,
        PieceKind::Elephant,
        PieceKind::Longbow,
        PieceKind::Crossbow,
        PieceKind::Cannon,
        PieceKind::HorseSoldier,
        PieceKind::Cavalry,
        PieceKind::Pawn,
        PieceKind::PatrolUnit,
        PieceKind::Shield,
        PieceKind::ShieldUnit,
        PieceKind::Chariot,
        PieceKind::ChariotUnit,
        PieceKind::Vanguard,
        PieceKind::MasterAtArms,
        PieceKind::BannerAndDrum,
        PieceKind::TownBrigade,
        PieceKind::VillageBrigade,
        PieceKind::Deputy,
        PieceKind::PoisonFlame,
        PieceKind::FiveLiFog,
        PieceKind::HolyLamp,
        PieceKind::SkywardNet,
        PieceKind::Governor,
        PieceKind::Thunderclap,
        PieceKind::FlagWaver,
        PieceKind::DragonAscending,
        PieceKind::TigerWing,
        PieceKind::Warhawk,
        PieceKind::EarthwardNet,
        PieceKind::ChariotOfTheGods,
        PieceKind::LongbowCavalry,
        PieceKind::CrossbowCavalry,
        PieceKind::WarCart,
        PieceKind::WingedHorse,
        PieceKind::Commissar,
        PieceKind::HeavenlyFortress,
    ];

    /// Position in [`PieceKind::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The type with this index.
    pub fn from_index(i: usize) -> Option<PieceKind> {
        Self::ALL.get(i).copied()
    }

    /// Upper-case ASCII code (`"G"`, `"SC"`, …).
    pub fn code(self) -> &'static str {
        INFO[self.index()].code
    }

    /// Case-insensitive lookup of a code.
    pub fn from_code(code: &str) -> Option<PieceKind> {
        Self::ALL
            .iter()
            .copied()
            .find(|k| k.code().eq_ignore_ascii_case(code))
    }

    /// English name used by the rules reference.
    pub fn name(self) -> &'static str {
        INFO[self.index()].name
    }

    /// Kanji name.
    pub fn kanji(self) -> &'static str {
        INFO[self.index()].kanji
    }

    /// The type this one turns into when promoted (ignoring the promoted flag; see
    /// [`crate::Piece::can_ever_promote`]).
    pub fn promotes_to(self) -> Option<PieceKind> {
        INFO[self.index()].promotes_to
    }

    /// True for the 23 types that exist only through promotion (always promoted).
    pub fn is_promoted_only(self) -> bool {
        self.index() >= Self::INITIAL_COUNT
    }

    /// True for the seven initial types that are also reachable by promotion, i.e. the types on
    /// which KSFEN accepts a `+` (§14.1).
    pub fn can_carry_promoted_flag(self) -> bool {
        matches!(
            self,
            PieceKind::Quartermaster
                | PieceKind::Centuria
                | PieceKind::Cavalry
                | PieceKind::PatrolUnit
                | PieceKind::ShieldUnit
                | PieceKind::ChariotUnit
                | PieceKind::Millenary
        )
    }

    /// The one-point movers of §8.4 rule 2 (AMB-18: S4's list, plus G, GV and PF which can never
    /// promote).
    pub fn is_step_mover(self) -> bool {
        use PieceKind::*;
        matches!(
            self,
            AideDeCamp
                | Aide
                | Staff
                | ChiefOfStaff
                | Engineer
                | MiddleTroop
                | Drum
                | Banner
                | Sentry
                | FrankishCannon
                | Longbow
                | Crossbow
                | Cannon
                | Pawn
                | Shield
                | General
                | Governor
                | PoisonFlame
        )
    }
}

impl fmt::Display for PieceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_round_trip() {
        for (i, kind) in PieceKind::ALL.iter().enumerate() {
            assert_eq!(kind.index(), i);
            assert_eq!(PieceKind::from_code(kind.code()), Some(*kind));
            assert_eq!(
                PieceKind::from_code(&kind.code().to_lowercase()),
                Some(*kind)
            );
            assert_eq!(PieceKind::from_index(i), Some(*kind));
        }
        assert_eq!(PieceKind::from_code("XX"), None);
    }

    #[test]
    fn promotion_table_matches_section_2() {
        use PieceKind::*;
        let never: Vec<_> = PieceKind::ALL[..34]
            .iter()
            .filter(|k| k.promotes_to().is_none())
            .collect();
        assert_eq!(never, vec![&General, &SumoWrestler, &Elephant]);
        assert!(PieceKind::ALL[34..]
            .iter()
            .all(|k| k.promotes_to().is_none() && k.is_promoted_only()));
        assert_eq!(Vanguard.promotes_to(), Some(Commissar));
        assert_eq!(PatrolUnit.promotes_to(), Some(Commissar));
        assert_eq!(ChariotUnit.promotes_to(), Some(Millenary));
        assert_eq!(AideDeCamp.promotes_to(), Some(Quartermaster));
        // every promoted-only type is the target of some initial type
        for k in &PieceKind::ALL[34..] {
            assert!(
                PieceKind::ALL[..34]
                    .iter()
                    .any(|i| i.promotes_to() == Some(*k)),
                "{k}"
            );
        }
        // the seven initial types reachable by promotion are exactly those that may carry `+`
        let reachable: Vec<_> = PieceKind::ALL[..34]
            .iter()
            .filter(|k| {
                PieceKind::ALL[..34]
                    .iter()
                    .any(|i| i.promotes_to() == Some(**k))
            })
            .collect();
        assert_eq!(reachable.len(), 7);
        assert!(reachable.iter().all(|k| k.can_carry_promoted_flag()));
    }
}
