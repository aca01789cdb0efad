//! koshogi-encoding: what the network sees of a position and how it names a move, on the rules
//! alone (no libtorch), so that everything that must agree with the network's numbering — the
//! network itself (`koshogi-nn` re-exports these modules under their old paths), the trainer,
//! `koshogi encode`, and the Python package built from the rules (`python/rl`) — uses this one
//! copy.
//!
//! * [`features`]: a position as [`features::INPUT_PLANES`] planes of 19×19 values, from the
//!   side to move's view (`docs/input-features.md`).
//! * [`move_encoding`]: every legal move as a short list of (plane, point) legs of the policy
//!   output, its logit the sum of its legs (`docs/move-encoding.md`).
//! * [`geometry`]: points and offsets in the mover's frame, shared by both.

pub mod error;
pub mod features;
pub mod geometry;
pub mod move_encoding;

pub use error::EncodingError;
pub use features::{
    encode_batch, encode_position, FeatureInput, FEATURE_LEN, FEATURE_VERSION, INPUT_PLANES,
};
pub use move_encoding::{
    encode_move, encode_moves, MoveLegs, MOVE_ENCODING_VERSION, POLICY_PLANES,
};
