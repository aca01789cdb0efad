//! `koshogi arena --ladder RUN`: the ladder flags and their run, local or in a store (rating done
//! by `koshogi_arena::ladder`, the store's cache by `crate::store_options`); printing the table.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use indicatif::ProgressStyle;

use koshogi_arena::ladder::{
    parse_baselines, run_ladder, LadderPlayerKind, RunLadderSettings, DEFAULT_BASELINES,
};
use koshogi_arena::MatchSettings;
use koshogi_nn::RuntimeConfig;
use koshogi_run_store::role_sync::{prepare_ladder_cache, send_ladder_results};
use koshogi_run_store::RunTarget;

use crate::match_progress::{progress_bar, MatchProgress};
use crate::store_options::connect;

// `--ladder` and what goes with it (no doc comment: a flattened struct's would be help text).
#[derive(Args)]
pub struct LadderFlags {
    /// Rate all checkpoints of a training run (`<run>/checkpoints/step-*`) by maximum
    /// likelihood, anchored at the random-initialised network = 0; games are kept in
    /// `<run>/arena/games.csv`, ratings in `<run>/arena/ladder.csv` and TensorBoard.
    #[arg(long, value_name = "RUN_DIR")]
    pub ladder: Option<PathBuf>,
    /// Ladder: games per pairing (each checkpoint vs its predecessor and vs the anchor).
    #[arg(long, default_value_t = 40)]
    pub games_per_pair: usize,
    /// Ladder: simulations per move for the checkpoints (0 = raw policy, no search).
    #[arg(long, default_value_t = 0)]
    pub ladder_sims: u32,
    /// Ladder: built-in players rated with the checkpoints as fixed levels (every checkpoint
    /// plays each of them), comma-separated, or `none`. Elo 0 stays the random-initialised
    /// network.
    #[arg(long, value_name = "PLAYERS", default_value = DEFAULT_BASELINES)]
    pub anchors: String,
    /// With `--ladder s3://…`: the local working directory and polling (docs/distributed.md).
    #[command(flatten)]
    pub store: crate::store_options::StoreOptions,
}

/// The ladder of `run`: a local directory, or a stored run rated in a local cache whose results
/// are sent back.
pub fn run(
    flags: &LadderFlags,
    run: &Path,
    match_settings: MatchSettings,
    runtime: RuntimeConfig,
) -> Result<()> {
    match RunTarget::parse(run)? {
        RunTarget::Local(run_dir) => ladder(flags, &run_dir, match_settings, runtime),
        RunTarget::Remote(remote) => {
            let remote = connect(remote, &flags.store)?;
            let cache = flags.store.open_cache(&remote, "arena")?;
            prepare_ladder_cache(&remote, &cache.dir)?;
            ladder(flags, &cache.dir, match_settings, runtime)?;
            send_ladder_results(&remote, &cache.dir)?;
            println!("ladder sent to {}/arena", remote.url());
            Ok(())
        }
    }
}

fn ladder(
    args: &LadderFlags,
    run_dir: &Path,
    match_settings: MatchSettings,
    runtime: RuntimeConfig,
) -> Result<()> {
    let settings = RunLadderSettings {
        games_per_pair: args.games_per_pair.max(2),
        baselines: parse_baselines(&args.anchors).context("--anchors")?,
        match_settings,
        player: LadderPlayerKind::with_simulations(args.ladder_sims),
        runtime,
        ..RunLadderSettings::default()
    };
    let bar = progress_bar(0);
    bar.set_length(u64::MAX);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} {pos} ladder games {msg}")
            .expect("valid template"),
    );
    let mut progress = MatchProgress { bar: bar.clone() };
    let result = run_ladder(run_dir, &settings, &mut progress)
        .with_context(|| format!("ladder of {}", run_dir.display()))?;
    bar.finish_and_clear();
    print!("{}", result.summary());
    Ok(())
}
