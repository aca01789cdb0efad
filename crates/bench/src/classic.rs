//! The classical-engine benchmark (`koshogi bench classic`): how deep and how fast the classical
//! engine searches per move time, with peak memory — the figures that say what
//! `classic@movetime=MS` means on this machine.
//!
//! Positions: the start, and plies 60, 120 and 160 of a greedy-vs-greedy game from seed 7 (the
//! same game `bench arena` times alpha-beta on: captures made, pieces en prise; see
//! `positions.rs`). Each is searched with a fresh engine (an empty table), one core, for each
//! `--movetime`.

use std::io::Write;
use std::time::Duration;

use koshogi_baselines::classic::{
    parse_movetime_ms, ClassicEngine, ClassicLimits, ClassicSpec, MOVETIME_RANGE,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::memory::{mib, peak_resident_mib};
use crate::positions::start_and_greedy_game;
use crate::BenchError;

/// What to measure (the flags of `koshogi bench classic`).
#[derive(Clone, Debug)]
pub struct ClassicBenchOptions {
    /// Move times to measure, in milliseconds, comma-separated.
    pub movetime: String,
    /// Engine settings as `classic@…` takes them (e.g. `eval=material,hash=64`); limits other
    /// than the move time are ignored.
    pub settings: String,
}

/// Runs the benchmark, writing a line to `out` after each search.
pub fn run(args: &ClassicBenchOptions, out: &mut impl Write) -> Result<(), BenchError> {
    let spec = if args.settings.trim().is_empty() {
        ClassicSpec::default()
    } else {
        ClassicSpec::parse_settings(&args.settings).map_err(BenchError::ClassicSettings)?
    };
    let mut movetimes = Vec::new();
    for item in args.movetime.split(',') {
        match parse_movetime_ms(item.trim()) {
            Some(ms) => movetimes.push(ms),
            None => {
                return Err(BenchError::Options(format!(
                    "--movetime: `{item}` is not a number of {MOVETIME_RANGE}"
                )))
            }
        }
    }
    writeln!(
        out,
        "koshogi bench classic: {spec}, one core, a fresh engine per search"
    )?;
    let (positions, _) = start_and_greedy_game(&[60, 120, 160]);
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
            writeln!(
                out,
                "movetime {ms:>6} ms  {label:<22} depth {:>2}  {:>9} nodes in {elapsed:>6.3} s = \
                 {:>8.0} nodes/s  ({:.1} M moves generated)  best {}",
                result.depth,
                result.nodes,
                result.nodes as f64 / elapsed.max(1e-9),
                result.moves_generated as f64 / 1e6,
                result.best_move,
            )?;
            nodes += result.nodes;
            seconds += elapsed;
            depths.push(result.depth);
        }
        writeln!(
            out,
            "movetime {ms:>6} ms  all {} positions: {:.0} nodes/s, depths {depths:?}",
            depths.len(),
            nodes as f64 / seconds.max(1e-9)
        )?;
    }
    let engine = ClassicEngine::new(spec.config());
    writeln!(
        out,
        "engine memory: {} (table and history); peak resident memory of the process: {}",
        mib(Some(engine.memory_bytes() as u64)),
        peak_resident_mib()
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(movetime: &str, settings: &str) -> ClassicBenchOptions {
        ClassicBenchOptions {
            movetime: movetime.into(),
            settings: settings.into(),
        }
    }

    #[test]
    fn one_line_per_position_and_move_time_then_the_totals_and_memory() {
        let mut out = Vec::new();
        run(&options("1, 2", "hash=1"), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // The header, 4 positions and a total per move time, the memory line.
        assert_eq!(lines.len(), 1 + 2 * 5 + 1, "{text}");
        assert!(
            lines[0].starts_with("koshogi bench classic: classic"),
            "{text}"
        );
        assert!(lines[1].starts_with("movetime      1 ms  start "), "{text}");
        assert!(lines[4].contains("greedy game, ply 160"), "{text}");
        assert!(
            lines[5].starts_with("movetime      1 ms  all 4 positions:"),
            "{text}"
        );
        assert!(
            lines[10].starts_with("movetime      2 ms  all 4 positions:"),
            "{text}"
        );
        assert!(lines[11].starts_with("engine memory: "), "{text}");
    }

    #[test]
    fn bad_move_times_and_settings_are_errors_before_any_search() {
        for movetime in ["0", "3600001", "1,x", ""] {
            let mut out = Vec::new();
            let err = run(&options(movetime, ""), &mut out).unwrap_err();
            assert!(matches!(err, BenchError::Options(_)), "{movetime}: {err}");
            assert!(err.to_string().starts_with("--movetime: `"), "{err}");
            assert!(out.is_empty());
        }
        let err = run(&options("1", "bogus=1"), &mut Vec::new()).unwrap_err();
        assert_eq!(err.to_string(), "--settings");
        assert!(matches!(err, BenchError::ClassicSettings(_)));
    }
}
