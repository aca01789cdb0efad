//! Which positions go into each training batch, and turning them into network inputs.
//!
//! * Uniform sampling (with replacement) over the window of most recent rows
//!   ([`crate::window_size`]).
//! * Left–right mirror augmentation: the rules are mirror-symmetric (the start position is
//!   not), so a position's mirror image with mirrored moves is an equally valid example. The
//!   features are mirrored with `koshogi_nn::features::mirror_features` and every legal move's
//!   legs with `MoveLegs::mirrored`; the target indices, which refer to the move-generation
//!   order of the stored position, stay as they are.
//! * A reuse cap: at most `samples_per_new_row` samples per row ever produced (KataGo's
//!   train-bucket pacing); beyond it the sampler reports [`Draw::Starved`] and the caller
//!   waits for self-play.
//!
//! Batch `k` draws from stream `k` of a ChaCha generator seeded with the run's seed, so the
//! cursor (seed, batches drawn, the shard numbering) is the entire sampler state and a resumed
//! run draws exactly the batches the uninterrupted one would have drawn.

use std::sync::Arc;

use koshogi_nn::features::{encode_position, mirror_features, FeatureInput, FEATURE_LEN};
use koshogi_nn::move_encoding::encode_moves;
use koshogi_nn::{ModelConfig, MoveLegs, NnError, SampleTargets, TrainingBatchBuilder};
use koshogi_rules::Move;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::config::{CappedValue, MaterialHeadTarget, TrainConfig};
use crate::replay_window::{KnownShard, Refresh, ReplayWindow, ReplayWindowError, WindowRow};
use crate::window_size::WindowConfig;
use koshogi_replay::targets::value_target;
use koshogi_replay::{position_and_moves, ShardSource, StoredMovesError};

/// What the sampler needs from the run configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplerConfig {
    pub batch_size: usize,
    /// 0 = no reuse cap.
    pub samples_per_new_row: f64,
    pub mirror_probability: f64,
    /// Rows that must exist before the first batch.
    pub start_rows: u64,
    /// Weight of the search value in the value target (0 = the game result alone).
    pub search_value_weight: f64,
    /// Weight of the material outlook in the value target (0 = none), see
    /// [`koshogi_replay::targets::material_outlook`].
    pub outlook_weight: f64,
    /// Plies ahead the material outlook looks.
    pub outlook_horizon: u32,
    /// How the outlook counts games won on material at the ply cap.
    pub capped_value: CappedValue,
    /// What the material head learns.
    pub material_head_target: MaterialHeadTarget,
    /// The head learns the change of the balance rather than the balance itself
    /// (`ModelConfig::material_relative`; only with [`MaterialHeadTarget::Ahead`]).
    pub material_relative: bool,
    /// Fill the attack planes of the inputs (`ModelConfig::attack_planes`).
    pub attack_planes: bool,
    /// The self-play ply limit (an input feature is the ply as a fraction of it).
    pub max_plies: Option<u32>,
    pub window: WindowConfig,
}

impl SamplerConfig {
    /// The sampler of `config`, encoding inputs for the network `model`.
    pub fn from_train(config: &TrainConfig, model: &ModelConfig, max_plies: Option<u32>) -> Self {
        Self {
            batch_size: config.batch_size,
            samples_per_new_row: config.samples_per_new_row,
            mirror_probability: config.mirror_probability,
            start_rows: config.start_rows,
            search_value_weight: config.search_value_weight,
            outlook_weight: config.material_outlook_weight,
            outlook_horizon: config.material_outlook_plies,
            capped_value: config.capped_value,
            material_head_target: config.material_head_target,
            material_relative: model.material_relative,
            attack_planes: model.attack_planes,
            max_plies,
            window: config.window.clone(),
        }
    }
}

/// Everything needed to continue sampling exactly where a run stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SamplerCursor {
    pub seed: u64,
    /// Batches drawn (and trained on) so far.
    pub batches: u64,
    /// The shard numbering (see [`crate::replay_window`]).
    pub shards: Vec<KnownShard>,
}

impl SamplerCursor {
    /// The cursor of a run that has not sampled anything yet.
    pub fn fresh(seed: u64) -> Self {
        Self {
            seed,
            batches: 0,
            shards: Vec::new(),
        }
    }
}

