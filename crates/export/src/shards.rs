//! `koshogi encode --shards DIR --out OUT`: replay shards turned into training arrays a
//! PyTorch loop reads without the Rust rules (`python/koshogi_zero/data.py`,
//! docs/python.md).
//!
//! One `.npz` file per shard (`encoded-<sequence>-<writer>.npz`), written atomically, holding
//! per position the network's input planes (bit-packed, plus the one non-binary plane as a
//! number), the policy legs of every legal move as flat indices into the network's policy
//! output, the policy target per legal move and the value, moves-left and material targets —
//! exactly what the Rust trainer feeds `compute_losses` for the same row without mirroring
//! (`koshogi_train::sampler`): the same repetition counts, ply limit, value mix and material
//! target. Shards are processed one at a time, so memory stays at one shard's arrays
//! (~9 KB per position). `manifest.json` lists the files; a later run re-encodes only shards
//! that are new or changed (name and size) or whose options differ.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use koshogi_files::atomic::{write_atomic, TempFile};
use koshogi_nn::features::{encode_position, FeatureInput, FEATURE_LEN, PLY_FRACTION};
use koshogi_nn::geometry::POINTS;
use koshogi_nn::move_encoding::{encode_moves, mirror_plane, POLICY_PLANES};
use koshogi_nn::{LossWeights, MoveLegs, FEATURE_VERSION, INPUT_PLANES, MOVE_ENCODING_VERSION};
use koshogi_replay::npy::NpyArray;
use koshogi_replay::npz::{write_npz, NpzError};
use koshogi_replay::targets::{material_targets, mover_balances, value_target};
use koshogi_replay::{list_shards, position_and_moves, Shard, ShardArrays, StoredMovesError};
use koshogi_rules::{Move, RulesOptions};
use koshogi_train::MaterialHeadTarget;
use serde::{Deserialize, Serialize};

use crate::error::ExportError;

/// The `format` of the manifest and of every file's `meta`.
pub const ENCODED_FORMAT: &str = "koshogi-encoded-shards";
pub const ENCODED_FORMAT_VERSION: u32 = 1;
pub const MANIFEST_FILE: &str = "manifest.json";
/// Bytes of one bit-packed plane (`numpy.packbits` of 361 values, most significant bit first).
pub const PACKED_PLANE_BYTES: usize = POINTS.div_ceil(8);
/// Deflate level of the members: the planes are mostly zero bits, and level 1 keeps the
/// encoder several times faster than level 6 for a few percent more bytes.
const DEFLATE_LEVEL: i64 = 1;

/// How the targets are made: the run configuration's settings the trainer uses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardEncodeOptions {
    /// `selfplay.max_plies`: input plane 138 is `min(1, ply / max_plies)`.
    pub max_plies: Option<u32>,
    /// `train.search_value_weight`, `train.material_outlook_weight`,
    /// `train.material_outlook_plies`: the value target's mix.
    pub search_value_weight: f64,
    pub material_outlook_weight: f64,
    pub material_outlook_plies: u32,
    /// `train.material_head_target` and `model.material_relative`: the material target.
    pub material_head_target: MaterialHeadTarget,
    pub material_relative: bool,
    /// `model.attack_planes`: fill input planes 140 and 141 (manifests written before the
    /// planes existed lack it and read as `false`).
    #[serde(default)]
    pub attack_planes: bool,
    /// `train.loss`: recorded for the Python loss (it does not change the arrays).
    pub loss_weights: LossWeights,
}

/// One encoded file in the manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EncodedFile {
    pub file: String,
    /// The shard it was made from (file name and size: shards never change once written).
    pub source: String,
    pub source_bytes: u64,
    pub positions: usize,
    /// Rows of the shard left out (their board or move count did not match the rules).
    pub skipped_rows: usize,
    pub legal_moves: usize,
    pub legs: usize,
    pub bytes: u64,
}

