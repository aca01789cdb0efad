//! A game against the in-process engine on a text terminal (`koshogi play`). The board (as
//! `koshogi show` draws it) is printed after every move; moves are typed in Hodges or
//! canonical notation, an illegal one is explained and asked again; `moves` lists the legal
//! moves, `quit` stops. An input line is read through a bound ([`MAX_INPUT_LINE_BYTES`]): a
//! longer one is refused without being held in memory.

use std::io::{self, BufRead, Write};

use koshogi_rules::game_record::termination_text;
use koshogi_rules::notation::{format_hodges, parse_move};
use koshogi_rules::{Color, Game, Move};
use koshogi_viewer::position_report;

use crate::in_process::{EngineMoveError, InProcessEngine};
use crate::line_reader::{read_bounded_line, Line};

/// The longest input line read: a move, `moves` or `quit` is a few dozen bytes; a line of
/// any length was read whole before (a 1.5 GB line took 1.65 GB of memory).
pub const MAX_INPUT_LINE_BYTES: usize = 4096;

/// Why a terminal game stopped other than by its end or the player's leaving.
#[derive(Debug, thiserror::Error)]
pub enum TerminalGameError {
    /// Reading the player's input or writing to the terminal failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The engine gave no move to play.
    #[error(transparent)]
    Engine(#[from] EngineMoveError),
}

/// Plays a game from the start position under the engine's rules, the player `human` reading
/// moves from `input`, the engine the other side; everything is written to `out`. Returns when
/// the game ends, the player quits or the input ends.
pub fn play_in_terminal(
    engine: &mut InProcessEngine,
    human: Color,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> Result<(), TerminalGameError> {
    let options = engine.rules();
    let mut game = Game::new(options);
    writeln!(
        out,
        "You play {human}. Enter moves in Hodges or canonical notation; 'moves' lists the legal moves, 'quit' stops."
    )?;
    write!(out, "{}", position_report(game.position(), &options))?;
    loop {
        if let Some(outcome) = game.outcome() {
            let result = match outcome.winner() {
                Some(winner) if winner == human => "you win",
                Some(_) => "the engine wins",
                None => "draw",
            };
            writeln!(out, "game over: {} ({result})", termination_text(outcome))?;
            return Ok(());
        }
        let legal = game.legal_moves();
        let mv: Move = if game.position().side_to_move() == human {
            write!(out, "your move> ")?;
            out.flush()?;
            // A line that is not UTF-8 (a stray paste, another encoding) or too long is one
            // bad move, not the end of the game.
            let line = match read_bounded_line(input, MAX_INPUT_LINE_BYTES)? {
                None => {
                    writeln!(out, "\nend of input; game abandoned")?;
                    return Ok(());
                }
                Some(Line::Text(line)) => line,
                Some(Line::NotUtf8) => {
                    writeln!(out, "that line is not UTF-8 text; enter a move")?;
                    continue;
                }
                Some(Line::TooLong { bytes }) => {
                    writeln!(
                        out,
                        "that line is {bytes} bytes, longer than the {MAX_INPUT_LINE_BYTES} \
                         accepted; enter a move"
                    )?;
                    continue;
                }
            };
            let text = line.trim();
            match text {
                "" => continue,
                "quit" | "exit" => {
                    writeln!(out, "game abandoned")?;
                    return Ok(());
                }
                "moves" => {
                    writeln!(out, "{}", legal_moves_line(&game, &legal))?;
                    continue;
                }
                _ => {}
            }
            match parse_move(&game, text) {
                Ok(mv) => mv,
                Err(err) => {
                    writeln!(
                        out,
                        "illegal move: {err}. Try again ('moves' lists the legal moves)."
                    )?;
                    continue;
                }
            }
        } else {
            let reply = engine.choose(&game, &legal)?;
            writeln!(
                out,
                "engine plays {} ({}), value {} for the engine",
                format_hodges(game.position(), &legal, &reply.mv),
                reply.mv,
                reply.value
            )?;
            reply.mv
        };
        if game.position().side_to_move() == human {
            writeln!(
                out,
                "you play {} ({mv})",
                format_hodges(game.position(), &legal, &mv)
            )?;
        }
        game.play(mv);
        write!(out, "{}", position_report(game.position(), &options))?;
    }
}

/// `N legal moves: …`, each in Hodges notation with its canonical form, sorted.
fn legal_moves_line(game: &Game, legal: &[Move]) -> String {
    let mut names: Vec<String> = legal
        .iter()
        .map(|m| format!("{} ({m})", format_hodges(game.position(), legal, m)))
        .collect();
    names.sort();
    format!("{} legal moves: {}", names.len(), names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EngineSettings;
    use koshogi_rules::RulesOptions;

    fn play(human: Color, input: &str) -> String {
        let mut engine = InProcessEngine::new(EngineSettings {
            simulations: 2,
            ..EngineSettings::default()
        });
        let mut out = Vec::new();
        play_in_terminal(&mut engine, human, &mut input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_player_lists_the_moves_is_told_of_an_illegal_one_and_quits() {
        let out = play(Color::Black, "moves\n10a-10b\nquit\n");
        let count = Game::new(RulesOptions::default()).legal_moves().len();
        assert!(out.contains(&format!("{count} legal moves: ")), "{out}");
        assert!(out.contains("illegal move: "), "{out}");
        assert!(out.ends_with("game abandoned\n"), "{out}");
        assert!(!out.contains("engine plays"), "{out}");
    }

    #[test]
    fn the_engine_opens_for_a_white_player_and_the_end_of_input_abandons() {
        let out = play(Color::White, "");
        assert!(out.contains("engine plays "), "{out}");
        assert!(out.ends_with("end of input; game abandoned\n"), "{out}");
    }
}
