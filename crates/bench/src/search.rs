//! The search benchmark (`koshogi bench search`): does the search driver keep the network busy?
//!
//! Measured in one run, on the default CPU network and the same batch size B:
//! * raw: back-to-back batched evaluations of B fixed positions (feature encoding, forward
//!   pass, legal-move gather: everything an evaluator call does) on the main thread, and once
//!   through the evaluation thread;
//! * driver: 2B self-play searches (two halves of B, ping-pong) playing moves with the chosen
//!   algorithm through [`SearchDriver::run_with`], counting positions sent to the network.
//!
//! Raw and driver slices alternate (`--rounds`) so that load from other processes hits both
//! alike. The figure of merit is driver evaluations/s divided by raw evaluations/s (goal:
//! at least 0.90).
//! Also printed: average batch, time the search thread waited, evaluator busy share, cache
//! hit rate, bytes per expanded node, and peak memory (VmHWM).

use koshogi_mcts::eval_thread::EvalJob;
use koshogi_mcts::tree::{Edge, Node, Tree};
use koshogi_mcts::{
    Algorithm, DriverConfig, EvalRequest, Evaluation, Evaluator, Search, SearchConfig,
    SearchDriver, SearchGame,
};
use koshogi_nn::{
    spawn_network_thread, InferenceModel, ModelConfig, NetworkEvaluator, RuntimeConfig,
};
use koshogi_rules::{Game, Move, RulesOptions};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cell::Cell;
use std::io::Write;
use std::time::{Duration, Instant};

use crate::memory::peak_resident_mib;
use crate::BenchError;

/// What to measure (the flags of `koshogi bench search`).
#[derive(Clone, Debug)]
pub struct SearchBenchOptions {
    /// Positions per network call (B); the driver runs 2B searches, B per batch.
    pub batch: usize,
    /// libtorch intra-op threads on the evaluation thread (the search thread is one more; on a
    /// loaded 2-core machine 2 intra-op threads were measured ~20x slower than 1).
    pub threads: i32,
    /// Root algorithm: gumbel | puct.
    pub algorithm: String,
    /// Leaves one search may have in flight (virtual loss); the driver then runs
    /// 2B / leaves-per-tree searches so batches stay at B.
    pub leaves_per_tree: u32,
    /// Simulations per move.
    pub simulations: u32,
    /// Seconds of driver measurement in all (after a warm-up of a quarter of this).
    pub seconds: f64,
    /// Seconds of raw measurement in all.
    pub raw_seconds: f64,
    /// Raw and driver measurements alternate this many times.
    pub rounds: usize,
    /// Evaluation cache slots (0 = off).
    pub cache: usize,
    /// Inference precision: auto | f32 | bf16.
    pub precision: String,
    /// Games are adjudicated drawn after this many plies (then a new game starts).
    pub max_plies: u32,
    /// Seed of the random openings, the network's initial weights and the searches.
    pub seed: u64,
}

/// Resubmits a job unchanged (its requests stay; answers are cleared).
fn job_again(mut job: EvalJob<Game>) -> EvalJob<Game> {
    job.evaluations.clear();
    job
}

/// A fresh game after a seeded random opening of 4..40 plies (distinct start points).
fn random_game(rng: &mut ChaCha8Rng, max_plies: u32) -> Game {
    let mut game = Game::new(RulesOptions::default()).with_max_plies(Some(max_plies));
    let plies = rng.random_range(4..40);
    for _ in 0..plies {
        if game.outcome().is_some() {
            break;
        }
        let moves = game.legal_moves();
        game.play(moves[rng.random_range(0..moves.len())]);
    }
    game
}

