//! Replay shards of random-play games, for tests and `koshogi bench train`.
//!
//! The trainer's input path (shard reading, position decoding, move generation, feature and
//! move encoding) is the same whatever played the games, so uniformly random legal play with
//! made-up search targets exercises all of it without a network or a search. The targets obey
//! the shard format's rules (policy indices below the legal move count, results from the
//! mover's view), so the losses behave like real ones.

use std::path::Path;

use koshogi_replay::{
    EndReason, PolicyEntry, PositionRecord, Provenance, ShardDir, ShardError, ShardWriter,
};
use koshogi_rules::{Color, Game, Outcome, RulesOptions};
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use koshogi_replay::encode_position;

/// What to generate.
#[derive(Debug, Clone)]
pub struct SyntheticOptions {
    pub games: usize,
    /// Games are cut (as draws) after this many plies.
    pub max_plies: u32,
    pub positions_per_shard: usize,
    pub seed: u64,
    /// Moves with a non-zero target in a fully searched position (the played move included).
    pub policy_moves: usize,
    /// Fraction of positions marked as fully searched (the rest carry no policy target).
    pub full_search_fraction: f64,
    /// Writer id in the shard file names.
    pub writer_id: String,
}

impl Default for SyntheticOptions {
    fn default() -> Self {
        Self {
            games: 4,
            max_plies: 40,
            positions_per_shard: 64,
            seed: 1,
            policy_moves: 4,
            full_search_fraction: 0.5,
            writer_id: "synthetic".into(),
        }
    }
}

/// What was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyntheticReport {
    pub games: usize,
    pub positions: u64,
    pub shards: usize,
}

/// Plays `options.games` random games and writes them as shards into `shards_dir`.
pub fn write_random_games(
    shards_dir: &Path,
    options: &SyntheticOptions,
) -> Result<SyntheticReport, ShardError> {
    let rules = RulesOptions::default();
    let provenance = Provenance {
        rules_options: serde_json::to_value(rules).expect("rules options serialise"),
        ..Provenance::default()
    };
    let dir = ShardDir::open(shards_dir)?;
    let mut writer = ShardWriter::new(
        dir,
        options.writer_id.clone(),
        provenance,
        options.positions_per_shard,
    )?;
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let mut report = SyntheticReport {
        games: 0,
        positions: 0,
        shards: 0,
    };
    for game_index in 0..options.games {
        let records = random_game(&rules, options, game_index as u64, &mut rng);
        report.positions += records.len() as u64;
        report.games += 1;
        if writer.add_game(&records)?.is_some() {
            report.shards += 1;
        }
    }
    if writer.flush()?.is_some() {
        report.shards += 1;
    }
    Ok(report)
}

fn random_game(
    rules: &RulesOptions,
    options: &SyntheticOptions,
    game_id: u64,
    rng: &mut ChaCha8Rng,
) -> Vec<PositionRecord> {
    let mut game = Game::new(*rules).with_max_plies(Some(options.max_plies));
    let mut moves = Vec::new();
    let mut records: Vec<(PositionRecord, Color)> = Vec::new();
    while game.outcome().is_none() {
        game.generate_legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        let position = game.position();
        let played = rng.random_range(0..moves.len());
        let full_search = rng.random::<f64>() < options.full_search_fraction;
        let policy = if full_search {
            let others = options.policy_moves.clamp(1, moves.len()) - 1;
            let mut chosen: Vec<usize> = sample(rng, moves.len(), moves.len().min(others + 1))
                .into_iter()
                .filter(|&m| m != played)
                .take(others)
                .collect();
            chosen.push(played);
            let weights: Vec<f32> = chosen.iter().map(|_| rng.random_range(0.05..1.0)).collect();
            let sum: f32 = weights.iter().sum();
            chosen
                .iter()
                .zip(&weights)
                .map(|(&m, &w)| PolicyEntry {
                    move_index: m as u32,
                    weight: w / sum,
                })
                .collect()
        } else {
            Vec::new()
        };
        let record = PositionRecord {
            board: encode_position(position),
            game_id,
            ply: position.ply(),
            legal_move_count: moves.len() as u32,
            played_move: played as u32,
            full_search,
            policy,
            search_value: rng.random_range(-1.0..=1.0),
            game_result: 0,
            moves_left: 0,
            final_material: 0,
            end_reason: EndReason::Unknown,
        };
        records.push((record, position.side_to_move()));
        game.play(moves[played]);
    }
    let end = game.position();
    let total_plies = records.len() as u32;
    let winner = match game.outcome() {
        Some(Outcome::Win { winner, .. }) => Some(winner),
        _ => None,
    };
    records
        .into_iter()
        .enumerate()
        .map(|(i, (mut record, mover))| {
            record.game_result = match winner {
                Some(w) if w == mover => 1,
                Some(_) => -1,
                None => 0,
            };
            record.moves_left = total_plies - i as u32;
            record.final_material =
                end.piece_count(mover) as i16 - end.piece_count(mover.opposite()) as i16;
            record.end_reason = game
                .outcome()
                .map_or(EndReason::Unknown, |o| EndReason::of(&o));
            record
        })
        .collect()
}
