//! [`App`], the server's state shared by all request threads (the run directory, the rules, the
//! network thread, the play sessions), and [`AppConfig`], what it is built from. Why a file of
//! its own: every handler reads this state, and the route table ([`crate::api`]) calls every
//! handler; with the state here neither imports the other.

use std::path::PathBuf;
use std::sync::Mutex;

use koshogi_nn::RuntimeConfig;
use koshogi_rules::RulesOptions;

use crate::error::ServeError;
use crate::network_worker::NetworkWorker;
use crate::play_sessions::PlaySessions;
use crate::run_dir::RunDir;

/// Everything the server needs to know about the run it shows.
#[derive(Clone, Debug)]
pub struct AppConfig {
    pub run_dir: PathBuf,
    /// The run's rules (its `config.toml` `[rules]`): records are read and games played under them.
    pub rules: RulesOptions,
    /// How networks run (the run's `[inference]`).
    pub runtime: RuntimeConfig,
    /// libtorch intra-op threads of the network thread.
    pub threads: u32,
    /// Self-play's ply cap (`[selfplay] max_plies`): part of the network's input, so the
    /// network's view of a position is the one it had in self-play.
    pub max_plies: Option<u32>,
}

/// The server's state, shared by all request threads.
pub struct App {
    pub(crate) run: RunDir,
    pub(crate) rules: RulesOptions,
    pub(crate) max_plies: Option<u32>,
    pub(crate) network: NetworkWorker,
    pub(crate) sessions: Mutex<PlaySessions>,
}

impl App {
    /// Checks the run directory and starts the network thread (no model is loaded yet).
    pub fn new(config: AppConfig) -> Result<App, ServeError> {
        let run = RunDir::open(&config.run_dir)?;
        let network = NetworkWorker::spawn(config.runtime, config.threads, config.rules)?;
        Ok(App {
            run,
            rules: config.rules,
            max_plies: config.max_plies,
            network,
            sessions: Mutex::new(PlaySessions::default()),
        })
    }

    pub fn run_dir(&self) -> &RunDir {
        &self.run
    }
}