/// `manifest.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub format_version: u32,
    pub feature_version: u32,
    pub move_encoding_version: u32,
    pub input_planes: usize,
    pub policy_planes: usize,
    pub points: usize,
    pub options: ShardEncodeOptions,
    pub positions: usize,
    pub files: Vec<EncodedFile>,
    /// What the members are (docs/python.md has the full table).
    pub layout: serde_json::Value,
}

/// What [`encode_shards`] did.
#[derive(Clone, Debug, Default)]
pub struct ShardEncodeSummary {
    /// Shards encoded by this call.
    pub encoded: usize,
    /// Shards whose file from an earlier run was still valid.
    pub up_to_date: usize,
    /// Shards that could not be read (damaged, unreadable rules options): warned and left out.
    pub damaged: Vec<PathBuf>,
    /// Positions encoded by this call, and in all files.
    pub positions: usize,
    pub total_positions: usize,
    pub skipped_rows: usize,
    /// Bytes written by this call.
    pub bytes: u64,
    pub manifest: PathBuf,
}

fn layout() -> serde_json::Value {
    serde_json::json!({
        "planes_packed": "uint8 [N, 142, 46]: input planes, numpy.packbits(axis=2) of [N, 142, 361] (bitorder big); plane 138 is all 0 here",
        "ply_fraction": "float32 [N]: the value of every point of plane 138",
        "move_offsets": "int64 [N+1]: position i's legal moves are rows move_offsets[i]:move_offsets[i+1], in move-generation order",
        "leg_offsets": "int64 [M+1]: legal move j's legs are legs[leg_offsets[j]:leg_offsets[j+1]]",
        "legs": "int32 [L]: flat index plane * 361 + point into the position's policy output [299 * 361]; a move's logit is the sum of its legs",
        "policy_target": "float32 [M]: target probability of each legal move (0 if not listed)",
        "policy_listed": "bool [M]: the move is listed in the search's policy target",
        "policy_rest": "float32 [N]: target mass of the unlisted moves as a group",
        "policy_weight": "float32 [N]: 1 if the position has a policy target (full search), else 0",
        "played_move": "int32 [N]: index of the move played among the position's legal moves",
        "wdl_target": "float32 [N, 3]: win/draw/loss target for the side to move",
        "moves_left": "float32 [N]: plies to the end of the game (the head predicts it / 256)",
        "material_target": "float32 [N]: material head target in pawns (the head predicts it / 16)",
        "game_result": "int8 [N]: 1 win, 0 draw, -1 loss for the mover",
        "search_value": "float32 [N]: root search value for the mover",
        "game_id": "uint64 [N]", "ply": "uint32 [N]", "source_row": "uint32 [N]: row in the source shard",
        "mirror_plane": "int32 [299]: the plane of a leg's left-right mirror image (the point mirrors file f -> 20 - f)",
        "meta": "uint8: UTF-8 JSON (format, versions, source shard, options)",
    })
}

/// The arrays of one encoded file.
#[derive(Default)]
struct Columns {
    planes: Vec<u8>,
    ply_fraction: Vec<f32>,
    move_offsets: Vec<i64>,
    leg_offsets: Vec<i64>,
    legs: Vec<i32>,
    policy_target: Vec<f32>,
    policy_listed: Vec<bool>,
    policy_rest: Vec<f32>,
    policy_weight: Vec<f32>,
    played_move: Vec<i32>,
    wdl_target: Vec<f32>,
    moves_left: Vec<f32>,
    material_target: Vec<f32>,
    game_result: Vec<i8>,
    search_value: Vec<f32>,
    game_id: Vec<u64>,
    ply: Vec<u32>,
    source_row: Vec<u32>,
}

impl Columns {
    fn len(&self) -> usize {
        self.ply_fraction.len()
    }

