//! `koshogi moves`: every legal move of a position, in the exact format other tools compare
//! (§14.2): `<canonical notation>\t<origin point>\t<KSFEN after the move, without move number>`,
//! one per line, sorted by canonical notation (plain byte-wise order).

use anyhow::{Context, Result};
use clap::Args;
use koshogi_rules::{Game, Position, RulesOptions};
use std::io::Write;

#[derive(Args, Debug)]
pub struct MovesArgs {
    /// A KSFEN position (`<board> <side> [<move number>]`, quoted or not) or `startpos`.
    #[arg(required = true, num_args = 1.., value_name = "KSFEN|startpos")]
    pub position: Vec<String>,
    /// Rule options as JSON (§12 keys, e.g. '{"allow_pass":false}'); default KS-default.
    #[arg(long, value_name = "JSON")]
    pub rules: Option<String>,
}

pub fn run(args: MovesArgs) -> Result<()> {
    let position = parse_position(&args.position)?;
    let options = parse_rules(args.rules.as_deref())?;
    let mut game = Game::from_position(position, options);
    let mut lines: Vec<String> = game
        .legal_moves()
        .into_iter()
        .map(|mv| {
            game.play(mv);
            let line = format!("{mv}\t{}\t{}", mv.origin(), game.position().to_ksfen(false));
            game.undo();
            line
        })
        .collect();
    lines.sort();
    let write = || -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        for line in &lines {
            writeln!(out, "{line}")?;
        }
        out.flush()
    };
    quiet_on_broken_pipe(write())
}

/// A closed pipe (`koshogi moves … | head`) is not an error worth reporting.
pub fn quiet_on_broken_pipe(result: std::io::Result<()>) -> Result<()> {
    match result {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// Reads a position argument: `startpos`, or a KSFEN given as one argument or as its fields.
pub fn parse_position(words: &[String]) -> Result<Position> {
    let text = words.join(" ");
    let text = text.trim();
    if text.eq_ignore_ascii_case("startpos") {
        return Ok(Position::startpos());
    }
    Position::from_ksfen(text).with_context(|| format!("invalid position {text:?}"))
}

/// Reads the optional `--rules` JSON (missing keys keep their KS-default value).
pub fn parse_rules(json: Option<&str>) -> Result<RulesOptions> {
    match json {
        None => Ok(RulesOptions::default()),
        Some(text) => {
            serde_json::from_str(text).with_context(|| format!("invalid --rules JSON {text:?}"))
        }
    }
}
