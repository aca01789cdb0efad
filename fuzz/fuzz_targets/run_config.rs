//! Run configurations (koshogi-run's `RunConfig::parse`: TOML into every section, then every
//! section's and the cross-section checks), as `koshogi run`, `train`, `selfplay`, `serve` and
//! `eval` read `--config` or a run's `config.toml`. A configuration that is accepted
//! serialises back to TOML that is accepted again, and its trainer setup and training hash are
//! computed (as the trainer does) without a panic.
#![no_main]

use koshogi_run::RunConfig;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(config) = RunConfig::parse(&text) else {
        return;
    };
    let _ = config
        .trainer_setup(std::path::Path::new("fuzz-run"), false, false)
        .expect("an accepted configuration gives a trainer setup");
    if let Ok(written) = toml::to_string(&config) {
        RunConfig::parse(&written).expect("an accepted configuration's own TOML is accepted");
    }
});
