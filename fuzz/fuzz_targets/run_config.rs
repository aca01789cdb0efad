//! Run configurations (koshogi-run's `RunConfig::parse`: TOML into every section, then every
//! section's and the cross-section checks), as `koshogi run`, `train`, `selfplay`, `serve` and
//! `eval` read `--config` or a run's `config.toml`. A configuration that is accepted
//! serialises back to TOML that is accepted again, and its trainer setup and training hash are
//! computed (as the trainer does) without a panic. The input's first line is also tried as a
//! `--set KEY=VALUE` on the rest: made or refused without a panic, and a configuration
//! accepted with it is the one its changed text gives alone (the text a run directory keeps).
#![no_main]

use koshogi_run::{ConfigOverride, RunConfig};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some((first, rest)) = text.split_once('\n') {
        if let Ok(change) = first.parse::<ConfigOverride>() {
            if let Ok((config, changed)) = RunConfig::from_text(rest, "fuzz", &[change]) {
                let (kept, _) = RunConfig::from_text(&changed, "kept", &[])
                    .expect("the changed text of an accepted --set is accepted alone");
                assert_eq!(
                    serde_json::to_value(&kept).unwrap(),
                    serde_json::to_value(&config).unwrap()
                );
            }
        }
    }
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
