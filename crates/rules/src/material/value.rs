//! A material balance as a value: `tanh(balance / MATERIAL_TEMPERATURE)`, in [-1, 1].
//!
//! Why one function: the search's material evaluator, the network's material head (read on the
//! same scale) and the training targets' material outlook must agree on what a balance is
//! worth, or the search and the targets it learns from would disagree about pieces.

/// Material balance (in pawns, search scale) that maps to a value of tanh(1) ~ 0.76. Ten pawns:
/// a chariot (5) is then worth 0.46 of the value range and a pawn 0.1, enough for the search's
/// completed-Q term to outweigh the prior's preferences among the few moves it compares
/// (at 20, a chariot was 0.24 and a network's half share of it a 1-2 nat nudge).
pub const MATERIAL_TEMPERATURE: f32 = 10.0;

/// The value in [-1, 1] of a search-scale `balance` (in pawns) for the side it is counted for.
pub fn material_value(balance: f32) -> f32 {
    (balance / MATERIAL_TEMPERATURE).tanh()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_balance_is_worth_nothing_and_the_temperature_maps_to_tanh_one() {
        assert_eq!(material_value(0.0), 0.0);
        assert!((material_value(MATERIAL_TEMPERATURE) - 1f32.tanh()).abs() < 1e-7);
        assert!((material_value(-5.0) + material_value(5.0)).abs() < 1e-7);
        assert!(material_value(1000.0) <= 1.0);
    }
}
