//! Writing shards and reading them back: contents, naming, ordering and temp-file hygiene.

mod common;

use std::fs;

use common::{arrays_of, synthetic_game};
use koshogi_replay::{
    list_shards, read_all_shards, PositionRecord, Provenance, Shard, ShardArrays, ShardDir,
    ShardWriter, FORMAT_VERSION,
};

fn provenance(step: u64) -> Provenance {
    Provenance {
        rules_version: "test-rules-1".into(),
        feature_version: 3,
        move_encoding_version: 2,
        rules_options: serde_json::json!({"zone_trigger": "end"}),
        model_step: step,
    }
}

/// What the shard must return: the records pushed through the same f16 rounding and sorting.
fn expected(records: &[PositionRecord]) -> ShardArrays {
    arrays_of(records)
}

#[test]
fn games_round_trip_through_shards_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let shard_dir = ShardDir::for_run(dir.path()).unwrap();
    let mut writer = ShardWriter::new(shard_dir.clone(), "w0", provenance(5), 250).unwrap();
    let mut all = Vec::new();
    let mut written = Vec::new();
    for game in 0..12u64 {
        let records = synthetic_game(game, 1000 + game, 20 + (game as u32 * 37) % 90, 0.3);
        all.extend(records.iter().cloned());
        if let Some(shard) = writer.add_game(&records).unwrap() {
            written.push(shard);
        }
    }
    written.extend(writer.flush().unwrap());
    assert!(
        written.len() >= 2,
        "threshold should have split the games into several shards"
    );
    assert_eq!(
        writer.flush().unwrap(),
        None,
        "nothing pending after a flush"
    );

    let listed = list_shards(&dir.path().join("shards")).unwrap();
    assert_eq!(listed, written);
    assert!(listed.windows(2).all(|w| w[0].sequence < w[1].sequence));

    let mut read_back = ShardArrays::new();
    for file in &listed {
        let shard = Shard::open(&file.path).unwrap();
        let meta = shard.meta();
        assert_eq!(meta.format_version, FORMAT_VERSION);
        assert_eq!(meta.provenance, provenance(5));
        assert_eq!(meta.writer_id, "w0");
        assert_eq!(meta.num_positions as usize, shard.len());
        assert_eq!(meta.num_games as usize, shard.arrays().game_count());
        assert_eq!(meta.aux_fields, ["moves_left", "final_material"]);
        read_back.append(shard.arrays());
    }
    assert_eq!(read_back, expected(&all));
    // Games are never split: each game id occupies exactly one shard.
    for file in &listed {
        let shard = Shard::open(&file.path).unwrap();
        let first = shard.records().next().unwrap();
        assert_eq!(first.ply, 0, "a shard starts at the start of a game");
    }
}

#[test]
fn records_view_matches_what_was_pushed() {
    let dir = tempfile::tempdir().unwrap();
    let shard_dir = ShardDir::open(dir.path()).unwrap();
    let records = synthetic_game(99, 7, 60, 1.0);
    let file = shard_dir
        .write_shard("solo", &provenance(0), &expected(&records))
        .unwrap();
    let shard = Shard::open(&file.path).unwrap();
    for (record, original) in shard.records().zip(&records) {
        let owned = record.to_owned_record();
        assert_eq!(owned.board, original.board);
        assert_eq!(owned.played_move, original.played_move);
        assert_eq!(owned.moves_left, original.moves_left);
        assert_eq!(owned.final_material, original.final_material);
        assert_eq!(owned.game_result, original.game_result);
        assert!((owned.search_value - original.search_value).abs() < 1e-3);
        let mut policy = original.policy.clone();
        policy.sort_by_key(|e| e.move_index);
        assert_eq!(owned.policy.len(), policy.len());
        for (got, want) in owned.policy.iter().zip(&policy) {
            assert_eq!(got.move_index, want.move_index);
            assert!((got.weight - want.weight).abs() <= want.weight * 1e-3 + 1e-7);
        }
    }
}

