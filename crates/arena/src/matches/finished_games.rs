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
use super::runner::{GameSummary, MatchSettings, MATERIAL_SAMPLE_EVERY};
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
    let mut seen = std::collections::HashSet::new();
    for (number, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let mut game: GameSummary = serde_json::from_str(line)
            .map_err(|e| unreadable(&games_path, format!("line {}: {e}", number + 1)))?;
        if game.plies > identity.max_plies {
            return Err(unreadable(
                &games_path,
                format!(
                    "line {}: game {} lasted {} plies, beyond this match's cap of {}",
                    number + 1,
                    game.game_index,
                    game.plies,
                    identity.max_plies
                ),
            ));
        }
        if game.game_index >= total_games || !seen.insert(game.game_index) {
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
        let samples = (game.plies / MATERIAL_SAMPLE_EVERY) as usize;
        if game.a_material.len() > samples || game.a_material.iter().any(|v| !v.is_finite()) {
            return Err(unreadable(
                &games_path,
                format!(
                    "line {}: game {} of {} plies holds {} material samples (at most {samples}, \
                     finite)",
                    number + 1,
                    game.game_index,
                    game.plies,
                    game.a_material.len()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::damaged_bytes::damage;
    use crate::matches::Ending;
    use proptest::prelude::*;

    fn identity() -> MatchIdentity {
        MatchIdentity {
            player_a: "greedy".into(),
            player_b: "random".into(),
            max_plies: 300,
            cap_material_margin: Some(2),
            opening_plies: 4,
            seed: 7,
            sprt: None,
        }
    }

    fn game(index: usize, winner: Option<Side>, plies: u32, ending: Ending) -> GameSummary {
        let a_side = if index.is_multiple_of(2) {
            Side::First
        } else {
            Side::Second
        };
        GameSummary {
            game_index: index,
            black: "greedy".into(),
            white: "random".into(),
            a_side,
            score_a: score_of(winner, a_side),
            winner,
            plies,
            ending,
            termination: format!("{ending:?}"),
            record: Some(PathBuf::from(format!("game-{index:06}.txt"))),
            a_material: (1..=plies / MATERIAL_SAMPLE_EVERY)
                .map(|k| k as f32 * -1.5)
                .collect(),
        }
    }

    /// A match directory holding `identity()` and four finished games.
    fn saved_match() -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        assert!(load_or_start(dir.path(), &identity(), 8)
            .unwrap()
            .is_empty());
        let games = [
            game(0, Some(Side::First), 120, Ending::Command),
            game(1, None, 300, Ending::Cap),
            game(2, Some(Side::Second), 300, Ending::Material),
            game(5, None, 88, Ending::Repetition),
        ];
        save(dir.path(), &games).unwrap();
        let text = std::fs::read_to_string(dir.path().join(FINISHED_GAMES_FILE)).unwrap();
        (dir, text)
    }

    fn as_json(games: &[GameSummary]) -> Vec<String> {
        games
            .iter()
            .map(|g| serde_json::to_string(g).unwrap())
            .collect()
    }

    #[test]
    fn a_game_longer_than_the_cap_is_refused() {
        let (dir, text) = saved_match();
        let longer = text.replacen("\"plies\":120", "\"plies\":301", 1);
        assert_ne!(longer, text);
        std::fs::write(dir.path().join(FINISHED_GAMES_FILE), longer).unwrap();
        let error = load_or_start(dir.path(), &identity(), 8).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("301 plies, beyond this match's cap of 300"),
            "{error}"
        );
    }

    #[test]
    fn more_material_samples_than_plies_are_refused() {
        let (dir, text) = saved_match();
        // Game 0 lasted 120 plies: samples after ply 50 and 100, not a third.
        let more = text.replacen("[-1.5,-3.0]", "[-1.5,-3.0,-4.5]", 1);
        assert_ne!(more, text);
        std::fs::write(dir.path().join(FINISHED_GAMES_FILE), more).unwrap();
        let error = load_or_start(dir.path(), &identity(), 8).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("holds 3 material samples (at most 2"),
            "{error}"
        );
    }

    #[test]
    fn games_kept_before_the_material_samples_still_load() {
        let (dir, text) = saved_match();
        let older = text.replace(",\"a_material\":[-1.5,-3.0]", "");
        assert_ne!(older, text);
        std::fs::write(dir.path().join(FINISHED_GAMES_FILE), older).unwrap();
        let games = load_or_start(dir.path(), &identity(), 8).unwrap();
        assert_eq!(games.len(), 4);
        assert!(games[0].a_material.is_empty());
        assert_eq!(
            games[2].a_material,
            vec![-1.5, -3.0, -4.5, -6.0, -7.5, -9.0]
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// A damaged or hand-edited `games.jsonl` (bytes changed, cut, inserted) is refused with
        /// an error or read as games that keep the invariants the runner relies on, never a
        /// panic; what is read writes back and reads again the same.
        #[test]
        fn damaged_finished_games_are_refused_or_read_consistently(
            damage in damage(),
        ) {
            let (dir, text) = saved_match();
            let bytes = damage.apply(text.into_bytes());
            std::fs::write(dir.path().join(FINISHED_GAMES_FILE), &bytes).unwrap();
            if let Ok(games) = load_or_start(dir.path(), &identity(), 8) {
                for pair in games.windows(2) {
                    prop_assert!(pair[0].game_index < pair[1].game_index);
                }
                for g in &games {
                    prop_assert!(g.game_index < 8 && g.plies <= 300);
                    prop_assert_eq!(g.score_a, score_of(g.winner, g.a_side));
                }
                save(dir.path(), &games).unwrap();
                let again = load_or_start(dir.path(), &identity(), 8).unwrap();
                prop_assert_eq!(as_json(&again), as_json(&games));
            }
        }

        /// Any bytes at all as `match.json`: refused, or read as this match or another one.
        #[test]
        fn any_match_file_is_refused_or_compared(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
            let (dir, _) = saved_match();
            std::fs::write(dir.path().join(MATCH_FILE), &bytes).unwrap();
            match load_or_start(dir.path(), &identity(), 8) {
                Ok(games) => prop_assert_eq!(games.len(), 4),
                Err(FinishedGamesError::OtherMatch { .. } | FinishedGamesError::Unreadable { .. }) => {}
                Err(other) => prop_assert!(false, "unexpected error {other}"),
            }
        }
    }
}
