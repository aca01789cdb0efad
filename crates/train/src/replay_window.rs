//! The replay shards as one sequence of rows, and the recent part of it held in memory.
//!
//! Rows are numbered in the order their shards were discovered (oldest first). That numbering
//! is part of the sampler's saved cursor ([`KnownShard`] list), so a resumed run numbers the
//! same rows the same way without re-reading old shards just to count them, and draws exactly
//! the batches the uninterrupted run would have drawn. Only the shards that overlap the
//! current window (see [`crate::window`]) are kept loaded; a shard that cannot be read is
//! skipped with a warning naming the file (koshogi-replay's `open_or_skip`).

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use koshogi_replay::{list_shards, Record, Shard, ShardArrays, ShardError};
use koshogi_rules::RulesOptions;
use serde::{Deserialize, Serialize};

use crate::material_outlook::{material_targets, mover_balances};
use crate::window::WindowConfig;

/// A shard as the row numbering knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnownShard {
    /// File name inside the shard directory.
    pub file: String,
    /// Positions it holds (0 if it could not be read when discovered).
    pub rows: u64,
}

/// The data of one loaded shard.
#[derive(Debug)]
pub struct LoadedShard {
    pub arrays: ShardArrays,
    /// The rules the games were played under (move indices refer to their move generation).
    pub rules: RulesOptions,
    /// Per row: occurrences of its position in its game so far, itself included (an input
    /// feature). Shards keep whole games, so it is recounted from the stored boards.
    pub repetitions: Vec<u32>,
    /// Per row: the mover's material balance in pawns, for the material outlook target
    /// ([`crate::material_outlook`]).
    pub balances: Vec<f32>,
}

/// One row of a loaded shard, with what the sampler derives from its neighbours.
#[derive(Debug, Clone, Copy)]
pub struct WindowRow<'a> {
    pub record: Record<'a>,
    /// The rules the game was played under.
    pub rules: &'a RulesOptions,
    /// Occurrences of the position in its game so far, itself included.
    pub repetition_count: u32,
    /// [`crate::material_outlook::material_outlook`] at the requested horizon, in [-1, 1].
    pub material_outlook: f32,
    /// [`crate::material_outlook::material_ahead`] at the same horizon, in pawns.
    pub material_ahead: f32,
    /// `material_ahead` minus the row's own balance, in pawns.
    pub material_change: f32,
}