/// One batch on the host, ready for `TrainingBatchBuilder::build`.
#[derive(Debug)]
pub struct SampledBatch {
    /// 0-based number of this batch in the run.
    pub index: u64,
    pub builder: TrainingBatchBuilder,
    /// Samples that were mirrored.
    pub mirrored: usize,
    /// Rows drawn but unusable (unreadable or inconsistent), replaced by fresh draws.
    pub rejected: usize,
    /// Rows known when the batch was drawn, and the window size.
    pub total_rows: u64,
    pub window_rows: u64,
}

/// Why no batch can be drawn right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Starved {
    /// Fewer rows than `start_rows` exist.
    TooFewRows { rows: u64, needed: u64 },
    /// Another batch would exceed `samples_per_new_row` per row produced.
    ReuseCap {
        rows: u64,
        samples: u64,
        allowed: u64,
    },
    /// The window holds rows but none of them can be read.
    NothingReadable { rows: u64 },
}

impl std::fmt::Display for Starved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Starved::TooFewRows { rows, needed } => {
                write!(f, "{rows} positions, training starts at {needed}")
            }
            Starved::ReuseCap {
                rows,
                samples,
                allowed,
            } => write!(
                f,
                "reuse cap: {samples} samples trained on {rows} positions (at most {allowed} until more arrive)"
            ),
            Starved::NothingReadable { rows } => {
                write!(f, "none of the {rows} positions in the window is readable")
            }
        }
    }
}

/// The outcome of [`Sampler::next_batch`].
#[derive(Debug)]
pub enum Draw {
    Ready(Box<SampledBatch>),
    Starved(Starved),
}

