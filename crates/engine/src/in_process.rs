//! The engine as an in-process opponent (`koshogi play`): the client keeps its own [`Game`], the
//! engine's replies are captured instead of printed, each move is asked with `go visits N`, and
//! the `bestmove` and its value are read back from the replies of that `go`.

use koshogi_rules::{Game, Move, RulesOptions};

use crate::engine::{Engine, EngineSettings};
use crate::output::{CapturedLines, Output};

/// Why the engine gave no move to play.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EngineMoveError {
    /// The engine answered the `go` with an error line (`info string error …`).
    #[error("engine: {0}")]
    Reported(String),
    /// The `bestmove` (or `none`, if there was none) names no legal move.
    #[error("the engine answered {0:?}, which is not a legal move")]
    NotLegal(String),
}

/// A move the engine chose and the value it gave it for its own side, as the engine printed it
/// (`?` when its replies held none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineMove {
    pub mv: Move,
    pub value: String,
}

/// An [`Engine`] whose replies are read by the caller.
pub struct InProcessEngine {
    engine: Engine,
    replies: CapturedLines,
    seen: usize,
    visits: u32,
}

impl InProcessEngine {
    /// An engine searching `settings.simulations` visits a move.
    pub fn new(settings: EngineSettings) -> Self {
        let visits = settings.simulations;
        let (output, replies) = Output::capture();
        Self {
            engine: Engine::new(output, settings),
            replies,
            seen: 0,
            visits,
        }
    }

    /// The rules the engine plays under.
    pub fn rules(&self) -> RulesOptions {
        self.engine.settings().rules
    }

    /// The engine's move in `game`, one of `legal` (the game's legal moves).
    pub fn choose(&mut self, game: &Game, legal: &[Move]) -> Result<EngineMove, EngineMoveError> {
        self.engine.set_game(game.clone());
        self.engine
            .handle_line(&format!("go visits {}", self.visits));
        self.engine.wait();
        let lines = self.replies.lines();
        let new = &lines[self.seen.min(lines.len())..];
        self.seen = lines.len();
        read_reply(new, legal)
    }
}

/// The move and value in the replies of one `go`.
fn read_reply(lines: &[String], legal: &[Move]) -> Result<EngineMove, EngineMoveError> {
    if let Some(error) = lines.iter().find(|l| l.starts_with("info string error")) {
        return Err(EngineMoveError::Reported(error.clone()));
    }
    let value = lines
        .iter()
        .rev()
        .find_map(|l| l.split(" value ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or("?")
        .to_string();
    let best = lines
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix("bestmove "))
        .unwrap_or("none");
    match legal.iter().copied().find(|m| m.to_string() == best) {
        Some(mv) => Ok(EngineMove { mv, value }),
        None => Err(EngineMoveError::NotLegal(best.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_value_and_the_bestmove_are_read() {
        let legal = Game::new(RulesOptions::default()).legal_moves();
        let (first, second) = (legal[0], legal[1]);
        let lines = [
            format!("info visits 4 value 0.10 pv {first}"),
            format!("info visits 8 value -0.25 pv {second}"),
            format!("bestmove {second}"),
        ];
        let reply = read_reply(&lines, &legal).unwrap();
        assert_eq!(reply.mv, second);
        assert_eq!(reply.value, "-0.25");
        let bare = [format!("bestmove {first}")];
        assert_eq!(read_reply(&bare, &legal).unwrap().value, "?");
    }

    #[test]
    fn an_error_line_or_no_legal_bestmove_is_an_error() {
        let legal = Game::new(RulesOptions::default()).legal_moves();
        let error = "info string error: no model".to_string();
        assert_eq!(
            read_reply(&[error.clone(), "bestmove none".into()], &legal),
            Err(EngineMoveError::Reported(error))
        );
        assert_eq!(
            read_reply(&["info visits 1".into()], &legal),
            Err(EngineMoveError::NotLegal("none".into()))
        );
        assert_eq!(
            read_reply(&["bestmove z9z9".into()], &legal),
            Err(EngineMoveError::NotLegal("z9z9".into()))
        );
    }

    #[test]
    fn the_material_engine_answers_a_legal_move_each_turn() {
        let mut engine = InProcessEngine::new(EngineSettings {
            simulations: 8,
            ..EngineSettings::default()
        });
        let mut game = Game::new(engine.rules());
        for _ in 0..2 {
            let legal = game.legal_moves();
            let reply = engine.choose(&game, &legal).unwrap();
            assert!(legal.contains(&reply.mv));
            game.play(reply.mv);
        }
    }
}
