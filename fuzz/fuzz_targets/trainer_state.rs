//! The trainer's `trainer_state.json` as `koshogi train --resume` reads it
//! (`TrainerState::read`), then what the resumed trainer does with it before its first step:
//! the learning rate of its step, a sampler continuing its cursor over a shard source (an
//! empty directory: every known shard is missing, as after a move to another machine), one
//! refresh and one draw.
//!
//! An accepted state writes back (`to_json`) to JSON that reads back the same (the learning
//! rate, which is only informative, to within rounding), its counters leave room for the
//! next step, and the sampler's cursor is the state's.
#![no_main]

use std::sync::Arc;

use koshogi_replay::LocalShardDir;
use koshogi_train::trainer_state::{TrainerState, TRAINER_STATE_FILE};
use koshogi_train::{Sampler, SamplerConfig, TrainConfig};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = koshogi_fuzz::scratch_file(TRAINER_STATE_FILE, data);
    let Ok(state) = TrainerState::read(&path) else {
        return;
    };

    let path = koshogi_fuzz::scratch_file(TRAINER_STATE_FILE, state.to_json().as_bytes());
    let again = TrainerState::read(&path).expect("an accepted state's own JSON reads back");
    let lr_close = again.last_lr == state.last_lr
        || (again.last_lr - state.last_lr).abs() <= 1e-15 * state.last_lr.abs();
    assert!(lr_close, "{} read back as {}", state.last_lr, again.last_lr);
    assert_eq!(
        TrainerState {
            last_lr: state.last_lr,
            ..again
        },
        state
    );

    // The trainer adds one step, one batch's samples and one batch to the counters.
    let train = TrainConfig::default();
    assert!(state.step.checked_add(1).is_some());
    assert!(state.sampler.batches.checked_add(1).is_some());
    assert!(state.samples.checked_add(train.batch_size as u64).is_some());

    let schedule = train.lr_schedule().expect("the default schedule is valid");
    let _ = schedule.lr_at(state.step);

    let config = SamplerConfig::from_train(&train, false, None);
    let source = Arc::new(LocalShardDir::new(
        koshogi_fuzz::scratch_dir().join("no-shards"),
    ));
    let mut sampler = Sampler::new(source, config, state.sampler.clone());
    assert_eq!(sampler.cursor(), state.sampler);
    let _ = sampler.starved();
    if sampler.refresh().is_ok() {
        let _ = sampler.next_batch();
    }
});
