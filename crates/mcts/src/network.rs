//! The network evaluator: koshogi_nn's batched inference behind the [`Evaluator`] trait.
//!
//! The model must stay on one thread (tch tensors are `Send`, not `Sync`), so build it inside
//! the evaluation thread with [`spawn_network_thread`]: the factory runs there, sets libtorch's
//! intra-op thread count for that thread, and the search threads only ever see the channel.

use crate::eval_thread::EvalThread;
use crate::evaluator::{EvalError, EvalRequest, Evaluation, Evaluator};
use crate::wdl::Wdl;
use koshogi_nn::{EvalPosition, FeatureInput, InferenceModel};
use koshogi_rules::Game;

/// Adapts an [`InferenceModel`] to the search.
pub struct NetworkEvaluator {
    model: InferenceModel,
    answers: Vec<koshogi_nn::Evaluation>,
}

impl NetworkEvaluator {
    pub fn new(model: InferenceModel) -> NetworkEvaluator {
        NetworkEvaluator {
            model,
            answers: Vec::new(),
        }
    }

    pub fn model(&self) -> &InferenceModel {
        &self.model
    }

    pub fn model_mut(&mut self) -> &mut InferenceModel {
        &mut self.model
    }
}

impl Evaluator<Game> for NetworkEvaluator {
    fn evaluate(
        &mut self,
        requests: &[EvalRequest<Game>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        let positions: Vec<EvalPosition<'_>> = requests
            .iter()
            .map(|r| EvalPosition {
                input: FeatureInput {
                    position: &r.position.position,
                    options: &r.position.options,
                    repetition_count: r.position.repetition_count,
                    ply: r.position.ply,
                    max_plies: r.position.max_plies,
                },
                moves: &r.moves,
            })
            .collect();
        self.answers.clear();
        self.model
            .evaluate(&positions, &mut self.answers)
            .map_err(|e| EvalError::Failed(e.to_string()))?;
        out.extend(self.answers.drain(..).map(|a| Evaluation {
            priors: a.policy,
            wdl: Wdl::new(a.wdl[0], a.wdl[1], a.wdl[2]),
        }));
        Ok(())
    }
}

/// Starts an evaluation thread whose network is built by `make_model` on that thread, after
/// limiting libtorch to `intra_op_threads` threads there (so libtorch and the search thread
/// share the cores instead of oversubscribing them).
pub fn spawn_network_thread<F>(
    intra_op_threads: i32,
    make_model: F,
) -> Result<EvalThread<Game>, EvalError>
where
    F: FnOnce() -> Result<InferenceModel, koshogi_nn::NnError> + Send + 'static,
{
    EvalThread::spawn(move || {
        tch::set_num_threads(intra_op_threads.max(1));
        make_model()
            .map(NetworkEvaluator::new)
            .map_err(|e| EvalError::Failed(e.to_string()))
    })
}
