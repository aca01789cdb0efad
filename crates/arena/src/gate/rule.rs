//! Gating: should a new checkpoint replace the one self-play currently uses?
//!
//! Why: a training hiccup can produce a weaker network; a gate match keeps it out of self-play.
//! KataGo notes gating mostly helps debugging, so `koshogi run` makes it optional.
//!
//! Decision rule: with an SPRT the candidate passes iff H1 is accepted; if the SPRT is still
//! undecided when the game budget runs out, or without an SPRT, it passes iff its score reaches
//! `required_score` (default ½: ties favour the candidate, as in KataGo's gatekeeper).

use crate::matches::{
    run_match, ArenaGame, MatchError, MatchObserver, MatchReport, MatchSettings, Player,
};
use crate::statistics::SprtDecision;

#[derive(Clone, Debug)]
pub struct GateSettings {
    pub match_settings: MatchSettings,
    /// Minimum score of the candidate when the SPRT does not decide (or there is none).
    pub required_score: f64,
}

impl Default for GateSettings {
    fn default() -> Self {
        Self {
            match_settings: MatchSettings::default(),
            required_score: 0.5,
        }
    }
}

#[derive(Clone, Debug)]
pub struct GateResult {
    pub passed: bool,
    /// One line saying why.
    pub reason: String,
    /// The match, from the candidate's point of view (candidate = player A).
    pub report: MatchReport,
}

/// Plays `candidate` (as player A) against `incumbent` and decides.
pub fn gate<G: ArenaGame>(
    new_game: &dyn Fn() -> G,
    candidate: &mut dyn Player<G>,
    incumbent: &mut dyn Player<G>,
    settings: &GateSettings,
    observer: &mut dyn MatchObserver,
) -> Result<GateResult, MatchError> {
    let report = run_match(
        new_game,
        candidate,
        incumbent,
        &settings.match_settings,
        observer,
    )?;
    let score = report.wdl.score().unwrap_or(0.0);
    let by_score = || {
        let passed = score >= settings.required_score;
        let reason = format!(
            "score {:.1} % {} required {:.1} %",
            100.0 * score,
            if passed { ">=" } else { "<" },
            100.0 * settings.required_score
        );
        (passed, reason)
    };
    let (passed, reason) = match report.sprt {
        Some(status) => match status.decision {
            SprtDecision::AcceptH1 => (true, format!("SPRT accepted H1 ({status})")),
            SprtDecision::AcceptH0 => (false, format!("SPRT accepted H0 ({status})")),
            SprtDecision::Continue => {
                let (passed, reason) = by_score();
                (
                    passed,
                    format!(
                        "SPRT undecided after {} games; {reason}",
                        report.wdl.games()
                    ),
                )
            }
        },
        None => by_score(),
    };
    Ok(GateResult {
        passed,
        reason,
        report,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::toy::{race, Careful};
    use crate::matches::RandomPlayer;
    use crate::statistics::SprtSettings;

    fn settings(sprt: bool) -> GateSettings {
        GateSettings {
            match_settings: MatchSettings {
                games: 400,
                max_plies: 40,
                opening_plies: 1,
                parallel_games: 8,
                seed: 3,
                sprt: sprt.then(|| SprtSettings::new(0.0, 30.0, 0.05, 0.05).unwrap()),
                output_dir: None,
                cap_material_margin: None,
            },
            required_score: 0.5,
        }
    }

    #[test]
    fn a_stronger_candidate_passes_and_a_weaker_one_fails() {
        let passed = gate(
            &race,
            &mut Careful,
            &mut RandomPlayer::new(),
            &settings(true),
            &mut (),
        )
        .unwrap();
        assert!(passed.passed, "{}", passed.reason);
        assert!(passed.reason.contains("H1"));
        let failed = gate(
            &race,
            &mut RandomPlayer::new(),
            &mut Careful,
            &settings(true),
            &mut (),
        )
        .unwrap();
        assert!(!failed.passed, "{}", failed.reason);
        let by_score = gate(
            &race,
            &mut RandomPlayer::new(),
            &mut Careful,
            &settings(false),
            &mut (),
        )
        .unwrap();
        assert!(!by_score.passed);
        assert!(by_score.reason.contains("score"));
    }
}
