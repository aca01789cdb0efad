//! The shard container: which members a shard holds, its `meta` JSON and its checksum.
//!
//! A shard is an `.npz` file (a zip archive of `.npy` members, deflate-compressed: [`crate::npz`],
//! [`crate::npy`]) so that `numpy.load` reads it with nothing else installed. The full specification, with a worked
//! Python example, is docs/replay-format.md; keep the two in step and bump
//! [`FORMAT_VERSION`] on any change a reader could notice.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Version of the shard layout described in docs/replay-format.md. Readers refuse newer versions.
/// 2 added the `end_reason` column; version-1 shards read with every reason `Unknown`.
pub const FORMAT_VERSION: u32 = 2;

/// The first version whose shards carry the `end_reason` column.
pub const END_REASON_VERSION: u32 = 2;

/// Value of [`ShardMeta::format`]: tells a shard from any other `.npz`.
pub const FORMAT_NAME: &str = "koshogi-replay-shard";

/// Zip member holding the [`ShardMeta`] JSON as a `uint8` array.
pub const META_MEMBER: &str = "meta";

/// Zip member holding the SHA-256 of all other members as a `uint8[32]` array.
pub const CHECKSUM_MEMBER: &str = "sha256";

/// The auxiliary-head targets every shard carries, in the order docs/replay-format.md lists them.
pub const AUX_FIELDS: [&str; 2] = ["moves_left", "final_material"];

/// What produced the positions: the writer sets this once and updates `model_step` when a new
/// checkpoint is picked up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// Version of the rules engine whose move generation order the move indices refer to.
    pub rules_version: String,
    /// Version of the network input features used by the player (informational: positions are
    /// stored raw, so the trainer may use other features).
    pub feature_version: u32,
    /// Version of the policy move encoding used by the player (informational, as above).
    pub move_encoding_version: u32,
    /// The rules options the games were played under (§12 keys).
    pub rules_options: serde_json::Value,
    /// Training step of the checkpoint that played the games (0 = random initialisation).
    pub model_step: u64,
}

impl Default for Provenance {
    fn default() -> Self {
        Provenance {
            rules_version: String::new(),
            feature_version: 0,
            move_encoding_version: 0,
            rules_options: serde_json::Value::Object(Default::default()),
            model_step: 0,
        }
    }
}

/// The `meta` member of a shard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardMeta {
    pub format: String,
    pub format_version: u32,
    /// Version of the point byte code of the `board` member ([`crate::board::BOARD_ENCODING_VERSION`]).
    pub board_encoding_version: u32,
    #[serde(flatten)]
    pub provenance: Provenance,
    /// Wall-clock creation time, milliseconds since the Unix epoch.
    pub created_unix_ms: u64,
    pub writer_id: String,
    pub num_positions: u64,
    pub num_games: u64,
    pub aux_fields: Vec<String>,
}

/// SHA-256 over every member except the checksum itself, in byte order of their zip entry names
/// (`board.npy`, `final_material.npy`, …); each contributes its name, a zero byte, its length as
/// a little-endian u64 and its raw `.npy` bytes. The zip format's per-member CRC-32 already catches
/// bit rot; this also catches missing, added or swapped members.
pub fn shard_checksum<'a>(members: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> [u8; 32] {
    let mut sorted: Vec<(&str, &[u8])> = members
        .into_iter()
        .filter(|(name, _)| *name != checksum_entry_name())
        .collect();
    sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut hasher = Sha256::new();
    for (name, bytes) in sorted {
        hasher.update(name.as_bytes());
        hasher.update([0u8]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    }
    hasher.finalize().into()
}

fn checksum_entry_name() -> &'static str {
    "sha256.npy"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_is_order_independent_but_sensitive_to_names_and_bytes() {
        let a = shard_checksum([("a.npy", &b"xy"[..]), ("b.npy", &b"z"[..])]);
        let swapped_order = shard_checksum([("b.npy", &b"z"[..]), ("a.npy", &b"xy"[..])]);
        assert_eq!(a, swapped_order);
        // Moving a byte from one member to the next must change the digest (length framing).
        assert_ne!(
            a,
            shard_checksum([("a.npy", &b"x"[..]), ("b.npy", &b"yz"[..])])
        );
        assert_ne!(
            a,
            shard_checksum([("a.npy", &b"xy"[..]), ("c.npy", &b"z"[..])])
        );
        assert_ne!(a, shard_checksum([("a.npy", &b"xy"[..])]));
        // The checksum member itself is not covered.
        assert_eq!(
            a,
            shard_checksum([
                ("a.npy", &b"xy"[..]),
                ("b.npy", &b"z"[..]),
                ("sha256.npy", &b"q"[..])
            ])
        );
    }

    #[test]
    fn checksum_framing_is_name_nul_length_bytes() {
        // The framing is exactly: name, a zero byte, u64 LE length, bytes (what read_shard.py does).
        let digest = shard_checksum([("m", &b"abc"[..])]);
        let mut hasher = Sha256::new();
        hasher.update(b"m\x00\x03\x00\x00\x00\x00\x00\x00\x00abc");
        assert_eq!(digest.to_vec(), hasher.finalize().to_vec());
    }
}
