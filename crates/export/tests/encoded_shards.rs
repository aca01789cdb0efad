//! `koshogi encode --shards` (koshogi_export::encode_shards): replay shards as training arrays.
//!
//! * The arrays are checked in Rust against an independent path: each game replayed move by
//!   move with the rules engine (`Game`, which counts repetitions from its own history and
//!   knows the ply limit) and encoded with `koshogi encode`'s own `encode_game` — input planes,
//!   every legal move's legs, the policy target with its unlisted remainder, the value and
//!   auxiliary targets.
//! * Python (`python/koshogi_zero/data.py`) reads them and computes the trainer's losses with
//!   the twin, plain and mirrored; they must equal `compute_losses` of the Rust trainer on the
//!   same rows. `python/train_example.py` trains one step and saves a checkpoint Rust loads.
//!
//! The games: random legal play from the start position, one of them ending in a four-fold
//! repetition of passes (the repetition planes), policy targets that leave part of the mass
//! to the unlisted moves, a ply limit (the ply plane).

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::noisy_model;
use koshogi_export::shards::{Manifest, MANIFEST_FILE};
use koshogi_export::{encode_game, encode_shards, ShardEncodeOptions};
use koshogi_nn::geometry::POINTS;
use koshogi_nn::move_encoding::encode_moves;
use koshogi_nn::{
    checkpoint, compute_losses, LossWeights, ModelConfig, MoveLegs, SampleTargets,
    TrainingBatchBuilder, FEATURE_LEN, INPUT_PLANES,
};
use koshogi_replay::npy::{Element, NpyArray};
use koshogi_replay::npz;
use koshogi_replay::targets::{material_targets, mover_balances, value_target};
use koshogi_replay::{
    encode_position, read_all_shards, PolicyEntry, PositionRecord, Provenance, ShardDir,
    ShardWriter,
};
use koshogi_rules::{Color, Game, Outcome, RulesOptions};
use koshogi_train::MaterialHeadTarget;
use tch::Device;

const MAX_PLIES: u32 = 40;

/// A tiny deterministic generator (no rand dependency).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// Plays `games` games and writes them as shards of about `per_shard` positions.
fn write_games(shards: &Path, games: u64, per_shard: usize) {
    let rules = RulesOptions::default();
    let provenance = Provenance {
        rules_options: serde_json::to_value(rules).unwrap(),
        ..Provenance::default()
    };
    let mut writer =
        ShardWriter::new(ShardDir::open(shards).unwrap(), "t", provenance, per_shard).unwrap();
    let mut rng = Lcg(17);
    for game_id in 0..games {
        let mut game = Game::new(rules).with_max_plies(Some(MAX_PLIES));
        let mut records: Vec<(PositionRecord, Color)> = Vec::new();
        while game.outcome().is_none() {
            let moves = game.legal_moves();
            let position = game.position();
            // Game 0 passes from ply 4 on: the same two positions repeat until the fourth
            // occurrence ends the game.
            let played = match moves.iter().position(|m| m.is_pass()) {
                Some(pass) if game_id == 0 && position.ply() >= 4 => pass,
                _ => rng.next(moves.len()),
            };
            let full_search = rng.next(3) != 0;
            let policy = if full_search {
                let mut chosen = vec![played];
                while chosen.len() < 3.min(moves.len()) {
                    let m = rng.next(moves.len());
                    if !chosen.contains(&m) {
                        chosen.push(m);
                    }
                }
                chosen.sort();
                // Odd games list the whole mass, even games leave 0.3 to the unlisted moves.
                let weights = if game_id % 2 == 1 {
                    [0.5, 0.3, 0.2]
                } else {
                    [0.4, 0.2, 0.1]
                };
                chosen
                    .iter()
                    .zip(weights)
                    .map(|(&m, w)| PolicyEntry {
                        move_index: m as u32,
                        weight: w,
                    })
                    .collect()
            } else {
                Vec::new()
            };
            records.push((
                PositionRecord {
                    board: encode_position(position),
                    game_id,
                    ply: position.ply(),
                    legal_move_count: moves.len() as u32,
                    played_move: played as u32,
                    full_search,
                    policy,
                    search_value: (rng.next(201) as f32 - 100.0) / 100.0,
                    game_result: 0,
                    moves_left: 0,
                    final_material: 0,
                    end_reason: koshogi_replay::EndReason::Unknown,
                },
                position.side_to_move(),
            ));
            game.play(moves[played]);
        }
        let winner = match game.outcome() {
            Some(Outcome::Win { winner, .. }) => Some(winner),
            _ => None,
        };
        let total = records.len() as u32;
        let finished: Vec<PositionRecord> = records
            .into_iter()
            .enumerate()
            .map(|(i, (mut record, mover))| {
                record.game_result = match winner {
                    Some(w) if w == mover => 1,
                    Some(_) => -1,
                    None => 0,
                };
                record.moves_left = total - i as u32;
                record.final_material = (game_id as i16 % 3) - 1;
                record
            })
            .collect();
        writer.add_game(&finished).unwrap();
    }
    writer.flush().unwrap();
}

