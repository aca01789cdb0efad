//! `koshogi encode`: one position as the network sees it, for clients in other languages.
//!
//! Writes `features.npy` (float32 `[1, INPUT_PLANES, 19, 19]`, docs/input-features.md) and
//! `moves.json`: the legal moves in generation order, each with its canonical and Hodges
//! notation and its policy legs `[[plane, point], …]` (docs/move-encoding.md). A client runs the
//! exported module on the features, adds up each move's leg logits and takes the softmax over
//! the legal moves (`scripts/export_example.py`), without reimplementing either encoding.

use std::path::Path;

use koshogi_files::atomic::write_atomic;
use koshogi_nn::features::{encode_position, FeatureInput, FEATURE_LEN, INPUT_PLANES};
use koshogi_nn::geometry::{BOARD_SIZE, POINTS};
use koshogi_nn::move_encoding::{encode_move, MOVE_ENCODING_VERSION, POLICY_PLANES};
use koshogi_nn::{NnError, FEATURE_VERSION};
use koshogi_rules::notation::{format_canonical, format_hodges};
use koshogi_rules::Game;
use serde::{Deserialize, Serialize};

use crate::error::ExportError;
use crate::npy::write_f32;

/// One legal move and its policy legs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EncodedMove {
    pub canonical: String,
    pub hodges: String,
    /// `(plane, point)` pairs; the move's logit is the sum of `policy[plane][point]`.
    pub legs: Vec<[u32; 2]>,
}

/// A position encoded for the network (what `moves.json` holds, plus the features).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EncodedPosition {
    pub ksfen: String,
    pub side_to_move: String,
    pub feature_version: u32,
    pub move_encoding_version: u32,
    pub input_planes: usize,
    pub policy_planes: usize,
    pub points: usize,
    /// Legal moves in generation order.
    pub moves: Vec<EncodedMove>,
    /// `INPUT_PLANES × 361` values (not in `moves.json`; written as `features.npy`).
    #[serde(skip)]
    pub features: Vec<f32>,
}

/// Encodes the current position of `game` (its history supplies the repetition and ply planes),
/// with the attack planes filled when `attack_planes` (what the network's card says).
pub fn encode_game(game: &Game, attack_planes: bool) -> Result<EncodedPosition, ExportError> {
    let position = game.position();
    let mut features = vec![0.0f32; FEATURE_LEN];
    let input = FeatureInput::from_game(game).with_attack_planes(attack_planes);
    encode_position(&input, &mut features).map_err(NnError::from)?;
    let legal = game.legal_moves();
    let moves = legal
        .iter()
        .map(|mv| {
            let legs = encode_move(position, mv)
                .map_err(NnError::from)?
                .iter()
                .map(|entry| [entry / POINTS as u32, entry % POINTS as u32])
                .collect();
            Ok(EncodedMove {
                canonical: format_canonical(mv),
                hodges: format_hodges(position, &legal, mv),
                legs,
            })
        })
        .collect::<Result<Vec<_>, ExportError>>()?;
    Ok(EncodedPosition {
        ksfen: position.to_ksfen(true),
        side_to_move: position.side_to_move().to_string(),
        feature_version: FEATURE_VERSION,
        move_encoding_version: MOVE_ENCODING_VERSION,
        input_planes: INPUT_PLANES,
        policy_planes: POLICY_PLANES,
        points: POINTS,
        moves,
        features,
    })
}

/// Writes `features.npy` and `moves.json` into `dir` (created if needed), each atomically.
pub fn write_encoding(encoded: &EncodedPosition, dir: &Path) -> Result<(), ExportError> {
    std::fs::create_dir_all(dir).map_err(ExportError::io(dir))?;
    write_f32(
        &dir.join("features.npy"),
        &encoded.features,
        &[1, INPUT_PLANES, BOARD_SIZE, BOARD_SIZE],
    )?;
    let path = dir.join("moves.json");
    let mut text = serde_json::to_string_pretty(encoded).map_err(|e| ExportError::BadFile {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    text.push('\n');
    write_atomic(&path, text.as_bytes()).map_err(ExportError::io(&path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use koshogi_nn::move_encoding::encode_move;
    use koshogi_rules::RulesOptions;

    #[test]
    fn every_legal_move_is_listed_with_legs_that_decode_to_its_encoding() {
        let game = Game::new(RulesOptions::default());
        let encoded = encode_game(&game, false).unwrap();
        let legal = game.legal_moves();
        assert_eq!(encoded.moves.len(), legal.len());
        for (mv, listed) in legal.iter().zip(&encoded.moves) {
            assert_eq!(listed.canonical, mv.to_string());
            let flat: Vec<u32> = listed
                .legs
                .iter()
                .map(|[plane, point]| plane * POINTS as u32 + point)
                .collect();
            assert_eq!(flat, encode_move(game.position(), mv).unwrap().as_slice());
            assert!(listed
                .legs
                .iter()
                .all(|[plane, point]| (*plane as usize) < POLICY_PLANES
                    && (*point as usize) < POINTS));
        }
        // The on-board plane is all ones and nothing else is outside 0..=1.
        let on_board = &encoded.features[koshogi_nn::features::ON_BOARD * POINTS..][..POINTS];
        assert!(on_board.iter().all(|&v| v == 1.0));
    }

    #[test]
    fn files_are_written_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let game = Game::new(RulesOptions::default());
        let encoded = encode_game(&game, false).unwrap();
        write_encoding(&encoded, dir.path()).unwrap();
        let (features, shape) = crate::npy::read_f32(&dir.path().join("features.npy")).unwrap();
        assert_eq!(shape, vec![1, INPUT_PLANES, BOARD_SIZE, BOARD_SIZE]);
        assert_eq!(features, encoded.features);
        let text = std::fs::read_to_string(dir.path().join("moves.json")).unwrap();
        let back: EncodedPosition = serde_json::from_str(&text).unwrap();
        assert_eq!(back.moves, encoded.moves);
        assert_eq!(back.ksfen, encoded.ksfen);
    }
}
