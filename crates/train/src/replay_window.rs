//! The replay shards as one sequence of rows, and the recent part of it held in memory.
//!
//! Rows are numbered in the order their shards were discovered (oldest first). That numbering
//! is part of the sampler's saved cursor ([`KnownShard`] list), so a resumed run numbers the
//! same rows the same way without re-reading old shards just to count them, and draws exactly
//! the batches the uninterrupted run would have drawn. Only the shards that overlap the
//! current window (see [`crate::window_size`]) are kept loaded; a shard that cannot be read is
//! skipped with a warning naming the file and where it is (as koshogi-replay's `open_or_skip`).
//! Shards come from a [`ShardSource`], so the same numbering holds whether they are in a local
//! directory or in object storage.
//!
//! A source that cannot be reached for now ([`ShardError::Unavailable`]: an object store in an
//! outage) is not an error and costs no shard: the window keeps what it holds and the sampler
//! goes on drawing from it; a new shard that could not be read stays unnumbered (with every
//! shard listed after it, so the order is kept) and a known one stays unloaded, until a later
//! refresh reads them.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::Arc;

use koshogi_replay::targets::{material_targets_with, mover_balances, CappedValue};
use koshogi_replay::{Record, ShardArrays, ShardError, ShardSource};
use koshogi_rules::RulesOptions;
use serde::{Deserialize, Serialize};

use crate::window_size::WindowConfig;

