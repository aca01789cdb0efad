//! The short-term material value target: what the material balance became a few plies later.
//!
//! Why: a one-hour CPU run makes a few thousand games of ~300 plies, so the game result alone
//! is one noisy bit shared by hundreds of positions, and the value head learned little more
//! than a uniform guess (value loss 1.03 against ln 3 = 1.10). Whether a piece is hanging
//! shows within a few plies: if the balance `horizon` plies on has swung against the mover,
//! the position was worse than it looked. Mixing that outcome into the value target (as
//! KataGo's short-term value targets mix in what happened soon after) gives every position a
//! signal of its own, on the same piece-value scale and squashing the search's material
//! bootstrap uses ([`koshogi_rules::material::search_balance`] and
//! [`koshogi_rules::material::material_value`]), so the search and its targets agree on what a
//! piece is worth.
//!
//! The balance is read at `horizon` and at `horizon + 1` plies on and averaged, so that the
//! target does not depend on whose move the horizon falls (a capture just made and its
//! recapture about to come count half each). A game that ends before the horizon counts its
//! result: a decided game is a win or a loss outright; a drawn one keeps the balance of its
//! last stored position. A game won by material adjudication at the ply cap is decided too
//! unless `train.capped_value = "balance"` ([`CappedValue`]): then its last rows keep the
//! balance of its last stored position like a draw, since a lead of a few pieces at the cap is
//! not a destroyed command. Shards say why a game ended from format version 2 on; older shards
//! (reason unknown) count as decided either way.

use serde::{Deserialize, Serialize};

use crate::board::decode_position;
use crate::end_reason::EndReason;
use crate::training_positions::ShardArrays;
use koshogi_rules::material::{material_value, search_balance};

/// How the material outlook counts a game won by material adjudication at the ply cap
/// (`[train] capped_value`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CappedValue {
    /// As decided: its rows near the end get the result (±1), as any won game's.
    #[default]
    Result,
    /// As the material balance of its last stored position, as a drawn game's.
    Balance,
}

/// Per row: the mover's material balance in pawns (mover's pieces minus the opponent's, on the
/// search's scale, [`search_balance`]); 0 for a row whose board cannot be decoded (such rows
/// are rejected by the sampler anyway).
pub fn mover_balances(arrays: &ShardArrays) -> Vec<f32> {
    arrays
        .iter()
        .map(|record| {
            decode_position(record.board, record.ply)
                .map(|position| search_balance(&position))
                .unwrap_or(0.0)
        })
        .collect()
}

/// The material outlook of `row` in [-1, 1], for its mover: the mean of
/// [`material_value`]`(balance)` at `horizon` and `horizon + 1` plies on (see the
/// module docs for games that end sooner). `balances` comes from [`mover_balances`]; rows of a
/// game are stored together in ply order, as shard writers keep them.
pub fn material_outlook(arrays: &ShardArrays, balances: &[f32], row: usize, horizon: u32) -> f32 {
    material_targets(arrays, balances, row, horizon).outlook
}

/// The material targets of `row`: [`material_outlook`], [`material_ahead`] and how far the
/// balance ahead lies from the row's own (`change`, the target of a relative material head,
/// `ModelConfig::material_relative`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialTargets {
    pub outlook: f32,
    pub ahead: f32,
    pub change: f32,
}

/// [`material_outlook`] and [`material_ahead`] from one walk to each of the two horizons (the
/// sampler needs both for every row it draws).
pub fn material_targets(
    arrays: &ShardArrays,
    balances: &[f32],
    row: usize,
    horizon: u32,
) -> MaterialTargets {
    material_targets_with(arrays, balances, row, horizon, CappedValue::Result)
}

/// [`material_targets`], with games won on material at the ply cap counted as `capped` says.
pub fn material_targets_with(
    arrays: &ShardArrays,
    balances: &[f32],
    row: usize,
    horizon: u32,
    capped: CappedValue,
) -> MaterialTargets {
    let seen =
        [horizon, horizon + 1].map(|plies_on| balance_ahead(arrays, balances, row, plies_on));
    let capped_by_balance =
        capped == CappedValue::Balance && arrays.end_reason[row] == EndReason::MaterialAtCap.code();
    let outlook = |(balance, reached): (f32, bool)| {
        if !reached && arrays.game_result[row] != 0 && !capped_by_balance {
            // The game was decided before the horizon: its result is the outlook.
            f32::from(arrays.game_result[row])
        } else {
            material_value(balance)
        }
    };
    let ahead = (seen[0].0 + seen[1].0) / 2.0;
    MaterialTargets {
        outlook: (outlook(seen[0]) + outlook(seen[1])) / 2.0,
        ahead,
        change: ahead - balances[row],
    }
}

