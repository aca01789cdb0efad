//! `koshogi eval --run DIR`: the standard evaluation table of a run's checkpoint (its last by
//! default) against the run's first checkpoint and fixed opponents, with the raw policy and with
//! tree search. The work is done by `koshogi_arena::evaluation`; this file parses arguments,
//! shows progress, prints the table and writes it to `DIR/eval/` (resuming an interrupted
//! evaluation of the same settings).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;

use koshogi_arena::evaluation::{plan_evaluation, run_evaluation, EqualTime, EvalSettings};
use koshogi_arena::players::parse_player_list;
use koshogi_arena::PlayerSpec;
use koshogi_baselines::classic::MAX_MOVETIME_MS;
use koshogi_run_store::layout::{parse_step, RunLayout};
use koshogi_train::checkpoint_manager::hour_checkpoints;

use crate::match_flags::MatchFlags;
use crate::match_progress::RowProgress;
use crate::network_flags::NetworkPlayerFlags;

const EVAL_HELP: &str = "\
Rows, each with the policy player (policy:<ckpt>, --games games) and the search player
(mcts:<ckpt>:<sims>, --mcts-games games): the checkpoint against the run's first checkpoint
playing the same way, then against each of --opponents (arena player specs, see
`koshogi arena --help`). Beside each, unless --no-controls, the controls against the same
opponent: the search with no network (material:<sims>), the first checkpoint, and the
checkpoint's search on the network's value alone (@utility=0,forced=off); the search player
and the value-only control also meet material:<sims>. --outright plays the table again to
--outright-max-plies with capped games drawn; --movetime MS adds an equal-time table against
classic@movetime=MS. Columns: W/D/L, score and Elo with 95 % intervals, each side's pass and
capture rates, mean game length, the player's material balance after ply 100 and 200, how
the player's games ended. Written to
DIR/eval/eval-step-NNNNNNNNN.md and .json. Finished rows are kept in
DIR/eval/eval-step-NNNNNNNNN.partial.json until the table is written: the same command run
again after an interruption resumes at the first unplayed row (delete the file to start over).

Examples:
  koshogi eval --run runs/quick
  koshogi eval --run runs/quick --checkpoint 200 --opponents greedy,random --mcts-games 0
  koshogi eval --run runs/long --at-hours 4 --opponents greedy,ab:2
  koshogi eval --run runs/cpu --opponents greedy,ab:2 --outright --movetime 1000";

#[derive(Args)]
#[command(after_help = EVAL_HELP)]
pub struct EvalArgs {
    /// The training run's directory (with checkpoints/step-*).
    #[arg(long, value_name = "DIR")]
    pub run: PathBuf,
    /// The step of the checkpoint to evaluate (`1200` or `step-000001200`); default: the last.
    #[arg(long, value_name = "STEP", value_parser = parse_step_arg)]
    pub checkpoint: Option<u64>,
    /// Evaluate the earliest checkpoint that had trained H hours by the training clock
    /// (`koshogi run --hours`; `train.checkpoint.keep_hours` keeps those checkpoints).
    #[arg(long, value_name = "H", conflicts_with = "checkpoint",
          value_parser = crate::commands::run::positive_hours)]
    pub at_hours: Option<f64>,
    /// Games of each policy row (0 = none). Rounded up to even: each opening is played with
    /// both colours.
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Games of each search row (0 = none).
    #[arg(long, default_value_t = 40)]
    pub mcts_games: usize,
    /// Simulations per move of the search rows (both sides of the first-checkpoint row).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..))]
    pub sims: u32,
    /// Opponents besides the run's first checkpoint: comma-separated arena player specs.
    #[arg(long, default_value = "greedy", value_name = "SPEC,...")]
    pub opponents: String,
    /// Leave out the controls (no network, first checkpoint, value only).
    #[arg(long)]
    pub no_controls: bool,
    /// Also play every row to --outright-max-plies with capped games drawn.
    #[arg(long)]
    pub outright: bool,
    /// The ply cap of --outright's games.
    #[arg(long, default_value_t = 1000, value_name = "PLIES",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub outright_max_plies: u32,
    /// Add an equal-time table: the search player (and the network-free control) with MS
    /// milliseconds per move against --movetime-opponent with the same time; 0 = none.
    #[arg(long, default_value_t = 0, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(0..=MAX_MOVETIME_MS))]
    pub movetime: u64,
    /// Games of each equal-time row.
    #[arg(long, default_value_t = 20)]
    pub movetime_games: usize,
    /// The equal-time opponent (an arena player spec); default: classic@movetime=<MS>.
    #[arg(long, value_name = "SPEC")]
    pub movetime_opponent: Option<String>,
    /// Adjudicate a game after this many plies (opening included), see --cap-material.
    #[arg(long, default_value_t = 300)]
    pub max_plies: u32,
    /// A game stopped at --max-plies goes to the side with at least N more pieces on the board,
    /// else it is a draw; 0 = every capped game is a draw.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub cap_material: u32,
    #[command(flatten)]
    pub matches: MatchFlags,
    /// Keep every game's record under DIR/eval/step-NNNNNNNNN-games/.
    #[arg(long)]
    pub records: bool,
    #[command(flatten)]
    pub network: NetworkPlayerFlags,
}

