//! `engine:<command>[@<limits>]`: any program that speaks the engine protocol
//! (docs/engine-protocol.md) as an arena player — another build of `koshogi engine`, or another
//! author's engine — so two programs are matched with the same Elo and SPRT tools as the
//! built-in players.
//!
//! The player starts the program once ([`EngineProcess`]), greets it (`koshogi` → `koshogiok`,
//! `isready` → `readyok`), and for each move sends the whole game (`position startpos moves …`,
//! canonical notation, so the engine sees the history repetition depends on) and a `go` with the
//! spec's limits ([`spec`]), then reads up to `bestmove`. Rules other than the default are sent
//! as `setoption name rules value <JSON>` first. The arena's ply cap and material adjudication
//! are not sent: they are the arena's, not the game's.
//!
//! Failures are the engine's losses, not the arena's crashes: if the program dies, stays silent
//! past its deadline, runs out of its clock, resigns (`bestmove none`/`resign`) or answers
//! something that is not a legal move, that game is forfeited ([`Choice::Forfeit`]) with the
//! reason in the record's termination, the program is killed, and it is started afresh for the
//! next move it is asked for. The program is killed when the player is dropped.
//!
//! With a clock (`time=`, `inc=`, `byoyomi=`) the player keeps each game's remaining time for
//! the engine: it measures from sending `position` to receiving `bestmove`, sends the remaining
//! time as both `btime` and `wtime` (the opponent's clock is not the engine's business here),
//! and forfeits the game on time when a move takes longer than the remaining time plus byoyomi.
//! Games are played one request at a time, so the engine never thinks about two games at once.

pub mod command_line;
pub mod process;
pub mod spec;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use koshogi_engine::{GoClock, GoLimits};
use koshogi_rules::notation::parse_move;
use koshogi_rules::{Game, Move, Position, RulesOptions};

use crate::matches::{Choice, MoveRequest, Player, PlayerError};
pub use process::{EngineProcess, EngineProcessError};
pub use spec::{ClockSpec, EngineLimits, EngineSpec, EngineSpecError};

/// Time to answer `koshogi` with `koshogiok`.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(30);
/// Time to answer `isready` (loading a network on a busy machine).
pub const READY_TIMEOUT: Duration = Duration::from_secs(120);
/// Time to wait for a move with a node limit and no clock or `timeout=`.
pub const DEFAULT_MOVE_TIMEOUT: Duration = Duration::from_secs(60);
/// Grace past `movetime` before an engine without a clock is given up on.
pub const MOVETIME_GRACE: Duration = Duration::from_secs(10);

/// Why a move could not be had from the engine; the game is forfeited with this text.
#[derive(Debug, thiserror::Error)]
pub enum EngineMoveError {
    #[error(transparent)]
    Process(#[from] EngineProcessError),
    #[error("lost on time: {} ms used, {} ms left on its clock", .used.as_millis(), .limit.as_millis())]
    TimeLoss { used: Duration, limit: Duration },
    #[error("the engine resigned (`bestmove {answer}`){engine_error}")]
    Resigned {
        answer: String,
        engine_error: EngineErrorLine,
    },
    #[error("the engine's bestmove `{answer}` is not a legal move here: {reason}{engine_error}")]
    IllegalMove {
        answer: String,
        reason: String,
        engine_error: EngineErrorLine,
    },
}

/// The engine's last `info string error: …` line before its answer, if any (it often says
/// why the answer is wrong, e.g. that a `position` was refused).
#[derive(Debug, Default)]
pub struct EngineErrorLine(Option<String>);

impl std::fmt::Display for EngineErrorLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Some(line) => write!(f, "; the engine said: {line}"),
            None => Ok(()),
        }
    }
}

/// How the engine used its time (logged when the player is dropped).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoveTimeStats {
    pub moves: u64,
    pub total: Duration,
    pub longest: Duration,
    /// With a clock: the largest share of the time it had that one move used.
    pub largest_share_of_clock: f64,
    pub time_losses: u64,
    pub forfeits: u64,
}

