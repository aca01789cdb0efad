//! `koshogi gate`: the gate of a run as a process of its own, for runs whose roles are spread
//! over machines (docs/distributed.md). It plays each new checkpoint against the accepted one
//! (`[gate]` of the run configuration) and records the winner in `checkpoints/accepted.json`,
//! which self-play follows when `gate.enabled` is set. On a store URL it fetches the newest
//! published and the accepted checkpoints into its cache and publishes `accepted.json`.
//! `koshogi run` runs the same gate on a thread.

use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{anyhow, Result};
use clap::Args;
use koshogi_arena::gate::Gatekeeper;
use koshogi_run_store::layout::{accepted_key, RunLayout};
use koshogi_run_store::role_sync::fetch_gate_checkpoints;

use crate::interrupt::stop_flag_on_interrupt;
use crate::run_location::RunLocation;
use crate::store_options::{self, StoreOptions};
use koshogi_run::RunConfig;

#[derive(Args)]
pub struct GateArgs {
    #[command(flatten)]
    pub location: RunLocation,
    #[command(flatten)]
    pub store: StoreOptions,
    /// Stop after one look at the checkpoints (one gate match at most) instead of following.
    #[arg(long)]
    pub once: bool,
}

pub fn run(args: GateArgs) -> Result<()> {
    let stop = stop_flag_on_interrupt("the gate match in progress");
    let poll = Duration::from_secs_f64(args.store.poll_seconds);
    if let Some(remote) = args.location.remote()? {
        let remote = store_options::connect(remote, &args.store)?;
        let cache = args.store.open_cache(&remote, "gate")?;
        let config = args
            .location
            .resolve_stored(&remote, &cache.dir, Some(&stop))?;
        check_enabled(&config)?;
        let layout = RunLayout::new(&cache.dir);
        let accepted_file = layout.accepted_file();
        let accepted_key = accepted_key();
        let mut keeper = Gatekeeper::new(config.gate, config.inference, layout.checkpoints_dir());
        loop {
            fetch_gate_checkpoints(&remote, &cache.dir)?;
            let before = std::fs::read(&accepted_file).ok();
            keeper.step()?;
            let after = std::fs::read(&accepted_file).ok();
            if after.is_some() && after != before {
                remote.put_file(&accepted_key, &accepted_file)?;
                tracing::info!("published {}/{accepted_key}", remote.url());
            }
            if args.once || wait(poll, &stop) {
                return Ok(());
            }
        }
    }
    let (config, _, run_dir) = args.location.resolve()?;
    check_enabled(&config)?;
    let mut keeper = Gatekeeper::new(
        config.gate,
        config.inference,
        RunLayout::new(run_dir).checkpoints_dir(),
    );
    loop {
        keeper.step()?;
        if args.once || wait(poll, &stop) {
            return Ok(());
        }
    }
}

fn check_enabled(config: &RunConfig) -> Result<()> {
    if config.gate.enabled {
        Ok(())
    } else {
        Err(anyhow!(
            "the run's configuration has [gate] enabled = false: self-play would not follow the \
             gate's choice (set it in the run's config.toml)"
        ))
    }
}

/// Sleeps `poll` unless stopped; whether the gate should stop.
fn wait(poll: Duration, stop: &std::sync::atomic::AtomicBool) -> bool {
    let until = std::time::Instant::now() + poll;
    while std::time::Instant::now() < until {
        if stop.load(Ordering::SeqCst) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    stop.load(Ordering::SeqCst)
}
