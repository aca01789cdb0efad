//! The match benchmark (`koshogi bench arena`): how fast matches run for each kind of player,
//! with peak memory — the figures that say how many games an evaluation or a ladder can afford
//! on this machine.
//!
//! Network players use a randomly initialised network of the chosen size (speed does not depend
//! on the weights), saved as a temporary checkpoint and loaded the way `koshogi arena` loads one.
//!
//! Not part of koshogi-arena: it plays matches through the arena's public API (players, match
//! runner), times koshogi-baselines' alpha-beta search directly, and adds the timing and the
//! printing.

use std::io::Write;
use std::time::{Duration, Instant};

use koshogi_arena::matches::new_game;
use koshogi_arena::players::{MctsPlayer, PolicyPlayer};
use koshogi_arena::{
    run_match, Choice, GreedyPlayer, MatchSettings, MoveRequest, Player, PlayerError, RandomPlayer,
};
use koshogi_baselines::alphabeta::{self, SearchLimits, MAX_DEPTH};
use koshogi_baselines::greedy::greedy_move;
use koshogi_baselines::parse_depth;
use koshogi_nn::checkpoint::save;
use koshogi_nn::{DeviceSpec, Model, ModelConfig, RuntimeConfig};
use koshogi_rules::{Color, Game, Move, RulesOptions};

use crate::memory::peak_resident_mib;
use crate::positions::start_and_greedy_game;
use crate::BenchError;

/// What to measure (the flags of `koshogi bench arena`).
#[derive(Clone, Debug)]
pub struct ArenaBenchOptions {
    /// Games per measured match.
    pub games: usize,
    /// Ply cap of every game.
    pub max_plies: u32,
    /// Games in flight (the network players' batch size is about half of this).
    pub parallel: usize,
    /// Network size for the policy and search players: tiny | cpu | gpu ("none" skips them).
    pub model: String,
    /// Simulations per move of the search player (0 skips it).
    pub sims: u32,
    /// Device for the network players: auto | cpu | cuda | cuda:N.
    pub device: String,
    /// libtorch intra-op threads.
    pub threads: i32,
    /// Alpha-beta depths to time move by move (one core) from the start position and two
    /// positions of a seeded greedy-vs-greedy game; `none` skips them.
    pub ab_depths: String,
}

/// Times the moves of the wrapped player.
struct Timed<P> {
    inner: P,
    moves: u64,
    calls: u64,
    busy: Duration,
}

impl<P> Timed<P> {
    fn new(inner: P) -> Self {
        Self {
            inner,
            moves: 0,
            calls: 0,
            busy: Duration::ZERO,
        }
    }

    /// Runs `ask` on the wrapped player for `requests` moves, counting its time and moves.
    fn timed<T>(
        &mut self,
        requests: usize,
        ask: impl FnOnce(&mut P) -> Result<T, PlayerError>,
    ) -> Result<T, PlayerError> {
        let start = Instant::now();
        let answer = ask(&mut self.inner)?;
        self.busy += start.elapsed();
        self.moves += requests as u64;
        self.calls += 1;
        Ok(answer)
    }
}