    fn members(&self, meta: &[u8]) -> Vec<(&'static str, NpyArray)> {
        let n = self.len();
        let mirror: Vec<i32> = (0..POLICY_PLANES).map(|p| mirror_plane(p) as i32).collect();
        vec![
            (
                "planes_packed",
                NpyArray::from_elements(vec![n, INPUT_PLANES, PACKED_PLANE_BYTES], &self.planes),
            ),
            (
                "ply_fraction",
                NpyArray::from_elements(vec![n], &self.ply_fraction),
            ),
            (
                "move_offsets",
                NpyArray::from_elements(vec![n + 1], &self.move_offsets),
            ),
            (
                "leg_offsets",
                NpyArray::from_elements(vec![self.leg_offsets.len()], &self.leg_offsets),
            ),
            (
                "legs",
                NpyArray::from_elements(vec![self.legs.len()], &self.legs),
            ),
            (
                "policy_target",
                NpyArray::from_elements(vec![self.policy_target.len()], &self.policy_target),
            ),
            (
                "policy_listed",
                NpyArray::from_elements(vec![self.policy_listed.len()], &self.policy_listed),
            ),
            (
                "policy_rest",
                NpyArray::from_elements(vec![n], &self.policy_rest),
            ),
            (
                "policy_weight",
                NpyArray::from_elements(vec![n], &self.policy_weight),
            ),
            (
                "played_move",
                NpyArray::from_elements(vec![n], &self.played_move),
            ),
            (
                "wdl_target",
                NpyArray::from_elements(vec![n, 3], &self.wdl_target),
            ),
            (
                "moves_left",
                NpyArray::from_elements(vec![n], &self.moves_left),
            ),
            (
                "material_target",
                NpyArray::from_elements(vec![n], &self.material_target),
            ),
            (
                "game_result",
                NpyArray::from_elements(vec![n], &self.game_result),
            ),
            (
                "search_value",
                NpyArray::from_elements(vec![n], &self.search_value),
            ),
            ("game_id", NpyArray::from_elements(vec![n], &self.game_id)),
            ("ply", NpyArray::from_elements(vec![n], &self.ply)),
            (
                "source_row",
                NpyArray::from_elements(vec![n], &self.source_row),
            ),
            (
                "mirror_plane",
                NpyArray::from_elements(vec![POLICY_PLANES], &mirror),
            ),
            ("meta", NpyArray::from_elements(vec![meta.len()], meta)),
        ]
    }
}

/// Why a row of a shard is left out.
#[derive(Debug)]
enum RowError {
    Board(String),
    MoveCount { stored: u32, generated: usize },
    Encoding(String),
}

impl std::fmt::Display for RowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowError::Board(why) => write!(f, "board: {why}"),
            RowError::MoveCount { stored, generated } => write!(
                f,
                "{stored} legal moves stored, the rules generate {generated}"
            ),
            RowError::Encoding(why) => write!(f, "encoding: {why}"),
        }
    }
}

/// Scratch buffers reused across rows.
#[derive(Default)]
struct Scratch {
    moves: Vec<Move>,
    legs: Vec<MoveLegs>,
    features: Vec<f32>,
}