/// One game's clock for the engine.
struct GameClock {
    remaining: Duration,
    /// Plies of the game at the engine's last move and that move: a request whose game does
    /// not continue from it is a new game under the same index (a player may play several
    /// matches), which starts a fresh clock.
    plies: u32,
    last_move: Option<Move>,
}

impl GameClock {
    fn continues(&self, game: &Game) -> bool {
        self.last_move.is_some_and(|mv| {
            game.plies_played() > self.plies && game.moves().nth(self.plies as usize) == Some(&mv)
        })
    }
}

/// The `engine:` player (module docs).
pub struct EnginePlayer {
    name: String,
    argv: Vec<String>,
    limits: EngineLimits,
    process: Option<EngineProcess>,
    /// The rules the running program was told (a new program plays the default).
    rules_sent: RulesOptions,
    clocks: HashMap<usize, GameClock>,
    stats: MoveTimeStats,
}

impl EnginePlayer {
    /// Starts the program and greets it, so a wrong command fails here, before any game.
    /// Without any search limit in the spec, each move gets `go nodes <default_nodes>`.
    pub fn start(spec: &EngineSpec, default_nodes: u32) -> Result<EnginePlayer, EngineMoveError> {
        let mut limits = spec.limits;
        if !limits.bounds_search() {
            limits.nodes = Some(default_nodes.max(1));
        }
        let mut player = EnginePlayer {
            name: format!("engine:{spec}"),
            argv: spec.argv.clone(),
            limits,
            process: None,
            rules_sent: RulesOptions::default(),
            clocks: HashMap::new(),
            stats: MoveTimeStats::default(),
        };
        player.ensure_process()?;
        Ok(player)
    }

    /// How the engine has used its time so far.
    pub fn stats(&self) -> MoveTimeStats {
        self.stats
    }

    fn ensure_process(&mut self) -> Result<&mut EngineProcess, EngineMoveError> {
        if self.process.is_none() {
            let mut process = EngineProcess::start(&self.argv, &self.name)?;
            process.send("koshogi")?;
            process.expect_line("koshogiok", HELLO_TIMEOUT)?;
            process.send("isready")?;
            process.expect_line("readyok", READY_TIMEOUT)?;
            self.rules_sent = RulesOptions::default();
            self.process = Some(process);
        }
        Ok(self.process.as_mut().expect("just ensured"))
    }

