//! Playing a match between two players: paired openings, alternating colours, many games at
//! once, `max_plies` adjudication, optional SPRT stopping, records.
//!
//! Schedule: game `i` uses opening `i / 2`; in even games player A has the first move, in odd
//! games player B, so every opening is played once with each colour (and pairs feed the
//! pentanomial SPRT). An opening is `opening_plies` uniformly random legal moves from the start
//! position, drawn from an RNG seeded by (match seed, opening index) — reproducible and different
//! for every pair.
//!
//! Parallelism: up to `parallel_games` games are in flight. Each round asks player A for moves in
//! all games where it is to move (one batched call), plays them, then does the same for B. So a
//! network player evaluates `parallel_games / 2` positions per call on average.
//!
//! A game ends by the rules, by `max_plies` (counting all plies from the start position,
//! opening included: adjudicated a draw), when the side to move has no legal move (a loss,
//! as in Ko shogi's KS-default), or when a player forfeits it ([`Choice::Forfeit`]: a
//! subprocess engine that died, ran out of time or answered garbage loses that game, and the
//! match goes on). Any other player error, or an illegal move from an in-process player, is a
//! bug and stops the match.
//!
//! Material samples: every [`MATERIAL_SAMPLE_EVERY`] plies each game notes player A's material
//! balance ([`GameSummary::a_material`]), and the summary prints its mean at plies 100, 200, …
//! with a 95 % interval ([`MatchReport::material_at`]). A player that scores 15 % against a
//! stronger one may lose 10 pawns by ply 150 or 30: the score cannot tell them apart, the
//! balance can.

use std::path::{Path, PathBuf};

use koshogi_files::atomic::write_atomic;
use koshogi_rules::game_record::{format_record, RecordResult};
use koshogi_run_store::games_csv::{games_csv_line, GAMES_CSV_HEADER};
use rand::seq::IndexedRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::ending::{Ending, EndingCounts};
use super::finished_games::{self, FinishedGamesError, MatchIdentity};
use super::game::{ArenaGame, GameEnd, Side};
use super::player::{derive_seed, Choice, MoveRequest, Player, PlayerError};
use crate::statistics::{
    EloEstimate, GameScore, MeanEstimate, PairCounts, SprtDecision, SprtSettings, SprtStatus,
    WinDrawLoss,
};

/// Plies between two samples of player A's material balance (after ply 50, 100, …).
pub const MATERIAL_SAMPLE_EVERY: u32 = 50;
/// The plies at which the summary prints A's mean balance: every 100, at most this many.
const MATERIAL_SUMMARY_POINTS: u32 = 5;

/// How a match is played.
#[derive(Clone, Debug)]
pub struct MatchSettings {
    /// Games to play (the SPRT may stop earlier). Rounded up to an even number so every opening
    /// is played with both colours.
    pub games: usize,
    /// Plies after which an unfinished game is adjudicated a draw (or by material, below).
    pub max_plies: u32,
    /// With `Some(margin)`, a game stopped at `max_plies` goes to the side with at least
    /// `margin` more pieces (Ko shogi's `koshogi_game::new_game` reads it and `max_plies`; the
    /// match runner itself only counts plies).
    pub cap_material_margin: Option<u32>,
    /// Random plies at the start of each opening.
    pub opening_plies: u32,
    /// Games in flight at once.
    pub parallel_games: usize,
    pub seed: u64,
    pub sprt: Option<SprtSettings>,
    /// Where records (`game-NNNNNN.txt`) and `games.csv` go; `None` = keep nothing on disk.
    pub output_dir: Option<PathBuf>,
}

