//! One `go` of the classical engine (`koshogi engine --classic`): koshogi-baselines'
//! [`ClassicEngine`] under the `go`'s limits, with `info` lines per completed iteration.
//!
//! Why in the engine protocol: GUIs, match runners (`engine:` players of the arena) and other
//! programs then meet the classical engine exactly as they meet the network, under the same
//! clock handling, `stop` and `ponderhit`. The engine is kept from `go` to `go` (behind a
//! mutex, since each search runs on its own thread), so its transposition table and history
//! carry over from move to move of a game.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use koshogi_baselines::classic::{win_distance, ClassicEngine, ClassicLimits, IterationInfo};
use koshogi_rules::Game;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::output::Output;
use crate::search_control::SearchControl;

/// What one classical search is asked to do.
pub struct ClassicRequest {
    pub game: Game,
    /// Nodes (`go nodes`, or the settings' default); `None` under a clock or `go infinite`.
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    /// `stop`, `ponderhit`, the deadline, and whether `bestmove` is held back.
    pub control: Arc<SearchControl>,
    pub started: Instant,
    pub output: Output,
}

/// The `info` line of one iteration: depth, score (`cp`, or `mate` in plies, negative when
/// losing), nodes, nodes per second, time and the principal variation.
pub fn iteration_line(info: &IterationInfo) -> String {
    let score = match win_distance(info.score) {
        Some(plies) => format!("mate {plies}"),
        None => format!("cp {}", info.score),
    };
    let millis = info.elapsed.as_millis();
    let nps = (info.nodes as f64 / info.elapsed.as_secs_f64().max(1e-3)) as u64;
    let pv: Vec<String> = info
        .principal_variation
        .iter()
        .map(ToString::to_string)
        .collect();
    format!(
        "info depth {} score {score} nodes {} nps {nps} time {millis} pv {}",
        info.depth,
        info.nodes,
        pv.join(" ")
    )
}

/// Runs the search, prints an `info` line per iteration and then `bestmove` (after
/// `stop`/`ponderhit` if it is held back).
pub fn run(request: ClassicRequest, engine: &Mutex<ClassicEngine>) {
    let ClassicRequest {
        game,
        nodes,
        depth,
        control,
        started,
        output,
    } = request;
    let stop_control = control.clone();
    let limits = ClassicLimits {
        movetime: None,
        nodes,
        depth,
        stop: Some(Arc::new(move || stop_control.should_stop(Instant::now()))),
    };
    // Deterministic for a given position, as the network engine is.
    let mut rng = ChaCha8Rng::seed_from_u64(game.position().hash());
    let mut engine = engine
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let result = engine.search(&game, &limits, &mut rng, &mut |info| {
        output.line(&iteration_line(info));
    });
    drop(engine);
    control.wait_until_released();
    match result {
        Some(result) => {
            tracing::debug!(
                depth = result.depth,
                nodes = result.nodes,
                ms = started.elapsed().as_millis() as u64,
                "classic search"
            );
            output.line(&format!("bestmove {}", result.best_move));
            control.answered(Instant::now());
        }
        None => {
            output.error("the side to move has no legal move");
            output.line("bestmove resign");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn iteration_lines_say_centipawns_or_plies_to_the_end() {
        let game = Game::new(Default::default());
        let mv = game.legal_moves()[0];
        let mut info = IterationInfo {
            depth: 3,
            score: 125,
            nodes: 5000,
            elapsed: Duration::from_millis(50),
            principal_variation: vec![mv],
        };
        assert_eq!(
            iteration_line(&info),
            format!("info depth 3 score cp 125 nodes 5000 nps 100000 time 50 pv {mv}")
        );
        info.score = koshogi_baselines::classic::search::WIN - 3;
        assert!(iteration_line(&info).contains("score mate 3 "));
        info.score = -(koshogi_baselines::classic::search::WIN - 2);
        assert!(iteration_line(&info).contains("score mate -2 "));
    }
}