fn options() -> ShardEncodeOptions {
    ShardEncodeOptions {
        max_plies: Some(MAX_PLIES),
        search_value_weight: 0.25,
        material_outlook_weight: 0.5,
        material_outlook_plies: 4,
        material_head_target: MaterialHeadTarget::Ahead,
        material_relative: true,
        attack_planes: true,
        loss_weights: LossWeights {
            policy: 1.0,
            value: 0.8,
            moves_left: 0.3,
            material: 0.7,
        },
    }
}

/// The members of an encoded `.npz` file.
fn read_npz(path: &Path) -> HashMap<String, NpyArray> {
    let file = std::fs::File::open(path).unwrap();
    npz::read_npz(file, 1 << 30)
        .unwrap()
        .into_iter()
        .map(|(entry, bytes)| {
            let name = entry.trim_end_matches(".npy").to_string();
            (name, NpyArray::from_npy_bytes(&bytes).unwrap())
        })
        .collect()
}

fn column<T: Element>(members: &HashMap<String, NpyArray>, name: &str) -> Vec<T> {
    members[name].elements::<T>().unwrap()
}

/// A record's policy target as the trainer's sampler reads it: a listed mass above 1 (float16
/// rounding of a complete target) is scaled down to 1.
fn scaled_policy(record: &koshogi_replay::Record<'_>) -> Vec<(u32, f32)> {
    let mass: f32 = record.policy_weights.iter().sum();
    if mass <= 0.0 {
        return Vec::new();
    }
    let scale = mass.max(1.0);
    record
        .policy_moves
        .iter()
        .zip(record.policy_weights)
        .map(|(&m, &w)| (m, w / scale))
        .collect()
}

/// One row as the independent path sees it: the game replayed to that ply.
struct Expected {
    features: Vec<f32>,
    legs: Vec<MoveLegs>,
}

/// Replays every game of the shards with the rules engine: (game id, ply) → expected row.
fn replay(shards: &Path) -> HashMap<(u64, u32), Expected> {
    let mut expected = HashMap::new();
    let mut games: HashMap<u64, Game> = HashMap::new();
    for shard in read_all_shards(shards).unwrap() {
        for record in shard.records() {
            let game = games.entry(record.game_id).or_insert_with(|| {
                Game::new(RulesOptions::default()).with_max_plies(Some(MAX_PLIES))
            });
            assert_eq!(game.position().ply(), record.ply);
            let encoded = encode_game(game, true).unwrap();
            let mut legs = Vec::new();
            let moves = game.legal_moves();
            encode_moves(game.position(), &moves, &mut legs).unwrap();
            // `koshogi encode` lists the same legs.
            for (listed, leg) in encoded.moves.iter().zip(&legs) {
                let flat: Vec<u32> = listed
                    .legs
                    .iter()
                    .map(|[p, q]| p * POINTS as u32 + q)
                    .collect();
                assert_eq!(flat, leg.as_slice());
            }
            expected.insert(
                (record.game_id, record.ply),
                Expected {
                    features: encoded.features,
                    legs,
                },
            );
            game.play(moves[record.played_move as usize]);
        }
    }
    expected
}

