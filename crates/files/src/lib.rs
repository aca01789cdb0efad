//! The file primitives shared by every crate that writes a run's files: crash-safe writes
//! ([`atomic`]), SHA-256 fingerprints in hex ([`digest`]) and reads through a size bound
//! ([`small_file`]).
//!
//! Why a crate of its own: the users are koshogi-nn (checkpoints: weights, card, the weights'
//! SHA-256), koshogi-replay (shards), koshogi-run-store and everything above them. The only
//! crate below both nn and replay is koshogi-rules, the pure rules engine, which stays on serde
//! and thiserror alone (its one file read, of a game record, keeps its own bound rather than
//! depend on this crate: `koshogi_rules::game_record::read_record_file`); run-store cannot sit
//! below nn (it brings `object_store` and tokio), and putting these in replay would make the
//! network crate depend on the replay-shard crate and its zip compression. So the two concepts
//! live here, with two small dependencies (`atomic-write-file`, `sha2`). The `.npy`/`.npz` format is not here: its users (replay and
//! export) already share koshogi-replay, which owns it (`koshogi_replay::npy`, `::npz`).

pub mod atomic;
pub mod digest;
pub mod small_file;
