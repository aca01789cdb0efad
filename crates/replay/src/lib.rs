//! On-disk replay shards for koshogi-zero.
//!
//! Self-play writes finished games into `<run>/shards/shard-<sequence>-<writer>.npz`; the trainer
//! lists and reads them. Every shard is written atomically (temporary file, fsync, rename, fsync of
//! the directory) and carries a SHA-256 checksum, so a crash never leaves a readable partial shard
//! and a corrupted one is detected and skipped. The format is a plain numpy `.npz` archive,
//! documented in docs/replay-format.md and readable with `numpy.load` (see scripts/read_shard.py).
//!
//! Writing: [`ShardDir::for_run`] once per process, a [`ShardWriter`] per self-play worker, a
//! [`GameRecorder`] per game (positions via [`encode_position`]), [`ShardWriter::add_game`] with
//! its finished records. Reading: [`list_shards`], [`Shard::open`] or
//! [`Shard::open_or_skip`], then [`Shard::records`] or [`Shard::arrays`]; a reader that may be
//! given shards from elsewhere than a local directory (the trainer) goes through a
//! [`ShardSource`] ([`LocalShardDir`] locally; [`Shard::from_bytes`] for fetched bytes).
//!
//! The training targets derived from shard rows (the value target's mix, the material outlook)
//! live in [`targets`], shared by the trainer, the exporter and `koshogi diagnose`.
//!
//! The crate also owns the workspace's `.npy` and `.npz` formats ([`npy`], [`npz`]), which
//! koshogi-export uses for its arrays too.
//!
//! `fixtures` (this crate's tests, and other crates' tests through the `fixtures` feature): a
//! record with placeholder targets.

pub mod board;
pub mod end_reason;
pub mod error;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
pub mod format;
pub mod game_to_positions;
pub mod naming;
pub mod npy;
pub mod npz;
pub mod reader;
pub mod shard_source;
pub mod stored_moves;
pub mod targets;
pub mod training_positions;
pub mod writer;

pub use board::{
    decode_position, encode_position, side_to_move, BoardDecodeError, PointCode, BOARD_BYTES,
    BOARD_ENCODING_VERSION,
};
pub use end_reason::EndReason;
pub use error::{NpyError, RecordError, ShardError};
pub use format::{Provenance, ShardMeta, AUX_FIELDS, FORMAT_VERSION};
pub use game_to_positions::{GameRecorder, SearchRecord};
pub use naming::{
    finished_shard_names, parse_shard_file_name, shards_dir, validate_writer_id, ShardFile,
};
pub use npz::NpzError;
pub use reader::{list_shards, read_all_shards, Shard, MAX_SHARD_BYTES};
pub use shard_source::{LocalShardDir, ShardSource};
pub use stored_moves::{position_and_moves, StoredMovesError};
pub use training_positions::{PolicyEntry, PositionRecord, Record, ShardArrays};
pub use writer::{ShardDir, ShardWriter};