#[test]
fn encoded_shards_hold_what_the_rules_engine_and_the_trainer_make_of_each_row() {
    let dir = tempfile::tempdir().unwrap();
    let shards = dir.path().join("shards");
    write_games(&shards, 5, 60);
    let out = dir.path().join("encoded");
    let summary = encode_shards(&shards, &out, &options()).unwrap();
    let stored = read_all_shards(&shards).unwrap();
    assert_eq!(summary.encoded, stored.len());
    assert!(stored.len() >= 2, "{} shards", stored.len());
    let total: usize = stored.iter().map(|s| s.len()).sum();
    assert_eq!(summary.positions, total);
    assert_eq!(summary.skipped_rows, 0);
    let manifest: Manifest =
        serde_json::from_str(&std::fs::read_to_string(out.join(MANIFEST_FILE)).unwrap()).unwrap();
    assert_eq!(manifest.positions, total);
    assert_eq!(manifest.files.len(), stored.len());

    let expected = replay(&shards);
    let (mut repeated_thrice, mut rest_rows, mut ply_rows) = (0, 0, 0);
    for (shard, file) in stored.iter().zip(&manifest.files) {
        assert_eq!(
            shard.path().file_name().unwrap().to_string_lossy(),
            file.source
        );
        let members = read_npz(&out.join(&file.file));
        let packed: Vec<u8> = column(&members, "planes_packed");
        let ply_fraction: Vec<f32> = column(&members, "ply_fraction");
        let move_offsets: Vec<i64> = column(&members, "move_offsets");
        let leg_offsets: Vec<i64> = column(&members, "leg_offsets");
        let legs: Vec<i32> = column(&members, "legs");
        let target: Vec<f32> = column(&members, "policy_target");
        let listed: Vec<bool> = column(&members, "policy_listed");
        let rest: Vec<f32> = column(&members, "policy_rest");
        let weight: Vec<f32> = column(&members, "policy_weight");
        let wdl: Vec<f32> = column(&members, "wdl_target");
        let moves_left: Vec<f32> = column(&members, "moves_left");
        let material: Vec<f32> = column(&members, "material_target");
        let played: Vec<i32> = column(&members, "played_move");
        let arrays = shard.arrays();
        let balances = mover_balances(arrays);
        assert_eq!(ply_fraction.len(), shard.len());
        for (row, record) in shard.records().enumerate() {
            let want = &expected[&(record.game_id, record.ply)];
            // Input planes: unpack as numpy.unpackbits does, put back the ply plane.
            let mut features = vec![0f32; FEATURE_LEN];
            for (i, value) in features.iter_mut().enumerate() {
                let (plane, point) = (i / POINTS, i % POINTS);
                let byte = packed[(row * INPUT_PLANES + plane) * 46 + point / 8];
                *value = f32::from((byte >> (7 - point % 8)) & 1);
            }
            features[138 * POINTS..139 * POINTS].fill(ply_fraction[row]);
            assert_eq!(features, want.features, "row {row} of {}", file.file);
            repeated_thrice += usize::from(features[137 * POINTS] == 1.0);
            ply_rows += usize::from(ply_fraction[row] > 0.0);
            // Legal moves and their legs, in generation order.
            let first = move_offsets[row] as usize;
            let count = move_offsets[row + 1] as usize - first;
            assert_eq!(count, want.legs.len());
            for (j, leg) in want.legs.iter().enumerate() {
                let range = leg_offsets[first + j] as usize..leg_offsets[first + j + 1] as usize;
                let got: Vec<u32> = legs[range].iter().map(|&l| l as u32).collect();
                assert_eq!(got, leg.as_slice());
            }
            // Policy target per legal move and the group remainder.
            let policy = scaled_policy(&record);
            let mut dense = vec![0f32; count];
            for &(m, p) in &policy {
                dense[m as usize] = p;
            }
            assert_eq!(&target[first..first + count], dense.as_slice());
            let listed_count = listed[first..first + count].iter().filter(|&&l| l).count();
            assert_eq!(listed_count, record.policy_moves.len());
            let listed_mass: f32 = policy.iter().map(|&(_, p)| p).sum();
            let want_rest = if policy.is_empty() {
                0.0
            } else {
                (1.0 - listed_mass).max(0.0)
            };
            assert!((rest[row] - want_rest).abs() < 1e-6);
            rest_rows += usize::from(rest[row] > 0.2);
            assert_eq!(weight[row], if record.full_search { 1.0 } else { 0.0 });
            assert_eq!(played[row] as u32, record.played_move);
            // Value and auxiliary targets as the trainer makes them.
            let m = material_targets(arrays, &balances, row, 4);
            let want_wdl = value_target(
                record.game_result,
                record.search_value,
                0.25,
                m.outlook,
                0.5,
            );
            assert_eq!(&wdl[3 * row..3 * row + 3], want_wdl.as_slice());
            assert_eq!(moves_left[row], record.moves_left as f32);
            assert_eq!(material[row], m.change);
        }
    }
    assert!(repeated_thrice >= 2, "the pass game repeats its positions");
    assert!(rest_rows > 0 && ply_rows > 0);

    // A second run keeps every file; another option re-encodes them all.
    let again = encode_shards(&shards, &out, &options()).unwrap();
    assert_eq!((again.encoded, again.up_to_date), (0, stored.len()));
    let changed = ShardEncodeOptions {
        max_plies: Some(80),
        ..options()
    };
    let redone = encode_shards(&shards, &out, &changed).unwrap();
    assert_eq!((redone.encoded, redone.up_to_date), (stored.len(), 0));
}

