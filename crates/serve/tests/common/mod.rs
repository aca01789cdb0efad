//! Shared by the serve integration tests: the viewer's app over a run directory, configured as
//! the tests run it.

use std::path::Path;

use koshogi_nn::{DeviceSpec, Precision, RuntimeConfig};
use koshogi_rules::RulesOptions;
use koshogi_serve::{App, AppConfig};

/// The app over `run_dir` with the default rules, on the CPU in float32 (not channels-last)
/// with one thread, games against a checkpoint capped at 400 plies.
pub fn app(run_dir: &Path) -> App {
    App::new(AppConfig {
        run_dir: run_dir.to_path_buf(),
        rules: RulesOptions::default(),
        runtime: RuntimeConfig {
            device: DeviceSpec::Cpu,
            precision: Precision::Float32,
            channels_last: Some(false),
        },
        threads: 1,
        max_plies: Some(400),
    })
    .unwrap()
}
