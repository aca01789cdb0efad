//! `koshogi arena`: matches between players (Elo ± 95 % CI, optional SPRT) and the ladder of a
//! training run. The work is done by `koshogi_arena`; this file parses arguments, shows progress
//! and prints results.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use koshogi_arena::ladder::{
    parse_baselines, run_ladder, LadderPlayerKind, RunLadderSettings, DEFAULT_BASELINES,
};
use koshogi_arena::matches::new_game;
use koshogi_arena::players::MctsPlayer;
use koshogi_arena::players::{build_player, match_rules, PlayerOptions};
use koshogi_arena::{
    run_match, GameSummary, MatchObserver, MatchReport, MatchSettings, PlayerSpec, SprtSettings,
};
use koshogi_nn::RuntimeConfig;

use crate::match_progress::{progress_bar, progress_message};
use crate::network_flags::NetworkPlayerFlags;

const PLAYER_HELP: &str = "\
Players (--a, --b):
  random                 uniformly random legal moves
  greedy                 one ply: largest immediate material gain (shots and burns included)
  ab:<depth>             alpha-beta over material, depth 1-4, captures searched past the horizon
  classic[@<settings>]   the classical engine: iterative deepening PVS with a hash table, null
                         move, LMR, quiescence with SEE and a positional evaluation; settings
                         movetime=MS, nodes=N (default 100000), depth=D, eval=full|material,
                         null/lmr/see/futility/threats/lmp=on|off, hash=MIB (e.g. classic@movetime=1000)
  policy:<ckpt>          the network's most probable move, no search
  mcts:<ckpt>[:<sims>]   Gumbel tree search without root noise, <sims> simulations per move
                         (default --sims)
  engine:<command>[@<limits>]
                         any program speaking the engine protocol (docs/engine-protocol.md),
                         started as a subprocess; <limits>: nodes=N (default --sims),
                         movetime=MS, a clock time=MS[,inc=MS][,byoyomi=MS], timeout=S.
                         A crash, a timeout, a loss on time or an illegal answer loses
                         that game (docs/arena.md)
<ckpt> is a checkpoint directory (run/checkpoints/step-000001200) or its model card (.json).

Examples:
  koshogi arena --a greedy --b random --games 100 --out arena-out
  koshogi arena --a mcts:run/checkpoints/step-000004000:64 --b policy:run/checkpoints/step-000004000 \\
                --sprt 0,20,0.05,0.05 --games 2000
  koshogi arena --a ab:2 --b greedy --games 40 --max-plies 300 --cap-material 2
  koshogi arena --a engine:\"koshogi engine --model run/checkpoints/step-000004000@nodes=64\" \\
                --b engine:\"/opt/other/koshogi engine@time=60000,inc=500\" --games 100
  koshogi arena --ladder run --games-per-pair 40 --anchors random,greedy,ab:2";

#[derive(Args)]
#[command(after_help = PLAYER_HELP)]
pub struct ArenaArgs {
    /// Player A (results are reported from A's side).
    #[arg(
        long = "a",
        value_name = "PLAYER",
        required_unless_present = "ladder",
        conflicts_with = "ladder"
    )]
    pub player_a: Option<String>,
    /// Player B.
    #[arg(
        long = "b",
        value_name = "PLAYER",
        required_unless_present = "ladder",
        conflicts_with = "ladder"
    )]
    pub player_b: Option<String>,
    /// Games to play (rounded up to even: each opening is played with both colours). With
    /// --sprt this is the maximum.
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Stop as soon as a sequential probability ratio test decides: `elo0,elo1,alpha,beta`.
    #[arg(long, value_name = "ELO0,ELO1,ALPHA,BETA")]
    pub sprt: Option<String>,
    /// Adjudicate a game after this many plies (opening included): a draw, or see --cap-material.
    #[arg(long, default_value_t = 1000)]
    pub max_plies: u32,
    /// Score a game stopped at --max-plies by material: the side with at least N more pieces
    /// on the board wins ("material at max plies"), otherwise a draw. Off by default (every
    /// capped game is a draw). Self-play's `cap_result = "material"` is the same rule.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub cap_material: Option<u32>,
    /// Random plies at the start of each opening (the pair of games shares them).
    #[arg(long, default_value_t = 4)]
    pub opening_plies: u32,
    /// Games played at once (network players evaluate them in one batch).
    #[arg(long, default_value_t = 32)]
    pub parallel: usize,
    /// Seed of the openings and of every random choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Directory for game records (game-NNNNNN.txt), games.csv and summary.txt.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Simulations per move for mcts:<ckpt> players without an explicit count.
    #[arg(long, default_value_t = 32)]
    pub sims: u32,
    #[command(flatten)]
    pub network: NetworkPlayerFlags,
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
    pub store: crate::stored_run::StoreOptions,
}

struct Progress {
    bar: ProgressBar,
}

impl MatchObserver for Progress {
    fn game_finished(&mut self, _game: &GameSummary, report: &MatchReport) {
        self.bar.inc(1);
        self.bar.set_message(progress_message(report));
    }
}

