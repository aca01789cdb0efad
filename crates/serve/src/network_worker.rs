//! The one thread that runs networks for the viewer.
//!
//! A tch model is `Send` but not `Sync`, and loading one takes a moment, so a single thread owns
//! every loaded model and engine and the request threads send it jobs over a channel: evaluate a
//! position with a checkpoint's raw network (the "network's view"), or choose the opponent's
//! move in a game against the viewer's user — from the raw policy (0 simulations) or by search
//! through [`koshogi_engine::Engine`], the same engine as `koshogi engine` / `koshogi play`. The
//! two most recently used models and engines stay loaded.

use std::path::{Path, PathBuf};

use crossbeam_channel::{bounded, unbounded, Sender};
use koshogi_engine::{CapturedLines, Engine, EngineSettings, Output};
use koshogi_nn::{EvalPosition, Evaluation, FeatureInput, InferenceModel, RuntimeConfig};
use koshogi_rules::{Game, Move, RulesOptions};

use crate::error::ServeError;

/// Models and engines kept loaded (a 6×64 network is a few MB; two cover "compare two checkpoints").
const KEPT: usize = 2;

/// Who chooses the opponent's moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// A checkpoint's model card.
    Network(PathBuf),
    /// The engine's material evaluator (no network): a baseline when the run has no checkpoint.
    Material,
}

/// The opponent's choice and what the engine thought of the position.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineMove {
    pub mv: Move,
    /// Win, draw, loss for the side that moved (the engine), from the search or the network.
    pub wdl: Option<[f32; 3]>,
    /// Root visits of the search (`None` for a raw-policy move).
    pub visits: Option<u64>,
}

enum Job {
    Load {
        card: PathBuf,
        reply: Sender<Result<(), String>>,
    },
    Evaluate {
        card: PathBuf,
        game: Game,
        reply: Sender<Result<Evaluation, String>>,
    },
    ChooseMove {
        opponent: Opponent,
        game: Game,
        simulations: u32,
        reply: Sender<Result<EngineMove, String>>,
    },
}

/// Handle to the network thread; cheap to share between request threads.
pub struct NetworkWorker {
    jobs: Sender<Job>,
}

impl NetworkWorker {
    pub fn spawn(
        runtime: RuntimeConfig,
        threads: u32,
        rules: RulesOptions,
    ) -> Result<NetworkWorker, ServeError> {
        let (jobs, queue) = unbounded::<Job>();
        std::thread::Builder::new()
            .name("koshogi-serve-network".into())
            .spawn(move || {
                let threads = koshogi_nn::set_intra_op_threads(threads) as u32;
                let mut state = WorkerState {
                    runtime,
                    threads,
                    rules,
                    models: Vec::new(),
                    engines: Vec::new(),
                };
                for job in queue {
                    state.handle(job);
                }
            })
            .map_err(|e| ServeError::Worker(e.to_string()))?;
        Ok(NetworkWorker { jobs })
    }

    /// Loads a checkpoint's model (kept loaded, as by [`NetworkWorker::evaluate`]), so that a
    /// checkpoint that cannot be used is refused when it is named, not at its first use.
    pub fn load(&self, card: &Path) -> Result<(), String> {
        let (reply, answer) = bounded(1);
        self.send(Job::Load {
            card: card.to_path_buf(),
            reply,
        })?;
        answer.recv().map_err(|_| stopped())?
    }

    /// The raw network's policy over `game`'s legal moves (in [`Game::legal_moves`] order) and
    /// its win/draw/loss for the side to move.
    pub fn evaluate(&self, card: &Path, game: &Game) -> Result<Evaluation, String> {
        let (reply, answer) = bounded(1);
        self.send(Job::Evaluate {
            card: card.to_path_buf(),
            game: game.clone(),
            reply,
        })?;
        answer.recv().map_err(|_| stopped())?
    }

    /// The opponent's move in `game` (which must not be over): the most probable move of the
    /// raw policy when `simulations` is 0, else the engine's search with that many simulations.
    pub fn choose_move(
        &self,
        opponent: &Opponent,
        game: &Game,
        simulations: u32,
    ) -> Result<EngineMove, String> {
        let (reply, answer) = bounded(1);
        self.send(Job::ChooseMove {
            opponent: opponent.clone(),
            game: game.clone(),
            simulations,
            reply,
        })?;
        answer.recv().map_err(|_| stopped())?
    }

    fn send(&self, job: Job) -> Result<(), String> {
        self.jobs.send(job).map_err(|_| stopped())
    }
}

fn stopped() -> String {
    "the network thread has stopped".to_string()
}

struct LoadedEngine {
    opponent: Opponent,
    simulations: u32,
    engine: Engine,
    replies: CapturedLines,
    lines_seen: usize,
}

struct WorkerState {
    runtime: RuntimeConfig,
    threads: u32,
    rules: RulesOptions,
    /// Most recently used first.
    models: Vec<(PathBuf, InferenceModel)>,
    engines: Vec<LoadedEngine>,
}

impl WorkerState {
    fn handle(&mut self, job: Job) {
        match job {
            Job::Load { card, reply } => {
                let _ = reply.send(self.model(&card).map(|_| ()));
            }
            Job::Evaluate { card, game, reply } => {
                let _ = reply.send(self.evaluate(&card, &game));
            }
            Job::ChooseMove {
                opponent,
                game,
                simulations,
                reply,
            } => {
                let _ = reply.send(self.choose_move(&opponent, &game, simulations));
            }
        }
    }

