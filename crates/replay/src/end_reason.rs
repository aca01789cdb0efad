//! Why a stored game ended, recorded with each of its positions (the `end_reason` column,
//! format version 2).
//!
//! Why: a game stopped at the self-play ply cap and won on material counts as a win (±1) like a
//! game whose command was destroyed, but a lead of two pieces at ply 300 says much less than a
//! destroyed command. The trainer can only treat the two apart if the shard says which it was
//! (`train.capped_value`). Shards of format version 1 carry no reason: they read as `Unknown`.

use koshogi_rules::{DrawReason, Outcome, WinReason};

/// The end of a game, as stored (one byte per position).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// Not recorded (shards of format version 1).
    Unknown,
    /// A command was destroyed, or both were (§10.1, AMB-27).
    CommandDestroyed,
    /// The side to move had no legal move (a win or a draw under `no_moves`).
    NoLegalMoves,
    /// Perpetual check against a sole target (§10.5).
    PerpetualCheck,
    /// A position occurred for the fourth time (§10.4): a draw.
    Repetition,
    /// A player resigned.
    Resignation,
    /// The ply cap was reached and one side had enough more pieces (`cap_result = "material"`).
    MaterialAtCap,
    /// The ply cap was reached without a material winner: a draw.
    DrawAtCap,
}

impl EndReason {
    /// Every reason, in code order.
    pub const ALL: [EndReason; 8] = [
        EndReason::Unknown,
        EndReason::CommandDestroyed,
        EndReason::NoLegalMoves,
        EndReason::PerpetualCheck,
        EndReason::Repetition,
        EndReason::Resignation,
        EndReason::MaterialAtCap,
        EndReason::DrawAtCap,
    ];

    /// The stored byte (docs/replay-format.md).
    pub fn code(self) -> u8 {
        match self {
            EndReason::Unknown => 0,
            EndReason::CommandDestroyed => 1,
            EndReason::NoLegalMoves => 2,
            EndReason::PerpetualCheck => 3,
            EndReason::Repetition => 4,
            EndReason::Resignation => 5,
            EndReason::MaterialAtCap => 6,
            EndReason::DrawAtCap => 7,
        }
    }

    /// The reason a stored byte names, `None` for a byte no writer produces.
    pub fn from_code(code: u8) -> Option<EndReason> {
        EndReason::ALL.get(usize::from(code)).copied()
    }

    /// The reason of a finished game.
    pub fn of(outcome: &Outcome) -> EndReason {
        match *outcome {
            Outcome::Win { reason, .. } => match reason {
                WinReason::CommandDestroyed | WinReason::MutualDestruction => {
                    EndReason::CommandDestroyed
                }
                WinReason::NoLegalMoves => EndReason::NoLegalMoves,
                WinReason::PerpetualCheck => EndReason::PerpetualCheck,
                WinReason::Resignation => EndReason::Resignation,
                WinReason::MaterialAdjudication => EndReason::MaterialAtCap,
            },
            Outcome::Draw(reason) => match reason {
                DrawReason::Repetition => EndReason::Repetition,
                DrawReason::NoLegalMoves => EndReason::NoLegalMoves,
                DrawReason::MutualDestruction => EndReason::CommandDestroyed,
                DrawReason::MaxPlies => EndReason::DrawAtCap,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use koshogi_rules::Color;

    #[test]
    fn codes_round_trip_and_outcomes_map_to_their_reason() {
        for reason in EndReason::ALL {
            assert_eq!(EndReason::from_code(reason.code()), Some(reason));
        }
        assert_eq!(EndReason::from_code(8), None);
        let win = |reason| Outcome::Win {
            winner: Color::Black,
            reason,
        };
        assert_eq!(
            EndReason::of(&win(WinReason::MaterialAdjudication)),
            EndReason::MaterialAtCap
        );
        assert_eq!(
            EndReason::of(&win(WinReason::CommandDestroyed)),
            EndReason::CommandDestroyed
        );
        assert_eq!(
            EndReason::of(&Outcome::Draw(DrawReason::MaxPlies)),
            EndReason::DrawAtCap
        );
        assert_eq!(
            EndReason::of(&Outcome::Draw(DrawReason::Repetition)),
            EndReason::Repetition
        );
    }
}