#[allow(clippy::too_many_arguments)]
fn encode_row(
    arrays: &ShardArrays,
    row: usize,
    rules: &RulesOptions,
    repetition_count: u32,
    balances: &[f32],
    options: &ShardEncodeOptions,
    scratch: &mut Scratch,
    out: &mut Columns,
) -> Result<(), RowError> {
    let record = arrays
        .record(row)
        .ok_or_else(|| RowError::Board("row outside the shard".into()))?;
    let position = position_and_moves(&record, rules, &mut scratch.moves).map_err(|e| match e {
        StoredMovesError::Board(e) => RowError::Board(e.to_string()),
        StoredMovesError::MoveCount { stored, generated } => {
            RowError::MoveCount { stored, generated }
        }
    })?;
    encode_moves(&position, &scratch.moves, &mut scratch.legs)
        .map_err(|e| RowError::Encoding(e.to_string()))?;
    scratch.features.resize(FEATURE_LEN, 0.0);
    let input = FeatureInput {
        position: &position,
        options: rules,
        repetition_count,
        ply: record.ply,
        max_plies: options.max_plies,
        attack_planes: options.attack_planes,
    };
    encode_position(&input, &mut scratch.features)
        .map_err(|e| RowError::Encoding(e.to_string()))?;

    // Planes, bit-packed as numpy.packbits does; plane 138 goes to ply_fraction.
    let mut packed = vec![0u8; INPUT_PLANES * PACKED_PLANE_BYTES];
    for plane in 0..INPUT_PLANES {
        let values = &scratch.features[plane * POINTS..][..POINTS];
        if plane == PLY_FRACTION {
            continue;
        }
        for (point, &value) in values.iter().enumerate() {
            if value == 1.0 {
                packed[plane * PACKED_PLANE_BYTES + point / 8] |= 0x80 >> (point % 8);
            } else if value != 0.0 {
                return Err(RowError::Encoding(format!(
                    "plane {plane} holds {value}, not 0 or 1"
                )));
            }
        }
    }
    // Policy: the sampler's scaling (a sum above 1, float16 rounding, is scaled down) and
    // group remainder (`TrainingBatchBuilder::push`).
    let mass: f32 = record.policy_weights.iter().sum();
    let moves = scratch.moves.len();
    let mut target = vec![0f32; moves];
    let mut listed = vec![false; moves];
    let mut rest = 0f32;
    if mass > 0.0 {
        let scale = mass.max(1.0);
        let mut listed_mass = 0f32;
        for (&m, &w) in record.policy_moves.iter().zip(record.policy_weights) {
            let p = w / scale;
            target[m as usize] = p;
            listed[m as usize] = true;
            listed_mass += p;
        }
        rest = (1.0 - listed_mass).max(0.0);
    }
    let material = material_targets(arrays, balances, row, options.material_outlook_plies);
    let wdl = value_target(
        record.game_result,
        record.search_value,
        options.search_value_weight,
        material.outlook,
        options.material_outlook_weight,
    );

    out.planes.extend_from_slice(&packed);
    out.ply_fraction
        .push(scratch.features[PLY_FRACTION * POINTS]);
    if out.move_offsets.is_empty() {
        out.move_offsets.push(0);
        out.leg_offsets.push(0);
    }
    for legs in &scratch.legs {
        out.legs.extend(legs.as_slice().iter().map(|&l| l as i32));
        out.leg_offsets.push(out.legs.len() as i64);
    }
    out.move_offsets.push(out.leg_offsets.len() as i64 - 1);
    out.policy_target.extend_from_slice(&target);
    out.policy_listed.extend_from_slice(&listed);
    out.policy_rest.push(rest);
    out.policy_weight.push(if record.full_search && mass > 0.0 {
        1.0
    } else {
        0.0
    });
    out.played_move.push(record.played_move as i32);
    out.wdl_target.extend_from_slice(&wdl);
    out.moves_left.push(record.moves_left as f32);
    out.material_target
        .push(match options.material_head_target {
            MaterialHeadTarget::Ahead if options.material_relative => material.change,
            MaterialHeadTarget::Ahead => material.ahead,
            MaterialHeadTarget::Final => f32::from(record.final_material),
        });
    out.game_result.push(record.game_result);
    out.search_value.push(record.search_value);
    out.game_id.push(record.game_id);
    out.ply.push(record.ply);
    out.source_row.push(row as u32);
    Ok(())
}

/// Writes `members` as an `.npz` (zip, deflate) atomically, serialising one member at a time;
/// returns its size.
fn write_encoded_file(path: &Path, members: &[(&str, NpyArray)]) -> Result<u64, ExportError> {
    let temp = TempFile::beside(path);
    let file = std::fs::File::create(temp.path()).map_err(ExportError::io(path))?;
    let npy = members
        .iter()
        .map(|(name, array)| (*name, array.to_npy_bytes()));
    write_npz(file, npy, DEFLATE_LEVEL).map_err(|e| match e {
        NpzError::Io(e) => ExportError::io(path)(e),
        e => ExportError::BadFile {
            path: path.to_path_buf(),
            reason: format!("writing the zip archive: {e}"),
        },
    })?;
    temp.commit().map_err(ExportError::io(path))?;
    Ok(std::fs::metadata(path)
        .map_err(ExportError::io(path))?
        .len())
}