    fn model(&mut self, card: &Path) -> Result<&mut InferenceModel, String> {
        match self.models.iter().position(|(path, _)| path == card) {
            Some(index) => {
                let entry = self.models.remove(index);
                self.models.insert(0, entry);
            }
            None => {
                let (model, _) = InferenceModel::load(card, &self.runtime)
                    .map_err(|e| format!("cannot load {}: {e}", card.display()))?;
                self.models.insert(0, (card.to_path_buf(), model));
                self.models.truncate(KEPT);
            }
        }
        Ok(&mut self.models[0].1)
    }

    fn evaluate(&mut self, card: &Path, game: &Game) -> Result<Evaluation, String> {
        let moves = game.legal_moves();
        let model = self.model(card)?;
        let mut out = Vec::with_capacity(1);
        model
            .evaluate(
                &[EvalPosition {
                    input: FeatureInput::from_game(game),
                    moves: &moves,
                }],
                &mut out,
            )
            .map_err(|e| format!("network evaluation failed: {e}"))?;
        out.pop()
            .ok_or_else(|| "the network returned no evaluation".to_string())
    }

    fn choose_move(
        &mut self,
        opponent: &Opponent,
        game: &Game,
        simulations: u32,
    ) -> Result<EngineMove, String> {
        let legal = game.legal_moves();
        if game.outcome().is_some() || legal.is_empty() {
            return Err("the game is over".to_string());
        }
        if simulations == 0 {
            let Opponent::Network(card) = opponent else {
                return Err("the material evaluator needs at least one simulation".to_string());
            };
            let evaluation = self.evaluate(card, game)?;
            // Most probable move; the first one generated on ties (deterministic).
            let best = (0..legal.len())
                .reduce(|best, i| {
                    if evaluation.policy[i] > evaluation.policy[best] {
                        i
                    } else {
                        best
                    }
                })
                .expect("at least one legal move");
            return Ok(EngineMove {
                mv: legal[best],
                wdl: Some(evaluation.wdl),
                visits: None,
            });
        }
        let loaded = self.engine(opponent, simulations)?;
        loaded.engine.set_game(game.clone());
        loaded
            .engine
            .handle_line(&format!("go visits {simulations}"));
        loaded.engine.wait();
        let lines = loaded.replies.lines();
        let new = lines[loaded.lines_seen.min(lines.len())..].to_vec();
        loaded.lines_seen = lines.len();
        if let Some(error) = new.iter().find(|l| l.starts_with("info string error")) {
            return Err(format!("engine: {error}"));
        }
        let best = new
            .iter()
            .rev()
            .find_map(|l| l.strip_prefix("bestmove "))
            .unwrap_or("none");
        let mv = legal
            .iter()
            .copied()
            .find(|m| m.to_string() == best)
            .ok_or_else(|| format!("the engine answered {best:?}, which is not a legal move"))?;
        let info = new.iter().rev().find(|l| l.starts_with("info visits "));
        Ok(EngineMove {
            mv,
            wdl: info.and_then(|l| parse_info_wdl(l)),
            visits: info.and_then(|l| l.split_whitespace().nth(2)?.parse().ok()),
        })
    }

    fn engine(
        &mut self,
        opponent: &Opponent,
        simulations: u32,
    ) -> Result<&mut LoadedEngine, String> {
        match self
            .engines
            .iter()
            .position(|e| &e.opponent == opponent && e.simulations == simulations)
        {
            Some(index) => {
                let entry = self.engines.remove(index);
                self.engines.insert(0, entry);
            }
            None => {
                let model = match opponent {
                    Opponent::Network(card) => Some(card.clone()),
                    Opponent::Material => None,
                };
                let (output, replies) = Output::capture();
                let settings = EngineSettings {
                    classic: None,
                    model,
                    simulations,
                    threads: self.threads,
                    rules: self.rules,
                    runtime: self.runtime,
                };
                self.engines.insert(
                    0,
                    LoadedEngine {
                        opponent: opponent.clone(),
                        simulations,
                        engine: Engine::new(output, settings),
                        replies,
                        lines_seen: 0,
                    },
                );
                self.engines.truncate(KEPT);
            }
        }
        Ok(&mut self.engines[0])
    }
}

/// The `wdl W D L` of an engine `info` line.
fn parse_info_wdl(line: &str) -> Option<[f32; 3]> {
    let mut words = line.split_whitespace();
    words.by_ref().find(|w| *w == "wdl")?;
    let mut wdl = [0.0f32; 3];
    for value in &mut wdl {
        *value = words.next()?.parse().ok()?;
    }
    Some(wdl)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wdl_of_an_info_line_is_read() {
        let line = "info visits 5 time 3 nps 1000 value 0.1000 wdl 0.5000 0.1000 0.4000 pv 10m-10l";
        assert_eq!(parse_info_wdl(line), Some([0.5, 0.1, 0.4]));
        assert_eq!(parse_info_wdl("info visits 5"), None);
    }

    #[test]
    fn the_material_engine_answers_with_a_legal_move_and_refuses_zero_simulations() {
        let rules = RulesOptions::default();
        let worker = NetworkWorker::spawn(RuntimeConfig::default(), 1, rules).unwrap();
        let game = Game::new(rules);
        let reply = worker.choose_move(&Opponent::Material, &game, 2).unwrap();
        assert!(game.legal_moves().contains(&reply.mv));
        assert!(reply.visits.is_some_and(|v| v >= 1));
        let err = worker
            .choose_move(&Opponent::Material, &game, 0)
            .unwrap_err();
        assert!(err.contains("at least one simulation"), "{err}");
        let err = worker
            .evaluate(Path::new("/nonexistent/model.json"), &game)
            .unwrap_err();
        assert!(err.contains("cannot load"), "{err}");
    }
}
