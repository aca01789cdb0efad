//! Game records: one finished (or unfinished) game as PGN-like text.
//!
//! Self-play, the arena and the engine all save games in this one format so that any of them can
//! be replayed with `koshogi show --game FILE --ply N`. Moves are written in Hodges-style
//! notation (§11.1), which needs the position before each move, so a record is formatted by
//! replaying it; reading accepts Hodges or canonical notation.
//!
//! ```text
//! [Event "koshogi selfplay"]
//! [Black "step 1200"]
//! [White "step 1200"]
//! [Start "<KSFEN of the initial position>"]
//! [Plies "57"]
//! [Result "1-0"]
//! [Termination "command destroyed"]
//!
//! 1. P-16n 1... p-4f 2. VA-10h …
//! 1-0
//! ```

use std::fmt::Write as _;

use crate::notation::{excerpt, format_hodges, parse_move, NotationError};
use crate::{
    Color, DrawReason, Game, KsfenError, Move, Outcome, Position, RulesOptions, WinReason,
};

/// A game: tags, the start position, the moves and the result.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Extra `[Name "value"]` tags in order (Event, Black, White, …); `Start`, `Plies`, `Result`
    /// and `Termination` are derived from the fields below and must not be repeated here.
    pub tags: Vec<(String, String)>,
    pub start: Position,
    pub moves: Vec<Move>,
    /// `None` for an unfinished game (written `*`).
    pub result: Option<RecordResult>,
}

/// How a recorded game ended, as far as a record says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordResult {
    /// `None` for a draw.
    pub winner: Option<Color>,
    /// Free text: "command destroyed", "resignation", "max plies", …
    pub termination: String,
}

impl RecordResult {
    /// The result of a game that ended by the rules (or by `max_plies` adjudication).
    pub fn from_outcome(outcome: Outcome) -> RecordResult {
        RecordResult {
            winner: outcome.winner(),
            termination: termination_text(outcome).into(),
        }
    }

    /// "1-0" (Black won), "0-1" (White won) or "1/2-1/2".
    pub fn score_text(&self) -> &'static str {
        score_text(self.winner)
    }
}

/// The result of a game won by `winner` (`None`: a draw) as a record writes it: "1-0" (Black
/// won), "0-1" (White won) or "1/2-1/2".
pub fn score_text(winner: Option<Color>) -> &'static str {
    match winner {
        Some(Color::Black) => "1-0",
        Some(Color::White) => "0-1",
        None => "1/2-1/2",
    }
}

/// A short human-readable reason for an outcome.
pub fn termination_text(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win {
            reason: WinReason::CommandDestroyed,
            ..
        } => "command destroyed",
        Outcome::Win {
            reason: WinReason::NoLegalMoves,
            ..
        } => "no legal moves",
        Outcome::Win {
            reason: WinReason::PerpetualCheck,
            ..
        } => "perpetual check",
        Outcome::Win {
            reason: WinReason::MutualDestruction,
            ..
        } => "mutual destruction",
        Outcome::Win {
            reason: WinReason::Resignation,
            ..
        } => "resignation",
        Outcome::Win {
            reason: WinReason::MaterialAdjudication,
            ..
        } => "material at max plies",
        Outcome::Draw(DrawReason::Repetition) => "fourfold repetition",
        Outcome::Draw(DrawReason::NoLegalMoves) => "no legal moves",
        Outcome::Draw(DrawReason::MutualDestruction) => "mutual destruction",
        Outcome::Draw(DrawReason::MaxPlies) => "max plies",
    }
}

/// Why a record could not be read or replayed.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("line {line}: malformed tag {text:?} (expected [Name \"value\"])")]
    BadTag { line: usize, text: String },
    #[error("Start tag: {0}")]
    BadStart(#[from] KsfenError),
    #[error("move {number} ({text:?}): {source}")]
    BadMove {
        number: usize,
        text: String,
        source: NotationError,
    },
    #[error("move {number} ({text:?}) was played after the game had ended")]
    MoveAfterEnd { number: usize, text: String },
    #[error("move {number} of the record is not legal in its position")]
    IllegalMove { number: usize },
    #[error("unknown result {0:?} (expected 1-0, 0-1, 1/2-1/2 or *)")]
    BadResult(String),
}

