//! scripts/read_shard.py (numpy only) reads our shards, verifies their checksum and agrees with
//! the Rust reader; it rejects a corrupted shard naming the file.

mod common;

use std::process::Command;

use common::{arrays_of, synthetic_game, write_one_shard};
use koshogi_replay::{Provenance, Shard, ShardArrays, ShardDir};
use koshogi_test_support::find_python;

#[test]
fn python_reader_agrees_with_rust_reader() {
    let Some(python) = find_python("numpy, json") else {
        println!(
            "NOTICE: skipped python_reader_agrees_with_rust_reader: no python with numpy found"
        );
        return;
    };
    let script = koshogi_test_support::workspace_root().join("scripts/read_shard.py");
    let dir = tempfile::tempdir().unwrap();
    let shard_dir = ShardDir::open(dir.path()).unwrap();
    let mut arrays = ShardArrays::new();
    for game in 0..4 {
        for r in synthetic_game(game, 500 + game, 90, 0.4) {
            arrays.push(&r).unwrap();
        }
    }
    let provenance = Provenance {
        rules_version: "rules-x".into(),
        model_step: 1234,
        ..Provenance::default()
    };
    let file = shard_dir.write_shard("py", &provenance, &arrays).unwrap();
    let shard = Shard::open(&file.path).unwrap();

    let summary = koshogi_test_support::json_output(
        Command::new(&python)
            .arg(&script)
            .arg("--json")
            .arg(&file.path),
    );
    let s = &summary[0];
    assert_eq!(s["checksum_ok"], true);
    assert_eq!(s["positions"], arrays.len());
    assert_eq!(s["games"], 4);
    assert_eq!(s["model_step"], 1234);
    assert_eq!(s["rules_version"], "rules-x");
    assert_eq!(s["file_bytes"], shard.file_size());
    let full = arrays.full_search.iter().filter(|&&f| f).count();
    assert_eq!(s["full_search_positions"], full);
    assert_eq!(s["policy_entries"], arrays.policy_moves.len());
    let destroyed = arrays
        .end_reason
        .iter()
        .filter(|&&c| c == koshogi_replay::EndReason::CommandDestroyed.code())
        .count();
    assert!(destroyed > 0);
    assert_eq!(s["end_reason_counts"]["command_destroyed"], destroyed);
    let weight_sum: f64 = arrays.policy_weights.iter().map(|&w| f64::from(w)).sum();
    assert!(
        (s["policy_weight_sum"].as_f64().unwrap() - weight_sum).abs() < 1e-6 * weight_sum.max(1.0)
    );
    let wins = arrays.game_result.iter().filter(|&&r| r == 1).count();
    assert_eq!(s["result_counts"]["win"], wins);
    let material: i64 = arrays.final_material.iter().map(|&m| i64::from(m)).sum();
    assert_eq!(s["final_material_sum"], material);
    assert_eq!(s["max_ply"], *arrays.ply.iter().max().unwrap());

    // A corrupted copy is rejected, naming the file.
    let bad = dir.path().join("damaged.npz");
    let mut bytes = std::fs::read(&file.path).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0xff;
    std::fs::write(&bad, bytes).unwrap();
    let output = Command::new(&python)
        .arg(&script)
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("damaged.npz"), "stderr: {stderr}");

    // A meta member that is not UTF-8 behind a valid checksum, then the damaged file, then the
    // good one: one error line per bad file, no traceback, and the good file still read.
    let bad_meta = dir.path().join("bad-meta.npz");
    let rewrite = r#"
import hashlib, struct, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
members = {n: zipfile.ZipFile(src).read(n) for n in zipfile.ZipFile(src).namelist()}
meta = members["meta.npy"]
start = meta.index(b"\n") + 1
members["meta.npy"] = meta[:start] + b"\xff\xfe" + meta[start + 2:]
digest = hashlib.sha256()
for name in sorted(n for n in members if n != "sha256.npy"):
    digest.update(name.encode() + b"\0" + struct.pack("<Q", len(members[name])) + members[name])
members["sha256.npy"] = members["sha256.npy"][:-32] + digest.digest()
with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as out:
    for name, data in members.items():
        out.writestr(name, data)
