//! `koshogi arena`: matches between players (Elo ± 95 % CI, optional SPRT) and the ladder of a
//! training run. The work is done by `koshogi_arena`; this file parses arguments and prints
//! results, the ladder's own flags and run in `arena/ladder.rs`.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;

use koshogi_arena::players::play_spec_match;
use koshogi_arena::{MatchSettings, PlayerSpec, SprtSettings};
use koshogi_nn::RuntimeConfig;

use crate::match_flags::MatchFlags;
use crate::match_progress::{progress_bar, MatchProgress};
use crate::network_flags::NetworkPlayerFlags;

mod ladder;
use ladder::LadderFlags;

const PLAYER_HELP: &str = "\
Players (--a, --b):
  random                 uniformly random legal moves
  greedy                 one ply: largest immediate material gain (shots and burns included)
  ab:<depth>             alpha-beta over material, depth 1-4, captures searched past the horizon
  classic[@<settings>]   the classical engine: iterative deepening PVS with a hash table, null
                         move, LMR, quiescence with SEE and a positional evaluation; settings
                         movetime=MS, nodes=N (default 100000), depth=D, eval=full|material,
                         null/lmr/see/futility/threats/lmp/hanging/cap=on|off,
                         artillery=PERCENT (shooters' values, default 200, 100 = baseline),
                         hash=MIB
                         (e.g. classic@movetime=1000)
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
    #[command(flatten)]
    pub matches: MatchFlags,
    /// Directory for game records (game-NNNNNN.txt), games.csv and summary.txt.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Simulations per move for mcts:<ckpt> players without an explicit count.
    #[arg(long, default_value_t = 32)]
    pub sims: u32,
    #[command(flatten)]
    pub network: NetworkPlayerFlags,
    #[command(flatten)]
    pub ladder_flags: LadderFlags,
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
    let match_settings = args.matches.settings(
        args.games,
        args.max_plies,
        args.cap_material,
        sprt,
        args.out.clone(),
    );
    match &args.ladder_flags.ladder {
        Some(run) => ladder::run(&args.ladder_flags, run, match_settings, runtime),
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
    let (spec_a, spec_b) = (parse("--a", &args.player_a)?, parse("--b", &args.player_b)?);
    let options = args.network.player_options(runtime, args.sims.max(1));
    let bar = progress_bar(settings.games.div_ceil(2) as u64 * 2);
    let mut progress = MatchProgress { bar: bar.clone() };
    let report = play_spec_match(&spec_a, &spec_b, &options, &settings, &mut progress);
    bar.finish_and_clear();
    let report = report?;
    println!("{}", report.summary());
    if let Some(dir) = &settings.output_dir {
        println!("records: {}", dir.display());
    }
    Ok(())
}
