//! The object-store checkpoint files a worker reads before taking a checkpoint
//! (`koshogi_run_store::remote_checkpoints`), driven through a `memory://` store exactly as workers
//! call them. The first byte picks which file the rest is:
//!
//! * even: the pointer `checkpoints/latest.json` (`remote_checkpoints::latest`); a step it names is
//!   then fetched as a worker would (nothing is published there, so that fails);
//! * odd: the marker `checkpoints/step-000000005/published.json` of a stored checkpoint
//!   whose files are `model.json` (3 bytes), `model.safetensors` (100) and
//!   `trainer_state.json` (10) (`remote_checkpoints::fetch` of step 5 into a local directory).
//!
//! A fetch either gives the complete `step-000000005/` directory holding exactly the files the
//! marker lists, each with the stored bytes, or an error with nothing left in the local
//! directory (no partial checkpoint, no temporary directory, nothing written outside it).
#![no_main]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use koshogi_run_store::remote_checkpoints::{fetch, latest};
use koshogi_run_store::RemoteRun;
use libfuzzer_sys::fuzz_target;

const STEP: u64 = 5;
const FILES: [(&str, usize); 3] = [
    ("model.json", 3),
    ("model.safetensors", 100),
    ("trainer_state.json", 10),
];

fn remote() -> &'static RemoteRun {
    static REMOTE: OnceLock<RemoteRun> = OnceLock::new();
    REMOTE.get_or_init(|| {
        let remote = RemoteRun::open("memory://fuzz/run").expect("a memory store");
        for (i, (name, size)) in FILES.iter().enumerate() {
            remote
                .put(
                    &format!("checkpoints/step-000000005/{name}"),
                    vec![i as u8 + 1; *size],
                )
                .expect("storing a checkpoint file");
        }
        remote
    })
}

fn listing(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).expect("listing a scratch directory") {
        let entry = entry.expect("listing a scratch directory");
        let name = entry.file_name().to_string_lossy().into_owned();
        let bytes = if entry.path().is_dir() {
            b"<dir>".to_vec()
        } else {
            std::fs::read(entry.path()).expect("reading a fetched file")
        };
        files.insert(name, bytes);
    }
    files
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let remote = remote();
    let local = koshogi_fuzz::scratch_dir().join("checkpoints");
    let _ = std::fs::remove_dir_all(&local);
    std::fs::create_dir_all(&local).expect("creating the local checkpoints directory");

    if mode % 2 == 0 {
        remote
            .put("checkpoints/latest.json", rest.to_vec())
            .expect("storing the pointer");
        if let Ok(Some(step)) = latest(remote) {
            assert!(fetch(remote, step, &local).is_err() || step == STEP);
        }
        return;
    }

    remote
        .put("checkpoints/step-000000005/published.json", rest.to_vec())
        .expect("storing the marker");
    match fetch(remote, STEP, &local) {
        Ok(dir) => {
            assert_eq!(dir, local.join("step-000000005"));
            let top = listing(&local);
            assert_eq!(top.keys().collect::<Vec<_>>(), ["step-000000005"]);
            let fetched = listing(&dir);
            assert!(!fetched.is_empty());
            for (name, bytes) in &fetched {
                let (i, (_, size)) = FILES
                    .iter()
                    .enumerate()
                    .find(|(_, (stored, _))| stored == name)
                    .unwrap_or_else(|| panic!("fetched a file `{name}` that is not stored"));
                assert_eq!(bytes, &vec![i as u8 + 1; *size]);
            }
        }
        Err(_) => {
            assert!(listing(&local).is_empty(), "{:?}", listing(&local).keys());
        }
    }
});
