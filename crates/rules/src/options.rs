//! Rule switches for the points the sources leave open (§12). `Default` is KS-default; every
//! field names the ambiguity it settles. Unknown keys are rejected so a typo cannot silently fall
//! back to a default.
//!
//! Alternatives of §12 that are *not* implemented (and therefore have no field): AMB-14
//! `fog_counts_as_priest = false` and AMB-35 `reverted_fog_repromotes = false` (both need state
//! that is not derivable from the board).

use serde::{Deserialize, Serialize};

/// How far an aura (fog suppression, lamp dispelling) reaches (AMB-04, AMB-05).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reach {
    /// Along the eight prime lines, line distance ≤ 5, whatever stands in between.
    #[default]
    Lines,
    /// As `Lines`, but every point in between must be free.
    LinesBlocked,
    /// Chebyshev distance ≤ 5.
    Area,
}

/// When a shooter may shoot (AMB-01).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShootMode {
    /// A shot follows the shooter's own move (from its landing point).
    #[default]
    MoveThenShoot,
    /// The shooter shoots instead of moving (from where it stands); moves carry no shots. Such a
    /// move has no legs: notation `17q*16m`.
    StationaryOnly,
    /// Both of the above.
    Either,
}

/// After which moves a shot may follow (AMB-02).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShotAfterCapture {
    /// No shooter may shoot after a capturing move.
    Never,
    /// Artillery shoots only after a non-capturing move; the priest family after any jump.
    #[default]
    PriestsOnly,
    /// Any shooter may shoot after a capturing move.
    Always,
}

/// Which adjacent pieces a poison flame spares (AMB-06).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BurnExempt {
    #[default]
    None,
    /// TB and SM are not burned.
    PriestMonk,
    /// TB, SM, FG and HL are not burned.
    PriestFamily,
}

/// When poison flames burn (AMB-07).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlameMode {
    /// Only a flame that moves burns.
    #[default]
    ActiveOnly,
    /// Also: a piece (a flame included) ending its move next to an enemy flame is burned; the
    /// stationary flame's burn is judged before the mover's own burning, so two flames meeting
    /// burn each other.
    TenjikuLike,
}

/// Which pieces a net freezes along a ranging ray (AMB-09).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetScope {
    /// The first piece met, if it is an enemy.
    #[default]
    FirstPiece,
    /// Every enemy piece on the ray, through anything.
    WholeRay,
    /// Every enemy piece on the ray up to the net owner's first own piece.
    UntilFriendly,
}

/// Thunderclap movement (AMB-10).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThunderclapMode {
    /// Exactly five orthogonal steps, free turning.
    #[default]
    Free5,
    /// Two steps d1, two steps d2 ⟂ d1, one step −d1 (a "U", 8 paths).
    Kosho,
}

/// Which moves offer zone promotion (AMB-11).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneTrigger {
    /// The move ends in the zone.
    #[default]
    EndInZone,
    /// The move starts or ends in the zone (shogi style).
    StartOrEnd,
    /// The move starts outside and ends inside the zone.
    EnterOnly,
}

/// Whether zone promotion may be declined (AMB-11).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZonePromotion {
    #[default]
    Optional,
    Mandatory,
}

/// How advance and rear guards promote (AMB-12).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GuardsPromote {
    /// Zone (and capture-triggered) promotion plus the clerk cascade.
    #[default]
    ZoneAndCascade,
    /// Only through the clerk cascade.
    CascadeOnly,
}

/// Heavenly fortress movement (AMB-20).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FortressMove {
    /// Diagonals + left/right ranging.
    #[default]
    FreeBoar,
    /// Diagonals + forward/backward ranging.
    FlyingOx,
}

/// Reading of "up to n free intersections" (AMB-22).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShotRange {
    /// The target stands at line distance ≤ n.
    #[default]
    LineDistance,
    /// Up to n free points then the target: line distance ≤ n + 1.
    FreePoints,
}

/// Perpetual check against a sole target (AMB-25).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PerpetualCheck {
    /// The continuous checker loses on the fourth occurrence.
    #[default]
    CheckerLoses,
    /// Plain fourfold-repetition draw.
    Ignore,
}

/// Result for a side with no legal move (AMB-26).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoMoves {
    #[default]
    Loss,
    Draw,
}

/// Both sides lose their command in one move (AMB-27).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MutualDestruction {
    #[default]
    MoverWins,
    MoverLoses,
    Draw,
}

