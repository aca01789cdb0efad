//! The protocol state machine (docs/engine-protocol.md).
//!
//! [`Engine::handle_line`] takes one input line and writes its replies to the [`Output`]. A
//! `go` hands the game and the evaluation thread to a search thread and returns at once, so
//! `stop`, `ponderhit`, `isready` and `quit` are answered while it thinks; any other command
//! first waits for the running search to end (a GUI that wants it to end now sends `stop`
//! first). A search that would never end by itself (`go infinite`, `go ponder` before
//! `ponderhit`) is stopped instead of waited for, so no input can deadlock the engine. Bad
//! input of any kind gets an `info string error: …` line and changes nothing — except that a
//! `go` line always ends in `bestmove`, refused or not, because a match runner waits for one:
//! a refused `go` moves at once, a search that fails plays a legal move, and a game that is
//! over answers `resign`.

use std::io::BufRead;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use koshogi_baselines::classic::{ClassicEngine, ClassicSpec};
use koshogi_mcts::{EvalThread, MaterialEvaluator};
use koshogi_nn::checkpoint::resolve_card;
use koshogi_nn::{checkpoint, spawn_network_thread, InferenceModel, RuntimeConfig};
use koshogi_rules::game_record::termination_text;
use koshogi_rules::notation::parse_move;
use koshogi_rules::{Game, Position, RulesOptions};

use crate::classic_job::{self, ClassicRequest};
use crate::command::{parse_command, Command, Dialect, GoLimits, PositionSpec};
use crate::info::MAX_MULTIPV;
use crate::line_reader::{read_bounded_line, Line, MAX_LINE_BYTES};
use crate::output::Output;
use crate::protocol_options::{ProtocolOptions, MAX_OVERHEAD_MS};
use crate::search_control::SearchControl;
use crate::search_job::{self, fallback_bestmove, SearchRequest};
use crate::time_control::{learn_overshoot, move_budget, SideClock};

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
    /// Play with the classical engine (`--classic`, `setoption name classic value true`)
    /// instead of the tree search: no network, iterative-deepening alpha-beta.
    pub classic: Option<ClassicSpec>,
}

impl Default for EngineSettings {
    fn default() -> Self {
        EngineSettings {
            model: None,
            simulations: 200,
            threads: 1,
            rules: RulesOptions::default(),
            runtime: RuntimeConfig::default(),
            classic: None,
        }
    }
}

/// The search's own bound (`go nodes` and the `simulations` option are refused above it).
pub use koshogi_mcts::MAX_SIMULATIONS;
pub const MAX_THREADS: u32 = 64;

/// A `go` under a clock, kept to see what the move really cost when the same game comes back
/// two plies later with the side's new clock.
#[derive(Clone, Copy, Debug)]
struct ClockedMove {
    /// [`game_key`] of the game searched.
    game: u64,
    remaining: Duration,
    increment: Duration,
    budget: Duration,
}

/// The most one move's observed cost adds to the learnt cost: a clock that jumps (a GUI that
/// adjusts it, a stalled machine) must not stop the engine from searching for long.
const MAX_LEARNT_COST: Duration = Duration::from_secs(1);

struct RunningSearch {
    control: Arc<SearchControl>,
    handle: JoinHandle<Option<EvalThread<Game>>>,
}

/// The protocol state machine; see the module docs.
pub struct Engine {
    output: Output,
    settings: EngineSettings,
    protocol: ProtocolOptions,
    /// The `position` command's start and moves (kept to rebuild the game when rules change).
    start: Position,
    move_texts: Vec<String>,
    game: Game,
    evaluator: Option<EvalThread<Game>>,
    /// The classical engine, kept from search to search (its table carries over).
    classic: Option<Arc<Mutex<ClassicEngine>>>,
    running: Option<RunningSearch>,
    /// What moves cost beyond their budgets, learnt move by move ([`learn_overshoot`]): how
    /// far past its deadline a search answered, and what the clock charged a move beyond its
    /// budget (pipes, the GUI, a busy machine's scheduling); reserved on top of the overhead
    /// under a clock.
    search_overshoot: Duration,
    /// The last `go` under a clock (see [`ClockedMove`]).
    last_clocked: Option<ClockedMove>,
}

