//! `koshogi encode`: a position as the network's input tensor (`features.npy`) and its legal
//! moves with their policy legs (`moves.json`), so other clients need not reimplement either
//! encoding (see `scripts/export_example.py`); or, with `--run`/`--shards`, a run's replay
//! shards as training arrays for a PyTorch loop (koshogi_export::shards, docs/python.md).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use koshogi_export::ShardEncodeOptions;
use koshogi_rules::Game;
use koshogi_run_store::layout::RunLayout;

use crate::position_args::{parse_position, parse_rules};
use koshogi_run::{place_with_overrides, ConfigOverride, RunConfig, RUN_CONFIG_FILE};

#[derive(Args, Debug)]
pub struct EncodeArgs {
    /// A KSFEN position (`<board> <side> [<move number>]`, quoted or not) or `startpos`.
    #[arg(
        num_args = 1..,
        value_name = "KSFEN|startpos",
        required_unless_present_any = ["shards", "run"],
        conflicts_with_all = ["shards", "run"]
    )]
    pub position: Vec<String>,
    /// Directory to write into: `features.npy` and `moves.json` for a position; one
    /// `encoded-<seq>-<writer>.npz` per shard and `manifest.json` for shards.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Rule options as JSON (§12 keys); default KS-default. Positions only (shards carry
    /// their own).
    #[arg(long, value_name = "JSON", conflicts_with_all = ["shards", "run"])]
    pub rules: Option<String>,
    /// Encode the replay shards of this directory as training arrays.
    #[arg(long, value_name = "DIR", conflicts_with = "run")]
    pub shards: Option<PathBuf>,
    /// Encode the replay shards of this run (<run>/shards, with <run>/config.toml).
    #[arg(long, value_name = "RUN")]
    pub run: Option<PathBuf>,
    /// The run configuration whose settings make the targets (selfplay.max_plies, the [train]
    /// value and material targets, model.material_relative); default: the run's config.toml
    /// (<run>/, or the parent of --shards), else the built-in defaults.
    #[arg(long, value_name = "TOML")]
    pub config: Option<PathBuf>,
    /// Change one key of that configuration for this encoding, e.g. `--set
    /// train.material_outlook_weight=0` for value targets of the game result alone
    /// (repeatable; shards only; the run's file is not changed).
    #[arg(long = "set", value_name = "KEY=VALUE", conflicts_with = "position")]
    pub overrides: Vec<ConfigOverride>,
    /// Fill the attack planes (140 and 141) of a position's features, for a network whose
    /// model card says `attack_planes = true` (shards take it from the configuration).
    #[arg(long, conflicts_with_all = ["shards", "run"])]
    pub attack_planes: bool,
}

pub fn run(args: EncodeArgs) -> Result<()> {
    if let Some(run) = &args.run {
        koshogi_run::require_local_run(run)?;
    }
    let shards = match (&args.shards, &args.run) {
        (Some(shards), _) => Some((shards.clone(), shards.parent().map(Path::to_path_buf))),
        (None, Some(run)) => Some((koshogi_replay::shards_dir(run), Some(run.clone()))),
        (None, None) => None,
    };
    if let Some((shards_dir, run_dir)) = shards {
        return encode_shards(&shards_dir, run_dir.as_deref(), &args);
    }
    if args.config.is_some() {
        bail!("--config belongs to --run or --shards, not to a single position");
    }
    let position = parse_position(&args.position)?;
    let options = parse_rules(args.rules.as_deref())?;
    let game = Game::from_position(position, options);
    let encoded = koshogi_export::encode_game(&game, args.attack_planes)?;
    koshogi_export::write_encoding(&encoded, &args.out)
        .with_context(|| format!("writing {}", args.out.display()))?;
    println!(
        "wrote {} and {} ({} legal moves)",
        args.out.join("features.npy").display(),
        args.out.join("moves.json").display(),
        encoded.moves.len()
    );
    Ok(())
}

fn encode_shards(shards_dir: &Path, run_dir: Option<&Path>, args: &EncodeArgs) -> Result<()> {
    let kept = run_dir.map(|r| RunLayout::new(r).config_file());
    let config_path = match (&args.config, &kept) {
        (Some(path), _) => Some(path.clone()),
        (None, Some(kept)) if kept.is_file() => Some(kept.clone()),
        _ => None,
    };
    let config = match &config_path {
        Some(path) => RunConfig::load_with(path, &args.overrides)?.0,
        None => {
            let (config, _) = RunConfig::from_text("", "the built-in defaults", &args.overrides)?;
            tracing::warn!(
                "no run configuration found (--config, or {RUN_CONFIG_FILE} beside the shards): \
                 using the built-in defaults (selfplay.max_plies = {})",
                config.selfplay.max_plies
            );
            config
        }
    };
    let train = &config.train;
    let options = ShardEncodeOptions {
        max_plies: Some(config.selfplay.max_plies),
        search_value_weight: train.search_value_weight,
        material_outlook_weight: train.material_outlook_weight,
        material_outlook_plies: train.material_outlook_plies,
        material_head_target: train.material_head_target,
        material_relative: config.model.material_relative,
        attack_planes: config.model.attack_planes,
        loss_weights: train.loss,
    };
    let start = Instant::now();
    let summary = koshogi_export::encode_shards(shards_dir, &args.out, &options)
        .with_context(|| format!("encoding the shards of {}", shards_dir.display()))?;
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "encoded {} shards ({} positions, {:.1} MB, {:.0} positions/s) into {}; {} up to date; \
         {} positions in all",
        summary.encoded,
        summary.positions,
        summary.bytes as f64 / 1e6,
        summary.positions as f64 / seconds.max(1e-9),
        args.out.display(),
        summary.up_to_date,
        summary.total_positions
    );
    if summary.skipped_rows > 0 {
        println!(
            "left out {} rows that do not match the rules (see the warnings)",
            summary.skipped_rows
        );
    }
    if !summary.damaged.is_empty() {
        println!(
            "skipped {} damaged shards (see the warnings)",
            summary.damaged.len()
        );
    }
    let settings = config_path.map_or("built-in defaults".to_string(), |p| p.display().to_string());
    println!(
        "settings: {}",
        place_with_overrides(&settings, &args.overrides)
    );
    println!("manifest: {}", summary.manifest.display());
    Ok(())
}