#[derive(Debug, thiserror::Error)]
pub enum SamplerError {
    #[error(transparent)]
    Window(#[from] ReplayWindowError),
    #[error("drew {attempts} rows for batch {batch} but only {usable} were usable: is the replay data from another rules version?")]
    TooManyRejected {
        batch: u64,
        attempts: usize,
        usable: usize,
    },
}

/// Why one stored row cannot become a training sample.
#[derive(Debug, thiserror::Error)]
enum RowError {
    /// Its board or its legal-move count (koshogi-replay's check).
    #[error(transparent)]
    Stored(#[from] StoredMovesError),
    #[error("{0}")]
    Nn(#[from] NnError),
}

/// Reusable per-sample buffers.
#[derive(Debug, Default)]
struct Scratch {
    moves: Vec<Move>,
    legs: Vec<MoveLegs>,
    features: Vec<f32>,
    policy: Vec<(u32, f32)>,
}

/// Draws batches from the shards of a [`ShardSource`].
#[derive(Debug)]
pub struct Sampler {
    config: SamplerConfig,
    window: ReplayWindow,
    seed: u64,
    batches: u64,
    scratch: Scratch,
    /// Rejected rows so far (warnings are rate-limited by it).
    rejected_total: u64,
}

impl Sampler {
    /// A sampler over the shards of `source` continuing from `cursor`. Call
    /// [`Sampler::refresh`] to discover shards.
    pub fn new(source: Arc<dyn ShardSource>, config: SamplerConfig, cursor: SamplerCursor) -> Self {
        let window = ReplayWindow::new(source, &config.window, cursor.shards);
        Self {
            config,
            window,
            seed: cursor.seed,
            batches: cursor.batches,
            scratch: Scratch {
                features: vec![0.0; FEATURE_LEN],
                ..Default::default()
            },
            rejected_total: 0,
        }
    }

    pub fn config(&self) -> &SamplerConfig {
        &self.config
    }

    /// Looks for new shards and loads the window.
    pub fn refresh(&mut self) -> Result<Refresh, SamplerError> {
        Ok(self.window.refresh()?)
    }

    pub fn window(&self) -> &ReplayWindow {
        &self.window
    }

    /// Batches drawn so far.
    pub fn batches(&self) -> u64 {
        self.batches
    }

    /// The state to save for resume.
    pub fn cursor(&self) -> SamplerCursor {
        SamplerCursor {
            seed: self.seed,
            batches: self.batches,
            shards: self.window.known().to_vec(),
        }
    }

    /// Checks the start threshold and the reuse cap for the next batch.
    pub fn starved(&self) -> Option<Starved> {
        let rows = self.window.total_rows();
        let needed = self.config.start_rows.max(1);
        if rows < needed {
            return Some(Starved::TooFewRows { rows, needed });
        }
        if self.config.samples_per_new_row > 0.0 {
            let allowed = (self.config.samples_per_new_row * rows as f64).floor() as u64;
            // Saturating: the cursor comes from a file (a resumed run's trainer state).
            let batch_size = self.config.batch_size as u64;
            let samples = self.batches.saturating_mul(batch_size);
            if samples.saturating_add(batch_size) > allowed {
                return Some(Starved::ReuseCap {
                    rows,
                    samples,
                    allowed,
                });
            }
        }
        if self.window.available_window_rows() == 0 {
            return Some(Starved::NothingReadable { rows });
        }
        None
    }

    /// Draws and encodes the next batch, or says why it cannot yet.
    pub fn next_batch(&mut self) -> Result<Draw, SamplerError> {
        if let Some(starved) = self.starved() {
            return Ok(Draw::Starved(starved));
        }
        let index = self.batches;
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(index);
        let window = self.window.window();
        let batch_size = self.config.batch_size;
        let max_attempts = 20 * batch_size + 100;
        let mut builder = TrainingBatchBuilder::new();
        let (mut attempts, mut mirrored, mut rejected) = (0usize, 0usize, 0usize);
        while builder.len() < batch_size {
            if attempts >= max_attempts {
                return Err(SamplerError::TooManyRejected {
                    batch: index,
                    attempts,
                    usable: builder.len(),
                });
            }
            attempts += 1;
            let row = rng.random_range(window.clone());
            // Always consume one draw for the flip, whatever the probability, so that changing
            // it does not change which rows are drawn.
            let mirror = rng.random::<f64>() < self.config.mirror_probability;
            let Some(window_row) =
                self.window
                    .row_with(row, self.config.outlook_horizon, self.config.capped_value)
            else {
                rejected += 1;
                continue;
            };
            match add_sample(
                &mut self.scratch,
                &self.config,
                &window_row,
                mirror,
                &mut builder,
            ) {
                Ok(()) => mirrored += usize::from(mirror),
                Err(error) => {
                    rejected += 1;
                    self.rejected_total += 1;
                    if self.rejected_total.is_power_of_two() {
                        tracing::warn!(
                            row,
                            "skipping an unusable replay position ({error}); {} so far",
                            self.rejected_total
                        );
                    }
                }
            }
        }
        self.batches += 1;
        Ok(Draw::Ready(Box::new(SampledBatch {
            index,
            builder,
            mirrored,
            rejected,
            total_rows: self.window.total_rows(),
            window_rows: window.end - window.start,
        })))
    }
}

fn add_sample(
    scratch: &mut Scratch,
    config: &SamplerConfig,
    row: &WindowRow<'_>,
    mirror: bool,
    builder: &mut TrainingBatchBuilder,
) -> Result<(), RowError> {
    let WindowRow {
        record,
        rules,
        repetition_count,
        material_outlook,
        material_ahead,
        material_change,
    } = *row;
    let position = position_and_moves(&record, rules, &mut scratch.moves)?;
    encode_moves(&position, &scratch.moves, &mut scratch.legs).map_err(NnError::from)?;
    let input = FeatureInput {
        position: &position,
        options: rules,
        repetition_count,
        ply: record.ply,
        max_plies: config.max_plies,
        attack_planes: config.attack_planes,
    };
    encode_position(&input, &mut scratch.features).map_err(NnError::from)?;
    if mirror {
        mirror_features(&mut scratch.features);
        for legs in &mut scratch.legs {
            *legs = legs.mirrored();
        }
    }
    // Weights are the search policy's probabilities of the listed moves; what they leave to 1
    // belongs to the unlisted moves as a group (`policy_cross_entropy`). Only a sum above 1
    // (float16 rounding of a complete target) is scaled down.
    scratch.policy.clear();
    let mass: f32 = record.policy_weights.iter().sum();
    if mass > 0.0 {
        let scale = mass.max(1.0);
        scratch.policy.extend(
            record
                .policy_moves
                .iter()
                .zip(record.policy_weights)
                .map(|(&m, &w)| (m, w / scale)),
        );
    }
    let has_policy = record.full_search && mass > 0.0;
    let targets = SampleTargets {
        policy: &scratch.policy,
        policy_weight: if has_policy { 1.0 } else { 0.0 },
        wdl: value_target(
            record.game_result,
            record.search_value,
            config.search_value_weight,
            material_outlook,
            config.outlook_weight,
        ),
        moves_left: record.moves_left as f32,
        material: match config.material_head_target {
            MaterialHeadTarget::Ahead if config.material_relative => material_change,
            MaterialHeadTarget::Ahead => material_ahead,
            MaterialHeadTarget::Final => f32::from(record.final_material),
        },
    };
    builder.push(&scratch.features, &scratch.legs, &targets)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{write_random_games, SyntheticOptions};
    use koshogi_nn::features::FeatureInput;
    use koshogi_replay::LocalShardDir;
    use koshogi_rules::{Game, Position};
    use std::collections::BTreeSet;
    use tch::Device;

    fn local(dir: &std::path::Path) -> Arc<dyn ShardSource> {
        Arc::new(LocalShardDir::new(dir))
    }

    fn config(batch_size: usize) -> SamplerConfig {
        SamplerConfig {
            batch_size,
            samples_per_new_row: 0.0,
            mirror_probability: 0.5,
            start_rows: 1,
            search_value_weight: 0.0,
            outlook_weight: 0.0,
            outlook_horizon: 8,
            capped_value: CappedValue::Result,
            material_head_target: MaterialHeadTarget::Final,
            material_relative: false,
            attack_planes: false,
            max_plies: Some(200),
            window: WindowConfig {
                min_rows: 1_000_000,
                ..WindowConfig::default()
            },
        }
    }

    fn shards(games: usize, seed: u64) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let options = SyntheticOptions {
            games,
            max_plies: 16,
            positions_per_shard: 16,
            seed,
            ..Default::default()
        };
        write_random_games(dir.path(), &options).unwrap();
        dir
    }

    fn ready(draw: Draw) -> SampledBatch {
        match draw {
            Draw::Ready(batch) => *batch,
            Draw::Starved(starved) => panic!("starved: {starved}"),
        }
    }

    #[test]
    fn a_cursor_with_more_batches_than_fit_in_samples_is_starved_not_a_panic() {
        // A resumed run's cursor comes from its trainer_state.json: batches · batch_size
        // overflowed u64 in the reuse-cap check.
        let dir = shards(3, 1);
        let cfg = SamplerConfig {
            samples_per_new_row: 2.0,
            ..config(8)
        };
        let cursor = SamplerCursor {
            batches: u64::MAX / 4,
            ..SamplerCursor::fresh(5)
        };
        let mut sampler = Sampler::new(local(dir.path()), cfg, cursor);
        sampler.refresh().unwrap();
        assert!(matches!(
            sampler.next_batch().unwrap(),
            Draw::Starved(Starved::ReuseCap {
                samples: u64::MAX,
                ..
            })
        ));
    }

    #[test]
    fn the_reuse_cap_limits_samples_per_row_until_new_data_arrives() {
        let dir = shards(3, 1);
        let cfg = SamplerConfig {
            samples_per_new_row: 2.0,
            ..config(8)
        };
        let mut sampler = Sampler::new(local(dir.path()), cfg, SamplerCursor::fresh(5));
        sampler.refresh().unwrap();
        let rows = sampler.window().total_rows();
        let expected = (2 * rows) / 8;
        let mut drawn = 0;
        while let Draw::Ready(_) = sampler.next_batch().unwrap() {
            drawn += 1;
            assert!(drawn <= expected, "drew past the cap");
        }
        assert_eq!(drawn, expected);
        assert!(matches!(
            sampler.next_batch().unwrap(),
            Draw::Starved(Starved::ReuseCap { .. })
        ));
        // More self-play lifts the cap by 2 samples per new row.
        let more = SyntheticOptions {
            games: 2,
            max_plies: 16,
            positions_per_shard: 16,
            seed: 9,
            writer_id: "later".into(),
            ..Default::default()
        };
        write_random_games(dir.path(), &more).unwrap();
        sampler.refresh().unwrap();
        let rows_now = sampler.window().total_rows();
        assert!(rows_now > rows);
        while let Draw::Ready(_) = sampler.next_batch().unwrap() {}
        assert_eq!(sampler.batches(), (2 * rows_now) / 8);
    }

    #[test]
    fn training_waits_for_the_start_threshold() {
        let dir = shards(1, 2);
        let cfg = SamplerConfig {
            start_rows: 1_000,
            ..config(4)
        };
        let mut sampler = Sampler::new(local(dir.path()), cfg, SamplerCursor::fresh(1));
        sampler.refresh().unwrap();
        assert!(matches!(
            sampler.next_batch().unwrap(),
            Draw::Starved(Starved::TooFewRows { needed: 1000, .. })
        ));
    }

    #[test]
    fn a_cursor_reproduces_the_next_batch() {
        let dir = shards(2, 3);
        let mut a = Sampler::new(local(dir.path()), config(6), SamplerCursor::fresh(11));
        a.refresh().unwrap();
        ready(a.next_batch().unwrap());
        let cursor = a.cursor();
        let from_a = ready(a.next_batch().unwrap()).builder.build(Device::Cpu);
        let mut b = Sampler::new(local(dir.path()), config(6), cursor);
        b.refresh().unwrap();
        let from_b = ready(b.next_batch().unwrap()).builder.build(Device::Cpu);
        assert!(from_a.features.equal(&from_b.features));
    }

    #[test]
    fn mirrored_batches_are_the_mirror_images_of_unmirrored_ones() {
        let dir = shards(2, 4);
        let draw = |p: f64| {
            let cfg = SamplerConfig {
                mirror_probability: p,
                ..config(12)
            };
            let mut sampler = Sampler::new(local(dir.path()), cfg, SamplerCursor::fresh(21));
            sampler.refresh().unwrap();
            let batch = ready(sampler.next_batch().unwrap());
            (batch.mirrored, batch.builder.build(Device::Cpu))
        };
        let (none, plain) = draw(0.0);
        let (all, mirrored) = draw(1.0);
        assert_eq!((none, all), (0, 12));
        // Same rows (the flip draw is consumed either way), every plane flipped along files.
        assert!(mirrored.features.equal(&plain.features.flip([3])));
        assert!(!mirrored.features.equal(&plain.features));
    }

    /// The claim behind mirror augmentation: the mirror image of a position has exactly the
    /// mirrored legal moves, and encoding commutes with mirroring.
    #[test]
    fn mirror_images_have_mirrored_moves_and_features() {
        use rand::Rng;
        let options = koshogi_rules::RulesOptions::default();
        let mut rng = ChaCha8Rng::seed_from_u64(99);
        let mut game = Game::new(options);
        let mut moves = Vec::new();
        let mut checked = 0;
        for _ in 0..40 {
            let position = game.position().clone();
            let mut mirror = Position::empty(position.side_to_move());
            for (square, piece) in position.pieces() {
                mirror.set_piece(square.mirror(), Some(piece));
            }
            mirror.set_ply(position.ply());
            let (mut original_legs, mut mirror_legs) = (Vec::new(), Vec::new());
            game.generate_legal_moves(&mut moves);
            encode_moves(&position, &moves, &mut original_legs).unwrap();
            let mut mirror_moves = Vec::new();
            mirror.generate_moves(&options, &mut mirror_moves);
            encode_moves(&mirror, &mirror_moves, &mut mirror_legs).unwrap();
            let expected: BTreeSet<Vec<u32>> = original_legs
                .iter()
                .map(|l| l.mirrored().as_slice().to_vec())
                .collect();
            let found: BTreeSet<Vec<u32>> =
                mirror_legs.iter().map(|l| l.as_slice().to_vec()).collect();
            assert_eq!(found.len(), mirror_moves.len());
            assert_eq!(expected, found, "ply {}", position.ply());

            let mut features = vec![0f32; FEATURE_LEN];
            let mut mirror_features_direct = vec![0f32; FEATURE_LEN];
            encode_position(
                &FeatureInput::from_position(&position, &options),
                &mut features,
            )
            .unwrap();
            encode_position(
                &FeatureInput::from_position(&mirror, &options),
                &mut mirror_features_direct,
            )
            .unwrap();
            mirror_features(&mut features);
            assert_eq!(features, mirror_features_direct);
            checked += 1;
            if moves.is_empty() || game.outcome().is_some() {
                break;
            }
            game.play(moves[rng.random_range(0..moves.len())]);
        }
        assert!(checked > 10);
    }

    /// `train.search_value_weight` end to end, from the `[train]` key through the shards to the
    /// batch: the same draws at weight 0, 1 and ½ give the result, the recorded search value,
    /// and their average, so a non-zero weight moves the targets toward the search's values.
    #[test]
    fn the_search_value_weight_moves_sampled_targets_to_the_recorded_search_values() {
        let dir = long_random_games();
        let targets = |weight: f64| {
            let train = TrainConfig {
                batch_size: 64,
                samples_per_new_row: 0.0,
                start_rows: 1,
                search_value_weight: weight,
                material_outlook_weight: 0.0,
                ..TrainConfig::default()
            };
            let config = SamplerConfig::from_train(&train, &ModelConfig::tiny(), Some(400));
            let mut sampler = Sampler::new(local(dir.path()), config, SamplerCursor::fresh(5));
            sampler.refresh().unwrap();
            ready(sampler.next_batch().unwrap()).builder.wdl_targets()
        };
        let (result, search, half) = (targets(0.0), targets(1.0), targets(0.5));
        let recorded: Vec<f32> = koshogi_replay::read_all_shards(dir.path())
            .unwrap()
            .iter()
            .flat_map(|shard| shard.arrays().search_value.clone())
            .collect();
        for t in &result {
            assert!(t.contains(&1.0) && t.iter().sum::<f32>() == 1.0, "{t:?}");
        }
        let mut distinct = std::collections::BTreeSet::new();
        for t in &search {
            let v = t[0] - t[2];
            assert_eq!(t[1], 0.0);
            assert!(
                recorded.iter().any(|r| (r - v).abs() < 1e-5),
                "{v} is no recorded search value"
            );
            distinct.insert((v * 1000.0).round() as i64);
        }
        assert!(distinct.len() > 10, "{distinct:?}");
        for ((r, s), h) in result.iter().zip(&search).zip(&half) {
            for i in 0..3 {
                assert!(
                    (h[i] - (r[i] + s[i]) / 2.0).abs() < 1e-5,
                    "{r:?} {s:?} {h:?}"
                );
            }
        }
    }

    #[test]
    fn value_targets_mix_in_the_material_outlook_last() {
        // A draw, half the material outlook −0.5 → (0.25, 0, 0.75) half: (0.125, 0.5, 0.375).
        assert_eq!(value_target(0, 0.9, 0.0, -0.5, 0.5), [0.125, 0.5, 0.375]);
        // Search value and outlook together: result win, search 0 (weight 0.5) → (0.75, 0,
        // 0.25); then outlook 1 at weight 0.5 → (0.875, 0, 0.125).
        assert_eq!(value_target(1, 0.0, 0.5, 1.0, 0.5), [0.875, 0.0, 0.125]);
    }

    /// Two random games of 400 plies in one shard: long enough to lose material.
    fn long_random_games() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let options = SyntheticOptions {
            games: 2,
            max_plies: 400,
            positions_per_shard: 800,
            seed: 7,
            ..Default::default()
        };
        write_random_games(dir.path(), &options).unwrap();
        dir
    }

