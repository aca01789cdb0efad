//! The fixed positions the alpha-beta and classical-engine timings search: the start, and plies
//! of one greedy-vs-greedy game from seed 7 (a mid-game with captures made and pieces en prise,
//! where searches cost the most). `bench arena`, `bench classic` and `bench nn`'s host encoding
//! take them from here so that their figures are about the same positions.

use koshogi_baselines::greedy::greedy_move;
use koshogi_rules::{Game, RulesOptions};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The seed of the greedy game.
const GREEDY_GAME_SEED: u64 = 7;

/// The start position, labelled `start`, then the greedy game's position after each ply of
/// `plies` (increasing), labelled `greedy game, ply N`; the game may end sooner. Returns the
/// greedy game's random generator too, as it is after the last ply played.
pub(crate) fn start_and_greedy_game(plies: &[u32]) -> (Vec<(String, Game)>, ChaCha8Rng) {
    let mut game = Game::new(RulesOptions::default());
    let mut rng = ChaCha8Rng::seed_from_u64(GREEDY_GAME_SEED);
    let mut positions = vec![("start".to_string(), game.clone())];
    let last = plies.iter().copied().max().unwrap_or(0);
    for ply in 1..=last {
        let Some(mv) = greedy_move(&game, &mut rng) else {
            break;
        };
        game.play(mv);
        if game.outcome().is_some() {
            break;
        }
        if plies.contains(&ply) {
            positions.push((format!("greedy game, ply {ply}"), game.clone()));
        }
    }
    (positions, rng)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_then_the_asked_plies_in_order() {
        let (positions, _) = start_and_greedy_game(&[2, 5]);
        let labels: Vec<&str> = positions.iter().map(|(label, _)| label.as_str()).collect();
        assert_eq!(
            labels,
            ["start", "greedy game, ply 2", "greedy game, ply 5"]
        );
        assert_eq!(positions[0].1.plies_played(), 0);
        assert_eq!(positions[1].1.plies_played(), 2);
        assert_eq!(positions[2].1.plies_played(), 5);
    }
}
