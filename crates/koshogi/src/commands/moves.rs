//! `koshogi moves`: every legal move of a position, in the exact format other tools compare
//! (§14.2): `<canonical notation>\t<origin point>\t<KSFEN after the move, without move number>`,
//! one per line, sorted by canonical notation (plain byte-wise order). With `--stdin`, one
//! position per input line, each position's moves followed by an empty line: a tool comparing
//! many positions (the Python package's tests compare a 1,000-ply game) pays the binary's start
//! once instead of once per position.

use anyhow::{Context, Result};
use clap::Args;
use koshogi_rules::{Game, Position, RulesOptions};
use std::io::Write;

use crate::position_args::{parse_position, parse_rules, quiet_on_broken_pipe};

#[derive(Args, Debug)]
pub struct MovesArgs {
    /// A KSFEN position (`<board> <side> [<move number>]`, quoted or not) or `startpos`.
    #[arg(
        required_unless_present = "stdin",
        conflicts_with = "stdin",
        num_args = 1..,
        value_name = "KSFEN|startpos"
    )]
    pub position: Vec<String>,
    /// Read positions from standard input, one per line; each position's moves end with an
    /// empty line.
    #[arg(long)]
    pub stdin: bool,
    /// Rule options as JSON (§12 keys, e.g. '{"allow_pass":false}'); default KS-default.
    #[arg(long, value_name = "JSON")]
    pub rules: Option<String>,
}

pub fn run(args: MovesArgs) -> Result<()> {
    let options = parse_rules(args.rules.as_deref())?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if !args.stdin {
        let lines = move_lines(parse_position(&args.position)?, options);
        return quiet_on_broken_pipe(write_lines(&mut out, &lines).and_then(|()| out.flush()));
    }
    for (number, line) in std::io::stdin().lines().enumerate() {
        let line = line.context("reading standard input")?;
        let position = parse_position(&[line])
            .with_context(|| format!("standard input line {}", number + 1))?;
        let lines = move_lines(position, options);
        let written = write_lines(&mut out, &lines).and_then(|()| writeln!(out));
        if written.is_err() {
            return quiet_on_broken_pipe(written);
        }
    }
    quiet_on_broken_pipe(out.flush())
}

/// The position's output lines, sorted.
fn move_lines(position: Position, options: RulesOptions) -> Vec<String> {
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
    lines
}

fn write_lines(out: &mut impl Write, lines: &[String]) -> std::io::Result<()> {
    for line in lines {
        writeln!(out, "{line}")?;
    }
    Ok(())
}
