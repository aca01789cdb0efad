//! The gate's `checkpoints/accepted.json` as self-play, pruning and the viewer read it
//! (`koshogi_run_store::local_checkpoints::read_accepted`: the accepted step, or none with a
//! warning). A step that is read is written back (`write_accepted`) and reads back the same.
#![no_main]

use koshogi_run_store::layout::ACCEPTED_FILE;
use koshogi_run_store::local_checkpoints::{read_accepted, write_accepted};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = koshogi_fuzz::scratch_dir().join("checkpoints");
    std::fs::create_dir_all(&dir).expect("creating the scratch checkpoints directory");
    std::fs::write(dir.join(ACCEPTED_FILE), data).expect("writing the scratch accepted.json");
    let Some(step) = read_accepted(&dir) else {
        return;
    };
    write_accepted(&dir, step).expect("writing accepted.json");
    assert_eq!(read_accepted(&dir), Some(step));
});