/// Runs the benchmark, writing its report to `out` line by line as the measurements end.
pub fn run(args: &SearchBenchOptions, out: &mut impl Write) -> Result<(), BenchError> {
    let algorithm = match args.algorithm.as_str() {
        "gumbel" => Algorithm::Gumbel,
        "puct" => Algorithm::Puct,
        other => {
            return Err(BenchError::Options(format!(
                "unknown algorithm {other:?} (gumbel | puct)"
            )))
        }
    };
    if args.batch == 0 {
        return Err(BenchError::Options("--batch must be at least 1".into()));
    }
    let runtime = RuntimeConfig {
        precision: args.precision.parse()?,
        ..RuntimeConfig::default()
    };
    let model_config = ModelConfig::cpu_default();
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);

    // Raw: the same evaluator type, called directly on B fixed positions.
    koshogi_nn::set_intra_op_threads(args.threads);
    tch::manual_seed(args.seed as i64);
    let raw_model = InferenceModel::new(&model_config, &runtime)?;
    writeln!(
        out,
        "network: cpu default {model_config:?}, {}",
        raw_model.runtime()
    )?;
    let mut raw = NetworkEvaluator::new(raw_model);
    // Eight different batches, used in turn, so raw calls see changing positions (and move
    // counts) just as the driver's do.
    let pools: Vec<Vec<EvalRequest<Game>>> = (0..8)
        .map(|_| {
            (0..args.batch)
                .map(|_| {
                    let game = random_game(&mut rng, args.max_plies);
                    let mut moves = Vec::new();
                    SearchGame::legal_moves(&game, &mut moves);
                    EvalRequest {
                        position: SearchGame::position(&game),
                        moves,
                    }
                })
                .collect()
        })
        .collect();
    let requests = &pools[0];
    let mean_moves = pools.iter().flatten().map(|r| r.moves.len()).sum::<usize>() as f64
        / (pools.len() * args.batch) as f64;
    let mut raw_slice = |seconds: f64| -> Result<(u64, f64), BenchError> {
        let mut answers: Vec<Evaluation> = Vec::new();
        raw.evaluate(&pools[0], &mut answers)?; // warm-up
        let start = Instant::now();
        let mut calls = 0usize;
        while calls < 2 || start.elapsed().as_secs_f64() < seconds {
            answers.clear();
            raw.evaluate(&pools[calls % pools.len()], &mut answers)?;
            calls += 1;
        }
        Ok(((calls * args.batch) as u64, start.elapsed().as_secs_f64()))
    };

    // Driver: 2B self-play searches.
    let eval = {
        let (config, runtime, seed) = (model_config.clone(), runtime, args.seed);
        spawn_network_thread(args.threads, move || {
            tch::manual_seed(seed as i64);
            InferenceModel::new(&config, &runtime)
        })?
    };
    // Raw again, but through the evaluation thread (same model and thread the driver uses):
    // the same fixed batch submitted back to back, two in flight.
    let thread_raw = {
        let make_job = |group: usize| {
            let mut job = EvalJob::<Game>::new(group);
            job.batch.requests = requests
                .iter()
                .map(|r| EvalRequest {
                    position: r.position.clone(),
                    moves: r.moves.clone(),
                })
                .collect();
            job
        };
        eval.submit(make_job(0))?;
        eval.receive()?; // warm-up
        let start = Instant::now();
        let mut done = 0usize;
        eval.submit(make_job(0))?;
        eval.submit(make_job(1))?;
        while start.elapsed().as_secs_f64() < args.raw_seconds || done < 2 {
            let mut job = eval.receive()?;
            std::mem::replace(&mut job.outcome, Ok(()))?;
            done += 1;
            eval.submit(job_again(job))?;
        }
        let rate = (done * args.batch) as f64 / start.elapsed().as_secs_f64();
        for _ in 0..2 {
            eval.receive()?;
        }
        rate
    };
    writeln!(
        out,
        "raw batched evaluation on the evaluation thread, batch {}: {thread_raw:.1} positions/s",
        args.batch
    )?;
    let search_config = SearchConfig {
        algorithm,
        simulations: args.simulations,
        leaves_per_tree: args.leaves_per_tree.max(1),
        ..SearchConfig::default()
    };
    let mut driver = SearchDriver::new(
        eval,
        DriverConfig {
            cache_entries: args.cache,
            pipelined: true,
        },
    );
    let mut searches: Vec<Search<Game>> = (0..(2 * args.batch)
        .div_ceil(args.leaves_per_tree.max(1) as usize))
        .map(|i| {
            Search::new(
                random_game(&mut rng, args.max_plies),
                search_config.clone(),
                args.seed * 1000 + i as u64,
            )
        })
        .collect();
    for search in &mut searches {
        search.start()?;
    }
    let moves_played = Cell::new(0u64);
    let games_finished = Cell::new(0u64);
    let max_tree_bytes = Cell::new(0usize);
    let drive = |driver: &mut SearchDriver<Game>,
                 searches: &mut Vec<Search<Game>>,
                 seconds: f64,
                 rng: &mut ChaCha8Rng| {
        let deadline = Instant::now() + Duration::from_secs_f64(seconds);
        driver.run_with(searches, |i, search| {
            max_tree_bytes.set(max_tree_bytes.get().max(search.tree().allocated_bytes()));
            let Ok(result) = search.result() else { return };
            if Instant::now() >= deadline {
                return;
            }
            moves_played.set(moves_played.get() + 1);
            if search.advance(result.chosen_move).is_err() || search.start().is_err() {
                games_finished.set(games_finished.get() + 1);
                let seed = i as u64 + moves_played.get();
                *search = Search::new(
                    random_game(rng, args.max_plies),
                    search_config.clone(),
                    seed,
                );
                let _ = search.start();
            }
        })
    };
    let resume_all = |searches: &mut Vec<Search<Game>>, rng: &mut ChaCha8Rng| {
        for (i, search) in searches.iter_mut().enumerate() {
            let moved = search
                .result()
                .ok()
                .map(|r| search.advance(r.chosen_move).is_ok());
            if moved == Some(false) || search.start().is_err() {
                *search = Search::new(
                    random_game(rng, args.max_plies),
                    search_config.clone(),
                    7 + i as u64,
                );
                let _ = search.start();
            }
        }
    };
    drive(&mut driver, &mut searches, args.seconds / 4.0, &mut rng)?;
    resume_all(&mut searches, &mut rng);
    let warm = driver.stats();
    let (warm_hits, warm_misses) = (driver.cache().hits, driver.cache().misses);
    moves_played.set(0);
    games_finished.set(0);
    // Raw and driver slices alternate, so load from other processes on the machine hits both
    // measurements alike.
    let rounds = args.rounds.max(1);
    let (mut raw_positions, mut raw_time) = (0u64, 0.0f64);
    let mut round_ratios = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let before = (driver.stats().evaluated, driver.stats().wall);
        let (positions, seconds) = raw_slice(args.raw_seconds / rounds as f64)?;
        raw_positions += positions;
        raw_time += seconds;
        drive(
            &mut driver,
            &mut searches,
            args.seconds / rounds as f64,
            &mut rng,
        )?;
        resume_all(&mut searches, &mut rng);
        let (evaluated, wall) = (
            driver.stats().evaluated - before.0,
            (driver.stats().wall - before.1).as_secs_f64(),
        );
        writeln!(
            out,
            "round {}: raw {:.1} positions/s, driver {:.1} positions/s, ratio {:.3}",
            round + 1,
            positions as f64 / seconds,
            evaluated as f64 / wall,
            (evaluated as f64 / wall) / (positions as f64 / seconds)
        )?;
        round_ratios.push((evaluated as f64 / wall) / (positions as f64 / seconds));
    }
    let stats = driver.stats();
    let wall = (stats.wall - warm.wall).as_secs_f64();
    let evaluated = stats.evaluated - warm.evaluated;
    let batches = stats.batches - warm.batches;
    let driver_rate = evaluated as f64 / wall;
    let raw_rate = raw_positions as f64 / raw_time;
    let (hits, misses) = (
        driver.cache().hits - warm_hits,
        driver.cache().misses - warm_misses,
    );
    drop(driver);
    writeln!(
        out,"raw batched evaluation on the search thread, batch {}: {raw_rate:.1} positions/s ({raw_time:.1} s)", args.batch)?;
    writeln!(
        out,
        "driver: {:?}, {} simulations/move, {} searches in 2 halves, {wall:.1} s, {} moves, {} games restarted",
        algorithm,
        args.simulations,
        searches.len(),
        moves_played.get(),
        games_finished.get()
    )?;
    writeln!(
        out,
        "driver: {evaluated} network evaluations in {batches} batches (mean batch {:.1}, largest {}), {driver_rate:.1} positions/s",
        evaluated as f64 / batches.max(1) as f64,
        stats.largest_batch
    )?;
    writeln!(
        out,
        "driver: search thread waited {:.1} s ({:.0}%), evaluator busy {:.0}%, cache hit rate {:.1}%",
        (stats.waiting - warm.waiting).as_secs_f64(),
        100.0 * (stats.waiting - warm.waiting).as_secs_f64() / wall,
        100.0 * (stats.evaluator_busy - warm.evaluator_busy).as_secs_f64() / wall,
        100.0 * hits as f64 / (hits + misses).max(1) as f64
    )?;
    writeln!(
        out,
        "search thread work per network evaluation: {:.0} us (tree walks, move generation, backups)",
        1e6 * (wall - (stats.waiting - warm.waiting).as_secs_f64()) / evaluated.max(1) as f64
    )?;
    round_ratios.sort_by(f64::total_cmp);
    writeln!(
        out,
        "median of the per-round ratios: {:.3} (robust to load swings between rounds)",
        round_ratios[round_ratios.len() / 2]
    )?;
    writeln!(
        out,
        "ratio driver / raw: {:.3} (goal >= 0.90)",
        driver_rate / raw_rate
    )?;
    writeln!(
        out,
        "tree memory: Node {} B, Edge<Move> {} B -> expanded node with {mean_moves:.0} moves (mean of the raw batches) = {} B; largest tree arena seen {:.1} KiB",
        std::mem::size_of::<Node>(),
        std::mem::size_of::<Edge<Move>>(),
        Tree::<Move>::bytes_per_expanded_node(mean_moves.round() as usize),
        max_tree_bytes.get() as f64 / 1024.0
    )?;
    writeln!(out, "peak memory (VmHWM): {}", peak_resident_mib())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> SearchBenchOptions {
        SearchBenchOptions {
            batch: 2,
            threads: 1,
            algorithm: "gumbel".into(),
            leaves_per_tree: 1,
            simulations: 4,
            seconds: 0.2,
            raw_seconds: 0.1,
            rounds: 2,
            cache: 64,
            precision: "f32".into(),
            max_plies: 40,
            seed: 1,
        }
    }

    #[test]
    fn bad_options_are_errors_before_any_measurement() {
        let mut out = Vec::new();
        let unknown = SearchBenchOptions {
            algorithm: "mcts".into(),
            ..options()
        };
        let err = run(&unknown, &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown algorithm \"mcts\" (gumbel | puct)"
        );
        let empty = SearchBenchOptions {
            batch: 0,
            ..options()
        };
        let err = run(&empty, &mut out).unwrap_err();
        assert_eq!(err.to_string(), "--batch must be at least 1");
        let precision = SearchBenchOptions {
            precision: "f8".into(),
            ..options()
        };
        assert!(matches!(run(&precision, &mut out), Err(BenchError::Nn(_))));
        assert!(out.is_empty());
    }

    #[test]
    fn a_short_run_reports_every_round_the_ratio_and_memory() {
        let mut out = Vec::new();
        run(&options(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        for expected in [
            "raw batched evaluation on the evaluation thread, batch 2:",
            "round 1: raw ",
            "round 2: raw ",
            "driver: Gumbel, 4 simulations/move, 4 searches in 2 halves,",
            "mean batch ",
            "ratio driver / raw: ",
            "tree memory: Node ",
            "peak memory (VmHWM): ",
        ] {
            assert!(text.contains(expected), "{expected:?} in {text}");
        }
    }
}