impl<P: Player<Game>> Player<Game> for Timed<P> {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn choose_moves(
        &mut self,
        requests: &[MoveRequest<'_, Game>],
    ) -> Result<Vec<Move>, PlayerError> {
        self.timed(requests.len(), |inner| inner.choose_moves(requests))
    }

    /// Forwarded and timed the same way, so a wrapped engine's forfeits stay forfeits.
    fn choose_or_forfeit(
        &mut self,
        requests: &[MoveRequest<'_, Game>],
    ) -> Result<Vec<Choice<Move>>, PlayerError> {
        self.timed(requests.len(), |inner| inner.choose_or_forfeit(requests))
    }
}

/// Plays one untimed match first when `warm_up` is set: oneDNN builds its kernels once per batch
/// shape, and every batch size from 1 to `--parallel` occurs, so the first match of a network
/// player measures mostly kernel creation, not play.
fn measure<P: Player<Game>>(
    label: &str,
    player: P,
    args: &ArenaBenchOptions,
    warm_up: bool,
    out: &mut impl Write,
) -> Result<P, BenchError> {
    let mut settings = MatchSettings {
        games: args.games,
        max_plies: args.max_plies,
        opening_plies: 4,
        parallel_games: args.parallel.max(1),
        seed: 2,
        sprt: None,
        output_dir: None,
        cap_material_margin: None,
    };
    let options = RulesOptions::default();
    let against_random = |timed: &mut Timed<P>, settings: &MatchSettings| {
        run_match(
            &|| new_game(&options, settings),
            timed,
            &mut RandomPlayer::new(),
            settings,
            &mut (),
        )
    };
    let mut timed = Timed::new(player);
    if warm_up {
        let start = Instant::now();
        against_random(&mut timed, &settings)?;
        writeln!(
            out,
            "{label:<28} warm-up match: {:.2} s",
            start.elapsed().as_secs_f64()
        )?;
        timed = Timed::new(timed.inner);
    }
    settings.seed = 1;
    let start = Instant::now();
    let report = against_random(&mut timed, &settings)?;
    let wall = start.elapsed().as_secs_f64();
    let plies: u64 = report.games.iter().map(|g| u64::from(g.plies)).sum();
    let busy = timed.busy.as_secs_f64();
    writeln!(
        out,
        "{label:<28} vs random: {:>3} games {:>7} plies in {wall:>7.2} s = {:>7.2} games/s {:>9.0} plies/s; \
         its moves: {:>6} in {busy:>6.2} s = {:>8.1} moves/s, mean batch {:>5.1}; result {}",
        report.games.len(),
        plies,
        report.games.len() as f64 / wall,
        plies as f64 / wall,
        timed.moves,
        timed.moves as f64 / busy.max(1e-9),
        timed.moves as f64 / timed.calls.max(1) as f64,
        report.wdl
    )?;
    Ok(timed.inner)
}

/// `--ab-depths`: comma-separated depths from 1 to [`MAX_DEPTH`] (as `ab:<depth>` reads them),
/// or `none`.
fn parse_depths(text: &str) -> Result<Vec<u32>, BenchError> {
    if text.trim() == "none" {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|item| {
            parse_depth(item.trim()).ok_or_else(|| {
                BenchError::Options(format!(
                    "--ab-depths: `{item}` is not a depth from 1 to {MAX_DEPTH}"
                ))
            })
        })
        .collect()
}

/// Time per move of `ab:<depth>` on fixed positions — the start, and plies 60 and 120 of the
/// greedy game of [`start_and_greedy_game`] — and over a whole game against greedy, where
/// positions full of captures cost the most. The greedy game's generator goes on to break the
/// searches' ties.
fn time_alphabeta(depths: &[u32], max_plies: u32, out: &mut impl Write) -> Result<(), BenchError> {
    let (positions, mut rng) = start_and_greedy_game(&[60, 120]);
    for &depth in depths {
        for (label, position) in &positions {
            let start = Instant::now();
            let Some(result) = alphabeta::search(position, &SearchLimits::depth(depth), &mut rng)
            else {
                continue;
            };
            let seconds = start.elapsed().as_secs_f64();
            writeln!(
        out,
                "ab:{depth:<2} {label:<22} {seconds:>7.3} s/move, depth {} completed, {:>9} nodes, \
                 {:>6.1} M moves generated ({:.1} M/s)",
                result.depth,
                result.nodes,
                result.moves_generated as f64 / 1e6,
                result.moves_generated as f64 / 1e6 / seconds.max(1e-9),
            )?;
        }
        let mut game = Game::new(RulesOptions::default()).with_max_plies(Some(max_plies));
        let mut times = Vec::new();
        let mut short = 0;
        while game.outcome().is_none() {
            let mv = if game.position().side_to_move() == Color::Black {
                let start = Instant::now();
                let Some(result) = alphabeta::search(&game, &SearchLimits::depth(depth), &mut rng)
                else {
                    break;
                };
                times.push(start.elapsed().as_secs_f64());
                short += usize::from(result.depth < depth);
                result.best_move
            } else {
                let Some(mv) = greedy_move(&game, &mut rng) else {
                    break;
                };
                mv
            };
            game.play(mv);
        }
        times.sort_by(f64::total_cmp);
        if let Some(&max) = times.last() {
            writeln!(
                out,
                "ab:{depth:<2} vs greedy, one game of {} plies: {} moves, mean {:.3} s, median \
                 {:.3} s, max {max:.3} s; {short} stopped short of depth {depth} by the budget",
                game.plies_played(),
                times.len(),
                times.iter().sum::<f64>() / times.len() as f64,
                times[times.len() / 2],
            )?;
        }
    }
    Ok(())
}

/// Runs the benchmark, writing a line to `out` after each measurement.
pub fn run(args: &ArenaBenchOptions, out: &mut impl Write) -> Result<(), BenchError> {
    let ab_depths = parse_depths(&args.ab_depths)?;
    koshogi_nn::set_intra_op_threads(args.threads);
    writeln!(
        out,
        "koshogi bench arena: {} games per match, max {} plies, {} in flight, {} libtorch threads",
        args.games, args.max_plies, args.parallel, args.threads
    )?;
    measure("random", RandomPlayer::named("random-a"), args, false, out)?;
    measure("greedy", GreedyPlayer::new(), args, false, out)?;
    time_alphabeta(&ab_depths, args.max_plies, out)?;
    let architecture = match args.model.as_str() {
        "none" => None,
        name => Some(ModelConfig::named(name).map_err(|e| {
            BenchError::Options(format!("--model {name}: {e}; or none (no network players)"))
        })?),
    };
    if let Some(architecture) = architecture {
        let device: DeviceSpec = args
            .device
            .parse()
            .map_err(|e| BenchError::Options(format!("--device: {e}")))?;
        let runtime = RuntimeConfig {
            device,
            ..RuntimeConfig::default()
        };
        let dir = std::env::temp_dir().join(format!("koshogi-bench-arena-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|source| BenchError::Files {
            context: "creating the checkpoint's temporary directory",
            source,
        })?;
        let card = dir.join("model.json");
        let mut measure_networks = || -> Result<(), BenchError> {
            let model = Model::new(&architecture, tch::Device::Cpu)?;
            let rules = serde_json::to_value(RulesOptions::default()).map_err(BenchError::Rules)?;
            save(&model, &card, 0, rules)?;
            let policy = PolicyPlayer::load(&card, &runtime, "policy")?;
            writeln!(
                out,
                "network: {} ({:?}), runtime {:?}",
                args.model,
                architecture,
                runtime.resolve().ok()
            )?;
            measure("policy (random init)", policy, args, true, out)?;
            if args.sims > 0 {
                let config = MctsPlayer::evaluation_config(args.sims);
                let mcts = MctsPlayer::load(&card, &runtime, config, "mcts")?;
                let label = format!("mcts {} sims (random init)", args.sims);
                let mcts = measure(&label, mcts, args, true, out)?;
                let stats = mcts.driver_stats();
                writeln!(
                    out,
                    "  search driver (warm-up + timed match): {} batches, {} positions evaluated \
                     (mean batch {:.1}), evaluator busy {:.2} s = {:.0} positions/s",
                    stats.batches,
                    stats.evaluated,
                    stats.evaluated as f64 / stats.batches.max(1) as f64,
                    stats.evaluator_busy.as_secs_f64(),
                    stats.evaluated as f64 / stats.evaluator_busy.as_secs_f64().max(1e-9)
                )?;
            }
            Ok(())
        };
        let result = measure_networks();
        let _ = std::fs::remove_dir_all(&dir);
        result?;
    }
    writeln!(out, "peak resident memory (VmHWM): {}", peak_resident_mib())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_beta_depths_are_checked() {
        assert_eq!(parse_depths("2,3").unwrap(), vec![2, 3]);
        assert_eq!(parse_depths("none").unwrap(), Vec::<u32>::new());
        assert!(parse_depths("2,5").unwrap_err().to_string().contains("`5`"));
        assert!(parse_depths("").is_err());
    }

    fn options(model: &str, ab_depths: &str) -> ArenaBenchOptions {
        ArenaBenchOptions {
            games: 2,
            max_plies: 6,
            parallel: 2,
            model: model.into(),
            sims: 0,
            device: "cpu".into(),
            threads: 1,
            ab_depths: ab_depths.into(),
        }
    }

    #[test]
    fn without_a_network_the_baselines_and_alpha_beta_are_timed() {
        let mut out = Vec::new();
        run(&options("none", "1"), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        for expected in [
            "koshogi bench arena: 2 games per match, max 6 plies, 2 in flight, 1 libtorch threads",
            "random                       vs random:   2 games",
            "greedy                       vs random:   2 games",
            "ab:1  start ",
            "ab:1  greedy game, ply 60 ",
            "ab:1  greedy game, ply 120 ",
            "ab:1  vs greedy, one game of 6 plies: 3 moves",
            "peak resident memory",
        ] {
            assert!(text.contains(expected), "{expected:?} in {text}");
        }
        assert!(!text.contains("network:"), "{text}");
    }

    #[test]
    fn an_unknown_model_is_an_error_naming_the_choices() {
        let err = run(&options("huge", "none"), &mut Vec::new()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--model huge: invalid network configuration: unknown network \"huge\": expected \
             tiny, cpu, gpu or <blocks>x<channels> (e.g. 4x48); or none (no network players)"
        );
    }
}