/// The largest record file [`read_record_file`] reads: a 1,000-ply game is about 20 KB, so
/// anything near this is not a game record (and is not read whole).
pub const MAX_RECORD_BYTES: u64 = 8 << 20;

/// The text of a record file of at most [`MAX_RECORD_BYTES`] (read through a bound, so a
/// device or a huge file is refused rather than read into memory).
pub fn read_record_file(path: &std::path::Path) -> std::io::Result<String> {
    // Its own bounded read rather than koshogi-files' `small_file::read_bounded` (the
    // workspace's one for run files): the rules crate is the bottom of the graph, on serde and
    // thiserror alone, and koshogi-files would bring atomic-write-file (nix, rand 0.10,
    // getrandom) and sha2 into it and into everything built on the rules alone
    // (koshogi-baselines, the fuzz targets), for a dozen lines. Not a cycle (koshogi-files
    // depends on no crate of ours) nor a target question (nothing is built for wasm): only the
    // rules crate staying small.
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(MAX_RECORD_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_RECORD_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("over {MAX_RECORD_BYTES} bytes: not a game record"),
        ));
    }
    Ok(text)
}

impl GameRecord {
    /// Replays the record into a [`Game`] (all moves, or the first `plies`).
    pub fn replay(&self, options: RulesOptions, plies: Option<usize>) -> Result<Game, RecordError> {
        let mut game = Game::from_position(self.start.clone(), options);
        for (i, &mv) in self
            .moves
            .iter()
            .take(plies.unwrap_or(usize::MAX))
            .enumerate()
        {
            game.try_play(mv)
                .map_err(|_| RecordError::IllegalMove { number: i + 1 })?;
        }
        Ok(game)
    }

    /// The record as text (moves in Hodges notation, replayed from the start position).
    pub fn to_text(&self, options: RulesOptions) -> Result<String, RecordError> {
        let mut game = Game::from_position(self.start.clone(), options);
        let mut legal = Vec::new();
        let mut moves = Vec::with_capacity(self.moves.len());
        for (i, &mv) in self.moves.iter().enumerate() {
            game.generate_legal_moves(&mut legal);
            if !legal.contains(&mv) {
                return Err(RecordError::IllegalMove { number: i + 1 });
            }
            moves.push(format_hodges(game.position(), &legal, &mv));
            game.play(mv);
        }
        Ok(format_record(
            &self.tags,
            &self.start.to_ksfen(true),
            &moves,
            self.start.side_to_move() == Color::Black,
            self.result.as_ref(),
        ))
    }

    /// Reads a record written by [`GameRecord::to_text`] (or by hand: move numbers are optional,
    /// moves may be in Hodges or canonical notation). A missing `Start` tag means the start
    /// position.
    pub fn parse(text: &str, options: RulesOptions) -> Result<GameRecord, RecordError> {
        let mut tags = Vec::new();
        let mut start = Position::startpos();
        let mut termination = String::new();
        let mut result_tag: Option<String> = None;
        let mut tokens = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with(';') {
                continue;
            }
            if line.starts_with('[') {
                let (name, value) = parse_tag(line).ok_or_else(|| RecordError::BadTag {
                    line: index + 1,
                    text: excerpt(line),
                })?;
                match name {
                    "Start" => start = Position::from_ksfen(value)?,
                    "Plies" => {}
                    "Result" => result_tag = Some(value.to_string()),
                    "Termination" => termination = value.to_string(),
                    _ => tags.push((name.to_string(), value.to_string())),
                }
                continue;
            }
            tokens.extend(line.split_whitespace().map(str::to_string));
        }

