//! `koshogi serve`: the web viewer of a run directory (crates/serve, docs/viewer.md) — browse its
//! game records, see a checkpoint's view of a position, play against a checkpoint, and look at the
//! loss and Elo curves. This file only reads the run's configuration (its rules and how networks
//! run) and starts the server; it serves until the process is stopped (Ctrl-C).

use std::io::Write as _;
use std::net::IpAddr;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use koshogi_serve::{App, AppConfig, RunningServer, DEFAULT_PORT};

use koshogi_run::RunConfig;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Run directory to show (games/, checkpoints/, tb/, arena/ as `koshogi run` writes them).
    #[arg(long, value_name = "DIR")]
    pub run: PathBuf,
    /// Port to listen on; 0 picks a free one (the printed URL says which).
    #[arg(long, default_value_t = DEFAULT_PORT)]
    pub port: u16,
    /// Address to listen on. The default keeps the viewer on this machine; the viewer has no
    /// authentication, so bind elsewhere only on a trusted network.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// libtorch threads of the network evaluation.
    #[arg(long, default_value_t = 1)]
    pub threads: u32,
}

pub fn run(args: ServeArgs) -> Result<()> {
    koshogi_run::require_local_run(&args.run)?;
    anyhow::ensure!(
        args.run.is_dir(),
        "run directory {} does not exist or is not a directory",
        args.run.display()
    );
    let (config, _) = RunConfig::resolve(None, &args.run, &[])?;
    let app = App::new(AppConfig {
        run_dir: args.run.clone(),
        rules: config.rules,
        runtime: config.inference,
        threads: args.threads.max(1),
        max_plies: Some(config.selfplay.max_plies),
    })?;
    let games = app.run_dir().list_games().len();
    let checkpoints = app.run_dir().list_checkpoints().len();
    let server = RunningServer::start(app, args.bind, args.port)?;
    if !args.bind.is_loopback() {
        tracing::warn!(
            "listening on {} — reachable from other machines, without authentication",
            args.bind
        );
    }
    tracing::info!(
        "{}: {games} game records, {checkpoints} checkpoints",
        args.run.display()
    );
    let mut out = std::io::stdout().lock();
    writeln!(out, "listening on {}", server.url())
        .and_then(|()| out.flush())
        .context("writing to stdout")?;
    drop(out);
    server.wait();
    Ok(())
}