#[test]
fn a_shard_read_from_its_bytes_equals_the_shard_read_from_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let shard_dir = ShardDir::open(dir.path()).unwrap();
    let file = shard_dir
        .write_shard(
            "w0",
            &provenance(4),
            &expected(&synthetic_game(5, 9, 70, 0.4)),
        )
        .unwrap();
    let from_file = Shard::open(&file.path).unwrap();
    let bytes = fs::read(&file.path).unwrap();
    let origin = std::path::Path::new("s3://bucket/run/shards/shard-000000000-w0.npz");
    let from_bytes = Shard::from_bytes(origin, &bytes).unwrap();
    assert_eq!(from_bytes.arrays(), from_file.arrays());
    assert_eq!(from_bytes.meta(), from_file.meta());
    assert_eq!(from_bytes.file_size(), from_file.file_size());
    assert_eq!(from_bytes.file_size(), bytes.len() as u64);
    assert_eq!(from_bytes.path(), origin);
}

#[test]
fn concurrent_writers_never_collide_and_sequences_continue_after_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let shard_dir = ShardDir::open(dir.path()).unwrap();
    std::thread::scope(|scope| {
        for worker in 0..4u64 {
            let shard_dir = shard_dir.clone();
            scope.spawn(move || {
                let mut writer =
                    ShardWriter::new(shard_dir, format!("w{worker}"), provenance(1), 1).unwrap();
                for game in 0..5 {
                    writer
                        .add_game(&synthetic_game(game, worker * 100 + game, 5, 0.5))
                        .unwrap();
                }
            });
        }
    });
    let listed = list_shards(dir.path()).unwrap();
    assert_eq!(listed.len(), 20);
    let sequences: Vec<u64> = listed.iter().map(|f| f.sequence).collect();
    assert_eq!(sequences, (0..20).collect::<Vec<u64>>());

    drop(shard_dir);
    let reopened = ShardDir::open(dir.path()).unwrap();
    let next = reopened
        .write_shard(
            "w0",
            &provenance(2),
            &expected(&synthetic_game(1, 1, 3, 0.0)),
        )
        .unwrap();
    assert_eq!(next.sequence, 20);
}

#[test]
fn abandoned_temp_files_are_removed_on_open_and_ignored_before() {
    let dir = tempfile::tempdir().unwrap();
    // A pid that cannot be running (above the kernel's pid_max limit of 2^22).
    let abandoned = dir.path().join(".partial-w0-4000000000-0.tmp");
    let live = dir
        .path()
        .join(format!(".partial-w0-{}-0.tmp", std::process::id()));
    let unrelated = dir.path().join("notes.txt");
    for path in [&abandoned, &live, &unrelated] {
        fs::write(path, b"partial").unwrap();
    }
    assert!(list_shards(dir.path()).unwrap().is_empty());
    assert!(read_all_shards(dir.path()).unwrap().is_empty());
    ShardDir::open(dir.path()).unwrap();
    assert!(!abandoned.exists());
    assert!(live.exists(), "a live process's temp file must survive");
    assert!(unrelated.exists());
}

#[test]
fn invalid_games_and_writer_ids_are_rejected_without_side_effects() {
    let dir = tempfile::tempdir().unwrap();
    let shard_dir = ShardDir::open(dir.path()).unwrap();
    assert!(ShardWriter::new(shard_dir.clone(), "bad-id", provenance(0), 10).is_err());
    let mut writer = ShardWriter::new(shard_dir, "w1", provenance(0), 10).unwrap();
    let mut game = synthetic_game(3, 3, 8, 0.5);
    game[5].played_move = game[5].legal_move_count;
    assert!(writer.add_game(&game).is_err());
    assert_eq!(writer.pending_positions(), 0);
    assert_eq!(writer.flush().unwrap(), None);
    assert!(list_shards(dir.path()).unwrap().is_empty());
}

#[test]
fn dropping_a_writer_flushes_pending_games() {
    let dir = tempfile::tempdir().unwrap();
    let shard_dir = ShardDir::open(dir.path()).unwrap();
    {
        let mut writer = ShardWriter::new(shard_dir, "w2", provenance(0), 1_000_000).unwrap();
        writer.add_game(&synthetic_game(4, 4, 10, 0.5)).unwrap();
    }
    let shards = read_all_shards(dir.path()).unwrap();
    assert_eq!(shards.len(), 1);
    assert_eq!(shards[0].len(), 10);
}