    /// One move for one game; on any error the caller forfeits the game and drops the program.
    fn play(&mut self, request: &MoveRequest<'_, Game>) -> Result<Move, EngineMoveError> {
        let game = request.game;
        let limits = self.limits;
        let remaining = limits.clock.map(|clock| {
            let entry = self.clocks.entry(request.game_index).or_insert(GameClock {
                remaining: clock.time,
                plies: 0,
                last_move: None,
            });
            if !entry.continues(game) {
                entry.remaining = clock.time;
            }
            entry.plies = game.plies_played();
            entry.last_move = None;
            entry.remaining
        });
        let rules = *game.options();
        let rules_sent = self.rules_sent;
        let process = self.ensure_process()?;
        if rules != rules_sent {
            let json = serde_json::to_string(&rules).expect("rule options serialise");
            process.send(&format!("setoption name rules value {json}"))?;
        }
        self.rules_sent = rules;
        let process = self.process.as_mut().expect("ensured above");
        process.discard_pending();
        let go = go_limits(&limits, remaining);
        let started = Instant::now();
        let deadline = match (limits.clock, remaining) {
            (Some(clock), Some(remaining)) => started + remaining + clock.byoyomi,
            _ => {
                started
                    + limits.timeout.unwrap_or_else(|| {
                        limits
                            .movetime
                            .map_or(DEFAULT_MOVE_TIMEOUT, |t| t + MOVETIME_GRACE)
                    })
            }
        };
        process.send(&position_line(game))?;
        process.send(&go.to_string())?;
        let mut engine_error = EngineErrorLine::default();
        let answer = loop {
            let line = match process.read_line(deadline, "bestmove") {
                Ok(line) => line,
                Err(EngineProcessError::Timeout { .. }) if limits.clock.is_some() => {
                    return Err(EngineMoveError::TimeLoss {
                        used: started.elapsed(),
                        limit: deadline - started,
                    })
                }
                Err(err) => return Err(err.into()),
            };
            if let Some(rest) = line.strip_prefix("bestmove") {
                if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                    break rest.split_whitespace().next().unwrap_or("").to_string();
                }
            }
            if line.starts_with("info string error") {
                engine_error =
                    EngineErrorLine(Some(koshogi_rules::notation::excerpt_to(&line, 200)));
            }
        };
        let used = started.elapsed();
        self.record_time(request.game_index, used, remaining)?;
        if answer.is_empty() || answer == "none" || answer == "resign" {
            return Err(EngineMoveError::Resigned {
                answer,
                engine_error,
            });
        }
        let mv = parse_move(game, &answer).map_err(|err| EngineMoveError::IllegalMove {
            answer: koshogi_rules::notation::excerpt_to(&answer, 40),
            reason: err.to_string(),
            engine_error,
        })?;
        if let Some(entry) = self.clocks.get_mut(&request.game_index) {
            entry.last_move = Some(mv);
        }
        Ok(mv)
    }

    /// Books a move's time: statistics, and with a clock the game's remaining time (or a loss
    /// on time).
    fn record_time(
        &mut self,
        game_index: usize,
        used: Duration,
        remaining: Option<Duration>,
    ) -> Result<(), EngineMoveError> {
        let stats = &mut self.stats;
        stats.moves += 1;
        stats.total += used;
        stats.longest = stats.longest.max(used);
        let (Some(clock), Some(remaining)) = (self.limits.clock, remaining) else {
            return Ok(());
        };
        let limit = remaining + clock.byoyomi;
        stats.largest_share_of_clock = stats
            .largest_share_of_clock
            .max(used.as_secs_f64() / limit.as_secs_f64().max(1e-9));
        if used > limit {
            return Err(EngineMoveError::TimeLoss { used, limit });
        }
        if let Some(entry) = self.clocks.get_mut(&game_index) {
            entry.remaining = remaining.saturating_sub(used) + clock.inc;
        }
        Ok(())
    }
}

/// The `go` of one move: the spec's node and time limits, and the engine's clock (as both
/// sides' clock, see the module docs).
fn go_limits(limits: &EngineLimits, remaining: Option<Duration>) -> GoLimits {
    let clock = match (limits.clock, remaining) {
        (Some(clock), Some(remaining)) => {
            let nonzero = |d: Duration| (!d.is_zero()).then_some(d);
            GoClock {
                btime: Some(remaining),
                wtime: Some(remaining),
                binc: nonzero(clock.inc),
                winc: nonzero(clock.inc),
                byoyomi: nonzero(clock.byoyomi),
                movestogo: None,
            }
        }
        _ => GoClock::default(),
    };
    GoLimits {
        visits: limits.nodes,
        movetime: limits.movetime,
        clock,
        ..GoLimits::default()
    }
}

/// `position startpos moves …` (or `position ksfen <start> moves …` for a game that did not
/// begin at the start position): the whole game, so the engine knows the history.
pub fn position_line(game: &Game) -> String {
    let mut start = game.clone();
    while start.undo().is_some() {}
    let mut line = if start.position().hash() == Position::startpos().hash() {
        "position startpos".to_string()
    } else {
        format!("position ksfen {}", start.position().to_ksfen(true))
    };
    let mut moves = game.moves().peekable();
    if moves.peek().is_some() {
        line.push_str(" moves");
        for mv in moves {
            line.push(' ');
            line.push_str(&mv.to_string());
        }
    }
    line
}

