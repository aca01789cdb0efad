//! The cheap deterministic Ko shogi evaluator: uniform priors and a material value.
//!
//! Serves tests (search behaviour that does not depend on a trained network) and as the
//! weakest baseline opponent. The value is the rules crate's material value of the search-scale
//! balance for the side to move (`tanh(balance / 10)`,
//! [`koshogi_rules::material::material_value`]), as a WDL without draw mass. Piece values,
//! balances and their squashing live in `koshogi_rules::material`; this file only makes them an
//! [`Evaluator`] and a bootstrap blend.

use crate::evaluator::{EvalError, EvalRequest, Evaluation, Evaluator};
use crate::koshogi::KoshogiPosition;
use crate::wdl::Wdl;
use koshogi_rules::material::{material_value, search_balance};
use koshogi_rules::{Game, Position};

/// Uniform priors, material value.
#[derive(Clone, Debug, Default)]
pub struct MaterialEvaluator;

impl MaterialEvaluator {
    /// The value of `position` for the side to move.
    pub fn value(&self, position: &Position) -> Wdl {
        Wdl::from_scalar(material_value(search_balance(position)))
    }
}

impl Evaluator<Game> for MaterialEvaluator {
    fn evaluate(
        &mut self,
        requests: &[EvalRequest<Game>],
        out: &mut Vec<Evaluation>,
    ) -> Result<(), EvalError> {
        out.extend(requests.iter().map(|r| {
            let KoshogiPosition { position, .. } = &r.position;
            Evaluation {
                priors: vec![1.0; r.moves.len()],
                wdl: self.value(position),
            }
        }));
        Ok(())
    }
}

/// Mixes the material value into evaluations: `wdl = (1 - weight) * wdl + weight * material`.
///
/// Self-play's bootstrap (`selfplay.material_value_weight`): a random network's value is noise,
/// and a few hundred games an hour on a CPU are too few for it to discover that pieces matter,
/// so without help the first searches cannot prefer a capture to any other move. The material
/// term makes them, the improved-policy targets carry that to the policy, and the weight fades
/// as the network's own value takes over. Priors are left alone.
pub fn blend_material_value(
    material: &MaterialEvaluator,
    requests: &[EvalRequest<Game>],
    evaluations: &mut [Evaluation],
    weight: f32,
) {
    if weight <= 0.0 {
        return;
    }
    let weight = weight.min(1.0);
    for (request, evaluation) in requests.iter().zip(evaluations.iter_mut()) {
        let heuristic = material.value(&request.position.position);
        evaluation.wdl = evaluation.wdl.scale(1.0 - weight) + heuristic.scale(weight);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use koshogi_rules::fixtures::start_without_a_white_piece;
    use koshogi_rules::material::{search_piece_value, MATERIAL_TEMPERATURE};

    #[test]
    fn blending_moves_the_value_towards_material_by_the_weight() {
        let (ahead, _) = start_without_a_white_piece();
        let material = MaterialEvaluator;
        let heuristic = material.value(&ahead).scalar();
        assert!(heuristic > 0.0);
        let game = Game::from_position(ahead, koshogi_rules::RulesOptions::default());
        let requests = [EvalRequest {
            position: crate::game::SearchGame::position(&game),
            moves: game.legal_moves(),
        }];
        let net = Wdl::new(0.1, 0.2, 0.7);
        let blended = |weight: f32| {
            let mut out = [Evaluation {
                priors: vec![0.5; 2],
                wdl: net,
            }];
            blend_material_value(&material, &requests, &mut out, weight);
            assert_eq!(out[0].priors, vec![0.5; 2], "priors untouched");
            assert!(out[0].wdl.is_distribution(1e-5));
            out[0].wdl.scalar()
        };
        assert_eq!(blended(0.0), net.scalar());
        assert!((blended(0.5) - (0.5 * net.scalar() + 0.5 * heuristic)).abs() < 1e-5);
        assert!((blended(1.0) - heuristic).abs() < 1e-5);
    }

    #[test]
    fn the_start_position_is_level_and_a_missing_piece_is_worth_its_material_value() {
        let eval = MaterialEvaluator;
        assert_eq!(eval.value(&Position::startpos()).scalar(), 0.0);
        // Remove one of White's pieces: Black (to move) is ahead by that piece's value.
        let (fewer, kind) = start_without_a_white_piece();
        let expected = (search_piece_value(kind) / MATERIAL_TEMPERATURE).tanh();
        assert!((eval.value(&fewer).scalar() - expected).abs() < 1e-6);
        assert!(eval.value(&fewer).scalar() > 0.0);
    }
}