/// `shard-<seq>-<writer>.npz` → `encoded-<seq>-<writer>.npz`.
fn encoded_name(source: &str) -> String {
    let stem = source.strip_suffix(".npz").unwrap_or(source);
    format!(
        "encoded-{}.npz",
        stem.strip_prefix("shard-").unwrap_or(stem)
    )
}

/// Encodes one shard into `out`; `Ok(None)` if the shard is damaged (warned, left out).
fn encode_shard(
    path: &Path,
    out_dir: &Path,
    options: &ShardEncodeOptions,
) -> Result<Option<EncodedFile>, ExportError> {
    let source = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let source_bytes = std::fs::metadata(path)
        .map_err(ExportError::io(path))?
        .len();
    let Some(shard) = Shard::open_or_skip(path) else {
        return Ok(None);
    };
    let rules_json = shard.meta().provenance.rules_options.clone();
    let rules: RulesOptions = match serde_json::from_value(rules_json.clone()) {
        Ok(rules) => rules,
        Err(e) => {
            tracing::warn!(
                file = %path.display(),
                "skipping replay shard {} with unreadable rules options: {e}",
                path.display()
            );
            return Ok(None);
        }
    };
    let model_step = shard.meta().provenance.model_step;
    let arrays = shard.into_arrays();
    let repetitions = arrays.repetition_counts();
    let balances = mover_balances(&arrays);
    let mut columns = Columns::default();
    let mut scratch = Scratch::default();
    let mut skipped = 0;
    for (row, &repetition_count) in repetitions.iter().enumerate() {
        if let Err(why) = encode_row(
            &arrays,
            row,
            &rules,
            repetition_count,
            &balances,
            options,
            &mut scratch,
            &mut columns,
        ) {
            skipped += 1;
            tracing::warn!(file = %path.display(), row, "left out row {row} of {}: {why}", path.display());
        }
    }
    if columns.move_offsets.is_empty() {
        columns.move_offsets.push(0);
        columns.leg_offsets.push(0);
    }
    let file = encoded_name(&source);
    let meta = serde_json::to_vec(&serde_json::json!({
        "format": ENCODED_FORMAT,
        "format_version": ENCODED_FORMAT_VERSION,
        "feature_version": FEATURE_VERSION,
        "move_encoding_version": MOVE_ENCODING_VERSION,
        "input_planes": INPUT_PLANES,
        "policy_planes": POLICY_PLANES,
        "points": POINTS,
        "source": source,
        "source_bytes": source_bytes,
        "source_model_step": model_step,
        "rules_options": rules_json,
        "options": options,
        "positions": columns.len(),
        "skipped_rows": skipped,
    }))
    .expect("the meta serialises");
    let bytes = write_encoded_file(&out_dir.join(&file), &columns.members(&meta))?;
    Ok(Some(EncodedFile {
        file,
        source,
        source_bytes,
        positions: columns.len(),
        skipped_rows: skipped,
        legal_moves: columns.policy_target.len(),
        legs: columns.legs.len(),
        bytes,
    }))
}