        let mut game = Game::from_position(start.clone(), options);
        let mut moves = Vec::new();
        let mut result_token: Option<String> = None;
        for token in tokens {
            if is_move_number(&token) {
                continue;
            }
            if matches!(token.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
                result_token = Some(token);
                continue;
            }
            let number = moves.len() + 1;
            if game.outcome().is_some() {
                return Err(RecordError::MoveAfterEnd {
                    number,
                    text: excerpt(&token),
                });
            }
            let mv = parse_move(&game, &token).map_err(|source| RecordError::BadMove {
                number,
                text: excerpt(&token),
                source,
            })?;
            game.play(mv);
            moves.push(mv);
        }
        let result = match result_tag.or(result_token).as_deref() {
            None | Some("*") => None,
            Some("1-0") => Some(RecordResult {
                winner: Some(Color::Black),
                termination,
            }),
            Some("0-1") => Some(RecordResult {
                winner: Some(Color::White),
                termination,
            }),
            Some("1/2-1/2") => Some(RecordResult {
                winner: None,
                termination,
            }),
            Some(other) => return Err(RecordError::BadResult(excerpt(other))),
        };
        Ok(GameRecord {
            tags,
            start,
            moves,
            result,
        })
    }

    /// The value of a tag given in [`GameRecord::tags`].
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The text of a record whose moves are already written in a notation: the `tags` in order,
/// then `Start`, `Plies`, `Result` and `Termination`, a blank line, the numbered moves (lines
/// of at most 96 columns) and the result. `first_black`: the first move is Black's (`1.`) or
/// White's (`1...`). [`GameRecord::to_text`] writes Ko shogi games through it; the arena's
/// match runner, which plays any game, writes its records through it too, so there is one
/// layout for [`GameRecord::parse`] to read.
pub fn format_record(
    tags: &[(String, String)],
    start_ksfen: &str,
    moves: &[String],
    first_black: bool,
    result: Option<&RecordResult>,
) -> String {
    let mut text = String::new();
    let tag = |text: &mut String, name: &str, value: &str| {
        let _ = writeln!(text, "[{name} \"{}\"]", value.replace(['"', '\n'], "'"));
    };
    for (name, value) in tags {
        tag(&mut text, name, value);
    }
    tag(&mut text, "Start", start_ksfen);
    tag(&mut text, "Plies", &moves.len().to_string());
    let score = result.map_or("*", RecordResult::score_text);
    tag(&mut text, "Result", score);
    if let Some(r) = result {
        tag(&mut text, "Termination", &r.termination);
    }
    text.push('\n');
    let mut line = String::new();
    for (i, mv) in moves.iter().enumerate() {
        let black_to_move = (i % 2 == 0) == first_black;
        let number = (i + usize::from(!first_black)) / 2 + 1;
        let token = if black_to_move {
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
    text.push_str(score);
    text.push('\n');
    text
}

/// `[Name "value"]` → (Name, value).
fn parse_tag(line: &str) -> Option<(&str, &str)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let (name, rest) = inner.split_once(' ')?;
    let value = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric())).then_some((name, value))
}