#[test]
fn a_missing_or_empty_shard_directory_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let error = encode_shards(&dir.path().join("none"), &dir.path().join("o"), &options())
        .unwrap_err()
        .to_string();
    assert!(error.contains("no such directory"), "{error}");
    let error = encode_shards(dir.path(), &dir.path().join("o"), &options())
        .unwrap_err()
        .to_string();
    assert!(error.contains("holds no replay shards"), "{error}");
}

fn python() -> Option<PathBuf> {
    let python = koshogi_test_support::find_python("torch, numpy, safetensors");
    if python.is_none() {
        eprintln!("NOTICE: no python with torch, numpy and safetensors found ($KOSHOGI_PYTHON or the setup venv); skipping the Python training-data check");
    }
    python
}

const PYTHON_LOSSES: &str = r#"
import sys, json, torch
from koshogi_zero import load_model
from koshogi_zero.data import EncodedFile, compute_losses, encoded_files, loss_weights
torch.set_num_threads(1)
model, _ = load_model(sys.argv[1])
data = EncodedFile(encoded_files(sys.argv[2])[0])
result = {"source": data.meta["source"],
          "rows": [int(r) for r in data.arrays["source_row"]]}
for name, mirror in (("plain", None), ("mirrored", [True] * len(data))):
    batch = data.batch(range(len(data)), mirror)
    with torch.no_grad():
        losses = compute_losses(model(batch.features), batch, loss_weights(sys.argv[2]))
    result[name] = {k: float(v) for k, v in losses.items()}
print(json.dumps(result))
"#;