    #[test]
    fn sampled_value_targets_carry_the_material_outlook() {
        // Games of random moves lose material; with the outlook at full weight the value
        // targets must spread beyond the three pure results.
        let dir = long_random_games();
        let mut config = config(64);
        config.outlook_weight = 1.0;
        let mut sampler = Sampler::new(local(dir.path()), config, SamplerCursor::fresh(3));
        sampler.refresh().unwrap();
        let batch = ready(sampler.next_batch().unwrap());
        let targets = batch.builder.wdl_targets();
        let draws: f32 = targets.iter().map(|t| t[1]).sum();
        assert_eq!(draws, 0.0, "the outlook has no draw mass");
        let distinct: std::collections::BTreeSet<i64> = targets
            .iter()
            .map(|t| (t[0] * 1000.0).round() as i64)
            .collect();
        assert!(distinct.len() > 3, "only {distinct:?}");
        for t in &targets {
            assert!((t[0] + t[2] - 1.0).abs() < 1e-5 && t[0] >= 0.0 && t[2] >= 0.0);
        }
    }

    #[test]
    fn a_relative_material_head_learns_the_change_of_the_balance() {
        // Random games lose material; the same draws under both readings differ by the
        // balance of each sampled position, which the relative target leaves out.
        let dir = long_random_games();
        let targets = |relative: bool| {
            let mut config = config(64);
            config.material_head_target = MaterialHeadTarget::Ahead;
            config.material_relative = relative;
            config.mirror_probability = 0.0;
            let mut sampler = Sampler::new(local(dir.path()), config, SamplerCursor::fresh(3));
            sampler.refresh().unwrap();
            let batch = ready(sampler.next_batch().unwrap());
            batch.builder.material_targets().to_vec()
        };
        let (ahead, change) = (targets(false), targets(true));
        assert_eq!(ahead.len(), change.len());
        let differing = ahead.iter().zip(&change).filter(|(a, c)| a != c).count();
        assert!(differing > ahead.len() / 2, "{ahead:?} vs {change:?}");
        // A change is smaller than the balances it separates: most targets shrink.
        let total = |t: &[f32]| t.iter().map(|x| x.abs()).sum::<f32>();
        assert!(total(&change) < total(&ahead), "{change:?} vs {ahead:?}");
    }
}
