//! The protocol state machine (docs/engine-protocol.md).
//!
//! [`Engine::handle_line`] takes one input line and writes its replies to the [`Output`]. A
//! `go` hands the game and the evaluation thread to a search thread and returns at once, so
//! `stop`, `isready` and `quit` are answered while it thinks; any other command first waits
//! for the running search to end (a GUI that wants it to end now sends `stop` first). Bad input
//! of any kind gets an `info string error: …` line and changes nothing.

use std::io::BufRead;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use koshogi_mcts::{spawn_network_thread, EvalThread, MaterialEvaluator};
use koshogi_nn::checkpoint::resolve_card;
use koshogi_nn::{checkpoint, InferenceModel, RuntimeConfig};
use koshogi_rules::game_record::termination_text;
use koshogi_rules::notation::parse_move;
use koshogi_rules::{Game, Position, RulesOptions};

use crate::command::{parse_command, Command, GoLimits, PositionSpec};
use crate::output::Output;
use crate::search_job::{self, SearchRequest};

/// Whether to keep reading input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
}

/// The engine's options (`setoption`), also settable up front by the CLI.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSettings {
    /// A checkpoint's model card; `None` plays with the material evaluator.
    pub model: Option<PathBuf>,
    /// Simulations per `go` when it names no limit.
    pub simulations: u32,
    /// libtorch intra-op threads of the network's evaluation thread.
    pub threads: u32,
    pub rules: RulesOptions,
    /// How the network runs (device, precision); not a protocol option.
    pub runtime: RuntimeConfig,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            model: None,
            simulations: 200,
            threads: 1,
            rules: RulesOptions::default(),
            runtime: RuntimeConfig::default(),
        }
    }
}

pub const MAX_SIMULATIONS: u32 = 10_000_000;
pub const MAX_THREADS: u32 = 64;

struct RunningSearch {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Option<EvalThread<Game>>>,
}

/// The protocol state machine; see the module docs.
pub struct Engine {
    output: Output,
    settings: EngineSettings,
    /// The `position` command's start and moves (kept to rebuild the game when rules change).
    start: Position,
    move_texts: Vec<String>,
    game: Game,
    evaluator: Option<EvalThread<Game>>,
    running: Option<RunningSearch>,
}

impl Engine {
    pub fn new(output: Output, settings: EngineSettings) -> Engine {
        let game = Game::new(settings.rules);
        Engine {
            output,
            settings,
            start: Position::startpos(),
            move_texts: Vec::new(),
            game,
            evaluator: None,
            running: None,
        }
    }

    pub fn settings(&self) -> &EngineSettings {
        &self.settings
    }

    /// The game `go` would search.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Replaces the game to search (for in-process clients such as `koshogi play`, which keep
    /// their own `Game` instead of sending `position` lines). Waits for a running search first.
    pub fn set_game(&mut self, game: Game) {
        self.wait();
        self.start = game.position().clone();
        self.move_texts.clear();
        self.game = game;
    }

    /// Reads lines until `quit` or the end of the input; then lets a running search finish
    /// (so a piped `go` still prints its `bestmove`).
    pub fn run<R: BufRead>(&mut self, input: R) {
        for line in input.lines() {
            let Ok(line) = line else {
                self.output
                    .error("input is not valid UTF-8 text; line ignored");
                continue;
            };
            if self.handle_line(&line) == Flow::Quit {
                return;
            }
        }
        self.wait();
    }