impl Default for MatchSettings {
    fn default() -> Self {
        Self {
            games: 100,
            max_plies: 400,
            cap_material_margin: None,
            opening_plies: 4,
            parallel_games: 32,
            seed: 0,
            sprt: None,
            output_dir: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    #[error(transparent)]
    Player(#[from] PlayerError),
    #[error("player `{player}` chose an illegal move {mv} in game {game_index}")]
    IllegalMove {
        player: String,
        mv: String,
        game_index: usize,
    },
    #[error("writing game records: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    FinishedGames(#[from] FinishedGamesError),
}

/// One finished game.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct GameSummary {
    pub game_index: usize,
    pub black: String,
    pub white: String,
    /// Which seat player A had.
    pub a_side: Side,
    /// Result for player A (not stored: it follows from `winner` and `a_side`).
    #[serde(skip, default = "unscored")]
    pub score_a: GameScore,
    pub winner: Option<Side>,
    pub plies: u32,
    /// The kind of end, for breakdowns; `termination` says it in words.
    pub ending: Ending,
    pub termination: String,
    pub record: Option<PathBuf>,
    /// Player A's material balance (its material minus B's: Ko shogi's baseline scale, general
    /// 50, pawn 1) after ply 50, 100, … of the game ([`MATERIAL_SAMPLE_EVERY`]), as long as it
    /// lasted. Empty for games kept before the samples existed, and for games without material.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub a_material: Vec<f32>,
}

impl GameSummary {
    /// A's material balance after `ply` plies, if the game was sampled there.
    pub fn a_material_at(&self, ply: u32) -> Option<f64> {
        if ply == 0 || !ply.is_multiple_of(MATERIAL_SAMPLE_EVERY) {
            return None;
        }
        let index = (ply / MATERIAL_SAMPLE_EVERY - 1) as usize;
        self.a_material.get(index).map(|&v| f64::from(v))
    }

    /// The file name of the game's record (how a match's own `games.csv` names it).
    pub fn record_file_name(&self) -> Option<&Path> {
        self.record
            .as_deref()
            .and_then(|p| p.file_name())
            .map(Path::new)
    }

    /// The game's `games.csv` line, naming its record as `record` (each caller's `games.csv`
    /// names records relative to its own directory).
    pub fn csv_line(&self, record: Option<&Path>) -> String {
        games_csv_line(
            &self.black,
            &self.white,
            self.winner.map(Side::color),
            self.plies,
            &self.termination,
            record,
        )
    }
}

/// A stored game's score before it is recomputed ([`finished_games::load_or_start`]).
fn unscored() -> GameScore {
    GameScore::Draw
}

/// Running and final results of a match, from player A's point of view.
#[derive(Clone, Debug)]
pub struct MatchReport {
    pub player_a: String,
    pub player_b: String,
    pub wdl: WinDrawLoss,
    /// A's results when it moved first / second.
    pub wdl_first: WinDrawLoss,
    pub wdl_second: WinDrawLoss,
    /// Completed opening pairs by A's combined score.
    pub pairs: PairCounts,
    pub sprt: Option<SprtStatus>,
    /// Finished games; in finishing order while the match runs, by game index at the end.
    pub games: Vec<GameSummary>,
    /// The SPRT decided before all scheduled games were played.
    pub stopped_early: bool,
}

impl MatchReport {
    pub fn elo(&self) -> Option<EloEstimate> {
        EloEstimate::from_wdl(self.wdl)
    }

    /// Player A's results by how the games ended.
    pub fn endings(&self) -> EndingCounts {
        let mut counts = EndingCounts::default();
        for game in &self.games {
            counts.record(game.ending, game.score_a);
        }
        counts
    }

    /// The mean of A's material balance after `ply` plies over the games that lasted that long
    /// (`None` if none did, or `ply` is not a sampled one).
    pub fn material_at(&self, ply: u32) -> Option<MeanEstimate> {
        let values: Vec<f64> = self
            .games
            .iter()
            .filter_map(|g| g.a_material_at(ply))
            .collect();
        MeanEstimate::of(&values)
    }

    /// The summary's material line: A's mean balance at plies 100, 200, … (`None` without
    /// samples).
    fn material_summary(&self) -> Option<String> {
        let parts: Vec<String> = (1..=MATERIAL_SUMMARY_POINTS)
            .map(|k| k * 100)
            .filter_map(|ply| Some(format!("ply {ply} {}", self.material_at(ply)?)))
            .collect();
        (!parts.is_empty()).then(|| {
            format!(
                "{}'s material balance (general 50, pawn 1): {}",
                self.player_a,
                parts.join(", ")
            )
        })
    }

    pub fn mean_plies(&self) -> f64 {
        if self.games.is_empty() {
            0.0
        } else {
            self.games.iter().map(|g| g.plies as f64).sum::<f64>() / self.games.len() as f64
        }
    }

    /// Multi-line human summary.
    pub fn summary(&self) -> String {
        let mut text = format!(
            "{} vs {}: {} games, {} (as first {}, as second {}), mean length {:.1} plies",
            self.player_a,
            self.player_b,
            self.wdl.games(),
            self.wdl,
            self.wdl_first,
            self.wdl_second,
            self.mean_plies()
        );
        if !self.games.is_empty() {
            text.push_str(&format!("\nended: {}", self.endings().summary()));
        }
        if let Some(material) = self.material_summary() {
            text.push_str(&format!("\n{material}"));
        }
        if let Some(elo) = self.elo() {
            text.push_str(&format!("\n{elo}"));
        }
        if let Some(sprt) = &self.sprt {
            text.push_str(&format!("\nSPRT {sprt}"));
            if self.stopped_early {
                text.push_str(" (stopped early)");
            }
        }
        text
    }
}

/// Lets callers follow a match (progress bars, logs).
pub trait MatchObserver {
    fn game_finished(&mut self, _game: &GameSummary, _report: &MatchReport) {}
}

impl MatchObserver for () {}

struct LiveGame<G: ArenaGame> {
    index: usize,
    game: G,
    a_side: Side,
    start_position: String,
    /// The start position's side to move (records number the moves from it).
    first_to_move: Side,
    opening_plies: u32,
    moves: Vec<String>,
    plies: u32,
    legal: Vec<G::Move>,
    end: Option<GameEnd>,
    /// A's material balance every [`MATERIAL_SAMPLE_EVERY`] plies so far.
    a_material: Vec<f32>,
}

impl<G: ArenaGame> LiveGame<G> {
    /// Plays `mv` (legal) and notes A's material when the ply count reaches a sample point.
    fn play(&mut self, mv: G::Move) {
        self.game.play(mv);
        self.plies += 1;
        if self.plies.is_multiple_of(MATERIAL_SAMPLE_EVERY) {
            if let Some(balance) = self.game.material_balance(self.a_side) {
                self.a_material.push(balance as f32);
            }
        }
    }
}

/// Plays a whole match. `new_game` returns the start position.
pub fn run_match<G: ArenaGame>(
    new_game: &dyn Fn() -> G,
    player_a: &mut dyn Player<G>,
    player_b: &mut dyn Player<G>,
    settings: &MatchSettings,
    observer: &mut dyn MatchObserver,
) -> Result<MatchReport, MatchError> {
    let total_games = settings.games.div_ceil(2) * 2;
    let parallel = settings.parallel_games.max(1);
    let mut report = MatchReport {
        player_a: player_a.name(),
        player_b: player_b.name(),
        wdl: WinDrawLoss::default(),
        wdl_first: WinDrawLoss::default(),
        wdl_second: WinDrawLoss::default(),
        pairs: PairCounts::default(),
        sprt: settings
            .sprt
            .map(|s| s.status(WinDrawLoss::default(), None)),
        games: Vec::new(),
        stopped_early: false,
    };
    let mut csv_lines = Vec::new();
    let mut pending_pair_scores: std::collections::HashMap<usize, f64> = Default::default();
    let mut live: Vec<LiveGame<G>> = Vec::new();
    let mut next_index = 0;
    let mut current_opening: Option<(usize, Vec<G::Move>)> = None;
    let mut stop = false;
    // Games an earlier start of the same match finished ([`finished_games`]).
    let mut already_played = std::collections::HashSet::new();
    if let Some(dir) = &settings.output_dir {
        std::fs::create_dir_all(dir)?;
        let identity =
            MatchIdentity::new(report.player_a.clone(), report.player_b.clone(), settings);
        let finished = finished_games::load_or_start(dir, &identity, total_games)?;
        if !finished.is_empty() {
            tracing::info!(
                "resuming the match in {}: {} of {total_games} games were played before",
                dir.display(),
                finished.len()
            );
        }
        for summary in finished {
            csv_lines.push((
                summary.game_index,
                summary.csv_line(summary.record_file_name()),
            ));
            already_played.insert(summary.game_index);
            stop |= record_result(&mut report, &summary, &mut pending_pair_scores, settings);
            report.games.push(summary);
            observer.game_finished(report.games.last().expect("just pushed"), &report);
        }
        report.stopped_early = stop && report.games.len() < total_games;
    }

    loop {
        while !stop && live.len() < parallel && next_index < total_games {
            if already_played.contains(&next_index) {
                next_index += 1;
                continue;
            }
            let opening_index = next_index / 2;
            let opening = match &current_opening {
                Some((k, moves)) if *k == opening_index => moves.clone(),
                _ => {
                    let moves = make_opening(new_game, settings, opening_index);
                    current_opening = Some((opening_index, moves.clone()));
                    moves
                }
            };
            let a_side = if next_index.is_multiple_of(2) {
                Side::First
            } else {
                Side::Second
            };
            let start = new_game();
            let mut live_game = LiveGame {
                index: next_index,
                start_position: start.position_text(),
                first_to_move: start.side_to_move(),
                moves: Vec::new(),
                plies: 0,
                a_side,
                opening_plies: 0,
                legal: Vec::new(),
                end: None,
                a_material: Vec::new(),
                game: start,
            };
            replay_opening(&mut live_game, &opening);
            live.push(live_game);
            next_index += 1;
        }
        if live.is_empty() {
            break;
        }

        for mover_is_a in [true, false] {
            for g in live.iter_mut().filter(|g| g.end.is_none()) {
                update_end(g, settings.max_plies);
            }
            let player: &mut dyn Player<G> = if mover_is_a {
                &mut *player_a
            } else {
                &mut *player_b
            };
            let waiting: Vec<usize> = live
                .iter()
                .enumerate()
                .filter(|(_, g)| {
                    g.end.is_none() && (g.game.side_to_move() == g.a_side) == mover_is_a
                })
                .map(|(i, _)| i)
                .collect();
            if waiting.is_empty() {
                continue;
            }
            let requests: Vec<MoveRequest<'_, G>> = waiting
                .iter()
                .map(|&i| MoveRequest {
                    game: &live[i].game,
                    game_index: live[i].index,
                    seed: derive_seed(
                        settings.seed,
                        &[1, live[i].index as u64, live[i].plies as u64],
                    ),
                })
                .collect();
            let choices = player.choose_or_forfeit(&requests)?;
            drop(requests);
            if choices.len() != waiting.len() {
                return Err(PlayerError::Failed {
                    player: player.name(),
                    message: format!(
                        "returned {} moves for {} games",
                        choices.len(),
                        waiting.len()
                    ),
                }
                .into());
            }
            for (&i, choice) in waiting.iter().zip(choices) {
                let g = &mut live[i];
                let mv = match choice {
                    Choice::Play(mv) => mv,
                    Choice::Forfeit(reason) => {
                        let reason = forfeit_text(&player.name(), &reason);
                        tracing::warn!(game = g.index, "{reason}");
                        g.end = Some(GameEnd {
                            ending: Ending::Forfeit,
                            winner: Some(g.game.side_to_move().opposite()),
                            reason,
                        });
                        continue;
                    }
                };
                if !g.legal.contains(&mv) {
                    return Err(MatchError::IllegalMove {
                        player: player.name(),
                        mv: format!("{mv:?}"),
                        game_index: g.index,
                    });
                }
                g.moves.push(g.game.move_text(mv, &g.legal));
                g.play(mv);
                g.legal.clear();
            }
        }
        for g in live.iter_mut().filter(|g| g.end.is_none()) {
            update_end(g, settings.max_plies);
        }

        // Retire finished games in index order (deterministic reports).
        let mut finished: Vec<LiveGame<G>> = Vec::new();
        let mut k = 0;
        while k < live.len() {
            if live[k].end.is_some() {
                finished.push(live.swap_remove(k));
            } else {
                k += 1;
            }
        }
        finished.sort_by_key(|g| g.index);
        let any_finished = !finished.is_empty();
        for g in finished {
            let summary = finish_game(g, &report, settings, &mut csv_lines)?;
            let decided = record_result(&mut report, &summary, &mut pending_pair_scores, settings);
            if decided && !stop {
                stop = true;
                report.stopped_early = next_index < total_games || !live.is_empty();
            }
            report.games.push(summary);
            observer.game_finished(report.games.last().expect("just pushed"), &report);
        }
        if let (Some(dir), true) = (&settings.output_dir, any_finished) {
            finished_games::save(dir, &report.games)?;
        }
        if stop {
            // The decision is made: games still in flight are abandoned, not counted.
            live.clear();
        }
    }

    report.games.sort_by_key(|g| g.game_index);
    csv_lines.sort_by_key(|(index, _)| *index);
    if let Some(dir) = &settings.output_dir {
        let mut text = format!("{GAMES_CSV_HEADER}\n");
        for (_, line) in &csv_lines {
            text.push_str(line);
            text.push('\n');
        }
        write_atomic(&dir.join("games.csv"), text.as_bytes())?;
    }
    Ok(report)
}

/// The termination text of a forfeited game: one line, short enough for a record tag.
fn forfeit_text(player: &str, reason: &str) -> String {
    let reason = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut text = format!("forfeit by {player}: {reason}");
    if let Some((cut, _)) = text.char_indices().nth(FORFEIT_TEXT_CHARS) {
        text.truncate(cut);
        text.push('…');
    }
    text
}

/// Longest termination text of a forfeit (records and CSV lines stay readable).
const FORFEIT_TEXT_CHARS: usize = 300;

/// The opening of pair `opening_index`: random legal plies from the start, retried with a new
/// draw if the game would end inside the opening.
fn make_opening<G: ArenaGame>(
    new_game: &dyn Fn() -> G,
    settings: &MatchSettings,
    opening_index: usize,
) -> Vec<G::Move> {
    let mut moves = Vec::new();
    let mut line = Vec::new();
    for attempt in 0..16u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(
            settings.seed,
            &[0, opening_index as u64, attempt],
        ));
        let mut game = new_game();
        let mut ok = true;
        line.clear();
        for _ in 0..settings
            .opening_plies
            .min(settings.max_plies.saturating_sub(1))
        {
            moves.clear();
            game.legal_moves(&mut moves);
            match moves.choose(&mut rng) {
                Some(&mv) => {
                    line.push(mv);
                    game.play(mv);
                }
                None => {
                    ok = false;
                    break;
                }
            }
            if game.end().is_some() {
                ok = false;
                break;
            }
        }
        if ok {
            return line;
        }
    }
    Vec::new()
}

