//! The settings of the tree-search players after an `@`: `mcts:<ckpt>[:<sims>]@movetime=1000`,
//! `mcts:<ckpt>:16@utility=0,forced=off`, `material:16@forced=off`.
//!
//! | key | meaning | default |
//! |---|---|---|
//! | `movetime=MS` | search each move for this long (with batching) instead of a fixed count | — |
//! | `utility=U` | the weight of counted material in the search's value, 0 to 1 (network players) | the checkpoint's `material_utility` |
//! | `forced=on\|off` | root capture and threat-answer candidates, capture-first replies | `on` |
//!
//! Why: the search's hand-written parts (material in the value, forced root candidates) buy a
//! young network its first hour, and they play in every table. `utility=0,forced=off` is the
//! network's own judgement with the same search — the control that shows what training added —
//! and `movetime` compares programs at equal time per move, as programs are compared.

use std::fmt;
use std::time::Duration;

use koshogi_baselines::classic::{parse_movetime_ms, MOVETIME_RANGE};

/// A search player's settings, as named (the defaults name nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SearchSettings {
    /// Search each move this long instead of a fixed number of simulations.
    pub movetime_ms: Option<u64>,
    /// `material_utility` override, in thousandths (whole numbers keep the spec `Eq`).
    utility_milli: Option<u16>,
    /// Root capture and threat-answer candidates and capture-first replies
    /// (`GumbelConfig::{capture_candidates, evasion_candidates, capture_first_reply}`).
    pub forced_candidates: bool,
}

impl Default for SearchSettings {
    fn default() -> Self {
        Self {
            movetime_ms: None,
            utility_milli: None,
            forced_candidates: true,
        }
    }
}

/// Why a search player's settings are refused; each case names the offending part.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum SearchSettingsError {
    #[error("unknown search setting `{0}`: expected movetime=MS, utility=U or forced=on|off")]
    UnknownKey(String),
    #[error("search setting `{0}`: {1}")]
    BadValue(String, &'static str),
    #[error("search setting `{0}` is given twice")]
    Duplicate(String),
    #[error("`@` needs at least one setting after it")]
    Empty,
}

impl SearchSettings {
    /// The network-free control's and the value-only control's settings.
    pub fn value_only() -> Self {
        Self {
            utility_milli: Some(0),
            forced_candidates: false,
            ..Self::default()
        }
    }

    /// Equal time per move.
    pub fn timed(movetime_ms: u64) -> Self {
        Self {
            movetime_ms: Some(movetime_ms),
            ..Self::default()
        }
    }

    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }

    pub fn movetime(&self) -> Option<Duration> {
        self.movetime_ms.map(Duration::from_millis)
    }

    /// The material weight asked for, if any.
    pub fn utility(&self) -> Option<f32> {
        self.utility_milli.map(|m| f32::from(m) / 1000.0)
    }

    /// Reads the text after the `@`.
    pub fn parse(text: &str) -> Result<Self, SearchSettingsError> {
        if text.trim().is_empty() {
            return Err(SearchSettingsError::Empty);
        }
        let mut settings = Self::default();
        let mut seen: Vec<&str> = Vec::new();
        for item in text.split(',').map(str::trim) {
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| SearchSettingsError::UnknownKey(item.to_string()))?;
            let bad = |why| SearchSettingsError::BadValue(item.to_string(), why);
            if seen.contains(&key) {
                return Err(SearchSettingsError::Duplicate(key.to_string()));
            }
            seen.push(key);
            match key {
                "movetime" => {
                    let ms = parse_movetime_ms(value).ok_or_else(|| bad(MOVETIME_RANGE))?;
                    settings.movetime_ms = Some(ms);
                }
                "utility" => {
                    let weight = value
                        .parse::<f64>()
                        .ok()
                        .filter(|w| (0.0..=1.0).contains(w))
                        .ok_or_else(|| bad("a number from 0 to 1"))?;
                    settings.utility_milli = Some((weight * 1000.0).round() as u16);
                }
                "forced" => {
                    settings.forced_candidates = match value {
                        "on" => true,
                        "off" => false,
                        _ => return Err(bad("on or off")),
                    }
                }
                _ => return Err(SearchSettingsError::UnknownKey(key.to_string())),
            }
        }
        Ok(settings)
    }
}

/// The settings that differ from the defaults, comma-separated (empty for the defaults).
impl fmt::Display for SearchSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut items = Vec::new();
        if let Some(ms) = self.movetime_ms {
            items.push(format!("movetime={ms}"));
        }
        if let Some(weight) = self.utility() {
            items.push(format!("utility={weight}"));
        }
        if !self.forced_candidates {
            items.push("forced=off".to_string());
        }
        f.write_str(&items.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_and_print_back() {
        let s = SearchSettings::parse("movetime=250,utility=0.5,forced=off").unwrap();
        assert_eq!(s.movetime(), Some(Duration::from_millis(250)));
        assert_eq!(s.utility(), Some(0.5));
        assert!(!s.forced_candidates);
        assert_eq!(s.to_string(), "movetime=250,utility=0.5,forced=off");
        assert_eq!(
            SearchSettings::value_only().to_string(),
            "utility=0,forced=off"
        );
        assert_eq!(SearchSettings::default().to_string(), "");
        assert!(SearchSettings::default().is_default());
        assert_eq!(
            SearchSettings::parse(" forced=on ").unwrap(),
            SearchSettings::default()
        );
    }

    #[test]
    fn bad_settings_name_their_part() {
        let error = |text: &str| SearchSettings::parse(text).unwrap_err().to_string();
        assert_eq!(error(""), "`@` needs at least one setting after it");
        assert!(error("movetime=0").contains("`movetime=0`"));
        assert!(error("movetime=3600001").contains("from 1 to 3600000"));
        assert!(error("utility=1.5").contains("from 0 to 1"));
        assert!(error("utility=NaN").contains("from 0 to 1"));
        assert!(error("forced=maybe").contains("on or off"));
        assert!(error("depth=3").starts_with("unknown search setting `depth`"));
        assert!(error("movetime").starts_with("unknown search setting `movetime`"));
        assert!(error("forced=on,forced=off").contains("given twice"));
    }
}