/// The material head's target: `row`'s mover's balance in pawns, the mean of `horizon` and
/// `horizon + 1` plies on (the balance of the last stored position for a game that ends
/// sooner, whatever its result). Unlike the outlook it is not squashed, so the head learns
/// the size of a swing and the search reads it on its own scale
/// (`ModelConfig::material_utility`).
pub fn material_ahead(arrays: &ShardArrays, balances: &[f32], row: usize, horizon: u32) -> f32 {
    material_targets(arrays, balances, row, horizon).ahead
}

/// `row`'s mover's balance `plies_on` plies later (or at the game's last stored row), and
/// whether the game lasted that long.
fn balance_ahead(arrays: &ShardArrays, balances: &[f32], row: usize, plies_on: u32) -> (f32, bool) {
    let game = arrays.game_id[row];
    let start_ply = arrays.ply[row];
    let target_ply = start_ply.saturating_add(plies_on);
    // Walk forward within the game; it is stored contiguously, one row per ply.
    let mut last = row;
    let limit = arrays.len().min(row.saturating_add(plies_on as usize + 1));
    for next in row..limit {
        if arrays.game_id[next] != game || arrays.ply[next] < start_ply {
            break;
        }
        last = next;
        if arrays.ply[next] >= target_ply {
            break;
        }
    }
    let reached = arrays.ply[last] >= target_ply;
    // A balance is the mover's of that row: the same side after an even number of plies.
    let sign = if (arrays.ply[last] - start_ply).is_multiple_of(2) {
        1.0
    } else {
        -1.0
    };
    (sign * balances[last], reached)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::encode_position;
    use crate::fixtures::placeholder_record;
    use crate::training_positions::PositionRecord;
    use koshogi_rules::material::MATERIAL_TEMPERATURE;
    use koshogi_rules::{Color, Position};

    /// A game of `plies` rows; at ply `loss_ply` onward White (the side to move at odd plies)
    /// is missing one piece, which is Black's gain from then on.
    fn game(
        id: u64,
        plies: u32,
        loss_ply: Option<u32>,
        result_for_black: i8,
    ) -> Vec<PositionRecord> {
        let start = Position::startpos();
        let (down, _) = koshogi_rules::fixtures::start_without_a_white_piece();
        (0..plies)
            .map(|ply| {
                let mut position = if loss_ply.is_some_and(|p| ply >= p) {
                    down.clone()
                } else {
                    start.clone()
                };
                let mover = if ply.is_multiple_of(2) {
                    Color::Black
                } else {
                    Color::White
                };
                position.set_side_to_move(mover);
                let sign = if mover == Color::Black { 1 } else { -1 };
                PositionRecord {
                    game_result: sign * result_for_black,
                    moves_left: plies - ply,
                    ..placeholder_record(encode_position(&position), id, ply)
                }
            })
            .collect()
    }

    fn arrays(games: &[Vec<PositionRecord>]) -> ShardArrays {
        let mut arrays = ShardArrays::new();
        for record in games.iter().flatten() {
            arrays.push(record).unwrap();
        }
        arrays
    }

    #[test]
    fn a_loss_within_the_horizon_shows_for_both_sides() {
        let a = arrays(&[game(1, 20, Some(6), 0)]);
        let balances = mover_balances(&a);
        assert_eq!(balances[0], 0.0);
        assert!(balances[6] > 0.0, "Black to move at ply 6 is a piece up");
        assert!(balances[7] < 0.0, "White to move at ply 7 is a piece down");
        // From ply 0 the loss at ply 6 is inside a horizon of 8: good for Black (mover at 0) ...
        let black = material_outlook(&a, &balances, 0, 8);
        assert!(black > 0.0);
        // ... and the same amount bad for White (mover at ply 1).
        let white = material_outlook(&a, &balances, 1, 8);
        assert!((white + black).abs() < 1e-6, "{white} vs {black}");
        // Beyond the horizon it is not seen yet.
        assert_eq!(material_outlook(&a, &balances, 0, 4), 0.0);
        // Exactly tanh(piece value / T).
        let expected = (balances[6] / MATERIAL_TEMPERATURE).tanh();
        assert!((black - expected).abs() < 1e-6);
    }

    #[test]
    fn the_material_ahead_is_the_unsquashed_balance_for_each_mover() {
        let a = arrays(&[game(1, 20, Some(6), 0), game(2, 10, None, 1)]);
        let balances = mover_balances(&a);
        let piece = balances[6];
        assert!(
            piece > 1.0,
            "a piece is worth more than a pawn here: {piece}"
        );
        assert_eq!(material_ahead(&a, &balances, 0, 8), piece);
        assert_eq!(material_ahead(&a, &balances, 1, 8), -piece);
        assert_eq!(material_ahead(&a, &balances, 0, 4), 0.0);
        // Half-seen at the horizon, like the outlook.
        assert_eq!(material_ahead(&a, &balances, 0, 5), piece / 2.0);
        // A won game ending sooner keeps its balance (level here), not its result.
        assert_eq!(material_ahead(&a, &balances, 26, 8), 0.0);
    }

    #[test]
    fn the_change_is_what_the_balance_ahead_adds_to_the_rows_own() {
        let a = arrays(&[game(1, 20, Some(6), 0)]);
        let balances = mover_balances(&a);
        let piece = balances[6];
        // Before the loss: the whole piece is still to come.
        assert_eq!(material_targets(&a, &balances, 0, 8).change, piece);
        assert_eq!(material_targets(&a, &balances, 1, 8).change, -piece);
        // After it: the balance already holds the piece, nothing changes.
        let after = material_targets(&a, &balances, 8, 8);
        assert_eq!(after.ahead, piece);
        assert_eq!(after.change, 0.0);
    }

    #[test]
    fn a_capture_at_the_horizon_counts_half() {
        // The piece disappears at ply 9: seen at horizon + 1 = 9 but not at horizon 8.
        let a = arrays(&[game(1, 20, Some(9), 0)]);
        let balances = mover_balances(&a);
        let full = (balances[10] / MATERIAL_TEMPERATURE).tanh();
        let half = material_outlook(&a, &balances, 0, 8);
        assert!((half - full / 2.0).abs() < 1e-6, "{half} vs {full}");
    }

    #[test]
    fn a_game_decided_before_the_horizon_counts_its_result() {
        // Black wins at the end of a 10-ply game; row 6 looks 8 plies on, past the end.
        let a = arrays(&[game(1, 10, None, 1), game(2, 30, Some(2), 0)]);
        let balances = mover_balances(&a);
        assert_eq!(material_outlook(&a, &balances, 6, 8), 1.0);
        assert_eq!(material_outlook(&a, &balances, 7, 8), -1.0);
        // The next game's rows are never read as this game's future: the last row of the
        // first game (White to move, White lost) gets the result, not game 2's balance.
        assert_eq!(material_outlook(&a, &balances, 9, 8), -1.0);
        // Within the horizon the balance still counts in a decided game.
        assert_eq!(material_outlook(&a, &balances, 0, 4), 0.0);
    }

    #[test]
    fn a_game_won_on_material_at_the_cap_counts_its_balance_when_asked() {
        // Black wins a 12-ply game at the cap on material: White lost a piece at ply 4.
        let mut capped = game(1, 12, Some(4), 1);
        for record in &mut capped {
            record.end_reason = EndReason::MaterialAtCap;
        }
        let a = arrays(&[capped, game(2, 12, Some(4), 1)]);
        let balances = mover_balances(&a);
        let outlook = |row, capped| material_targets_with(&a, &balances, row, 8, capped).outlook;
        // As a decided game (the default, and what version-1 shards get): the result.
        assert_eq!(outlook(8, CappedValue::Result), 1.0);
        assert_eq!(outlook(9, CappedValue::Result), -1.0);
        // As its balance: a piece up for Black (row 8), a piece down for White (row 9).
        let piece = material_value(balances[8]);
        assert!(piece > 0.0 && piece < 1.0);
        assert!((outlook(8, CappedValue::Balance) - piece).abs() < 1e-6);
        assert!((outlook(9, CappedValue::Balance) + piece).abs() < 1e-6);
        // A game that ended otherwise keeps its result whatever the setting (game 2's rows
        // carry no reason).
        assert_eq!(outlook(12 + 8, CappedValue::Balance), 1.0);
        // Within the horizon nothing changes.
        assert_eq!(
            outlook(0, CappedValue::Balance),
            outlook(0, CappedValue::Result)
        );
    }

    #[test]
    fn a_drawn_game_ending_early_keeps_its_last_balance() {
        // Drawn 12-ply game; White lost a piece at ply 4; row 8 looks past the end.
        let a = arrays(&[game(1, 12, Some(4), 0), game(2, 12, None, 0)]);
        let balances = mover_balances(&a);
        let last = (balances[11] / MATERIAL_TEMPERATURE).tanh(); // White to move at ply 11
                                                                 // Row 8 (Black to move): the last row is 3 plies on, White's view: flip it.
        assert!((material_outlook(&a, &balances, 8, 8) + last).abs() < 1e-6);
        assert!(material_outlook(&a, &balances, 8, 8) > 0.0);
    }
}