/// Plays the opening's moves on a fresh game, so the record lists them.
fn replay_opening<G: ArenaGame>(live: &mut LiveGame<G>, opening: &[G::Move]) {
    let mut legal = Vec::new();
    for &mv in opening {
        legal.clear();
        live.game.legal_moves(&mut legal);
        live.moves.push(live.game.move_text(mv, &legal));
        live.play(mv);
    }
    live.opening_plies = opening.len() as u32;
}

fn update_end<G: ArenaGame>(g: &mut LiveGame<G>, max_plies: u32) {
    if let Some(end) = g.game.end() {
        g.end = Some(end);
        return;
    }
    if g.plies >= max_plies {
        g.end = Some(GameEnd {
            winner: None,
            ending: Ending::Cap,
            reason: "max plies".into(),
        });
        return;
    }
    if g.legal.is_empty() {
        g.game.legal_moves(&mut g.legal);
        if g.legal.is_empty() {
            g.end = Some(GameEnd {
                winner: Some(g.game.side_to_move().opposite()),
                ending: Ending::NoMoves,
                reason: "no legal move".into(),
            });
        }
    }
}

fn finish_game<G: ArenaGame>(
    mut g: LiveGame<G>,
    report: &MatchReport,
    settings: &MatchSettings,
    csv_lines: &mut Vec<(usize, String)>,
) -> Result<GameSummary, MatchError> {
    let end = g.end.take().expect("finished games have an end");
    let (black, white) = match g.a_side {
        Side::First => (report.player_a.clone(), report.player_b.clone()),
        Side::Second => (report.player_b.clone(), report.player_a.clone()),
    };
    let score_a = finished_games::score_of(end.winner, g.a_side);
    let mut record_path = None;
    if let Some(dir) = &settings.output_dir {
        record_path = Some(write_record(dir, &g, &black, &white, &end)?);
    }
    let summary = GameSummary {
        game_index: g.index,
        black,
        white,
        a_side: g.a_side,
        score_a,
        winner: end.winner,
        plies: g.plies,
        ending: end.ending,
        termination: end.reason,
        record: record_path,
        a_material: std::mem::take(&mut g.a_material),
    };
    csv_lines.push((g.index, summary.csv_line(summary.record_file_name())));
    Ok(summary)
}

