//! The arguments and output habits the position commands share (`koshogi moves`, `show`,
//! `perft`, `encode`, `engine`): a position given as `startpos` or KSFEN, the `--rules` JSON,
//! and a closed output pipe that is not an error. Here so that no command imports another.

use anyhow::{Context, Result};
use koshogi_rules::{Position, RulesOptions};

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
