//! A training run as a whole: the configuration file that describes it ([`RunConfig`], one
//! section per component crate), its roles — self-play ([`selfplay_role`]), the trainer
//! (koshogi-train) and the gate (koshogi-arena) — and how they meet: in one process on one
//! machine ([`OneProcessRun`], `koshogi run`), or as separate processes sharing a run in object
//! storage ([`resolve_stored_config`] and koshogi-run-store). The command line only parses
//! arguments and draws progress; what a run does lives here.

mod config;
mod config_override;
mod error;
mod one_process;
pub mod selfplay_role;
mod stored_run_config;

pub use config::{prepare_run_dir, require_local_run, RunConfig, RunSection, RUN_CONFIG_FILE};
pub use config_override::{place_with_overrides, ConfigOverride, OverrideError};
pub use error::RunError;
pub use one_process::{OneProcessOutcome, OneProcessRun};
pub use stored_run_config::resolve_stored_config;
