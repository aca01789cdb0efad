//! A match between two Ko shogi players named by their specs (`koshogi arena --a … --b …`): both
//! built, the rules their checkpoints agree on chosen, the match played, and its summary kept
//! beside the records as `summary.txt`.

use std::path::PathBuf;

use super::build::{build_player, match_rules, BuildPlayerError, PlayerOptions};
use super::spec::PlayerSpec;
use crate::matches::{new_game, run_match, MatchError, MatchObserver, MatchReport, MatchSettings};

/// Where a match between two specs failed.
#[derive(Debug, thiserror::Error)]
pub enum SpecMatchError {
    /// Player `side` (`A` or `B`) could not be built.
    #[error("player {side} ({spec})")]
    Build {
        side: char,
        spec: String,
        #[source]
        source: BuildPlayerError,
    },
    /// The two checkpoints were trained under different rule options.
    #[error("{0}")]
    Rules(String),
    #[error(transparent)]
    Match(#[from] MatchError),
    #[error("writing {}", dir.display())]
    Summary {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Plays `settings.games` games between `a` and `b` (results from A's side) under the rules of
/// their checkpoints (the defaults when neither has one), writing `summary.txt` into
/// `settings.output_dir` when there is one.
pub fn play_spec_match(
    a: &PlayerSpec,
    b: &PlayerSpec,
    options: &PlayerOptions,
    settings: &MatchSettings,
    observer: &mut dyn MatchObserver,
) -> Result<MatchReport, SpecMatchError> {
    let build = |side: char, spec: &PlayerSpec| {
        build_player(spec, options).map_err(|source| SpecMatchError::Build {
            side,
            spec: spec.to_string(),
            source,
        })
    };
    let mut player_a = build('A', a)?;
    let mut player_b = build('B', b)?;
    let rules = match_rules(&[&player_a, &player_b]).map_err(SpecMatchError::Rules)?;
    let report = run_match(
        &|| new_game(&rules, settings),
        player_a.player.as_mut(),
        player_b.player.as_mut(),
        settings,
        observer,
    )?;
    if let Some(dir) = &settings.output_dir {
        let text = format!("{}\n", report.summary());
        koshogi_files::atomic::write_atomic(&dir.join("summary.txt"), text.as_bytes()).map_err(
            |source| SpecMatchError::Summary {
                dir: dir.clone(),
                source,
            },
        )?;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_between_specs_is_played_and_summarised() {
        let out = tempfile::tempdir().unwrap();
        let settings = MatchSettings {
            games: 2,
            max_plies: 20,
            parallel_games: 2,
            output_dir: Some(out.path().to_path_buf()),
            ..MatchSettings::default()
        };
        let greedy: PlayerSpec = "greedy".parse().unwrap();
        let random: PlayerSpec = "random".parse().unwrap();
        let report = play_spec_match(
            &greedy,
            &random,
            &PlayerOptions::default(),
            &settings,
            &mut (),
        )
        .unwrap();
        assert_eq!(report.wdl.games(), 2);
        let summary = std::fs::read_to_string(out.path().join("summary.txt")).unwrap();
        assert_eq!(summary, format!("{}\n", report.summary()));
    }

    #[test]
    fn a_player_that_cannot_be_built_is_named_with_its_side() {
        let missing: PlayerSpec = "policy:/nonexistent/ckpt".parse().unwrap();
        let random: PlayerSpec = "random".parse().unwrap();
        let error = play_spec_match(
            &random,
            &missing,
            &PlayerOptions::default(),
            &MatchSettings::default(),
            &mut (),
        )
        .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("player B (policy:/nonexistent/ckpt)"),
            "{error}"
        );
    }
}
