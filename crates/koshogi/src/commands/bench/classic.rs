//! `koshogi bench classic`: how deep and how fast the classical engine searches per move time,
//! with peak memory — the figures that say what `classic@movetime=MS` means on this machine.
//!
//! Positions: the start, and plies 60, 120 and 160 of a greedy-vs-greedy game from seed 7 (the
//! same game `bench arena` times alpha-beta on: captures made, pieces en prise). Each is
//! searched with a fresh engine (an empty table), one core, for each `--movetime`.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use koshogi_baselines::classic::{ClassicEngine, ClassicLimits, ClassicSpec};
use koshogi_baselines::greedy::greedy_move;
use koshogi_nn::hardware::peak_resident_bytes;
use koshogi_rules::{Game, RulesOptions};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Options of `koshogi bench classic`.
#[derive(Args, Clone, Debug)]
pub struct ClassicBenchArgs {
    /// Move times to measure, in milliseconds, comma-separated.
    #[arg(long, default_value = "100,1000")]
    pub movetime: String,
    /// Engine settings as `classic@…` takes them (e.g. `eval=material,hash=64`); limits other
    /// than the move time are ignored.
    #[arg(long, default_value = "")]
    pub settings: String,
}

fn positions() -> Vec<(String, Game)> {
    let mut game = Game::new(RulesOptions::default());
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut positions = vec![("start".to_string(), game.clone())];
    for ply in 1..=160 {
        let Some(mv) = greedy_move(&game, &mut rng) else {
            break;
        };
        game.play(mv);
        if game.outcome().is_some() {
            break;
        }
        if matches!(ply, 60 | 120 | 160) {
            positions.push((format!("greedy game, ply {ply}"), game.clone()));
        }
    }
    positions
}

pub fn run(args: &ClassicBenchArgs) -> Result<()> {
    let spec = if args.settings.trim().is_empty() {
        ClassicSpec::default()
    } else {
        ClassicSpec::parse_settings(&args.settings).context("--settings")?
    };
    let mut movetimes = Vec::new();
    for item in args.movetime.split(',') {
        match item.trim().parse::<u64>() {
            Ok(ms) if (1..=600_000).contains(&ms) => movetimes.push(ms),
            _ => bail!("--movetime: `{item}` is not a number of milliseconds from 1 to 600000"),
        }
    }
    println!("koshogi bench classic: {spec}, one core, a fresh engine per search");
    let positions = positions();
    for &ms in &movetimes {
        let (mut nodes, mut seconds, mut depths) = (0u64, 0.0f64, Vec::new());
        for (label, game) in &positions {
            let mut engine = ClassicEngine::new(spec.config());
            let limits = ClassicLimits {
                movetime: Some(Duration::from_millis(ms)),
                ..ClassicLimits::default()
            };
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            let Some(result) = engine.search(game, &limits, &mut rng, &mut |_| {}) else {
                continue;
            };
            let elapsed = result.elapsed.as_secs_f64();
            println!(
                "movetime {ms:>6} ms  {label:<22} depth {:>2}  {:>9} nodes in {elapsed:>6.3} s = \
                 {:>8.0} nodes/s  ({:.1} M moves generated)  best {}",
                result.depth,
                result.nodes,
                result.nodes as f64 / elapsed.max(1e-9),
                result.moves_generated as f64 / 1e6,
                result.best_move,
            );
            nodes += result.nodes;
            seconds += elapsed;
            depths.push(result.depth);
        }
        println!(
            "movetime {ms:>6} ms  all {} positions: {:.0} nodes/s, depths {depths:?}",
            depths.len(),
            nodes as f64 / seconds.max(1e-9)
        );
    }
    let engine = ClassicEngine::new(spec.config());
    println!(
        "engine memory: {:.1} MiB (table and history); peak resident memory of the process: {}",
        engine.memory_bytes() as f64 / f64::from(1 << 20),
        peak_resident_bytes().map_or("unavailable".into(), |b| format!(
            "{:.1} MiB",
            b as f64 / f64::from(1 << 20)
        ))
    );
    Ok(())
}