#[test]
fn python_computes_the_rust_trainers_losses_and_trains_a_step_rust_can_load() {
    let Some(python) = python() else {
        return;
    };
    tch::set_num_threads(1);
    let dir = tempfile::tempdir().unwrap();
    let shards = dir.path().join("shards");
    write_games(&shards, 4, 60);
    let out = dir.path().join("encoded");
    encode_shards(&shards, &out, &options()).unwrap();
    let config = ModelConfig {
        material_relative: true,
        ..ModelConfig::tiny()
    };
    let model = noisy_model(&config, 5);
    let card = dir.path().join("step-000000010/model.json");
    std::fs::create_dir_all(card.parent().unwrap()).unwrap();
    checkpoint::save(&model, &card, 10, serde_json::json!({})).unwrap();

    let python_path = koshogi_test_support::workspace_root().join("python");
    let result = koshogi_test_support::json_output(
        koshogi_test_support::python_command(&python)
            .args(["-c", PYTHON_LOSSES])
            .arg(&card)
            .arg(&out),
    );

    // The same rows through the Rust trainer's batch builder and losses.
    let shard = read_all_shards(&shards)
        .unwrap()
        .into_iter()
        .find(|s| {
            s.path().file_name().unwrap().to_string_lossy() == result["source"].as_str().unwrap()
        })
        .unwrap();
    let expected = replay(&shards);
    let arrays = shard.arrays();
    let balances = mover_balances(arrays);
    let rows: Vec<usize> = result["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(rows.len(), shard.len());
    let weights = options().loss_weights;
    for (name, mirror) in [("plain", false), ("mirrored", true)] {
        let mut builder = TrainingBatchBuilder::new();
        for &row in &rows {
            let record = arrays.record(row).unwrap();
            let want = &expected[&(record.game_id, record.ply)];
            let mut features = want.features.clone();
            let mut legs = want.legs.clone();
            if mirror {
                koshogi_nn::features::mirror_features(&mut features);
                legs = legs.iter().map(MoveLegs::mirrored).collect();
            }
            let policy = scaled_policy(&record);
            let m = material_targets(arrays, &balances, row, 4);
            builder
                .push(
                    &features,
                    &legs,
                    &SampleTargets {
                        policy: &policy,
                        policy_weight: if record.full_search { 1.0 } else { 0.0 },
                        wdl: value_target(
                            record.game_result,
                            record.search_value,
                            0.25,
                            m.outlook,
                            0.5,
                        ),
                        moves_left: record.moves_left as f32,
                        material: m.change,
                    },
                )
                .unwrap();
        }
        let batch = builder.build(Device::Cpu);
        let losses = tch::no_grad(|| compute_losses(&model.network, &batch, &weights)).unwrap();
        let rust = losses.values();
        for (i, key) in ["total", "policy", "value", "moves_left", "material"]
            .iter()
            .enumerate()
        {
            let py = result[name][key].as_f64().unwrap();
            eprintln!("{name} {key}: Rust {:.6} Python {py:.6}", rust[i]);
            assert!(
                (py - rust[i]).abs() <= 1e-5 * rust[i].abs().max(1.0),
                "{name} {key}: Python {py}, Rust {}",
                rust[i]
            );
        }
    }

    // The example trains one step and saves a checkpoint the Rust side loads.
    let saved = dir.path().join("fine-tuned");
    let output = Command::new(&python)
        .arg(python_path.join("train_example.py"))
        .arg(&out)
        .arg("--model")
        .arg(&card)
        .args([
            "--steps",
            "1",
            "--batch-size",
            "32",
            "--threads",
            "1",
            "--json",
        ])
        .arg("--save")
        .arg(&saved)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    koshogi_test_support::succeeded(&output, "python");
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let before = summary["before"]["total"].as_f64().unwrap();
    let after = summary["after"]["total"].as_f64().unwrap();
    assert!(after < before, "one step on the batch: {before} -> {after}");
    let (trained, trained_card) = checkpoint::load(&saved.join("model.json"), Device::Cpu).unwrap();
    assert_eq!(trained_card.training_step, 11);
    let changed = trained
        .vs
        .variables()
        .iter()
        .any(|(name, t)| !t.equal(&model.vs.variables()[name]));
    assert!(changed, "the step changed the weights");
}
