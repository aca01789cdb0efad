//! What can go wrong with a run's configuration or its roles, as one error type. Each variant
//! keeps the error it wraps as its source, so `{:#}` at the command line prints the whole chain
//! (which file, which section, what was wrong) once.

use std::path::PathBuf;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum RunError {
    #[error("reading the run configuration {}", path.display())]
    ReadConfig {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A configuration that did not parse or validate, with the file (or store URL) it came from.
    #[error("in the run configuration {place}")]
    InConfig {
        place: String,
        #[source]
        source: Box<RunError>,
    },
    #[error(transparent)]
    Toml(#[from] toml::de::Error),
    /// A `--set` that could not be made (one that names an unknown key fails as a [`Self::Toml`]).
    #[error(transparent)]
    Override(#[from] crate::OverrideError),
    /// A cross-section check (one key's value needs another's).
    #[error("{0}")]
    Invalid(String),
    #[error("in the [train] section of the run configuration")]
    TrainSection(#[source] koshogi_train::config::TrainConfigError),
    #[error(transparent)]
    Selfplay(#[from] koshogi_selfplay::SelfplayError),
    #[error(transparent)]
    Network(#[from] koshogi_nn::NnError),
    #[error(transparent)]
    Search(#[from] koshogi_mcts::SearchConfigError),
    #[error(transparent)]
    Gate(#[from] koshogi_arena::gate::GateError),
    #[error(transparent)]
    Store(#[from] koshogi_run_store::StoreError),
    #[error(transparent)]
    Trainer(#[from] koshogi_train::TrainError),
    #[error("serialising the rules options")]
    RulesOptions(#[source] serde_json::Error),
    #[error("{what} {}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A role (self-play, the trainer) that stopped with an error.
    #[error("{0}")]
    Role(&'static str, #[source] Box<RunError>),
    #[error("starting the {0} thread")]
    Spawn(&'static str, #[source] std::io::Error),
    #[error("the {0} thread panicked")]
    Panicked(&'static str),
    #[error("{url}/{file} is not UTF-8 text")]
    NotText { url: String, file: &'static str },
    #[error("{url} has no {file} yet: name the run's configuration with --config")]
    NoStoredConfig { url: String, file: &'static str },
}