/// Writes the record of a finished game as `game-<index>.txt` under `dir` (atomically) in the
/// rules crate's format, and returns its path.
fn write_record<G: ArenaGame>(
    dir: &Path,
    g: &LiveGame<G>,
    black: &str,
    white: &str,
    end: &GameEnd,
) -> std::io::Result<PathBuf> {
    let tags = [
        ("Event", "koshogi arena".to_string()),
        ("Game", g.index.to_string()),
        ("Black", black.to_string()),
        ("White", white.to_string()),
        ("OpeningPlies", g.opening_plies.to_string()),
    ]
    .map(|(name, value)| (name.to_string(), value));
    let result = RecordResult {
        winner: end.winner.map(Side::color),
        termination: end.reason.clone(),
    };
    let text = format_record(
        &tags,
        &g.start_position,
        &g.moves,
        g.first_to_move == Side::First,
        Some(&result),
    );
    let path = dir.join(format!("game-{:06}.txt", g.index));
    write_atomic(&path, text.as_bytes())?;
    Ok(path)
}

/// Counts a finished game in the report (and its SPRT, if any); true once the SPRT has decided.
fn record_result(
    report: &mut MatchReport,
    summary: &GameSummary,
    pending_pair_scores: &mut std::collections::HashMap<usize, f64>,
    settings: &MatchSettings,
) -> bool {
    report.wdl.record(summary.score_a);
    match summary.a_side {
        Side::First => report.wdl_first.record(summary.score_a),
        Side::Second => report.wdl_second.record(summary.score_a),
    }
    let opening = summary.game_index / 2;
    if let Some(first) = pending_pair_scores.remove(&opening) {
        report.pairs.record(first, summary.score_a.value());
    } else {
        pending_pair_scores.insert(opening, summary.score_a.value());
    }
    let Some(sprt) = &settings.sprt else {
        return false;
    };
    let status = sprt.status(report.wdl, Some(&report.pairs));
    report.sprt = Some(status);
    status.decision != SprtDecision::Continue
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::toy::{race, Always, Careful, Race};
    use crate::matches::RandomPlayer;
    use crate::matches::FINISHED_GAMES_FILE;

    fn settings(games: usize) -> MatchSettings {
        MatchSettings {
            games,
            max_plies: 40,
            opening_plies: 1,
            parallel_games: 16,
            seed: 7,
            sprt: None,
            output_dir: None,
            cap_material_margin: None,
        }
    }

    #[test]
    fn identical_players_score_about_half() {
        let n = 2_000;
        let report = run_match(
            &race,
            &mut RandomPlayer::named("r1"),
            &mut RandomPlayer::named("r2"),
            &settings(n),
            &mut (),
        )
        .unwrap();
        assert_eq!(report.wdl.games(), n as u64);
        let score = report.wdl.score().unwrap();
        // 99.7 % band of the mean of n games whose variance is at most 1/4: ±3·0.5/sqrt(n) = ±0.034.
        let tolerance = 3.0 * 0.5 / (n as f64).sqrt();
        assert!((score - 0.5).abs() < tolerance, "score {score}");
        // Colours alternate exactly, and moving first really is an advantage here, so the
        // alternation is doing work: A's score as first mover is clearly above its score as second.
        assert_eq!(report.wdl_first.games(), report.wdl_second.games());
        assert_eq!(report.pairs.pairs(), n as u64 / 2);
    }

    #[test]
    fn a_stronger_player_wins_and_the_sprt_stops_early() {
        let mut s = settings(1_000);
        s.sprt = Some(SprtSettings::new(0.0, 50.0, 0.05, 0.05).unwrap());
        let report = run_match(&race, &mut Careful, &mut RandomPlayer::new(), &s, &mut ()).unwrap();
        let sprt = report.sprt.unwrap();
        assert_eq!(sprt.decision, SprtDecision::AcceptH1);
        assert!(sprt.llr >= sprt.upper);
        assert!(report.stopped_early);
        assert!(report.wdl.games() < 200, "{}", report.wdl.games());
        assert!(report.wdl.score().unwrap() > 0.8);
        // The weaker side as A: H0 is accepted.
        let report = run_match(&race, &mut RandomPlayer::new(), &mut Careful, &s, &mut ()).unwrap();
        assert_eq!(report.sprt.unwrap().decision, SprtDecision::AcceptH0);
    }

    #[test]
    fn max_plies_adjudicates_draws() {
        // Reaching 10 takes at least 5 plies.
        let mut s = settings(20);
        s.max_plies = 4;
        let report = run_match(
            &race,
            &mut Always::sprinter(),
            &mut Always::sprinter(),
            &s,
            &mut (),
        )
        .unwrap();
        assert_eq!(report.wdl, WinDrawLoss::new(0, 20, 0));
        assert!(report
            .games
            .iter()
            .all(|g| g.plies == 4 && g.termination.contains("max plies")));
    }

    #[test]
    fn material_is_sampled_every_fifty_plies_from_a_s_side() {
        // Two passers play to the cap; the toy's "material" is the plies played, from the first
        // player's side, so A's samples are +50, +100 as first and −50, −100 as second.
        let mut s = settings(4);
        s.max_plies = 120;
        let report = run_match(
            &race,
            &mut Always::passer(),
            &mut Always::passer(),
            &s,
            &mut (),
        )
        .unwrap();
        for g in &report.games {
            let sign = if g.a_side == Side::First { 1.0 } else { -1.0 };
            assert_eq!(g.a_material, vec![sign * 50.0, sign * 100.0], "{g:?}");
            assert_eq!(g.a_material_at(100), Some(f64::from(sign) * 100.0));
            assert_eq!(g.a_material_at(75), None);
            assert_eq!(g.a_material_at(150), None);
        }
        let at_100 = report.material_at(100).unwrap();
        assert_eq!((at_100.mean, at_100.count), (0.0, 4));
        assert_eq!(report.material_at(200), None);
        assert!(
            report
                .summary()
                .contains("passer's material balance (general 50, pawn 1): ply 100 +0.0 ± "),
            "{}",
            report.summary()
        );
        // Games shorter than 50 plies have no samples, and no material line.
        let short = run_match(
            &race,
            &mut Always::sprinter(),
            &mut Always::sprinter(),
            &settings(4),
            &mut (),
        )
        .unwrap();
        assert!(short.games.iter().all(|g| g.a_material.is_empty()));
        assert!(!short.summary().contains("material balance"));
    }

    #[test]
    fn results_do_not_depend_on_batching() {
        let mut one_at_a_time = settings(60);
        one_at_a_time.parallel_games = 1;
        let a = run_match(
            &race,
            &mut RandomPlayer::new(),
            &mut RandomPlayer::new(),
            &one_at_a_time,
            &mut (),
        )
        .unwrap();
        let b = run_match(
            &race,
            &mut RandomPlayer::new(),
            &mut RandomPlayer::new(),
            &settings(60),
            &mut (),
        )
        .unwrap();
        let outline = |r: &MatchReport| {
            r.games
                .iter()
                .map(|g| (g.game_index, g.winner, g.plies))
                .collect::<Vec<_>>()
        };
        assert_eq!(outline(&a), outline(&b));
        let mut other_seed = settings(60);
        other_seed.seed = 8;
        let c = run_match(
            &race,
            &mut RandomPlayer::new(),
            &mut RandomPlayer::new(),
            &other_seed,
            &mut (),
        )
        .unwrap();
        assert_ne!(outline(&a), outline(&c));
    }

    /// A match with an output directory started again plays only the games it lacks: the
    /// report is the one of an uninterrupted match, and no kept game is played again.
    #[test]
    fn a_match_started_again_plays_only_the_missing_games() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = settings(8);
        s.output_dir = Some(dir.path().to_path_buf());
        let whole = run_match(&race, &mut Careful, &mut RandomPlayer::new(), &s, &mut ()).unwrap();
        let outline_of = |r: &MatchReport| -> Vec<(usize, Option<Side>, u32)> {
            r.games
                .iter()
                .map(|g| (g.game_index, g.winner, g.plies))
                .collect()
        };
        let outcome = |r: &MatchReport| {
            let games: Vec<_> = r
                .games
                .iter()
                .map(|g| (g.game_index, g.winner, g.plies, g.ending))
                .collect();
            (r.wdl, r.wdl_first, r.pairs, games)
        };
        // Interrupted with games 0, 1 and 5 finished: their records are removed too, so a game
        // played again would show by its record coming back.
        let finished = dir.path().join(FINISHED_GAMES_FILE);
        let text = std::fs::read_to_string(&finished).unwrap();
        let kept: Vec<&str> = text
            .lines()
            .filter(|l| {
                [0, 1, 5]
                    .iter()
                    .any(|i| l.contains(&format!("\"game_index\":{i},")))
            })
            .collect();
        assert_eq!(kept.len(), 3);
        std::fs::write(&finished, kept.join("\n") + "\n").unwrap();
        for i in [0, 1, 5] {
            std::fs::remove_file(dir.path().join(format!("game-{i:06}.txt"))).unwrap();
        }
        let resumed =
            run_match(&race, &mut Careful, &mut RandomPlayer::new(), &s, &mut ()).unwrap();
        assert_eq!(outcome(&resumed), outcome(&whole));
        for i in 0..8 {
            let record = dir.path().join(format!("game-{i:06}.txt"));
            assert_eq!(record.exists(), ![0, 1, 5].contains(&i), "game {i}");
        }
        let rows =
            koshogi_run_store::games_csv::read_games_csv(&dir.path().join("games.csv")).unwrap();
        assert_eq!(rows.len(), 8, "games.csv lists the kept games too");

        // More games of the same match keep the eight and play two more.
        let mut longer = s.clone();
        longer.games = 10;
        let extended = run_match(
            &race,
            &mut Careful,
            &mut RandomPlayer::new(),
            &longer,
            &mut (),
        )
        .unwrap();
        assert_eq!(extended.games.len(), 10);
        assert_eq!(outline_of(&extended)[..8], outline_of(&whole)[..]);
        // Fewer games than were played is refused: the kept games are never dropped.
        let err = run_match(&race, &mut Careful, &mut RandomPlayer::new(), &s, &mut ())
            .unwrap_err()
            .to_string();
        assert!(err.contains("beyond the 8 games"), "{err}");

        // Another match in the same directory is refused, naming what differs.
        let mut other = s.clone();
        other.max_plies += 1;
        let err = run_match(
            &race,
            &mut Careful,
            &mut RandomPlayer::new(),
            &other,
            &mut (),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("another match") && err.contains("max_plies"),
            "{err}"
        );
        // A damaged file is an error that names it, not a panic or a silent restart.
        for damaged in ["{\"game_index\": 1", "{\"game_index\": 99, \"black\": 1}"] {
            std::fs::write(&finished, damaged).unwrap();
            let err = run_match(&race, &mut Careful, &mut RandomPlayer::new(), &s, &mut ())
                .unwrap_err()
                .to_string();
            assert!(err.contains(FINISHED_GAMES_FILE), "{err}");
        }
    }

    #[test]
    fn each_opening_is_played_with_both_colours_and_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = settings(7); // rounded up to 8
        s.opening_plies = 3;
        s.output_dir = Some(dir.path().to_path_buf());
        let report = run_match(&race, &mut Careful, &mut RandomPlayer::new(), &s, &mut ()).unwrap();
        assert_eq!(report.games.len(), 8);
        for (k, pair) in report.games.chunks(2).enumerate() {
            assert_eq!((pair[0].game_index, pair[1].game_index), (2 * k, 2 * k + 1));
            assert_eq!(pair[0].black, "careful");
            assert_eq!(pair[1].white, "careful");
            let read =
                |g: &GameSummary| std::fs::read_to_string(g.record.as_ref().unwrap()).unwrap();
            let (first, second) = (read(&pair[0]), read(&pair[1]));
            let opening = |text: &str| -> Vec<String> {
                let moves: Vec<String> = text
                    .lines()
                    .skip_while(|l| !l.is_empty())
                    .skip(1)
                    .flat_map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
                    .filter(|t| t.starts_with('+'))
                    .collect();
                moves[..3].to_vec()
            };
            assert_eq!(opening(&first), opening(&second));
            assert!(first.contains("[OpeningPlies \"3\"]"));
        }
        // Different pairs get different openings (27 possible 3-ply lines, 4 pairs: a repeat of
        // all four would be a seeding bug).
        let rows =
            koshogi_run_store::games_csv::read_games_csv(&dir.path().join("games.csv")).unwrap();
        assert_eq!(rows.len(), 8);
        assert_eq!(rows[0].black, "careful");
        assert_eq!(rows[1].white, "careful");
    }

    /// Forfeits the game with index 1 whenever asked for a move in it, plays randomly elsewhere.
    struct Quitter;

    impl Player<Race> for Quitter {
        fn name(&self) -> String {
            "quitter".into()
        }

        fn choose_moves(
            &mut self,
            requests: &[MoveRequest<'_, Race>],
        ) -> Result<Vec<u32>, PlayerError> {
            RandomPlayer::new().choose_moves(requests)
        }

        fn choose_or_forfeit(
            &mut self,
            requests: &[MoveRequest<'_, Race>],
        ) -> Result<Vec<Choice<u32>>, PlayerError> {
            let moves = self.choose_moves(requests)?;
            Ok(requests
                .iter()
                .zip(moves)
                .map(|(r, mv)| {
                    if r.game_index == 1 {
                        Choice::Forfeit("engine exited\nwith status 3".into())
                    } else {
                        Choice::Play(mv)
                    }
                })
                .collect())
        }
    }

    #[test]
    fn a_forfeit_loses_that_game_and_the_match_goes_on() {
        let report = run_match(
            &race,
            &mut Quitter,
            &mut RandomPlayer::new(),
            &settings(4),
            &mut (),
        )
        .unwrap();
        assert_eq!(report.games.len(), 4);
        let game = &report.games[1];
        assert_eq!(game.score_a, GameScore::Loss);
        assert_eq!(game.winner, Some(game.a_side.opposite()));
        assert_eq!(
            game.termination,
            "forfeit by quitter: engine exited with status 3"
        );
        assert!(report.games[0].termination != game.termination);
        let long = forfeit_text("p", &"x".repeat(10_000));
        assert_eq!(long.chars().count(), FORFEIT_TEXT_CHARS + 1);
    }

    #[test]
    fn illegal_moves_are_reported() {
        let err = run_match(
            &race,
            &mut Always::cheater(),
            &mut RandomPlayer::new(),
            &settings(2),
            &mut (),
        )
        .unwrap_err();
        assert!(matches!(err, MatchError::IllegalMove { .. }), "{err}");
    }
}