/// The step of the earliest checkpoint of `run` whose training clock had reached `hours`.
fn checkpoint_at_hours(run: &std::path::Path, hours: f64) -> Result<u64> {
    let dir = RunLayout::new(run).checkpoints_dir();
    let found =
        hour_checkpoints(&dir, &[hours]).with_context(|| format!("listing {}", dir.display()))?;
    match found.first() {
        Some(&step) => {
            println!("--at-hours {hours}: step {step}");
            Ok(step)
        }
        None => bail!(
            "no checkpoint in {} had trained {hours} hours (the training clock is in each \
             checkpoint's model card; checkpoints written before it was recorded have none)",
            dir.display()
        ),
    }
}

fn parse_step_arg(text: &str) -> Result<u64, String> {
    parse_step(text).ok_or_else(|| format!("`{text}` is not a step (e.g. 1200 or step-000001200)"))
}

pub fn run(args: EvalArgs) -> Result<()> {
    if args.max_plies == 0 {
        bail!("--max-plies must be at least 1");
    }
    let equal_time = match args.movetime {
        0 => None,
        ms => {
            let mut equal = EqualTime::against_classic(ms, args.movetime_games);
            if let Some(text) = &args.movetime_opponent {
                equal.opponent = text.parse::<PlayerSpec>().context("--movetime-opponent")?;
            }
            Some(equal)
        }
    };
    if equal_time.is_none() && args.movetime_opponent.is_some() {
        bail!("--movetime-opponent needs --movetime MS");
    }
    koshogi_run::require_local_run(&args.run)?;
    let checkpoint_step = match args.at_hours {
        Some(hours) => Some(checkpoint_at_hours(&args.run, hours)?),
        None => args.checkpoint,
    };
    let runtime = args.network.runtime()?;
    let settings = EvalSettings {
        checkpoint_step,
        policy_games: args.games,
        mcts_games: args.mcts_games,
        simulations: args.sims,
        opponents: parse_player_list(&args.opponents).context("--opponents")?,
        controls: !args.no_controls,
        outright_max_plies: args.outright.then_some(args.outright_max_plies),
        equal_time,
        match_settings: args.matches.settings(
            0,
            args.max_plies,
            (args.cap_material > 0).then_some(args.cap_material),
            None,
            None,
        ),
        player_options: args.network.player_options(runtime, args.sims),
        keep_records: args.records,
        resume: true,
    };
    let plan = plan_evaluation(&args.run, &settings)?;
    let mut progress = RowProgress::new(plan.rows.len());
    let evaluation = run_evaluation(&plan, &settings, &mut progress)?;
    print!("{}", evaluation.markdown());
    let (markdown, json) = evaluation
        .write()
        .with_context(|| format!("writing {}", RunLayout::new(&args.run).eval_dir().display()))?;
    println!("\nwritten: {} and {}", markdown.display(), json.display());
    Ok(())
}
