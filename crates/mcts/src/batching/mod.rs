//! Many searches, one evaluator: the batching driver ([`driver`]), the evaluation thread that
//! owns the model ([`eval_thread`]), the evaluation cache in front of it ([`cache`]) and the
//! evaluator boundary networks implement ([`evaluator`]).

pub mod cache;
pub mod driver;
pub mod eval_thread;
pub mod evaluator;
