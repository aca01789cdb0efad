//! Where a run lives, and how its files travel when its processes do not share a disk.
//!
//! A run is a local directory or a prefix in object storage (`s3://`, `gs://`, `az://`,
//! `file://`, through the `object_store` crate). Every process still works in a local
//! directory — libtorch loads checkpoints from files and TensorBoard writes live event files —
//! and this crate moves what must be shared between that directory and the store:
//! - a replay shard or game record is one atomic put ([`outbox`]);
//! - a checkpoint becomes visible only when all its files are up: its files, then a marker,
//!   then the `checkpoints/latest.json` pointer ([`remote_checkpoints`]);
//! - other files (TensorBoard events, arena tables, `accepted.json`) are copied when they
//!   change ([`tree`]).
//!
//! It also owns the run's local side that every role shares: the names inside a run
//! ([`layout`], the koshogi-run-layout crate re-exported), the complete checkpoints of a local `checkpoints/` directory with the gate's
//! `accepted.json` ([`local_checkpoints`]), and the arena's tables: its games ([`games_csv`])
//! and the ladder's ratings ([`ladder_csv`]). Its files are written crash-safely and its small
//! files read through a size bound by `koshogi_files` (`atomic`, `small_file`), the one owner of
//! both (a crate below this one, because koshogi-nn, koshogi-replay and koshogi-export read and
//! write files too).
//!
//! A store that does not answer is waited for, with backoff, for as long as the process allows
//! ([`RemoteRun`]): outages are weather, not errors.
//!
//! What each role of a stored run sends and fetches is here too, beside the machinery it uses:
//! the passes of the roles' sync threads and the preparation of their caches ([`role_sync`]),
//! the thread that runs a pass every poll interval ([`SyncThread`]), a role's locked cache
//! directory ([`RoleCache`]) and the run's configuration as stored ([`stored_config`]). Nothing
//! here knows about training: the trainer's keep policy is given to it, and the configuration's
//! meaning is the caller's. See docs/distributed.md.

pub mod copy;
mod error;
pub mod games_csv;
pub mod ladder_csv;
pub mod remote_checkpoints;
pub use koshogi_run_layout as layout;
pub mod local_checkpoints;
mod location;
pub mod outbox;
mod remote;
mod role_cache;
pub mod role_sync;
mod shards;
pub mod stored_config;
mod sync_thread;
pub mod tree;

pub use error::StoreError;
pub use location::{is_store_url, RunTarget};
pub use remote::{ObjectEntry, RemoteRun, DEFAULT_PATIENCE};
pub use role_cache::{CacheError, RoleCache};
pub use shards::StoredShards;
pub use sync_thread::{SyncError, SyncThread};
