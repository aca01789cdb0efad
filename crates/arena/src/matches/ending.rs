//! How a game ended, by kind ([`Ending`]), and a row's count of them ([`EndingCounts`]).
//!
//! Why: a score alone cannot tell a player that wins games outright from one that wins piece
//! counts at the ply cap — a rule the network is trained under and the classical baselines do
//! not know exists. Every finished game carries its kind, and `koshogi eval` and
//! `koshogi arena` print the breakdown from the player's side.

use std::collections::BTreeMap;
use std::fmt;

use crate::statistics::{GameScore, WinDrawLoss};

/// The kind of a game's end, whatever its winner.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// The loser's command was destroyed (its last royal piece captured): won outright.
    Command,
    /// Decided at the ply cap by the piece count (material adjudication).
    Material,
    /// Drawn at the ply cap.
    Cap,
    /// Fourfold repetition (a draw) or perpetual check (the checking side loses).
    Repetition,
    /// The side to move had no legal move.
    NoMoves,
    /// A player forfeited: a subprocess engine that died, lost on time or answered garbage.
    Forfeit,
    /// Anything else a game reports (mutual destruction, resignation, a toy game's end).
    Other,
}

impl Ending {
    /// Short lower-case name, as in the tables and the JSON.
    pub fn name(self) -> &'static str {
        match self {
            Ending::Command => "command",
            Ending::Material => "material",
            Ending::Cap => "cap",
            Ending::Repetition => "repetition",
            Ending::NoMoves => "no moves",
            Ending::Forfeit => "forfeit",
            Ending::Other => "other",
        }
    }
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Results of a set of games by how they ended, from one player's side.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct EndingCounts(pub BTreeMap<Ending, WinDrawLoss>);

impl EndingCounts {
    pub fn record(&mut self, ending: Ending, score: GameScore) {
        self.0.entry(ending).or_default().record(score);
    }

    /// Results of the games that ended this way (all zero if none did).
    pub fn get(&self, ending: Ending) -> WinDrawLoss {
        self.0.get(&ending).copied().unwrap_or_default()
    }

    /// Games won outright: the opponent's command destroyed.
    pub fn outright_wins(&self) -> u64 {
        self.get(Ending::Command).wins
    }

    /// One line, wins then draws then losses, each by kind in [`Ending`]'s order:
    /// `W 12 command, 30 material; D 40 cap; L 8 command` (`–` for no games).
    pub fn summary(&self) -> String {
        let part = |label: &str, count: fn(&WinDrawLoss) -> u64| -> Option<String> {
            let kinds: Vec<String> = self
                .0
                .iter()
                .filter(|(_, wdl)| count(wdl) > 0)
                .map(|(ending, wdl)| format!("{} {ending}", count(wdl)))
                .collect();
            (!kinds.is_empty()).then(|| format!("{label} {}", kinds.join(", ")))
        };
        let parts: Vec<String> = [
            part("W", |w| w.wins),
            part("D", |w| w.draws),
            part("L", |w| w.losses),
        ]
        .into_iter()
        .flatten()
        .collect();
        if parts.is_empty() {
            "–".to_string()
        } else {
            parts.join("; ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_kept_by_kind_and_summarised_wins_first() {
        let mut counts = EndingCounts::default();
        assert_eq!(counts.summary(), "–");
        for _ in 0..3 {
            counts.record(Ending::Material, GameScore::Win);
        }
        counts.record(Ending::Command, GameScore::Win);
        counts.record(Ending::Command, GameScore::Loss);
        counts.record(Ending::Cap, GameScore::Draw);
        counts.record(Ending::Repetition, GameScore::Draw);
        assert_eq!(
            counts.summary(),
            "W 1 command, 3 material; D 1 cap, 1 repetition; L 1 command"
        );
        assert_eq!(counts.outright_wins(), 1);
        assert_eq!(counts.get(Ending::Material), WinDrawLoss::new(3, 0, 0));
        assert_eq!(counts.get(Ending::Forfeit), WinDrawLoss::default());
        let json = serde_json::to_value(&counts).unwrap();
        assert_eq!(json["material"]["wins"], 3);
        assert_eq!(json["repetition"]["draws"], 1);
    }
}