/// `12.` or `12...`
fn is_move_number(token: &str) -> bool {
    let digits = token.trim_end_matches('.');
    digits.len() < token.len() && !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays `plies` moves choosing by a fixed arithmetic rule (no RNG needed).
    fn some_game(plies: usize) -> Game {
        let mut game = Game::new(RulesOptions::default());
        for i in 0..plies {
            let legal = game.legal_moves();
            if legal.is_empty() || game.outcome().is_some() {
                break;
            }
            game.play(legal[(i * 7919 + 13) % legal.len()]);
        }
        game
    }

    #[test]
    fn text_round_trip_keeps_moves_tags_and_result() {
        let game = some_game(40);
        let record = GameRecord {
            tags: vec![
                ("Event".into(), "test".into()),
                ("Black".into(), "a \"quoted\" name".into()),
            ],
            start: Position::startpos(),
            moves: game.moves().copied().collect(),
            result: Some(RecordResult {
                winner: None,
                termination: "max plies".into(),
            }),
        };
        let text = record.to_text(RulesOptions::default()).unwrap();
        assert!(text.contains("[Result \"1/2-1/2\"]"), "{text}");
        assert!(text.contains("1. ") && text.contains("1... "), "{text}");
        let back = GameRecord::parse(&text, RulesOptions::default()).unwrap();
        assert_eq!(back.moves, record.moves);
        assert_eq!(back.result, record.result);
        assert_eq!(back.tag("Event"), Some("test"));
        assert_eq!(back.tag("Black"), Some("a 'quoted' name"));
        let replayed = back.replay(RulesOptions::default(), Some(10)).unwrap();
        assert_eq!(replayed.plies_played(), 10);
    }

    #[test]
    fn a_bad_move_is_reported_with_its_number() {
        let text = "1. VA-10i 1... VA-10h 2. VA-10z\n";
        match GameRecord::parse(text, RulesOptions::default()) {
            Err(RecordError::BadMove { number, .. }) => assert_eq!(number, 3),
            other => panic!("expected a bad third move, got {other:?}"),
        }
    }

    #[test]
    fn the_layout_numbers_moves_and_ends_with_the_result() {
        let moves: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let result = RecordResult {
            winner: Some(Color::Black),
            termination: "general captured".into(),
        };
        let tags = [("Black".to_string(), "greedy".to_string())];
        let text = format_record(&tags, "startpos", &moves, true, Some(&result));
        assert!(text.starts_with("[Black \"greedy\"]\n[Start \"startpos\"]\n[Plies \"3\"]\n"));
        assert!(text.contains("[Result \"1-0\"]\n[Termination \"general captured\"]\n\n"));
        assert!(text.contains("\n1. a 1... b 2. c\n"), "{text}");
        assert!(text.ends_with("\n1-0\n"));
        // White moving first: its move is `1...`.
        let text = format_record(&[], "s", &moves, false, None);
        assert!(text.contains("\n1... a 2. b 2... c\n*\n"), "{text}");
    }

    /// Records the arena wrote before it used [`format_record`] (its own writer put `Game` and
    /// `OpeningPlies` between `White` and `Plies`, after `Start`) still read.
    #[test]
    fn an_arena_record_of_the_old_writer_reads() {
        let game = some_game(6);
        let start = Position::startpos();
        let moves = GameRecord {
            tags: Vec::new(),
            start: start.clone(),
            moves: game.moves().copied().collect(),
            result: None,
        }
        .to_text(RulesOptions::default())
        .unwrap();
        let move_lines = moves.split("\n\n").nth(1).unwrap().replace("\n*\n", "\n");
        let old = format!(
            "[Event \"koshogi arena\"]\n[Game \"12\"]\n[Black \"greedy\"]\n[White \"random\"]\n\
             [Start \"{}\"]\n[OpeningPlies \"4\"]\n[Plies \"6\"]\n[Result \"0-1\"]\n\
             [Termination \"max plies\"]\n\n{move_lines}0-1\n",
            start.to_ksfen(true)
        );
        let record = GameRecord::parse(&old, RulesOptions::default()).unwrap();
        assert_eq!(record.moves, game.moves().copied().collect::<Vec<_>>());
        assert_eq!(record.tag("Game"), Some("12"));
        assert_eq!(record.tag("OpeningPlies"), Some("4"));
        assert_eq!(
            record.result,
            Some(RecordResult {
                winner: Some(Color::White),
                termination: "max plies".into()
            })
        );
    }

    #[test]
    fn malformed_tags_and_results_are_rejected() {
        assert!(matches!(
            GameRecord::parse("[Start startpos]\n", RulesOptions::default()),
            Err(RecordError::BadTag { line: 1, .. })
        ));
        assert!(matches!(
            GameRecord::parse("[Result \"2-0\"]\n", RulesOptions::default()),
            Err(RecordError::BadResult(_))
        ));
    }
}
