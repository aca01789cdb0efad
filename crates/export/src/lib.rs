//! koshogi-export: the network and its input/output conventions for clients outside Rust.
//!
//! * [`torchscript`]: the Rust model traced into a TorchScript module (`torch.jit.load` in
//!   Python, `torch::jit::load` in C++), with its documented output order.
//! * [`bundle`]: `koshogi export` — TorchScript module + safetensors weights + a JSON model card
//!   describing architecture, input planes, move encoding, versions and training step.
//! * [`encode`]: `koshogi encode` — one position as the network's input tensor (`.npy`) and its
//!   legal moves with their policy legs (JSON), so a client never reimplements the encodings.
//! * [`onnx`]: `koshogi export --format onnx` — the ONNX graph made by the Python twin of the
//!   network (`python/koshogi_zero`) in the project's Python environment.
//! * [`shards`]: `koshogi encode --shards` — replay shards as training arrays (input planes,
//!   policy legs as indices into the policy output, targets) for a PyTorch training loop.
//! * [`interface`]: the input and output tensors every format's card describes.
//! * [`npy`]: the little `.npy` writer/reader both use.

pub mod bundle;
pub mod encode;
pub mod error;
pub mod interface;
pub mod npy;
pub mod onnx;
pub mod shards;
pub mod torchscript;

pub use bundle::{
    export_checkpoint, export_checkpoint_with, export_model, export_model_with, ExportCard,
    ExportOptions, ExportSummary,
};
pub use encode::{encode_game, write_encoding, EncodedMove, EncodedPosition};
pub use error::ExportError;
pub use onnx::{project_python, OnnxSpec};
pub use shards::{encode_shards, ShardEncodeOptions, ShardEncodeSummary};
pub use torchscript::{trace, OUTPUT_NAMES, OUTPUT_WIDTHS, PACKED_WIDTH};
