//! Searches one position with the classical engine and prints each iteration and the result:
//! the fixed, load-independent workload for profiling the engine and the rules under it.
//!
//! ```sh
//! cargo build --release -p koshogi-baselines --example search_position
//! valgrind --tool=callgrind target/release/examples/search_position position.ksfen depth=3
//! ```
//!
//! The first argument is a file holding a KSFEN position (`startpos` for the start position),
//! the second the engine's settings as `classic@…` takes them (`depth=3`, `movetime=1000,lmr=log`).

use std::error::Error;
use std::time::Instant;

use koshogi_baselines::classic::{ClassicEngine, ClassicSpec};
use koshogi_rules::{Game, Position, RulesOptions};
use rand::SeedableRng;

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(source), Some(settings)) = (args.next(), args.next()) else {
        return Err("usage: search_position <KSFEN file | startpos> <classic settings>".into());
    };
    let position = if source == "startpos" {
        Position::startpos()
    } else {
        let text = std::fs::read_to_string(&source).map_err(|e| format!("{source}: {e}"))?;
        Position::from_ksfen(text.trim()).map_err(|e| format!("{source}: {e}"))?
    };
    let spec = ClassicSpec::parse_settings(&settings)?;
    let game = Game::from_position(position, RulesOptions::default());
    let started = Instant::now();
    let result = ClassicEngine::new(spec.config())
        .search(
            &game,
            &spec.limits(),
            &mut rand_chacha::ChaCha8Rng::seed_from_u64(7),
            &mut |iteration| {
                println!(
                    "depth {} score {} nodes {} time {:?}",
                    iteration.depth, iteration.score, iteration.nodes, iteration.elapsed
                )
            },
        )
        .ok_or("no legal move")?;
    println!(
        "bestmove {} nodes {} time {:?}",
        result.best_move,
        result.nodes,
        started.elapsed()
    );
    Ok(())
}