"#;
    let made = Command::new(&python)
        .args(["-c", rewrite])
        .arg(&file.path)
        .arg(&bad_meta)
        .output()
        .unwrap();
    koshogi_test_support::succeeded(&made, "python");
    let output = Command::new(&python)
        .arg(&script)
        .arg(&bad_meta)
        .arg(&bad)
        .arg(&file.path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("Traceback"), "stderr: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "stderr: {stderr}");
    assert!(lines[0].contains("bad-meta.npz") && lines[1].contains("damaged.npz"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("checksum OK"), "stdout: {stdout}");
}

#[test]
fn python_reader_decodes_boards_to_the_rules_engines_ksfen() {
    use koshogi_replay::{GameRecorder, SearchRecord};
    use koshogi_rules::{DrawReason, Game, Outcome, RulesOptions};
    use rand::{Rng, SeedableRng};

    let Some(python) = find_python("numpy, json") else {
        println!("NOTICE: skipped python_reader_decodes_boards_to_the_rules_engines_ksfen: no python with numpy found");
        return;
    };
    let script = koshogi_test_support::workspace_root().join("scripts/read_shard.py");
    // A random game long enough to contain captures and promotions.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let mut game = Game::new(RulesOptions::default());
    let mut recorder = GameRecorder::new(1);
    let mut expected = Vec::new();
    for _ in 0..200 {
        let moves = game.legal_moves();
        if moves.is_empty() {
            break;
        }
        let played = rng.random_range(0..moves.len());
        expected.push(game.position().to_ksfen(false));
        recorder.record(
            game.position(),
            SearchRecord {
                legal_move_count: moves.len() as u32,
                played_move: played as u32,
                full_search: false,
                policy: Vec::new(),
                search_value: 0.0,
            },
        );
        game.play(moves[played]);
    }
    let records = recorder.finish(game.position(), &Outcome::Draw(DrawReason::MaxPlies));
    let (_dir, shard_path) = write_one_shard(&arrays_of(&records), "ksfen", &Provenance::default());
    for index in [0, 1, 57, expected.len() - 1] {
        let output = Command::new(&python)
            .arg(&script)
            .args(["--ksfen", &index.to_string()])
            .arg(&shard_path)
            .output()
            .unwrap();
        koshogi_test_support::succeeded(&output, "python");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout).trim(),
            expected[index],
            "position {index}"
        );
    }
}

/// `--search-value` over two shards: values that follow the mover's result agree with it in
/// every band, and the same values with the sign flipped disagree in every band (the check
/// must tell a sign error from a right sign).
#[test]
fn python_reader_checks_search_values_against_results() {
    let Some(python) = koshogi_test_support::find_python("numpy, json") else {
        println!("NOTICE: skipped python_reader_checks_search_values_against_results: no python with numpy found");
        return;
    };
    let script = koshogi_test_support::workspace_root().join("scripts/read_shard.py");
    let agreement = |sign: f32| {
        let shards: Vec<_> = (0..2u64)
            .map(|shard| {
                let mut records = Vec::new();
                for game in 0..3 {
                    for mut r in synthetic_game(10 * shard + game, game, 300, 0.0) {
                        // Confident in proportion to the ply, pointing at the mover's result.
                        let confidence = 0.1 + 0.8 * r.ply as f32 / 300.0;
                        r.search_value = sign * confidence * f32::from(r.game_result);
                        records.push(r);
                    }
                }
                write_one_shard(&arrays_of(&records), "sv", &Provenance::default())
            })
            .collect();
        let mut command = Command::new(&python);
        command.arg(&script).args(["--search-value", "--json"]);
        for (_dir, path) in &shards {
            command.arg(path);
        }
        koshogi_test_support::json_output(&mut command)
    };
    let right = agreement(1.0);
    let flipped = agreement(-1.0);
    assert_eq!(right["positions"], 6 * 300);
    let decided = right["decided"].as_u64().unwrap();
    assert!(decided > 0 && decided <= 6 * 300, "decided {decided}");
    let bands = right["bands"].as_array().unwrap();
    assert_eq!(bands.len(), 5, "all plies, then four bands");
    assert_eq!(bands[0]["positions"], decided);
    for (band, flipped_band) in bands.iter().zip(flipped["bands"].as_array().unwrap()) {
        assert_eq!(band["sign_agreement"], 1.0, "{band}");
        assert_eq!(flipped_band["sign_agreement"], 0.0, "{flipped_band}");
        assert!(band["mean_value_won"].as_f64().unwrap() > 0.0, "{band}");
        assert!(band["mean_value_lost"].as_f64().unwrap() < 0.0, "{band}");
        assert!(band["correlation"].as_f64().unwrap() > 0.9, "{band}");
        assert!(
            flipped_band["correlation"].as_f64().unwrap() < -0.9,
            "{flipped_band}"
        );
    }
}
