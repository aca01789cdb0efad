//! The network evaluator: koshogi_nn's batched inference behind the [`Evaluator`] trait.
//!
//! The model must stay on one thread (tch tensors are `Send`, not `Sync`), so build it inside
//! the evaluation thread with [`spawn_network_thread`]: the factory runs there, sets libtorch's
//! intra-op thread count for that thread, and the search threads only ever see the channel.

use crate::eval_thread::EvalThread;
use crate::evaluator::{EvalError, EvalRequest, Evaluation, Evaluator};
use crate::material::MATERIAL_TEMPERATURE;
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
        let utility = self.model.config().material_utility;
        out.extend(self.answers.drain(..).map(|a| Evaluation {
            wdl: searched_value(&a, utility),
            priors: a.policy,
        }));
        Ok(())
    }
}

/// The value the search uses: the WDL head, mixed with weight `material_utility` with the
/// material head's prediction read on the material evaluator's scale
/// (tanh(material / [`MATERIAL_TEMPERATURE`])), see `ModelConfig::material_utility`.
pub fn searched_value(answer: &koshogi_nn::Evaluation, material_utility: f32) -> Wdl {
    let wdl = Wdl::new(answer.wdl[0], answer.wdl[1], answer.wdl[2]);
    if material_utility <= 0.0 {
        return wdl;
    }
    let material = Wdl::from_scalar((answer.material / MATERIAL_TEMPERATURE).tanh());
    let u = material_utility.min(1.0);
    wdl.scale(1.0 - u) + material.scale(u)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(wdl: [f32; 3], material: f32) -> koshogi_nn::Evaluation {
        koshogi_nn::Evaluation {
            policy: Vec::new(),
            wdl,
            moves_left: 0.0,
            material,
        }
    }

    #[test]
    fn the_material_head_enters_the_value_with_its_weight() {
        let even = answer([0.3, 0.4, 0.3], 20.0);
        assert_eq!(searched_value(&even, 0.0), Wdl::new(0.3, 0.4, 0.3));
        let half = searched_value(&even, 0.5);
        let expected = 0.5 * (20.0f32 / MATERIAL_TEMPERATURE).tanh();
        assert!((half.scalar() - expected).abs() < 1e-6, "{half:?}");
        assert!((half.win + half.draw + half.loss - 1.0).abs() < 1e-6);
        let behind = searched_value(&answer([0.3, 0.4, 0.3], -200.0), 1.0);
        assert!(behind.scalar() < -0.99);
    }
}