pub fn run(args: ArenaArgs) -> Result<()> {
    let runtime = args.network.runtime()?;
    let sprt = args
        .sprt
        .as_deref()
        .map(str::parse::<SprtSettings>)
        .transpose()
        .context("--sprt")?;
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if args.max_plies == 0 {
        bail!("--max-plies must be at least 1");
    }
    let match_settings = MatchSettings {
        games: args.games,
        max_plies: args.max_plies,
        cap_material_margin: args.cap_material,
        opening_plies: args.opening_plies,
        parallel_games: args.parallel.max(1),
        seed: args.seed,
        sprt,
        output_dir: args.out.clone(),
    };
    match &args.ladder {
        Some(run) => match koshogi_run_store::RunTarget::parse(run)? {
            koshogi_run_store::RunTarget::Local(run_dir) => {
                ladder(&args, &run_dir, match_settings, runtime)
            }
            koshogi_run_store::RunTarget::Remote(remote) => {
                let remote = crate::stored_run::connect(remote, &args.store)?;
                let cache = crate::stored_run::Cache::open(&remote, "arena", &args.store)?;
                crate::stored_run::prepare_ladder_cache(&remote, &cache.dir)?;
                ladder(&args, &cache.dir, match_settings, runtime)?;
                crate::stored_run::send_ladder_results(&remote, &cache.dir)?;
                println!("ladder sent to {}/arena", remote.url());
                Ok(())
            }
        },
        None => single_match(&args, match_settings, runtime),
    }
}

fn single_match(args: &ArenaArgs, settings: MatchSettings, runtime: RuntimeConfig) -> Result<()> {
    let parse = |flag: &str, text: &Option<String>| -> Result<PlayerSpec> {
        let text = text
            .as_deref()
            .with_context(|| format!("{flag} is required"))?;
        text.parse::<PlayerSpec>().with_context(|| flag.to_string())
    };
    let spec_a = parse("--a", &args.player_a)?;
    let spec_b = parse("--b", &args.player_b)?;
    let options = PlayerOptions {
        runtime,
        default_simulations: args.sims.max(1),
        avoid_repetition: !args.network.allow_repetition,
    };
    let mut a = build_player(&spec_a, &options).with_context(|| format!("player A ({spec_a})"))?;
    let mut b = build_player(&spec_b, &options).with_context(|| format!("player B ({spec_b})"))?;
    let rules = match_rules(&[&a, &b]).map_err(anyhow::Error::msg)?;
    let bar = progress_bar(settings.games.div_ceil(2) as u64 * 2);
    let mut progress = Progress { bar: bar.clone() };
    let report = run_match(
        &|| new_game(&rules, &settings),
        a.player.as_mut(),
        b.player.as_mut(),
        &settings,
        &mut progress,
    )?;
    bar.finish_and_clear();
    let summary = report.summary();
    println!("{summary}");
    if let Some(dir) = &settings.output_dir {
        let text = format!("{summary}\n");
        koshogi_files::atomic::write_atomic(&dir.join("summary.txt"), text.as_bytes())
            .with_context(|| format!("writing {}", dir.display()))?;
        println!("records: {}", dir.display());
    }
    Ok(())
}

fn ladder(
    args: &ArenaArgs,
    run_dir: &std::path::Path,
    match_settings: MatchSettings,
    runtime: RuntimeConfig,
) -> Result<()> {
    let baselines = parse_baselines(&args.anchors).context("--anchors")?;
    let settings = RunLadderSettings {
        games_per_pair: args.games_per_pair.max(2),
        baselines,
        match_settings,
        player: if args.ladder_sims == 0 {
            LadderPlayerKind::Policy
        } else {
            LadderPlayerKind::Mcts(MctsPlayer::evaluation_config(args.ladder_sims))
        },
        runtime,
        ..RunLadderSettings::default()
    };
    let bar = progress_bar(0);
    bar.set_length(u64::MAX);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} {pos} ladder games {msg}")
            .expect("valid template"),
    );
    let mut progress = Progress { bar: bar.clone() };
    let result = run_ladder(run_dir, &settings, &mut progress)
        .with_context(|| format!("ladder of {}", run_dir.display()))?;
    bar.finish_and_clear();
    println!(
        "{} new games; anchor {} = 0; ratings in {}",
        result.games_played,
        result.anchor,
        result.ladder_csv.display()
    );
    println!(
        "{:<24} {:>10} {:>9} {:>7} {:>7} {:>8}",
        "player", "step", "Elo", "± se", "games", "points"
    );
    for r in &result.ratings {
        let step = result
            .steps
            .get(&r.name)
            .map(|s| s.to_string())
            .unwrap_or_default();
        println!(
            "{:<24} {:>10} {:>9.1} {:>7.1} {:>7} {:>8}",
            r.name, step, r.elo, r.stderr, r.games, r.points
        );
    }
    if let Some(picture) = &result.elo_svg {
        println!(
            "picture of progress (Elo against training hours and steps): {}",
            picture.display()
        );
    }
    Ok(())
}
