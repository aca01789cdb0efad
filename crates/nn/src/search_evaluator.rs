//! The network as the search's evaluator: [`InferenceModel`] behind `koshogi_mcts`'s
//! [`Evaluator`] trait.
//!
//! It lives here, beside the model, rather than in the search crate, so that the search builds
//! and tests without libtorch: the search only knows the trait, the network implements it.
//!
//! The model must stay on one thread (tch tensors are `Send`, not `Sync`), so build it inside
//! the evaluation thread with [`spawn_network_thread`]: the factory runs there, sets libtorch's
//! intra-op thread count for that thread, and the search threads only ever see the channel.

use crate::{EvalPosition, FeatureInput, InferenceModel, NnError};
use koshogi_mcts::{EvalError, EvalRequest, EvalThread, Evaluation, Evaluator, Wdl};
use koshogi_rules::material::{material_value, search_balance};
use koshogi_rules::Game;

/// Adapts an [`InferenceModel`] to the search.
pub struct NetworkEvaluator {
    model: InferenceModel,
    answers: Vec<crate::Evaluation>,
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
                    attack_planes: false, // the model sets its own
                },
                moves: &r.moves,
            })
            .collect();
        self.answers.clear();
        self.model
            .evaluate(&positions, &mut self.answers)
            .map_err(|e| EvalError::Failed(e.to_string()))?;
        let config = self.model.config();
        let (utility, relative) = (config.material_utility, config.material_relative);
        out.extend(
            self.answers
                .drain(..)
                .zip(requests)
                .map(|(answer, request)| {
                    // A relative head predicts the change; the board's own count is its base.
                    let counted = if relative && utility > 0.0 {
                        search_balance(&request.position.position)
                    } else {
                        0.0
                    };
                    Evaluation {
                        wdl: searched_value(&answer, utility, counted),
                        priors: answer.policy,
                    }
                }),
        );
        Ok(())
    }
}

/// The value the search uses: the WDL head, mixed with weight `material_utility` with the
/// material the network predicts, read on the search's material scale
/// ([`material_value`]: tanh(material / 10)), see `ModelConfig::material_utility`. The
/// predicted material is `counted_balance` (the mover's balance on the board, for a head that
/// predicts its change: `ModelConfig::material_relative`; 0 otherwise) plus the head's output.
pub fn searched_value(
    answer: &crate::Evaluation,
    material_utility: f32,
    counted_balance: f32,
) -> Wdl {
    let wdl = Wdl::new(answer.wdl[0], answer.wdl[1], answer.wdl[2]);
    if material_utility <= 0.0 {
        return wdl;
    }
    let predicted = counted_balance + answer.material;
    let material = Wdl::from_scalar(material_value(predicted));
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
    F: FnOnce() -> Result<InferenceModel, NnError> + Send + 'static,
{
    EvalThread::spawn(move || {
        crate::threads::set_intra_op_threads(intra_op_threads);
        make_model()
            .map(NetworkEvaluator::new)
            .map_err(|e| EvalError::Failed(e.to_string()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use koshogi_rules::material::MATERIAL_TEMPERATURE;

    fn answer(wdl: [f32; 3], material: f32) -> crate::Evaluation {
        crate::Evaluation {
            policy: Vec::new(),
            wdl,
            moves_left: 0.0,
            material,
        }
    }

    #[test]
    fn the_material_head_enters_the_value_with_its_weight() {
        let even = answer([0.3, 0.4, 0.3], 20.0);
        assert_eq!(searched_value(&even, 0.0, 0.0), Wdl::new(0.3, 0.4, 0.3));
        let half = searched_value(&even, 0.5, 0.0);
        let expected = 0.5 * (20.0f32 / MATERIAL_TEMPERATURE).tanh();
        assert!((half.scalar() - expected).abs() < 1e-6, "{half:?}");
        assert!((half.win + half.draw + half.loss - 1.0).abs() < 1e-6);
        let behind = searched_value(&answer([0.3, 0.4, 0.3], -200.0), 1.0, 0.0);
        assert!(behind.scalar() < -0.99);
    }

    #[test]
    fn a_relative_head_adds_its_predicted_change_to_the_counted_balance() {
        // Five pawns up on the board, the head expects two of them back: three up.
        let change = answer([0.3, 0.4, 0.3], -2.0);
        let value = searched_value(&change, 1.0, 5.0).scalar();
        assert!((value - (3.0f32 / MATERIAL_TEMPERATURE).tanh()).abs() < 1e-6);
        // Without a material term the count is not read.
        assert_eq!(searched_value(&change, 0.0, 5.0), Wdl::new(0.3, 0.4, 0.3));
    }

    /// The evaluator reads the card: with the same weights, a relative head's value is the
    /// absolute reading shifted by the balance counted on the board.
    #[test]
    fn the_network_evaluator_counts_the_board_for_a_relative_head() {
        use crate::{DeviceSpec, Model, ModelConfig, Precision, RuntimeConfig};
        use koshogi_mcts::SearchGame;
        use koshogi_rules::{Position, RulesOptions};
        let runtime = RuntimeConfig {
            device: DeviceSpec::Cpu,
            precision: Precision::Float32,
            channels_last: Some(false),
        };
        let value_with = |material_relative: bool, position: &Position| -> f32 {
            tch::manual_seed(7);
            let config = ModelConfig {
                material_utility: 1.0,
                material_relative,
                ..ModelConfig::tiny()
            };
            let model = Model::new(&config, tch::Device::Cpu).unwrap();
            let mut evaluator =
                NetworkEvaluator::new(InferenceModel::from_model(&model, &runtime).unwrap());
            let game = Game::from_position(position.clone(), RulesOptions::default());
            let requests = [EvalRequest {
                position: SearchGame::position(&game),
                moves: game.legal_moves(),
            }];
            let mut out = Vec::new();
            evaluator.evaluate(&requests, &mut out).unwrap();
            out[0].wdl.scalar()
        };
        let (ahead, _) = koshogi_rules::fixtures::start_without_a_white_piece();
        let counted = search_balance(&ahead);
        assert!(counted > 0.0);
        let head = MATERIAL_TEMPERATURE * value_with(false, &ahead).atanh();
        let relative = value_with(true, &ahead);
        let expected = ((counted + head) / MATERIAL_TEMPERATURE).tanh();
        assert!(
            (relative - expected).abs() < 1e-4,
            "{relative} vs {expected}"
        );
        // The balanced start position reads the same either way.
        let start = Position::startpos();
        assert!((value_with(true, &start) - value_with(false, &start)).abs() < 1e-6);
    }
}
