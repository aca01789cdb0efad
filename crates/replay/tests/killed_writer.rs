//! A process killed while writing a shard leaves nothing a reader would pick up, and the next
//! start cleans its temporary file away.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use koshogi_replay::{
    list_shards, read_all_shards, Provenance, ShardArrays, ShardDir, BOARD_BYTES,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const CHILD_DIR_VAR: &str = "KOSHOGI_REPLAY_KILLED_WRITER_DIR";

/// Run only as the child of `killed_writer_leaves_no_partial_shard`: writes one large shard of
/// incompressible positions (seconds of deflate work) so the parent can kill it mid-write.
#[test]
#[ignore = "child process of killed_writer_leaves_no_partial_shard"]
fn child_writes_one_large_shard() {
    let dir = std::env::var(CHILD_DIR_VAR).expect("run by the parent test only");
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut arrays = ShardArrays::new();
    let mut record = koshogi_replay::PositionRecord {
        board: [0; BOARD_BYTES],
        game_id: 1,
        ply: 0,
        legal_move_count: 1000,
        played_move: 0,
        full_search: false,
        policy: Vec::new(),
        search_value: 0.0,
        game_result: 0,
        moves_left: 0,
        final_material: 0,
        end_reason: koshogi_replay::EndReason::Unknown,
    };
    for ply in 0..200_000 {
        for point in &mut record.board[..BOARD_BYTES - 1] {
            *point = rng.random_range(0..=228);
        }
        record.ply = ply;
        arrays.push(&record).unwrap();
    }
    let shard_dir = ShardDir::open(dir).unwrap();
    shard_dir
        .write_shard("child", &Provenance::default(), &arrays)
        .unwrap();
}

fn temp_files(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().into_string().ok())
        .filter(|name| name.ends_with(".tmp"))
        .collect()
}

#[test]
fn killed_writer_leaves_no_partial_shard() {
    use std::os::unix::process::ExitStatusExt;

    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_writes_one_large_shard",
            "--ignored",
            "--nocapture",
        ])
        .env(CHILD_DIR_VAR, dir.path())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();

    // Wait until the child has started writing its temporary file and it has grown a little.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let writing = temp_files(dir.path())
            .iter()
            .any(|name| fs::metadata(dir.path().join(name)).is_ok_and(|m| m.len() > 64 * 1024));
        if writing {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "child exited before it was killed"
        );
        assert!(Instant::now() < deadline, "child never started writing");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert_eq!(
        status.signal(),
        Some(9),
        "the child must die mid-write, not finish"
    );

    // The reader sees no shard and reports no error; the partial file is only a temp file.
    assert!(list_shards(dir.path()).unwrap().is_empty());
    assert!(read_all_shards(dir.path()).unwrap().is_empty());
    assert_eq!(temp_files(dir.path()).len(), 1);

    // The next start removes it (its process is gone).
    ShardDir::open(dir.path()).unwrap();
    assert!(temp_files(dir.path()).is_empty());
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}