/// A shard as the row numbering knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnownShard {
    /// File name in the shard source (`shard-<sequence>-<writer>.npz`).
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
    /// ([`koshogi_replay::targets::material_outlook`]).
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
    /// [`koshogi_replay::targets::material_outlook`] at the requested horizon, in [-1, 1].
    pub material_outlook: f32,
    /// [`koshogi_replay::targets::material_ahead`] at the same horizon, in pawns.
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
    /// The source could not be reached (for the listing or a shard): what it holds beyond the
    /// shards counted above is looked at again on the next refresh.
    pub source_unavailable: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ReplayWindowError {
    #[error("listing replay shards: {0}")]
    List(#[from] ShardError),
}

/// The row sequence over the shards of a source.
#[derive(Debug)]
pub struct ReplayWindow {
    source: Arc<dyn ShardSource>,
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
    /// A window over the shards of `source` that continues the numbering of `known` (empty for
    /// a new run).
    pub fn new(
        source: Arc<dyn ShardSource>,
        config: &WindowConfig,
        known: Vec<KnownShard>,
    ) -> Self {
        let mut window = Self {
            source,
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

    pub fn source(&self) -> &Arc<dyn ShardSource> {
        &self.source
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
    ///
    /// An unavailable source ends the refresh early without an error (see the module header).
    pub fn refresh(&mut self) -> Result<Refresh, ReplayWindowError> {
        let mut report = Refresh::default();
        let names = match self.source.list() {
            Ok(names) => names,
            Err(ShardError::Unavailable { .. }) => {
                report.source_unavailable = true;
                return Ok(report);
            }
            Err(error) => return Err(error.into()),
        };
        for name in names {
            if self.names.contains(&name) {
                continue;
            }
            let (loaded, rows) = match open_shard(self.source.as_ref(), &name) {
                Opened::Unavailable => {
                    report.source_unavailable = true;
                    break;
                }
                Opened::Loaded(shard) => {
                    let rows = shard.arrays.len() as u64;
                    (Some(shard), rows)
                }
                Opened::Unreadable => (None, 0),
            };
            let index = self.push_known(KnownShard { file: name, rows });
            match loaded {
                Some(shard) => {
                    self.loaded.insert(index, Arc::from(shard));
                }
                None => {
                    report.unreadable += 1;
                }
            }
            report.new_shards += 1;
            report.new_rows += rows;
        }
        if !self.load_window() {
            report.source_unavailable = true;
        }
        Ok(report)
    }

    /// Rows the window spans now: the most recent `window_rows(total)` rows.
    pub fn window(&self) -> Range<u64> {
        let size = self.config.window_rows(self.total_rows);
        self.total_rows - size..self.total_rows
    }

    /// Loads every known shard overlapping the window that is not loaded yet (after a resume)
    /// and drops those that no longer overlap it. Returns `false` if the source was
    /// unavailable (the shards not loaded yet are tried again next time).
    pub fn load_window(&mut self) -> bool {
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
            let name = &self.known[i].file;
            match open_shard(self.source.as_ref(), name) {
                Opened::Loaded(shard) if shard.arrays.len() as u64 == self.known[i].rows => {
                    self.loaded.insert(i, Arc::from(shard));
                }
                Opened::Loaded(shard) => {
                    tracing::warn!(
                        location = %self.source.location(),
                        file = %name,
                        "replay shard {name} changed size ({} rows, {} when first read); \
                         skipping it",
                        shard.arrays.len(),
                        self.known[i].rows
                    );
                    self.unavailable.insert(i);
                }
                Opened::Unreadable => {
                    self.unavailable.insert(i);
                }
                Opened::Unavailable => return false,
            }
        }
        true
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
        self.row_with(row, outlook_horizon, CappedValue::Result)
    }

    /// [`ReplayWindow::row`], with games won on material at the ply cap counted as `capped`
    /// says in the material outlook.
    pub fn row_with(
        &self,
        row: u64,
        outlook_horizon: u32,
        capped: CappedValue,
    ) -> Option<WindowRow<'_>> {
        if row >= self.total_rows {
            return None;
        }
        // The last shard starting at or before `row`; an empty shard shares its first row
        // with the next one, so the last such shard is the one holding the row.
        let index = self.first_row.partition_point(|&first| first <= row) - 1;
        let shard = self.loaded.get(&index)?;
        let local = (row - self.first_row[index]) as usize;
        let material = material_targets_with(
            &shard.arrays,
            &shard.balances,
            local,
            outlook_horizon,
            capped,
        );
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

/// What reading one shard for the window gave.
enum Opened {
    Loaded(Box<LoadedShard>),
    /// The shard cannot be used (a warning named the file): training goes on past it.
    Unreadable,
    /// The source could not be reached: nothing is known about the shard yet.
    Unavailable,
}

/// Reads one shard for the window (see [`Opened`]).
fn open_shard(source: &dyn ShardSource, name: &str) -> Opened {
    let shard = match source.open(name) {
        Ok(shard) => shard,
        Err(ShardError::Unavailable { .. }) => return Opened::Unavailable,
        Err(error) => {
            tracing::warn!(
                location = %source.location(),
                file = %name,
                "skipping unreadable replay shard {name} in {}: {error}",
                source.location()
            );
            return Opened::Unreadable;
        }
    };
    let rules =
        match serde_json::from_value::<RulesOptions>(shard.meta().provenance.rules_options.clone())
        {
            Ok(rules) => rules,
            Err(error) => {
                tracing::warn!(
                    location = %source.location(),
                    file = %name,
                    "skipping replay shard {name} in {} with unreadable rules options: {error}",
                    source.location()
                );
                return Opened::Unreadable;
            }
        };
    let arrays = shard.into_arrays();
    Opened::Loaded(Box::new(LoadedShard {
        repetitions: arrays.repetition_counts(),
        balances: mover_balances(&arrays),
        arrays,
        rules,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{write_random_games, SyntheticOptions};
    use koshogi_replay::{finished_shard_names, read_all_shards, LocalShardDir, Shard};
    use std::collections::btree_map::{BTreeMap, Entry};
    use std::path::Path;
    use std::sync::Mutex;

    fn local(dir: &Path) -> Arc<dyn ShardSource> {
        Arc::new(LocalShardDir::new(dir))
    }

    /// Shards held in memory by name, as an object store would serve them; shards can be
    /// added while a window reads it.
    #[derive(Debug, Default)]
    struct MemorySource {
        shards: Mutex<BTreeMap<String, Vec<u8>>>,
        /// An outage: [`UP`], [`AWAY`] or [`READS_AWAY`].
        outage: std::sync::atomic::AtomicU8,
    }

    /// The source answers.
    const UP: u8 = 0;
    /// Neither listings nor reads answer.
    const AWAY: u8 = 1;
    /// Listings answer, reads do not (the store went away between the two).
    const READS_AWAY: u8 = 2;

    fn unavailable() -> ShardError {
        ShardError::Unavailable {
            location: "mem://test".into(),
            reason: "connection refused".into(),
        }
    }

    impl MemorySource {
        /// Copies every file of `dir` (shards and anything else, which the listing drops).
        fn copy_of(dir: &Path) -> Self {
            let source = Self::default();
            source.copy_new_files(dir);
            source
        }

        /// Copies the files of `dir` not held yet; returns how many.
        fn copy_new_files(&self, dir: &Path) -> usize {
            let mut shards = self.shards.lock().unwrap();
            let mut copied = 0;
            for entry in std::fs::read_dir(dir).unwrap() {
                let entry = entry.unwrap();
                let name = entry.file_name().into_string().unwrap();
                if let Entry::Vacant(vacant) = shards.entry(name) {
                    vacant.insert(std::fs::read(entry.path()).unwrap());
                    copied += 1;
                }
            }
            copied
        }

        fn insert(&self, name: &str, bytes: Vec<u8>) {
            self.shards.lock().unwrap().insert(name.to_string(), bytes);
        }
    }

    impl ShardSource for MemorySource {
        fn list(&self) -> Result<Vec<String>, ShardError> {
            if self.outage.load(std::sync::atomic::Ordering::SeqCst) == AWAY {
                return Err(unavailable());
            }
            Ok(finished_shard_names(self.shards.lock().unwrap().keys()))
        }

        fn open(&self, name: &str) -> Result<Shard, ShardError> {
            if self.outage.load(std::sync::atomic::Ordering::SeqCst) != UP {
                return Err(unavailable());
            }
            let origin = Path::new("mem://test").join(name);
            match self.shards.lock().unwrap().get(name) {
                Some(bytes) => Shard::from_bytes(&origin, bytes),
                None => Err(ShardError::Io {
                    path: origin,
                    source: std::io::ErrorKind::NotFound.into(),
                }),
            }
        }

        fn location(&self) -> String {
            "mem://test".into()
        }
    }

    /// `(game id, ply)` of every row, or `None` for rows outside the loaded shards.
    fn numbered(window: &ReplayWindow) -> Vec<Option<(u64, u32)>> {
        (0..window.total_rows())
            .map(|row| window.row(row, 8).map(|r| (r.record.game_id, r.record.ply)))
            .collect()
    }

    fn everything() -> WindowConfig {
        WindowConfig {
            min_rows: 1_000_000,
            ..WindowConfig::default()
        }
    }

    /// A store outage is no error and costs no shard: nothing is numbered while the shards
    /// cannot be read (not even as unreadable, with no rows), and everything is afterwards,
    /// once and in order; a resumed window loads its shards when they can be read again.
    #[test]
    fn an_unavailable_source_costs_no_shard() {
        use std::sync::atomic::Ordering;
        let dir = tempfile::tempdir().unwrap();
        let options = SyntheticOptions {
            games: 6,
            max_plies: 10,
            positions_per_shard: 10,
            ..Default::default()
        };
        write_random_games(dir.path(), &options).unwrap();
        let source = Arc::new(MemorySource::copy_of(dir.path()));
        let all = source.list().unwrap();
        assert!(all.len() > 2);
        let mut window = ReplayWindow::new(source.clone(), &everything(), Vec::new());
        for outage in [AWAY, READS_AWAY] {
            source.outage.store(outage, Ordering::SeqCst);
            let refresh = window.refresh().unwrap();
            assert!(refresh.source_unavailable);
            assert_eq!((refresh.new_shards, refresh.unreadable), (0, 0));
            assert!(window.known().is_empty());
        }
        source.outage.store(UP, Ordering::SeqCst);
        let refresh = window.refresh().unwrap();
        assert!(!refresh.source_unavailable);
        assert_eq!((refresh.new_shards, refresh.unreadable), (all.len(), 0));
        let names: Vec<&str> = window.known().iter().map(|k| k.file.as_str()).collect();
        assert_eq!(names, all.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(window.known().iter().all(|k| k.rows > 0));
        assert_eq!(window.available_window_rows(), window.total_rows());

        let mut resumed = ReplayWindow::new(source.clone(), &everything(), window.known().to_vec());
        source.outage.store(READS_AWAY, Ordering::SeqCst);
        assert!(resumed.refresh().unwrap().source_unavailable);
        assert_eq!(resumed.available_window_rows(), 0);
        source.outage.store(UP, Ordering::SeqCst);
        assert!(!resumed.refresh().unwrap().source_unavailable);
        assert_eq!(resumed.available_window_rows(), window.total_rows());
        assert_eq!(numbered(&resumed), numbered(&window));
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
        let mut window = ReplayWindow::new(local(dir.path()), &everything(), Vec::new());
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
        let mut window = ReplayWindow::new(local(dir.path()), &small, Vec::new());
        window.refresh().unwrap();
        let total = window.total_rows();
        assert_eq!(window.window(), total - 15..total);
        assert!(window.row(0, 8).is_none(), "the oldest shard was dropped");
        assert!(window.row(total - 1, 8).is_some());
        assert!(window.loaded_shards() < window.known().len());
        // Resuming from the known list loads the same window and finds the same rows.
        let mut resumed = ReplayWindow::new(local(dir.path()), &small, window.known().to_vec());
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
        use koshogi_replay::fixtures::placeholder_record;
        use koshogi_replay::BOARD_BYTES;
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
                .push(&placeholder_record(board(tag as u8), game_id, ply as u32))
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
        let mut window = ReplayWindow::new(local(dir.path()), &everything(), Vec::new());
        let refresh = window.refresh().unwrap();
        assert_eq!(refresh.unreadable, 1);
        assert_eq!(window.total_rows(), report.positions);
        assert!(window
            .known()
            .iter()
            .any(|k| k.rows == 0 && k.file.contains("broken")));
    }

    #[test]
    fn a_custom_source_numbers_rows_exactly_like_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let options = SyntheticOptions {
            games: 5,
            max_plies: 12,
            positions_per_shard: 20,
            ..Default::default()
        };
        let report = write_random_games(dir.path(), &options).unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"not a shard").unwrap();
        let memory: Arc<dyn ShardSource> = Arc::new(MemorySource::copy_of(dir.path()));
        let mut from_dir = ReplayWindow::new(local(dir.path()), &everything(), Vec::new());
        let mut from_memory = ReplayWindow::new(Arc::clone(&memory), &everything(), Vec::new());
        assert_eq!(from_dir.refresh().unwrap(), from_memory.refresh().unwrap());
        assert_eq!(from_memory.total_rows(), report.positions);
        assert_eq!(from_memory.known(), from_dir.known());
        assert_eq!(from_memory.known().len(), report.shards);
        let rows = numbered(&from_memory);
        assert!(rows.iter().all(Option::is_some));
        assert_eq!(rows, numbered(&from_dir));
        assert_eq!(from_memory.source().location(), "mem://test");
        // A window resumed over the other source from the same numbering agrees too.
        let mut resumed = ReplayWindow::new(memory, &everything(), from_dir.known().to_vec());
        assert_eq!(resumed.refresh().unwrap(), Refresh::default());
        assert_eq!(numbered(&resumed), rows);
    }

    #[test]
    fn a_corrupt_shard_in_a_custom_source_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let options = SyntheticOptions {
            games: 4,
            max_plies: 8,
            positions_per_shard: 10,
            ..Default::default()
        };
        let report = write_random_games(dir.path(), &options).unwrap();
        let memory = MemorySource::copy_of(dir.path());
        // One shard cut short in transit, one that was never a zip.
        let names = memory.list().unwrap();
        let damaged = names[1].clone();
        let mut bytes = memory.shards.lock().unwrap()[&damaged].clone();
        bytes.truncate(bytes.len() * 2 / 3);
        memory.insert(&damaged, bytes);
        memory.insert("shard-000000099-broken.npz", b"not a zip".to_vec());
        let damaged_rows = Shard::open(&dir.path().join(&damaged)).unwrap().len() as u64;

        let mut window = ReplayWindow::new(Arc::new(memory), &everything(), Vec::new());
        let refresh = window.refresh().unwrap();
        assert_eq!(refresh.unreadable, 2);
        assert_eq!(refresh.new_shards, report.shards + 1);
        assert_eq!(window.total_rows(), report.positions - damaged_rows);
        let skipped: Vec<&str> = window
            .known()
            .iter()
            .filter(|k| k.rows == 0)
            .map(|k| k.file.as_str())
            .collect();
        assert_eq!(skipped, [damaged.as_str(), "shard-000000099-broken.npz"]);
        assert!(numbered(&window).iter().all(Option::is_some));
    }

    #[test]
    fn a_shard_added_to_a_custom_source_between_refreshes_is_picked_up() {
        let dir = tempfile::tempdir().unwrap();
        let first = SyntheticOptions {
            games: 2,
            max_plies: 10,
            positions_per_shard: 10,
            ..Default::default()
        };
        let before = write_random_games(dir.path(), &first).unwrap();
        let memory = Arc::new(MemorySource::copy_of(dir.path()));
        let mut window = ReplayWindow::new(memory.clone(), &everything(), Vec::new());
        window.refresh().unwrap();
        assert_eq!(window.total_rows(), before.positions);
        let old_rows = numbered(&window);

        let more = SyntheticOptions {
            games: 1,
            max_plies: 10,
            positions_per_shard: 1000,
            seed: 9,
            writer_id: "later".into(),
            ..Default::default()
        };
        let added = write_random_games(dir.path(), &more).unwrap();
        assert_eq!(memory.copy_new_files(dir.path()), 1);
        let refresh = window.refresh().unwrap();
        assert_eq!(
            refresh,
            Refresh {
                new_shards: 1,
                new_rows: added.positions,
                unreadable: 0,
                source_unavailable: false,
            }
        );
        assert_eq!(window.total_rows(), before.positions + added.positions);
        let rows = numbered(&window);
        assert_eq!(
            rows[..old_rows.len()],
            old_rows[..],
            "old rows keep their numbers"
        );
        // The new rows are the new shard's, in order, after all the old ones.
        let newest = window.known().last().unwrap().file.clone();
        assert!(newest.ends_with("-later.npz"), "{newest}");
        let expected: Vec<Option<(u64, u32)>> = Shard::open(&dir.path().join(&newest))
            .unwrap()
            .records()
            .map(|r| Some((r.game_id, r.ply)))
            .collect();
        assert_eq!(rows[old_rows.len()..], expected[..]);
        // And the directory window, refreshed once over everything, agrees.
        let mut from_dir = ReplayWindow::new(local(dir.path()), &everything(), Vec::new());
        from_dir.refresh().unwrap();
        assert_eq!(numbered(&from_dir), rows);
    }
}
