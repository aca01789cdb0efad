//! The per-game CSV table of a match or a ladder (`games.csv`, in a match's output directory
//! and in `<run>/arena/`): one line per game with both players, the result, the length, the
//! termination and the game's record file, so results can be tallied without reading the
//! records. Written and read by the arena; its format lives here, next to `ladder.csv`'s
//! ([`crate::ladder_csv`]). The records themselves are the rules crate's format
//! ([`koshogi_rules::game_record`]), and so is the result column ([`score_text`]).
//!
//! ```text
//! black,white,result,plies,termination,record
//! step-000000200,greedy,1-0,163,general and banner captured,game-000000.txt
//! ```

use std::path::Path;

use koshogi_files::atomic::write_atomic;
use koshogi_rules::game_record::score_text;
use koshogi_rules::Color;

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

/// Header of the per-game CSV tables (`games.csv`).
pub const GAMES_CSV_HEADER: &str = "black,white,result,plies,termination,record";

/// A text as a field of `games.csv`: commas and line breaks become `;` (a player named
/// `classic@nodes=20000,eval=material` is stored as `classic@nodes=20000;eval=material`, so
/// whoever looks a player up in the table compares this form).
pub fn csv_field(text: &str) -> String {
    text.replace([',', '\n', '\r'], ";")
}

/// One CSV line for a finished game (`winner`: `None` for a draw); fields never contain commas
/// (they are replaced, [`csv_field`]).
pub fn games_csv_line(
    black: &str,
    white: &str,
    winner: Option<Color>,
    plies: u32,
    termination: &str,
    record: Option<&Path>,
) -> String {
    let clean = |s: &str| csv_field(s);
    format!(
        "{},{},{},{},{},{}",
        clean(black),
        clean(white),
        score_text(winner),
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
    fn games_csv_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        let lines = [
            games_csv_line("x", "y", Some(Color::White), 10, "mate, really", None),
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
