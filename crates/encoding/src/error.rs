//! The crate's one error type. Its variants and messages are the ones `koshogi_nn::NnError`
//! had for the same failures before the encoding moved here; `NnError` converts from it into
//! its own variants of the same names, so callers see the same text as before.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodingError {
    /// A move whose geometry the policy planes cannot express (never a legal move of the rules).
    #[error("move cannot be encoded: {0}")]
    UnencodableMove(String),
    /// A caller's buffer of the wrong size.
    #[error("bad batch: {0}")]
    BadBatch(String),
}
