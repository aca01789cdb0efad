//! The tensors of the exported network's interface, shared by every export format.
//!
//! Why a file of its own: the export card ([`crate::bundle`]) and the ONNX section
//! ([`crate::onnx`]) describe the same inputs and heads; each takes the description from here,
//! so neither format's module imports the other's for it.

use serde::{Deserialize, Serialize};

/// One tensor of the module's interface.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TensorSpec {
    pub name: String,
    pub dtype: String,
    /// Dimensions; "N" is the batch.
    pub shape: Vec<serde_json::Value>,
    pub meaning: String,
}

/// What each head means, in [`OUTPUT_NAMES`](crate::OUTPUT_NAMES) order.
pub(crate) fn output_meanings() -> [&'static str; 4] {
    [
        "policy leg logits, flat index plane * 361 + point; [N, 299, 19, 19] planes (move_encoding)",
        "win/draw/loss logits for the side to move (softmax for probabilities)",
        "predicted remaining plies / 256",
        "predicted material balance (mover minus opponent, pawns) / 16; with architecture.material_relative its change from the current balance (docs/export.md)",
    ]
}
