//! Game records: one text file per game, plus a CSV line per game for result tables.
//!
//! Format (PGN-like, so it is readable and easy to parse back):
//!
//! ```text
//! [Event "koshogi arena"]
//! [Game "12"]
//! [Black "greedy"]
//! [White "random"]
//! [Start "<KSFEN of the initial position>"]
//! [OpeningPlies "4"]
//! [Plies "57"]
//! [Result "1-0"]
//! [Termination "general and banner captured"]
//!
//! 1. P-16n 1... p-4f 2. …
//! 1-0
//! ```
//!
//! The first `OpeningPlies` moves are the random opening shared by the pair of games; moves are
//! in the game's own notation (Hodges style for Ko shogi when the rules crate provides it,
//! otherwise canonical notation).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use koshogi_run_store::atomic::write_atomic;

use crate::game::Side;

/// Everything needed to write one game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub game_index: usize,
    pub black: String,
    pub white: String,
    pub start_position: String,
    pub opening_plies: u32,
    pub moves: Vec<String>,
    pub winner: Option<Side>,
    pub termination: String,
}

impl GameRecord {
    /// "1-0" (Black won), "0-1" or "1/2-1/2".
    pub fn result_text(&self) -> &'static str {
        result_text(self.winner)
    }

    pub fn to_text(&self) -> String {
        let mut text = String::new();
        let tag = |text: &mut String, name: &str, value: &str| {
            let _ = writeln!(text, "[{name} \"{}\"]", value.replace('"', "'"));
        };
        tag(&mut text, "Event", "koshogi arena");
        tag(&mut text, "Game", &self.game_index.to_string());
        tag(&mut text, "Black", &self.black);
        tag(&mut text, "White", &self.white);
        tag(&mut text, "Start", &self.start_position);
        tag(&mut text, "OpeningPlies", &self.opening_plies.to_string());
        tag(&mut text, "Plies", &self.moves.len().to_string());
        tag(&mut text, "Result", self.result_text());
        tag(&mut text, "Termination", &self.termination);
        text.push('\n');
        let mut line = String::new();
        for (ply, mv) in self.moves.iter().enumerate() {
            let number = ply / 2 + 1;
            let token = if ply.is_multiple_of(2) {
                format!("{number}. {mv}")
            } else {
                format!("{number}... {mv}")
            };
            if !line.is_empty() && line.len() + token.len() + 1 > 96 {
                text.push_str(&line);
                text.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&token);
        }
        if !line.is_empty() {
            text.push_str(&line);
            text.push('\n');
        }
        text.push_str(self.result_text());
        text.push('\n');
        text
    }

    /// Writes `game-<index>.txt` under `dir` atomically and returns its path.
    pub fn write_to_dir(&self, dir: &Path) -> std::io::Result<PathBuf> {
        let path = dir.join(format!("game-{:06}.txt", self.game_index));
        write_atomic(&path, self.to_text().as_bytes())?;
        Ok(path)
    }
}

/// Appends `lines` to a text file (creating it with `header` if absent), atomically: a crash
/// leaves the file with all of them or none.
pub fn append_lines_atomic(path: &Path, header: &str, lines: &[String]) -> std::io::Result<()> {
    let mut text = match std::fs::read_to_string(path) {
        Ok(existing) => existing,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => format!("{header}\n"),
        Err(e) => return Err(e),
    };
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    write_atomic(path, text.as_bytes())
}

pub fn result_text(winner: Option<Side>) -> &'static str {
    match winner {
        Some(Side::First) => "1-0",
        Some(Side::Second) => "0-1",
        None => "1/2-1/2",
    }
}

/// Header of the per-game CSV tables (`games.csv`).
pub const GAMES_CSV_HEADER: &str = "black,white,result,plies,termination,record";

/// One CSV line for a finished game; fields never contain commas (they are replaced).
pub fn games_csv_line(
    black: &str,
    white: &str,
    winner: Option<Side>,
    plies: u32,
    termination: &str,
    record: Option<&Path>,
) -> String {
    let clean = |s: &str| s.replace([',', '\n', '\r'], ";");
    format!(
        "{},{},{},{},{},{}",
        clean(black),
        clean(white),
        result_text(winner),
        plies,
        clean(termination),
        record
            .map(|p| clean(&p.display().to_string()))
            .unwrap_or_default()
    )
}

/// A parsed line of a `games.csv` table.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    pub black: String,
    pub white: String,
    /// Black's score: 1, ½ or 0.
    pub black_score: f64,
    pub plies: u32,
}

#[derive(Debug, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct GamesCsvError {
    pub path: String,
    pub line: usize,
    pub message: String,
}

/// Reads a `games.csv` table (missing file = no games).
pub fn read_games_csv(path: &Path) -> Result<Vec<GameRow>, GamesCsvError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(GamesCsvError {
                path: path.display().to_string(),
                line: 0,
                message: e.to_string(),
            })
        }
    };
    let error = |line: usize, message: String| GamesCsvError {
        path: path.display().to_string(),
        line,
        message,
    };
    let mut rows = Vec::new();
    for (number, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() < 4 {
            return Err(error(
                number + 1,
                format!("expected at least 4 fields, got `{line}`"),
            ));
        }
        let black_score = match fields[2] {
            "1-0" => 1.0,
            "0-1" => 0.0,
            "1/2-1/2" => 0.5,
            other => return Err(error(number + 1, format!("unknown result `{other}`"))),
        };
        let plies = fields[3]
            .parse()
            .map_err(|_| error(number + 1, format!("bad ply count `{}`", fields[3])))?;
        rows.push(GameRow {
            black: fields[0].to_string(),
            white: fields[1].to_string(),
            black_score,
            plies,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_text_has_header_moves_and_result() {
        let record = GameRecord {
            game_index: 3,
            black: "greedy".into(),
            white: "random".into(),
            start_position: "startpos".into(),
            opening_plies: 2,
            moves: vec!["a".into(), "b".into(), "c".into()],
            winner: Some(Side::First),
            termination: "general captured".into(),
        };
        let text = record.to_text();
        assert!(text.contains("[Black \"greedy\"]"));
        assert!(text.contains("[Result \"1-0\"]"));
        assert!(text.contains("1. a 1... b 2. c"));
        assert!(text.trim_end().ends_with("1-0"));
    }

    #[test]
    fn games_csv_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        let lines = [
            games_csv_line("x", "y", Some(Side::Second), 10, "mate, really", None),
            games_csv_line("y", "x", None, 200, "max plies", Some(Path::new("r.txt"))),
        ];
        append_lines_atomic(&path, GAMES_CSV_HEADER, &lines[..1]).unwrap();
        append_lines_atomic(&path, GAMES_CSV_HEADER, &lines[1..]).unwrap();
        let rows = read_games_csv(&path).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].black_score, 0.0);
        assert_eq!(rows[1].black_score, 0.5);
        assert_eq!(rows[1].plies, 200);
        assert!(read_games_csv(&dir.path().join("none.csv"))
            .unwrap()
            .is_empty());
    }
}