impl Engine {
    pub fn new(output: Output, settings: EngineSettings) -> Engine {
        let game = Game::new(settings.rules);
        Engine {
            output,
            settings,
            protocol: ProtocolOptions::default(),
            start: Position::startpos(),
            move_texts: Vec::new(),
            game,
            evaluator: None,
            classic: None,
            running: None,
            search_overshoot: Duration::ZERO,
            last_clocked: None,
        }
    }

    /// The same engine with MultiPV and the time-management overhead set (clamped to their
    /// ranges), as `setoption` would.
    pub fn with_protocol_options(mut self, options: ProtocolOptions) -> Engine {
        self.protocol = options.clamped();
        self
    }

    pub fn settings(&self) -> &EngineSettings {
        &self.settings
    }

    pub fn protocol_options(&self) -> &ProtocolOptions {
        &self.protocol
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
    /// (so a piped `go` still prints its `bestmove`; `go infinite` is stopped). A line longer
    /// than [`MAX_LINE_BYTES`] is refused without being held in memory.
    pub fn run<R: BufRead>(&mut self, mut input: R) {
        loop {
            match read_bounded_line(&mut input, MAX_LINE_BYTES) {
                Ok(Some(Line::Text(line))) => {
                    if self.handle_line(&line) == Flow::Quit {
                        return;
                    }
                }
                Ok(Some(Line::NotUtf8)) => self
                    .output
                    .error("input is not valid UTF-8 text; line ignored"),
                Ok(Some(Line::TooLong { bytes })) => self.output.error(&format!(
                    "a line of {bytes} bytes is longer than the {MAX_LINE_BYTES} accepted; \
                     line ignored"
                )),
                Ok(None) => break,
                Err(err) => {
                    self.output.error(&format!("cannot read the input: {err}"));
                    break;
                }
            }
        }
        self.wait();
    }

    /// Handles one input line.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        let received = Instant::now();
        let command = match parse_command(line) {
            Ok(Some(command)) => command,
            Ok(None) => return Flow::Continue,
            Err(message) => {
                self.output.error(&message);
                if is_go_line(line) {
                    // A match runner waits for the `bestmove` of every `go` it sends, so a
                    // refused one still answers, at once (its limits are unknown, and moving
                    // now is the one choice safe under any clock).
                    self.wait();
                    self.answer_at_once("the `go` was refused");
                }
                return Flow::Continue;
            }
        };
        match command {
            Command::Stop => {
                if let Some(running) = &self.running {
                    running.control.stop();
                }
                self.wait();
            }
            Command::PonderHit => {
                let pondering = self
                    .running
                    .as_ref()
                    .is_some_and(|r| r.control.ponderhit(received));
                if !pondering {
                    self.output
                        .error("ponderhit: no `go ponder` search is running");
                }
            }
            Command::Quit => {
                if let Some(running) = &self.running {
                    running.control.stop();
                }
                self.wait();
                return Flow::Quit;
            }
            Command::IsReady => {
                if self.running.is_none() && self.settings.classic.is_none() {
                    if let Err(message) = self.ensure_evaluator() {
                        self.output.error(&message);
                    }
                }
                self.output.line("readyok");
            }
            other => {
                self.wait();
                match other {
                    Command::Hello(dialect) => self.identify(dialect),
                    Command::NewGame | Command::GameOver => self.classic = None,
                    Command::SetOption { name, value } => self.set_option(&name, &value),
                    Command::Position { start, moves } => self.set_position(start, moves),
                    Command::Go(limits) => self.go(limits, received),
                    Command::Stop | Command::PonderHit | Command::Quit | Command::IsReady => {
                        unreachable!()
                    }
                }
            }
        }
        Flow::Continue
    }

