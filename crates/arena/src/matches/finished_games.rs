//! The finished games of a match with an output directory, kept so that the same match started
//! again after Ctrl-C, a crash or a shutdown plays only the games still missing.
//!
//! Why: a hundred games of a classical engine at a second a move take most of a day on two
//! cores; losing every finished game to an interruption made such matches impossible to finish.
//! Two files beside the records:
//! * `match.json`: what decides the games ([`MatchIdentity`]: both players' names, the cap and
//!   its adjudication, the openings' length and seed, the SPRT). A directory holding another
//!   match's games is refused, never mixed or overwritten. The number of games is not part of
//!   it: game `i` is the same game in a match of any length, so a match started again with more
//!   games keeps the ones it has and plays on.
//! * `games.jsonl`: one [`GameSummary`] a line, rewritten atomically after every game.
//!
//! A game's result alone is stored: which seat A had and who won, its length and how it ended.
//! Its score and the opening pairs are recomputed from them, so a resumed report is the one an
//! uninterrupted match would have made from the same games.

use std::path::{Path, PathBuf};

use koshogi_files::atomic::write_atomic;
use koshogi_files::small_file::read_small_text;

use super::game::Side;
use super::runner::{GameSummary, MatchSettings};
use crate::statistics::{GameScore, SprtSettings};

pub const MATCH_FILE: &str = "match.json";
pub const FINISHED_GAMES_FILE: &str = "games.jsonl";

/// The largest `games.jsonl` read: a line is a few hundred bytes, a forfeit's reason at most
/// some 1,300, so this holds well over 10,000 games.
const MAX_FINISHED_BYTES: u64 = 16 << 20;

/// Everything that decides a match's games, as `match.json` stores it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MatchIdentity {
    pub player_a: String,
    pub player_b: String,
    pub max_plies: u32,
    pub cap_material_margin: Option<u32>,
    pub opening_plies: u32,
    pub seed: u64,
    pub sprt: Option<SprtSettings>,
}

impl MatchIdentity {
    pub fn new(player_a: String, player_b: String, settings: &MatchSettings) -> Self {
        Self {
            player_a,
            player_b,
            max_plies: settings.max_plies,
            cap_material_margin: settings.cap_material_margin,
            opening_plies: settings.opening_plies,
            seed: settings.seed,
            sprt: settings.sprt,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FinishedGamesError {
    #[error(
        "{dir} holds the games of another match ({difference}); give this one another \
         directory, or remove {dir}/{MATCH_FILE} and {dir}/{FINISHED_GAMES_FILE} to start over"
    )]
    OtherMatch { dir: PathBuf, difference: String },
    #[error("{path}: {reason}")]
    Unreadable { path: PathBuf, reason: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The games already played of the match `identity` of `total_games` games in `dir`, by game
/// index; records the identity when the directory holds no match yet.
pub fn load_or_start(
    dir: &Path,
    identity: &MatchIdentity,
    total_games: usize,
) -> Result<Vec<GameSummary>, FinishedGamesError> {
    let match_path = dir.join(MATCH_FILE);
    if !match_path.exists() {
        let text = serde_json::to_string_pretty(identity).expect("an identity serialises") + "\n";
        write_atomic(&match_path, text.as_bytes()).map_err(|source| FinishedGamesError::Io {
            path: match_path.clone(),
            source,
        })?;
        // Games kept without their match's identity cannot be trusted to belong to it.
        return Ok(Vec::new());
    }
    let unreadable = |path: &Path, reason: String| FinishedGamesError::Unreadable {
        path: path.to_path_buf(),
        reason,
    };
    let text = read_small_text(&match_path, 64 << 10)
        .map_err(|e| unreadable(&match_path, e.to_string()))?;
    let stored: MatchIdentity = serde_json::from_str(&text)
        .map_err(|e| unreadable(&match_path, format!("not a match identity: {e}")))?;
    if let Some(difference) = difference(&stored, identity) {
        return Err(FinishedGamesError::OtherMatch {
            dir: dir.to_path_buf(),
            difference,
        });
    }
    let games_path = dir.join(FINISHED_GAMES_FILE);
    if !games_path.exists() {
        return Ok(Vec::new());
    }
    let text = read_small_text(&games_path, MAX_FINISHED_BYTES)
        .map_err(|e| unreadable(&games_path, e.to_string()))?;
    let mut games: Vec<GameSummary> = Vec::new();
    for (number, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let mut game: GameSummary = serde_json::from_str(line)
            .map_err(|e| unreadable(&games_path, format!("line {}: {e}", number + 1)))?;
        if game.game_index >= total_games || games.iter().any(|g| g.game_index == game.game_index) {
            return Err(unreadable(
                &games_path,
                format!(
                    "line {}: game {} is there twice, or beyond the {total_games} games asked for \
                     (ask for at least as many as were played)",
                    number + 1,
                    game.game_index,
                ),
            ));
        }
        game.score_a = score_of(game.winner, game.a_side);
        games.push(game);
    }
    games.sort_by_key(|g| g.game_index);
    Ok(games)
}

/// Rewrites `games.jsonl` with every finished game (atomically).
pub fn save(dir: &Path, games: &[GameSummary]) -> Result<(), FinishedGamesError> {
    let mut text = String::new();
    for game in games {
        text.push_str(&serde_json::to_string(game).expect("a game summary serialises"));
        text.push('\n');
    }
    let path = dir.join(FINISHED_GAMES_FILE);
    write_atomic(&path, text.as_bytes()).map_err(|source| FinishedGamesError::Io { path, source })
}

/// Player A's score in a game won by `winner` (`None`: a draw).
pub fn score_of(winner: Option<Side>, a_side: Side) -> GameScore {
    match winner {
        None => GameScore::Draw,
        Some(side) if side == a_side => GameScore::Win,
        Some(_) => GameScore::Loss,
    }
}

/// What differs between the stored and the asked match, in words.
fn difference(stored: &MatchIdentity, asked: &MatchIdentity) -> Option<String> {
    let (a, b) = (
        serde_json::to_value(stored).expect("an identity serialises"),
        serde_json::to_value(asked).expect("an identity serialises"),
    );
    let fields = a.as_object()?;
    let differing: Vec<String> = fields
        .iter()
        .filter(|(name, value)| b.get(name.as_str()) != Some(value))
        .map(|(name, value)| format!("{name} {value} there, {} here", b[name.as_str()]))
        .collect();
    (!differing.is_empty()).then(|| differing.join("; "))
}
