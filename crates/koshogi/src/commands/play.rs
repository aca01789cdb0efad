//! `koshogi play`: a game against the engine in the terminal. The board (as `koshogi show`
//! draws it) is printed after every move; moves are typed in Hodges or canonical notation, an
//! illegal one is explained and asked again; `moves` lists the legal moves, `quit` stops.
//! An input line is read through a bound ([`MAX_INPUT_LINE_BYTES`]): a longer one is refused
//! without being held in memory. The engine runs in this process
//! ([`koshogi_engine::InProcessEngine`]).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use koshogi_engine::line_reader::{read_bounded_line, Line};
use koshogi_engine::InProcessEngine;
use koshogi_rules::game_record::termination_text;
use koshogi_rules::notation::{format_hodges, parse_move};
use koshogi_rules::{Color, Game, Move};

use koshogi_viewer::position_report;

/// The longest input line read: a move, `moves` or `quit` is a few dozen bytes; a line of
/// any length was read whole before (a 1.5 GB line took 1.65 GB of memory).
pub const MAX_INPUT_LINE_BYTES: usize = 4096;

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Checkpoint to play against (model card or step directory); default: the material
    /// evaluator.
    #[arg(long, value_name = "CKPT")]
    pub model: Option<PathBuf>,
    /// The side you play, black or white (Black moves first).
    #[arg(long, default_value_t = Color::Black)]
    pub color: Color,
    /// Engine simulations per move.
    #[arg(long, default_value_t = 200)]
    pub simulations: u32,
    /// libtorch threads of the network evaluation.
    #[arg(long, default_value_t = 1)]
    pub threads: u32,
    /// Rule options as JSON (§12 keys); default KS-default.
    #[arg(long, value_name = "JSON")]
    pub rules: Option<String>,
}

pub fn run(args: PlayArgs) -> Result<()> {
    let settings = crate::engine_settings::engine_settings(
        args.model.as_deref(),
        args.simulations,
        args.threads,
        args.rules.as_deref(),
    )?;
    let mut engine = InProcessEngine::new(settings);
    let options = engine.rules();
    let human = args.color;
    let mut game = Game::new(options);
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout().lock();
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
            let line = match read_bounded_line(&mut input, MAX_INPUT_LINE_BYTES)? {
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