impl Player<Game> for EnginePlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose_moves(
        &mut self,
        requests: &[MoveRequest<'_, Game>],
    ) -> Result<Vec<Move>, PlayerError> {
        self.choose_or_forfeit(requests)?
            .into_iter()
            .map(|choice| match choice {
                Choice::Play(mv) => Ok(mv),
                Choice::Forfeit(message) => Err(PlayerError::Failed {
                    player: self.name.clone(),
                    message,
                }),
            })
            .collect()
    }

    fn choose_or_forfeit(
        &mut self,
        requests: &[MoveRequest<'_, Game>],
    ) -> Result<Vec<Choice<Move>>, PlayerError> {
        Ok(requests
            .iter()
            .map(|request| match self.play(request) {
                Ok(mv) => Choice::Play(mv),
                Err(err) => {
                    self.stats.forfeits += 1;
                    if matches!(err, EngineMoveError::TimeLoss { .. }) {
                        self.stats.time_losses += 1;
                    }
                    // Whatever state it is in (thinking, dead, confused), a fresh program
                    // plays the next move.
                    self.process = None;
                    Choice::Forfeit(err.to_string())
                }
            })
            .collect())
    }
}

impl Drop for EnginePlayer {
    fn drop(&mut self) {
        let s = self.stats;
        if s.moves > 0 || s.forfeits > 0 {
            tracing::info!(
                player = %self.name,
                moves = s.moves,
                mean_ms = s.total.as_millis() as u64 / s.moves.max(1),
                longest_ms = s.longest.as_millis() as u64,
                largest_share_of_clock = format!("{:.3}", s.largest_share_of_clock),
                time_losses = s.time_losses,
                forfeits = s.forfeits,
                "engine player done"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_position_line_carries_the_whole_game() {
        let mut game = Game::new(RulesOptions::default());
        assert_eq!(position_line(&game), "position startpos");
        let first = game.legal_moves()[7];
        game.play(first);
        let second = game.legal_moves()[3];
        game.play(second);
        assert_eq!(
            position_line(&game),
            format!("position startpos moves {first} {second}")
        );
        let mut elsewhere = Game::from_position(game.position().clone(), RulesOptions::default());
        let ksfen = elsewhere.position().to_ksfen(true);
        let third = elsewhere.legal_moves()[0];
        elsewhere.play(third);
        assert_eq!(
            position_line(&elsewhere),
            format!("position ksfen {ksfen} moves {third}")
        );
    }

    #[test]
    fn the_go_line_gives_the_engine_its_clock_on_both_sides() {
        let limits = EngineLimits {
            nodes: Some(8),
            clock: Some(ClockSpec {
                time: Duration::from_millis(2_000),
                inc: Duration::from_millis(100),
                byoyomi: Duration::ZERO,
            }),
            ..EngineLimits::default()
        };
        assert_eq!(
            go_limits(&limits, Some(Duration::from_millis(1_500))).to_string(),
            "go nodes 8 btime 1500 wtime 1500 binc 100 winc 100"
        );
        let movetime = EngineLimits {
            movetime: Some(Duration::from_millis(250)),
            ..EngineLimits::default()
        };
        assert_eq!(go_limits(&movetime, None).to_string(), "go movetime 250");
    }

    #[test]
    fn a_clock_belongs_to_one_game_and_restarts_with_a_new_one() {
        let mut game = Game::new(RulesOptions::default());
        let ours = game.legal_moves()[2];
        let clock = GameClock {
            remaining: Duration::from_millis(700),
            plies: 0,
            last_move: Some(ours),
        };
        assert!(!clock.continues(&game), "our move is not played yet");
        game.play(ours);
        game.play(game.legal_moves()[0]);
        assert!(clock.continues(&game));
        let mut other = Game::new(RulesOptions::default());
        other.play(other.legal_moves()[5]);
        other.play(other.legal_moves()[0]);
        assert!(!clock.continues(&other), "same index, another game");
    }
}