/// What one [`ReplayWindow::refresh`] found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Refresh {
    pub new_shards: usize,
    pub new_rows: u64,
    pub unreadable: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum ReplayWindowError {
    #[error("listing replay shards: {0}")]
    List(#[from] ShardError),
}

/// The row sequence over a shard directory.
#[derive(Debug)]
pub struct ReplayWindow {
    dir: PathBuf,
    config: WindowConfig,
    known: Vec<KnownShard>,
    /// `first_row[i]`: number of the first row of `known[i]`.
    first_row: Vec<u64>,
    total_rows: u64,
    names: HashSet<String>,
    loaded: HashMap<usize, Arc<LoadedShard>>,
    /// Known shards that could not be re-read when the window reached them.
    unavailable: HashSet<usize>,
}

impl ReplayWindow {
    /// A window over `dir` that continues the numbering of `known` (empty for a new run).
    pub fn new(dir: impl Into<PathBuf>, config: &WindowConfig, known: Vec<KnownShard>) -> Self {
        let mut window = Self {
            dir: dir.into(),
            config: config.clone(),
            known: Vec::new(),
            first_row: Vec::new(),
            total_rows: 0,
            names: HashSet::new(),
            loaded: HashMap::new(),
            unavailable: HashSet::new(),
        };
        for shard in known {
            window.push_known(shard);
        }
        window
    }

    fn push_known(&mut self, shard: KnownShard) -> usize {
        self.first_row.push(self.total_rows);
        self.total_rows += shard.rows;
        self.names.insert(shard.file.clone());
        self.known.push(shard);
        self.known.len() - 1
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Rows in every shard discovered so far (including those already outside the window).
    pub fn total_rows(&self) -> u64 {
        self.total_rows
    }

    pub fn known(&self) -> &[KnownShard] {
        &self.known
    }

    /// Loaded shards (those overlapping the window).
    pub fn loaded_shards(&self) -> usize {
        self.loaded.len()
    }

    /// Appends shards that appeared since the last call (reading them, as they are the newest
    /// and therefore inside the window), then drops shards that left the window.
    pub fn refresh(&mut self) -> Result<Refresh, ReplayWindowError> {
        let mut report = Refresh::default();
        for file in list_shards(&self.dir)? {
            let Some(name) = file.path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if self.names.contains(name) {
                continue;
            }
            let name = name.to_string();
            let loaded = open_shard(&file.path);
            let rows = loaded.as_ref().map_or(0, |s| s.arrays.len() as u64);
            let index = self.push_known(KnownShard { file: name, rows });
            match loaded {
                Some(shard) => {
                    self.loaded.insert(index, Arc::new(shard));
                }
                None => {
                    report.unreadable += 1;
                }
            }
            report.new_shards += 1;
            report.new_rows += rows;
        }
        self.load_window();
        Ok(report)
    }

    /// Rows the window spans now: the most recent `window_rows(total)` rows.
    pub fn window(&self) -> Range<u64> {
        let size = self.config.window_rows(self.total_rows);
        self.total_rows - size..self.total_rows
    }

    /// Loads every known shard overlapping the window that is not loaded yet (after a resume)
    /// and drops those that no longer overlap it.
    pub fn load_window(&mut self) {
        let window = self.window();
        let overlapping: Vec<usize> = (0..self.known.len())
            .filter(|&i| {
                let start = self.first_row[i];
                let end = start + self.known[i].rows;
                start < end && start < window.end && end > window.start
            })
            .collect();
        let keep: HashSet<usize> = overlapping.iter().copied().collect();
        self.loaded.retain(|i, _| keep.contains(i));
        for i in overlapping {
            if self.loaded.contains_key(&i) || self.unavailable.contains(&i) {
                continue;
            }
            let path = self.dir.join(&self.known[i].file);
            match open_shard(&path) {
                Some(shard) if shard.arrays.len() as u64 == self.known[i].rows => {
                    self.loaded.insert(i, Arc::new(shard));
                }
                Some(shard) => {
                    tracing::warn!(
                        file = %path.display(),
                        "replay shard changed size ({} rows, {} when first read); skipping it",
                        shard.arrays.len(),
                        self.known[i].rows
                    );
                    self.unavailable.insert(i);
                }
                None => {
                    self.unavailable.insert(i);
                }
            }
        }
    }

    /// Rows of the window that can actually be sampled (in loaded shards).
    pub fn available_window_rows(&self) -> u64 {
        let window = self.window();
        self.loaded
            .keys()
            .map(|&i| {
                let start = self.first_row[i].max(window.start);
                let end = (self.first_row[i] + self.known[i].rows).min(window.end);
                end.saturating_sub(start)
            })
            .sum()
    }

    /// Row `row` with the rules of its shard, its repetition count and its material outlook
    /// `outlook_horizon` plies on, or `None` if its shard is not loaded (outside the window, or
    /// unreadable).
    pub fn row(&self, row: u64, outlook_horizon: u32) -> Option<WindowRow<'_>> {
        if row >= self.total_rows {
            return None;
        }
        // The last shard starting at or before `row`; an empty shard shares its first row
        // with the next one, so the last such shard is the one holding the row.
        let index = self.first_row.partition_point(|&first| first <= row) - 1;
        let shard = self.loaded.get(&index)?;
        let local = (row - self.first_row[index]) as usize;
        let material = material_targets(&shard.arrays, &shard.balances, local, outlook_horizon);
        Some(WindowRow {
            record: shard.arrays.record(local)?,
            rules: &shard.rules,
            repetition_count: shard.repetitions[local],
            material_outlook: material.outlook,
            material_ahead: material.ahead,
            material_change: material.change,
        })
    }
}

fn open_shard(path: &Path) -> Option<LoadedShard> {
    let shard = Shard::open_or_skip(path)?;
    let rules =
        match serde_json::from_value::<RulesOptions>(shard.meta().provenance.rules_options.clone())
        {
            Ok(rules) => rules,
            Err(error) => {
                tracing::warn!(
                    file = %path.display(),
                    "skipping replay shard {} with unreadable rules options: {error}",
                    path.display()
                );
                return None;
            }
        };
    let arrays = shard.into_arrays();
    Some(LoadedShard {
        repetitions: arrays.repetition_counts(),
        balances: mover_balances(&arrays),
        arrays,
        rules,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{write_random_games, SyntheticOptions};
    use koshogi_replay::read_all_shards;

    fn everything() -> WindowConfig {
        WindowConfig {
            min_rows: 1_000_000,
            ..WindowConfig::default()
        }
    }

    #[test]
    fn rows_are_numbered_across_shards_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let options = SyntheticOptions {
            games: 5,
            max_plies: 12,
            positions_per_shard: 20,
            ..Default::default()
        };
        let report = write_random_games(dir.path(), &options).unwrap();
        let mut window = ReplayWindow::new(dir.path(), &everything(), Vec::new());
        let refresh = window.refresh().unwrap();
        assert_eq!(refresh.new_rows, report.positions);
        assert_eq!(refresh.new_shards, report.shards);
        assert_eq!(window.total_rows(), report.positions);
        assert_eq!(window.window(), 0..report.positions);
        let expected: Vec<(u64, u32)> = read_all_shards(dir.path())
            .unwrap()
            .iter()
            .flat_map(|s| s.records().map(|r| (r.game_id, r.ply)).collect::<Vec<_>>())
            .collect();
        let numbered: Vec<(u64, u32)> = (0..window.total_rows())
            .map(|row| {
                let record = window.row(row, 8).unwrap().record;
                (record.game_id, record.ply)
            })
            .collect();
        assert_eq!(numbered, expected);
        assert!(window.row(window.total_rows(), 8).is_none());
        // A second refresh finds nothing new.
        assert_eq!(window.refresh().unwrap(), Refresh::default());
    }

    #[test]
    fn old_shards_leave_memory_and_a_resumed_window_numbers_rows_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let options = SyntheticOptions {
            games: 6,
            max_plies: 10,
            positions_per_shard: 10,
            ..Default::default()
        };
        write_random_games(dir.path(), &options).unwrap();
        let small = WindowConfig {
            min_rows: 1,
            alpha: 1.0,
            beta: 1.0,
            max_rows: 15,
        };
        let mut window = ReplayWindow::new(dir.path(), &small, Vec::new());
        window.refresh().unwrap();
        let total = window.total_rows();
        assert_eq!(window.window(), total - 15..total);
        assert!(window.row(0, 8).is_none(), "the oldest shard was dropped");
        assert!(window.row(total - 1, 8).is_some());
        assert!(window.loaded_shards() < window.known().len());
        // Resuming from the known list loads the same window and finds the same rows.
        let mut resumed = ReplayWindow::new(dir.path(), &small, window.known().to_vec());
        resumed.refresh().unwrap();
        assert_eq!(resumed.total_rows(), total);
        for row in total - 15..total {
            let a = window.row(row, 8).unwrap().record.to_owned_record();
            let b = resumed.row(row, 8).unwrap().record.to_owned_record();
            assert_eq!(a, b);
        }
    }

    #[test]
    fn repetition_counts_follow_each_game_in_ply_order() {
        use koshogi_replay::{PositionRecord, BOARD_BYTES};
        let board = |tag: u8| {
            let mut b = [0u8; BOARD_BYTES];
            b[0] = tag;
            b
        };
        let mut arrays = ShardArrays::new();
        let rows = [
            (1, 'A'),
            (1, 'B'),
            (1, 'A'),
            (1, 'B'),
            (1, 'A'),
            (2, 'A'),
            (2, 'C'),
        ];
        for (ply, (game_id, tag)) in rows.into_iter().enumerate() {
            arrays
                .push(&PositionRecord {
                    board: board(tag as u8),
                    game_id,
                    ply: ply as u32,
                    legal_move_count: 1,
                    played_move: 0,
                    full_search: false,
                    policy: Vec::new(),
                    search_value: 0.0,
                    game_result: 0,
                    moves_left: 1,
                    final_material: 0,
                })
                .unwrap();
        }
        assert_eq!(arrays.repetition_counts(), vec![1, 1, 2, 2, 3, 1, 1]);
    }

    #[test]
    fn a_corrupted_shard_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let options = SyntheticOptions {
            games: 2,
            max_plies: 8,
            positions_per_shard: 1000,
            ..Default::default()
        };
        let report = write_random_games(dir.path(), &options).unwrap();
        std::fs::write(dir.path().join("shard-000000099-broken.npz"), b"not a zip").unwrap();
        let mut window = ReplayWindow::new(dir.path(), &everything(), Vec::new());
        let refresh = window.refresh().unwrap();
        assert_eq!(refresh.unreadable, 1);
        assert_eq!(window.total_rows(), report.positions);
        assert!(window
            .known()
            .iter()
            .any(|k| k.rows == 0 && k.file.contains("broken")));
    }
}
