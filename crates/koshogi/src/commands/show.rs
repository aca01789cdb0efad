//! `koshogi show`: a position as a readable board (files 19…1 across, ranks a…s down, Black upper
//! case, White lower case) followed by the state derived from it that matters for the rules:
//! side to move, immobilized pieces (§4.9), lost Taoist priest (§8.6) and drum (§8.7), and
//! whether each side still survives (§10.1).

use anyhow::{Context, Result};
use clap::Args;
use koshogi_rules::game_record::GameRecord;
use koshogi_rules::{Move, Position, RulesOptions};
use koshogi_viewer::{position_report, render_svg, LastMove};
use std::io::Write as _;

use crate::position_args::{parse_position, parse_rules, quiet_on_broken_pipe};

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// A KSFEN position (`<board> <side> [<move number>]`, quoted or not) or `startpos`.
    #[arg(required_unless_present = "game", num_args = 1.., value_name = "KSFEN|startpos")]
    pub position: Vec<String>,
    /// A game record (as written by self-play, the arena or the engine): show a position of it.
    #[arg(long, value_name = "FILE", conflicts_with = "position")]
    pub game: Option<std::path::PathBuf>,
    /// With --game: the position after this many plies (default: the final position).
    #[arg(long, requires = "game")]
    pub ply: Option<usize>,
    /// Rule options as JSON (§12 keys); default KS-default.
    #[arg(long, value_name = "JSON")]
    pub rules: Option<String>,
    /// Also draw the position as an SVG picture into this file (with --game, the move that led
    /// to it is highlighted: path, shots, removed pieces).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<std::path::PathBuf>,
}

pub fn run(args: ShowArgs) -> Result<()> {
    let options = parse_rules(args.rules.as_deref())?;
    let (position, last) = match &args.game {
        Some(path) => position_in_record(path, args.ply, &options)?,
        None => (parse_position(&args.position)?, None),
    };
    if let Some(svg_path) = &args.svg {
        let last = last
            .as_ref()
            .map(|(before, mv)| LastMove { before, mv: *mv });
        std::fs::write(svg_path, render_svg(&position, last))
            .with_context(|| format!("writing {}", svg_path.display()))?;
    }
    let text = position_report(&position, &options);
    let mut out = std::io::stdout().lock();
    quiet_on_broken_pipe(out.write_all(text.as_bytes()).and_then(|()| out.flush()))
}

/// The position after `ply` plies of the game recorded in `path` (the final one by default),
/// with the move that led to it and the position it was played from.
fn position_in_record(
    path: &std::path::Path,
    ply: Option<usize>,
    options: &RulesOptions,
) -> Result<(Position, Option<(Position, Move)>)> {
    let text = koshogi_rules::game_record::read_record_file(path)
        .with_context(|| format!("reading {}", path.display()))?;
    let record = GameRecord::parse(&text, *options)
        .with_context(|| format!("reading the game record {}", path.display()))?;
    if let Some(ply) = ply {
        anyhow::ensure!(
            ply <= record.moves.len(),
            "{} has {} plies; --ply {ply} is beyond its end",
            path.display(),
            record.moves.len()
        );
    }
    let mut game = record.replay(*options, ply)?;
    let position = game.position().clone();
    let last = game.undo().map(|mv| (game.position().clone(), mv));
    Ok((position, last))
}
