//! The material balance counted from the input planes inside the network: what
//! `[model] value_counts_material` hands the value head.
//!
//! Why: half of the value target is the material outlook (`tanh(balance / 10)` a few plies on,
//! docs/training.md), and a head that must first learn to count ~180 pieces over 361 points
//! through the trunk answers with errors as large as a capture: after 45 minutes on a float32
//! machine the network's value alone lost 96 of 100 games to the network-free `material:16`,
//! and after eight hours on the AMX Xeon it still lost outright (docs/results.md AB7, AB10).
//! The relative material head met the same problem and was given the count as its base; this
//! gives the value head the count as an input, so it can learn what the board is worth beyond
//! it (what is hanging, whose command is in danger) instead of the count itself.
//!
//! The count is a fixed linear function of the 128 piece planes (each piece state's value on
//! the search's scale, [`search_piece_value`]), computed by tensor operations in the forward
//! pass: a traced TorchScript export and the Python twin compute it too, so clients feed the
//! same planes as before. The table is stored with the weights as a buffer that is not
//! trained, so the Python twin reads it from the weights file instead of keeping a copy.
//!
//! Measured at 45 minutes against the same network without it (docs/results.md AB11): the
//! value alone a little better against `material:16`, the raw policy far worse; not adopted.

use koshogi_rules::material::search_piece_value;
use koshogi_rules::PieceKind;
use tch::{Kind, Tensor};

use crate::features::{piece_state, OPPONENT_PIECES, OWN_PIECES, PIECE_STATES};

/// The variable name of the table under the value head (`value.material_values`).
pub const VALUES_NAME: &str = "material_values";

/// Each piece state's value in pawns on the search's scale, indexed as the piece planes are
/// (`features::piece_state`): a promoted initial type is valued as its type, as the rules
/// crate's count values it.
pub fn piece_state_values() -> [f32; PIECE_STATES] {
    let mut values = [f32::NAN; PIECE_STATES];
    for kind in PieceKind::ALL {
        values[piece_state(kind, false)] = search_piece_value(kind);
        values[piece_state(kind, true)] = search_piece_value(kind);
    }
    values
}

/// The mover's material minus the opponent's, in pawns, of each position of a
/// `[N, INPUT_PLANES, 19, 19]` batch (any kind and memory layout): `[N]` float32, computed in
/// float32 so that bfloat16 planes count exactly.
pub fn counted_balance(features: &Tensor, values: &Tensor) -> Tensor {
    let planes = PIECE_STATES as i64;
    let own = features.narrow(1, OWN_PIECES as i64, planes);
    let theirs = features.narrow(1, OPPONENT_PIECES as i64, planes);
    let per_state =
        (own - theirs)
            .to_kind(Kind::Float)
            .sum_dim_intlist(&[2i64, 3][..], false, Kind::Float);
    per_state.matmul(&values.to_kind(Kind::Float))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{encode_batch, FeatureInput, FEATURE_LEN, INPUT_PLANES};
    use koshogi_rules::material::search_balance;
    use koshogi_rules::{Game, RulesOptions};

    #[test]
    fn every_piece_state_has_its_types_value() {
        let values = piece_state_values();
        assert!(values.iter().all(|v| v.is_finite() && *v > 0.0));
        assert_eq!(values[piece_state(PieceKind::Pawn, false)], 1.0);
        assert_eq!(values[piece_state(PieceKind::General, false)], 20.0);
    }

    /// Along a seeded random game (both sides to move, captures on the way), the count from the
    /// planes is the rules crate's count, in float32 and in bfloat16 and channels-last.
    #[test]
    fn the_count_from_the_planes_is_the_search_balance() {
        let options = RulesOptions::default();
        let mut game = Game::new(options);
        let mut positions = Vec::new();
        let mut state = 99u64;
        for _ in 0..400 {
            if game.outcome().is_some() {
                break;
            }
            positions.push(game.position().clone());
            let moves = game.legal_moves();
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            game.play(moves[(state >> 33) as usize % moves.len()]);
        }
        let expected: Vec<f32> = positions.iter().map(search_balance).collect();
        let inputs: Vec<FeatureInput<'_>> = positions
            .iter()
            .map(|position| FeatureInput::from_position(position, &options))
            .collect();
        let mut features = vec![0f32; positions.len() * FEATURE_LEN];
        encode_batch(&inputs, &mut features).unwrap();
        assert!(
            expected.iter().any(|b| *b > 0.0) && expected.iter().any(|b| *b < 0.0),
            "the game should unbalance the material both ways"
        );
        let batch = Tensor::from_slice(&features).view([
            expected.len() as i64,
            INPUT_PLANES as i64,
            19,
            19,
        ]);
        let values = Tensor::from_slice(&piece_state_values());
        let layouts = [
            batch.shallow_clone(),
            crate::model::to_channels_last(&batch.to_kind(Kind::BFloat16)),
        ];
        for input in layouts {
            let counted = Vec::<f32>::try_from(counted_balance(&input, &values)).unwrap();
            assert_eq!(counted, expected);
        }
    }
}