fn read_manifest(path: &Path) -> Option<Manifest> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// Encodes every shard of `shards_dir` into `out_dir` (created if needed), one shard at a
/// time, then writes `manifest.json`. Files of an earlier run with the same options whose
/// shard is unchanged are kept; files of shards that are gone are removed.
pub fn encode_shards(
    shards_dir: &Path,
    out_dir: &Path,
    options: &ShardEncodeOptions,
) -> Result<ShardEncodeSummary, ExportError> {
    if !shards_dir.is_dir() {
        return Err(ExportError::BadFile {
            path: shards_dir.to_path_buf(),
            reason: "no such directory of replay shards".into(),
        });
    }
    let shards = list_shards(shards_dir).map_err(|e| ExportError::BadFile {
        path: shards_dir.to_path_buf(),
        reason: e.to_string(),
    })?;
    if shards.is_empty() {
        return Err(ExportError::BadFile {
            path: shards_dir.to_path_buf(),
            reason: "holds no replay shards (shard-<sequence>-<writer>.npz)".into(),
        });
    }
    std::fs::create_dir_all(out_dir).map_err(ExportError::io(out_dir))?;
    let manifest_path = out_dir.join(MANIFEST_FILE);
    let previous: HashMap<String, EncodedFile> = read_manifest(&manifest_path)
        .filter(|m| {
            m.format == ENCODED_FORMAT
                && m.format_version == ENCODED_FORMAT_VERSION
                && m.feature_version == FEATURE_VERSION
                && m.move_encoding_version == MOVE_ENCODING_VERSION
                && &m.options == options
        })
        .map(|m| m.files.into_iter().map(|f| (f.source.clone(), f)).collect())
        .unwrap_or_default();

    let mut summary = ShardEncodeSummary {
        manifest: manifest_path.clone(),
        ..Default::default()
    };
    let mut files = Vec::new();
    for shard in &shards {
        let source = shard
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let size = std::fs::metadata(&shard.path).map(|m| m.len()).ok();
        if let Some(done) = previous.get(&source) {
            if Some(done.source_bytes) == size && out_dir.join(&done.file).is_file() {
                summary.up_to_date += 1;
                summary.total_positions += done.positions;
                files.push(done.clone());
                continue;
            }
        }
        match encode_shard(&shard.path, out_dir, options)? {
            Some(file) => {
                tracing::debug!(
                    "encoded {} ({} positions) into {}",
                    file.source,
                    file.positions,
                    file.file
                );
                summary.encoded += 1;
                summary.positions += file.positions;
                summary.total_positions += file.positions;
                summary.skipped_rows += file.skipped_rows;
                summary.bytes += file.bytes;
                files.push(file);
            }
            None => summary.damaged.push(shard.path.clone()),
        }
    }
    // Files of shards no longer in the directory (or damaged now) do not belong any more.
    let kept: std::collections::HashSet<&str> = files.iter().map(|f| f.file.as_str()).collect();
    for stale in previous
        .values()
        .filter(|f| !kept.contains(f.file.as_str()))
    {
        let _ = std::fs::remove_file(out_dir.join(&stale.file));
    }
    let manifest = Manifest {
        format: ENCODED_FORMAT.into(),
        format_version: ENCODED_FORMAT_VERSION,
        feature_version: FEATURE_VERSION,
        move_encoding_version: MOVE_ENCODING_VERSION,
        input_planes: INPUT_PLANES,
        policy_planes: POLICY_PLANES,
        points: POINTS,
        options: options.clone(),
        positions: summary.total_positions,
        files,
        layout: layout(),
    };
    let mut text = serde_json::to_string_pretty(&manifest).expect("the manifest serialises");
    text.push('\n');
    write_atomic(&manifest_path, text.as_bytes()).map_err(ExportError::io(&manifest_path))?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_names_follow_the_shard_names() {
        assert_eq!(
            encoded_name("shard-000000003-w0_ab.npz"),
            "encoded-000000003-w0_ab.npz"
        );
    }

    #[test]
    fn planes_are_packed_most_significant_bit_first_like_numpy() {
        // numpy.packbits([1, 0, 0, 0, 0, 0, 0, 1, 1]) == [0x81, 0x80]
        let mut packed = [0u8; 2];
        for point in [0usize, 7, 8] {
            packed[point / 8] |= 0x80 >> (point % 8);
        }
        assert_eq!(packed, [0x81, 0x80]);
        assert_eq!(PACKED_PLANE_BYTES, 46);
    }
}