    /// Blocks until a running search has printed its `bestmove`. A search that is holding its
    /// `bestmove` back (`go infinite`, `go ponder` before `ponderhit`) would never end by
    /// itself, so it is stopped first, as `stop` would.
    pub fn wait(&mut self) {
        if let Some(running) = self.running.take() {
            if running.control.is_held() {
                running.control.stop();
            }
            let joined = running.handle.join();
            self.search_overshoot =
                learn_overshoot(self.search_overshoot, running.control.overshoot());
            match joined {
                Ok(evaluator) => self.evaluator = evaluator,
                Err(_) => {
                    // No command has changed the game since the search began (they all wait
                    // for it), so the fallback is a move of the searched position.
                    let answer = fallback_bestmove(&self.game);
                    self.output
                        .error(&format!("the search thread failed; bestmove {answer}"));
                    self.output.line(&format!("bestmove {answer}"));
                }
            }
        }
    }

    fn identify(&self, dialect: Dialect) {
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
        out.line(&format!(
            "option name MultiPV type spin default {} min 1 max {MAX_MULTIPV}",
            self.protocol.multipv
        ));
        out.line(&format!(
            "option name overhead type spin default {} min 0 max {MAX_OVERHEAD_MS}",
            self.protocol.overhead.as_millis()
        ));
        out.line(&format!(
            "option name classic type check default {}",
            self.settings.classic.is_some()
        ));
        out.line(dialect.ok_line());
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
            "multipv" => parse_in_range(value, 1, MAX_MULTIPV).map(|n| {
                self.protocol.multipv = n;
            }),
            "overhead" => parse_in_range(value, 0, MAX_OVERHEAD_MS).map(|ms| {
                self.protocol.overhead = Duration::from_millis(ms as u64);
            }),
            "classic" => match value.trim() {
                "true" => {
                    self.settings
                        .classic
                        .get_or_insert_with(ClassicSpec::default);
                    Ok(())
                }
                "false" => {
                    self.settings.classic = None;
                    self.classic = None;
                    Ok(())
                }
                _ => Err(format!("classic: expected true or false, got {value:?}")),
            },
            _ => Err(format!(
                "unknown option {name:?} (model, simulations, threads, rules, MultiPV, overhead, \
                 classic)"
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
    ///
    /// A match runner sends the whole game before every move, so when `start` and the rules
    /// are the current game's and its moves are a prefix of `moves`, only the new moves are
    /// read and played: replaying hundreds of plies on every move cost milliseconds of the
    /// clock each time, outside the search and outside its time budget.
    fn rebuild_game(&mut self, start: Position, moves: Vec<String>) -> Result<(), String> {
        // (A game given by `set_game` carries a history of its own: not continued.)
        let continues = start == self.start
            && *self.game.options() == self.settings.rules
            && self.game.plies_played() as usize == self.move_texts.len()
            && moves.starts_with(&self.move_texts);
        let (mut game, played) = if continues {
            (self.game.clone(), self.move_texts.len())
        } else {
            (Game::from_position(start.clone(), self.settings.rules), 0)
        };
        for (i, text) in moves.iter().enumerate().skip(played) {
            let mv =
                parse_move(&game, text).map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
            game.play(mv);
        }
        self.start = start;
        self.move_texts = moves;
        self.game = game;
        Ok(())
    }

    /// Starts the search of a `go` that arrived at `received` (its time limits count from
    /// then, so loading the evaluator is on the engine's clock, as it is on the GUI's).
    fn go(&mut self, limits: GoLimits, received: Instant) {
        if let Some(outcome) = self.game.outcome() {
            self.output.line(&format!(
                "info string game over: {}",
                termination_text(outcome)
            ));
            self.output.line("bestmove resign");
            return;
        }
        self.learn_from_the_clock(&limits);
        let time_budget = self.time_budget(&limits);
        if let (Some(clock), Some(budget)) = (self.side_clock(&limits), time_budget) {
            if !limits.holds_bestmove() {
                self.last_clocked = Some(ClockedMove {
                    game: game_key(&self.start, &self.move_texts),
                    remaining: clock.remaining,
                    increment: clock.increment,
                    budget,
                });
            }
        }
        if time_budget == Some(Duration::ZERO) && !limits.holds_bestmove() {
            self.answer_at_once("no search time on this clock");
            return;
        }
        if let Some(spec) = self.settings.classic {
            self.go_classic(spec, limits, time_budget, received);
            return;
        }
        if let Err(message) = self.ensure_evaluator() {
            let answer = fallback_bestmove(&self.game);
            self.output
                .error(&format!("{message}; without a search, bestmove {answer}"));
            self.output.line(&format!("bestmove {answer}"));
            return;
        }
        let evaluator = self.evaluator.take().expect("ensured above");
        let visits = match limits.visits {
            Some(v) => v,
            None if time_budget.is_some() || limits.holds_bestmove() => MAX_SIMULATIONS,
            None => self.settings.simulations,
        };
        let control = search_control(&limits, time_budget, received);
        tracing::debug!(
            visits,
            budget_ms = time_budget.map(|t| t.as_millis() as u64),
            infinite = limits.infinite,
            ponder = limits.ponder,
            "go"
        );
        let request = SearchRequest {
            game: self.game.clone(),
            visits,
            control: control.clone(),
            multipv: self.protocol.multipv,
            started: received,
            output: self.output.clone(),
        };
        self.start_search("koshogi-search", control, move || {
            search_job::run(request, evaluator)
        });
    }

    /// A `go` of the classical engine: the same clock handling and control as the network's
    /// search; nodes from `go nodes`, else the settings' own limit unless a clock, `movetime`
    /// or `go infinite`/`ponder` decides when to stop.
    fn go_classic(
        &mut self,
        spec: ClassicSpec,
        limits: GoLimits,
        time_budget: Option<Duration>,
        received: Instant,
    ) {
        let nodes = match limits.visits {
            Some(visits) => Some(u64::from(visits)),
            None if time_budget.is_some() || limits.holds_bestmove() => None,
            None => spec.limits().nodes,
        };
        let control = search_control(&limits, time_budget, received);
        let engine = self
            .classic
            .get_or_insert_with(|| Arc::new(Mutex::new(ClassicEngine::new(spec.config()))))
            .clone();
        let request = ClassicRequest {
            game: self.game.clone(),
            nodes,
            depth: spec.depth,
            control: control.clone(),
            started: received,
            output: self.output.clone(),
        };
        // The network's evaluator (if any) stays with the engine through the search.
        let evaluator = self.evaluator.take();
        self.start_search("koshogi-classic", control, move || {
            classic_job::run(request, &engine);
            evaluator
        });
    }

    /// Runs `job` on a search thread named `name` (it gives back the evaluator, if any); if the
    /// thread cannot start, answers the greedy move at once so the `go` still ends in a
    /// `bestmove`.
    fn start_search(
        &mut self,
        name: &str,
        control: Arc<SearchControl>,
        job: impl FnOnce() -> Option<EvalThread<Game>> + Send + 'static,
    ) {
        match std::thread::Builder::new().name(name.into()).spawn(job) {
            Ok(handle) => self.running = Some(RunningSearch { control, handle }),
            Err(err) => {
                let answer = fallback_bestmove(&self.game);
                self.output.error(&format!(
                    "cannot start the search thread: {err}; bestmove {answer}"
                ));
                self.output.line(&format!("bestmove {answer}"));
            }
        }
    }

    /// Answers a `go` without searching or evaluating ([`fallback_bestmove`]): a refused `go`,
    /// or a clock that leaves no search time. Even a move of the network's root evaluation
    /// costs milliseconds a CPU clock of 2 s for 300 moves does not have; this costs about one.
    fn answer_at_once(&mut self, why: &str) {
        self.search_overshoot = learn_overshoot(self.search_overshoot, None);
        let answer = fallback_bestmove(&self.game);
        self.output
            .line(&format!("info string {why}: greedy move without a search"));
        self.output.line(&format!("bestmove {answer}"));
    }

    /// The search time of a `go`: `movetime`, the clock's budget for the side to move
    /// ([`move_budget`], with the move horizon of the position's ply and the overhead plus what
    /// searches have been answering past their deadlines), or the shorter of the two; `None`
    /// when it names neither.
    fn time_budget(&self, limits: &GoLimits) -> Option<Duration> {
        let clock = self.side_clock(limits).map(|clock| {
            let overhead = self.protocol.overhead + self.search_overshoot;
            move_budget(&clock, overhead)
        });
        match (limits.movetime, clock) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The clock of the side to move in a `go`, at the game's ply.
    fn side_clock(&self, limits: &GoLimits) -> Option<SideClock> {
        let position = self.game.position();
        limits
            .clock
            .for_side(position.side_to_move())
            .map(|clock| clock.at_ply(position.ply()))
    }

    /// When this `go` continues the game of the last clocked one two plies on, the side's
    /// clock tells what that move really cost: its time then, plus the increment, minus its
    /// time now. What it cost beyond its budget is learnt as a cost of every move. The engine
    /// sees only its own side of the pipe; the clock sees everything (a loaded machine's
    /// scheduling cost 5 ms a move, and single moves over 100 ms, in 2 s games on 2 cores).
    fn learn_from_the_clock(&mut self, limits: &GoLimits) {
        let (Some(previous), Some(clock)) = (self.last_clocked.take(), self.side_clock(limits))
        else {
            return;
        };
        let played = self.move_texts.len();
        if played < 2 || previous.game != game_key(&self.start, &self.move_texts[..played - 2]) {
            return;
        }
        let charged = (previous.remaining + previous.increment).saturating_sub(clock.remaining);
        let beyond = charged.saturating_sub(previous.budget).min(MAX_LEARNT_COST);
        self.search_overshoot = self.search_overshoot.max(beyond);
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
            running.control.stop();
        }
        self.wait();
    }
}

/// What a `go` hands its search: a pondering search, one held until `stop` (`go infinite`), or
/// one with a deadline `time_budget` after `received` (a deadline too far to represent is none).
fn search_control(
    limits: &GoLimits,
    time_budget: Option<Duration>,
    received: Instant,
) -> Arc<SearchControl> {
    Arc::new(if limits.ponder {
        SearchControl::pondering(time_budget)
    } else if limits.infinite {
        SearchControl::new(None, true)
    } else {
        SearchControl::new(time_budget.and_then(|t| received.checked_add(t)), false)
    })
}

/// The evaluation thread: the checkpoint's network, or the material evaluator.
fn build_evaluator(
    card: Option<&std::path::Path>,
    settings: &EngineSettings,
) -> Result<EvalThread<Game>, String> {
    match card {
        None => EvalThread::spawn(|| Ok(MaterialEvaluator)),
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

/// Identifies a game by its start and moves, to tell whether a `go` continues the game of an
/// earlier one (a match runner may interleave several games in one engine).
fn game_key(start: &Position, moves: &[String]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    start.hash().hash(&mut hasher);
    start.ply().hash(&mut hasher);
    moves.hash(&mut hasher);
    hasher.finish()
}

/// Whether an input line is a `go` command (however malformed its arguments).
fn is_go_line(line: &str) -> bool {
    line.split_whitespace().next() == Some("go")
}

fn parse_in_range(value: &str, min: u32, max: u32) -> Result<u32, String> {
    value
        .trim()
        .parse::<u32>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| format!("expected a whole number from {min} to {max}, got {value:?}"))
}