    /// Handles one input line.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        let command = match parse_command(line) {
            Ok(Some(command)) => command,
            Ok(None) => return Flow::Continue,
            Err(message) => {
                self.output.error(&message);
                return Flow::Continue;
            }
        };
        match command {
            Command::Stop => {
                if let Some(running) = &self.running {
                    running.stop.store(true, Ordering::Relaxed);
                }
                self.wait();
            }
            Command::Quit => {
                if let Some(running) = &self.running {
                    running.stop.store(true, Ordering::Relaxed);
                }
                self.wait();
                return Flow::Quit;
            }
            Command::IsReady => {
                if self.running.is_none() {
                    if let Err(message) = self.ensure_evaluator() {
                        self.output.error(&message);
                    }
                }
                self.output.line("readyok");
            }
            other => {
                self.wait();
                match other {
                    Command::Hello => self.identify(),
                    Command::SetOption { name, value } => self.set_option(&name, &value),
                    Command::Position { start, moves } => self.set_position(start, moves),
                    Command::Go(limits) => self.go(limits),
                    Command::Stop | Command::Quit | Command::IsReady => unreachable!(),
                }
            }
        }
        Flow::Continue
    }

    /// Blocks until a running search has printed its `bestmove`.
    pub fn wait(&mut self) {
        if let Some(running) = self.running.take() {
            match running.handle.join() {
                Ok(evaluator) => self.evaluator = evaluator,
                Err(_) => {
                    self.output.error("the search thread failed; bestmove none");
                    self.output.line("bestmove none");
                }
            }
        }
    }

    fn identify(&self) {
        let out = &self.output;
        out.line(&format!(
            "id name koshogi-zero {}",
            env!("CARGO_PKG_VERSION")
        ));
        out.line("id author the koshogi-zero authors");
        let model = self
            .settings
            .model
            .as_ref()
            .map_or("<none>".to_string(), |p| p.display().to_string());
        out.line(&format!("option name model type string default {model}"));
        out.line(&format!(
            "option name simulations type spin default {} min 1 max {MAX_SIMULATIONS}",
            self.settings.simulations
        ));
        out.line(&format!(
            "option name threads type spin default {} min 1 max {MAX_THREADS}",
            self.settings.threads
        ));
        let rules = serde_json::to_string(&self.settings.rules).unwrap_or_else(|_| "{}".into());
        out.line(&format!("option name rules type string default {rules}"));
        out.line("koshogiok");
    }

    fn set_option(&mut self, name: &str, value: &str) {
        let result = match name {
            "model" => self.set_model(value),
            "simulations" => parse_in_range(value, 1, MAX_SIMULATIONS).map(|n| {
                self.settings.simulations = n;
            }),
            "threads" => parse_in_range(value, 1, MAX_THREADS).map(|n| {
                if self.settings.threads != n {
                    self.settings.threads = n;
                    if self.settings.model.is_some() {
                        self.evaluator = None; // rebuilt with the new thread count
                    }
                }
            }),
            "rules" => self.set_rules(value),
            _ => Err(format!(
                "unknown option {name:?} (model, simulations, threads, rules)"
            )),
        };
        if let Err(message) = result {
            self.output.error(&message);
        }
    }

    /// Loads the model now, so a bad path or checkpoint is reported at once; the previous model
    /// stays in use on failure. `none` or an empty value switches to the material evaluator.
    fn set_model(&mut self, value: &str) -> Result<(), String> {
        if value.is_empty() || value.eq_ignore_ascii_case("none") || value == "<none>" {
            self.settings.model = None;
            self.evaluator = None;
            return Ok(());
        }
        let card = resolve_card(std::path::Path::new(value)).map_err(|e| e.to_string())?;
        checkpoint::read_card(&card).map_err(|e| e.to_string())?;
        let evaluator = build_evaluator(Some(&card), &self.settings)?;
        self.settings.model = Some(card);
        self.evaluator = Some(evaluator);
        Ok(())
    }

    fn set_rules(&mut self, value: &str) -> Result<(), String> {
        let rules: RulesOptions = if value.is_empty() || value.eq_ignore_ascii_case("default") {
            RulesOptions::default()
        } else {
            serde_json::from_str(value)
                .map_err(|e| format!("rules must be a JSON object of §12 options: {e}"))?
        };
        self.settings.rules = rules;
        if let Err(message) = self.rebuild_game(self.start.clone(), self.move_texts.clone()) {
            self.output.error(&format!(
                "{message}; under the new rules the position is reset to its start"
            ));
            self.move_texts.clear();
            self.game = Game::from_position(self.start.clone(), rules);
        }
        Ok(())
    }

    fn set_position(&mut self, start: PositionSpec, moves: Vec<String>) {
        let position = match start {
            PositionSpec::StartPos => Position::startpos(),
            PositionSpec::Ksfen(text) => match Position::from_ksfen(&text) {
                Ok(position) => position,
                Err(err) => {
                    self.output.error(&format!(
                        "invalid KSFEN {text:?}: {err}; position unchanged"
                    ));
                    return;
                }
            },
        };
        if let Err(message) = self.rebuild_game(position, moves) {
            self.output.error(&format!("{message}; position unchanged"));
        }
    }

    /// Replays `moves` from `start` under the current rules; on success it becomes the game.
    fn rebuild_game(&mut self, start: Position, moves: Vec<String>) -> Result<(), String> {
        let mut game = Game::from_position(start.clone(), self.settings.rules);
        for (i, text) in moves.iter().enumerate() {
            let mv =
                parse_move(&game, text).map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
            game.play(mv);
        }
        self.start = start;
        self.move_texts = moves;
        self.game = game;
        Ok(())
    }

    fn go(&mut self, limits: GoLimits) {
        if let Some(outcome) = self.game.outcome() {
            self.output.line(&format!(
                "info string game over: {}",
                termination_text(outcome)
            ));
            self.output.line("bestmove none");
            return;
        }
        if let Err(message) = self.ensure_evaluator() {
            self.output.error(&message);
            self.output.line("bestmove none");
            return;
        }
        let evaluator = self.evaluator.take().expect("ensured above");
        let visits = match limits {
            GoLimits {
                visits: Some(v), ..
            } => v,
            GoLimits {
                movetime: Some(_),
                visits: None,
            } => MAX_SIMULATIONS,
            _ => self.settings.simulations,
        };
        let stop = Arc::new(AtomicBool::new(false));
        let request = SearchRequest {
            game: self.game.clone(),
            visits,
            deadline: limits.movetime.map(|t| Instant::now() + t),
            stop: stop.clone(),
            output: self.output.clone(),
        };
        let spawned = std::thread::Builder::new()
            .name("koshogi-search".into())
            .spawn(move || search_job::run(request, evaluator));
        match spawned {
            Ok(handle) => self.running = Some(RunningSearch { stop, handle }),
            Err(err) => {
                self.output
                    .error(&format!("cannot start the search thread: {err}"));
                self.output.line("bestmove none");
            }
        }
    }

    fn ensure_evaluator(&mut self) -> Result<(), String> {
        if self.evaluator.is_none() {
            let card = self.settings.model.clone();
            self.evaluator = Some(build_evaluator(card.as_deref(), &self.settings)?);
        }
        Ok(())
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(running) = &self.running {
            running.stop.store(true, Ordering::Relaxed);
        }
        self.wait();
    }
}

/// The evaluation thread: the checkpoint's network, or the material evaluator.
fn build_evaluator(
    card: Option<&std::path::Path>,
    settings: &EngineSettings,
) -> Result<EvalThread<Game>, String> {
    match card {
        None => EvalThread::spawn(|| Ok(MaterialEvaluator::default())),
        Some(card) => {
            let card = card.to_path_buf();
            let runtime = settings.runtime;
            spawn_network_thread(settings.threads as i32, move || {
                InferenceModel::load(&card, &runtime).map(|(model, _)| model)
            })
        }
    }
    .map_err(|e| format!("cannot start the evaluator: {e}"))
}

fn parse_in_range(value: &str, min: u32, max: u32) -> Result<u32, String> {
    value
        .trim()
        .parse::<u32>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| format!("expected a whole number from {min} to {max}, got {value:?}"))
}
