//! The boundary between tree search and position evaluation.
//!
//! The search hands an evaluator a batch of positions, each with its legal moves in generation
//! order, and gets back one prior per legal move (same order) and a WDL value for the side to
//! move. A neural network implements this (see the `tch` adapter); so does the cheap
//! [`UniformEvaluator`] here and the material evaluator for Ko shogi, used by tests and as a
//! baseline opponent.

use crate::game::SearchGame;
use crate::wdl::Wdl;

/// One position to evaluate.
pub struct EvalRequest<G: SearchGame> {
    pub position: G::Position,
    /// The legal moves of `position`, in the order the priors must follow.
    pub moves: Vec<G::Move>,
}

/// The evaluator's answer for one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Prior probability of each legal move, same order as the request's moves. Need not be
    /// normalised: the search normalises (so raw `exp(logit)` values are fine); must be finite
    /// and non-negative.
    pub priors: Vec<f32>,
    /// Value of the position for the side to move.
    pub wdl: Wdl,
}

/// Why an evaluation failed (the search stops and reports it; it never guesses a value).
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("evaluator returned {got} evaluations for {expected} requests")]
    WrongBatchSize { expected: usize, got: usize },
    #[error("evaluator returned {got} priors for a position with {expected} legal moves")]
    WrongPriorCount { expected: usize, got: usize },
    #[error("evaluation thread is gone: {0}")]
    ThreadGone(String),
    #[error("evaluator failed: {0}")]
    Failed(String),
}

/// Evaluates batches of positions. Called from a single evaluation thread (see
/// [`crate::eval_thread`]), so implementations may own non-`Sync` state such as a tch model.
pub trait Evaluator<G: SearchGame> {
    /// Appends one [`Evaluation`] per request to `out`, in request order.
    fn evaluate(
        &mut self,
        requests: &[EvalRequest<G>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError>;

    /// Which weights answer now. It grows whenever later answers may differ from earlier ones
    /// (a newer checkpoint was loaded), so that the driver drops the evaluations it cached
    /// from the old weights instead of mixing them into new searches. Fixed evaluators keep 0.
    fn generation(&self) -> u64 {
        0
    }
}

/// Uniform priors and a constant value: the "knows nothing" evaluator for tests of the search
/// mechanics (what the search finds then comes from terminal positions alone).
#[derive(Clone, Copy, Debug)]
pub struct UniformEvaluator {
    pub wdl: Wdl,
}

impl Default for UniformEvaluator {
    fn default() -> Self {
        UniformEvaluator {
            wdl: Wdl::from_scalar(0.0),
        }
    }
}

impl<G: SearchGame> Evaluator<G> for UniformEvaluator {
    fn evaluate(
        &mut self,
        requests: &[EvalRequest<G>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        out.extend(requests.iter().map(|r| Evaluation {
            priors: vec![1.0; r.moves.len()],
            wdl: self.wdl,
        }));
        Ok(())
    }
}

/// Checks an evaluator's answers before the search trusts them.
pub(crate) fn validate<G: SearchGame>(
    requests: &[EvalRequest<G>],
    evaluations: &[Evaluation],
) -> Result<(), EvalError> {
    if requests.len() != evaluations.len() {
        return Err(EvalError::WrongBatchSize {
            expected: requests.len(),
            got: evaluations.len(),
        });
    }
    for (request, evaluation) in requests.iter().zip(evaluations) {
        if request.moves.len() != evaluation.priors.len() {
            return Err(EvalError::WrongPriorCount {
                expected: request.moves.len(),
                got: evaluation.priors.len(),
            });
        }
    }
    Ok(())
}