/// All rule switches; `RulesOptions::default()` is KS-default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RulesOptions {
    /// AMB-01.
    pub shoot_mode: ShootMode,
    /// AMB-02.
    pub shot_after_capture: ShotAfterCapture,
    /// AMB-03: artillery (LB, SB, C, FW, LC, CC, WC, CG) may capture by displacement.
    pub artillery_displacement: bool,
    /// AMB-04: reach of the five-li fog's suppression aura.
    pub fog_reach: Reach,
    /// AMB-05: reach of the holy lamp's dispelling aura.
    pub lamp_reach: Reach,
    /// AMB-05: a holy lamp also dispels its own side's fog.
    pub lamp_affects_own_fog: bool,
    /// AMB-06: the poison flame burns its own side's pieces too.
    pub burn_friendly: bool,
    /// AMB-06: pieces spared by burning.
    pub burn_exempt: BurnExempt,
    /// AMB-07.
    pub flame_mode: FlameMode,
    /// AMB-08: an engineer burns on the move that promotes it to a poison flame.
    pub burn_on_promotion: bool,
    /// AMB-09.
    pub net_scope: NetScope,
    /// AMB-10.
    pub thunderclap: ThunderclapMode,
    /// AMB-11.
    pub zone_trigger: ZoneTrigger,
    /// AMB-11.
    pub zone_promotion: ZonePromotion,
    /// AMB-12.
    pub guards_promote: GuardsPromote,
    /// AMB-13: a flag waver counts as the banner for the commanding-piece rule.
    pub promoted_banner_commands: bool,
    /// AMB-13: a thunderclap counts as the drum for the pawn rule.
    pub thunderclap_keeps_pawns: bool,
    /// AMB-13: capturing a TC or FL triggers capture rule 1 like D and B.
    pub rule1_includes_promoted: bool,
    /// AMB-15: a banner and drum counts as banner (§10) and drum (§8.7).
    pub kiko_substitutes: bool,
    /// AMB-16: capturing a governor triggers capture rule 1.
    pub governor_triggers_rule1: bool,
    /// AMB-17: a capture-triggered promotion takes effect at once, so the remaining legs use the
    /// promoted powers (only the cavalry, whose first leap may capture a commander, is affected).
    pub promote_mid_move: bool,
    /// AMB-20.
    pub fortress_move: FortressMove,
    /// AMB-22.
    pub shot_range: ShotRange,
    /// AMB-25.
    pub perpetual_check: PerpetualCheck,
    /// AMB-26.
    pub no_moves: NoMoves,
    /// AMB-27.
    pub mutual_destruction: MutualDestruction,
    /// AMB-29: lion-like pieces may pass.
    pub allow_pass: bool,
    /// AMB-31: captures by shooting trigger capture promotion (§8.4).
    pub shots_trigger_promotion: bool,
    /// AMB-34: war cart and chariot of the gods cannot be shot by bows.
    pub cart_bow_immunity: bool,
}

impl Default for RulesOptions {
    fn default() -> Self {
        RulesOptions {
            shoot_mode: ShootMode::MoveThenShoot,
            shot_after_capture: ShotAfterCapture::PriestsOnly,
            artillery_displacement: true,
            fog_reach: Reach::Lines,
            lamp_reach: Reach::Lines,
            lamp_affects_own_fog: true,
            burn_friendly: true,
            burn_exempt: BurnExempt::None,
            flame_mode: FlameMode::ActiveOnly,
            burn_on_promotion: false,
            net_scope: NetScope::FirstPiece,
            thunderclap: ThunderclapMode::Free5,
            zone_trigger: ZoneTrigger::EndInZone,
            zone_promotion: ZonePromotion::Optional,
            guards_promote: GuardsPromote::ZoneAndCascade,
            promoted_banner_commands: true,
            thunderclap_keeps_pawns: true,
            rule1_includes_promoted: false,
            kiko_substitutes: false,
            governor_triggers_rule1: true,
            promote_mid_move: false,
            fortress_move: FortressMove::FreeBoar,
            shot_range: ShotRange::LineDistance,
            perpetual_check: PerpetualCheck::CheckerLoses,
            no_moves: NoMoves::Loss,
            mutual_destruction: MutualDestruction::MoverWins,
            allow_pass: true,
            shots_trigger_promotion: true,
            cart_bow_immunity: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_json_gives_ks_default_and_keys_use_section_12_spelling() {
        let o: RulesOptions = serde_json::from_str("{}").unwrap();
        assert_eq!(o, RulesOptions::default());
        let o: RulesOptions = serde_json::from_str(
            r#"{"fog_reach":"area","zone_trigger":"start_or_end","allow_pass":false}"#,
        )
        .unwrap();
        assert_eq!(o.fog_reach, Reach::Area);
        assert_eq!(o.zone_trigger, ZoneTrigger::StartOrEnd);
        assert!(!o.allow_pass);
        let back: RulesOptions = serde_json::from_str(&serde_json::to_string(&o).unwrap()).unwrap();
        assert_eq!(back, o);
        assert!(serde_json::from_str::<RulesOptions>(r#"{"no_such_key":1}"#).is_err());
    }
}
