//! A finished ladder as text (what `koshogi arena --ladder` prints): how many games were new, the
//! anchor, every rated player's step, Elo, standard error, games and points, and where the
//! picture of progress is.

use std::fmt::Write;

use super::run_ladder::RunLadderResult;

impl RunLadderResult {
    /// The ladder's table, one line each, ending with a newline.
    pub fn summary(&self) -> String {
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = writeln!(
            text,
            "{} new games; anchor {} = 0; ratings in {}",
            self.games_played,
            self.anchor,
            self.ladder_csv.display()
        );
        let _ = writeln!(
            text,
            "{:<24} {:>10} {:>9} {:>7} {:>7} {:>8}",
            "player", "step", "Elo", "± se", "games", "points"
        );
        for r in &self.ratings {
            let step = self
                .steps
                .get(&r.name)
                .map(|s| s.to_string())
                .unwrap_or_default();
            let _ = writeln!(
                text,
                "{:<24} {:>10} {:>9.1} {:>7.1} {:>7} {:>8}",
                r.name, step, r.elo, r.stderr, r.games, r.points
            );
        }
        if let Some(picture) = &self.elo_svg {
            let _ = writeln!(
                text,
                "picture of progress (Elo against training hours and steps): {}",
                picture.display()
            );
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::PathBuf;

    use crate::statistics::Rating;

    use super::*;

    #[test]
    fn the_summary_lists_each_player_with_its_step() {
        let rating = |name: &str, elo: f64| Rating {
            name: name.into(),
            elo,
            stderr: 12.5,
            games: 40.0,
            points: 21.5,
        };
        let result = RunLadderResult {
            anchor: "step-000000000".into(),
            games_played: 80,
            ratings: vec![rating("step-000000000", 0.0), rating("greedy", -35.3)],
            steps: HashMap::from([("step-000000000".to_string(), 0)]),
            ladder_csv: PathBuf::from("run/arena/ladder.csv"),
            elo_svg: Some(PathBuf::from("run/arena/elo.svg")),
        };
        let text = result.summary();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "80 new games; anchor step-000000000 = 0; ratings in run/arena/ladder.csv"
        );
        assert!(lines[1].starts_with("player "), "{text}");
        assert_eq!(
            lines[2].split_whitespace().collect::<Vec<_>>(),
            ["step-000000000", "0", "0.0", "12.5", "40", "21.5"]
        );
        assert_eq!(
            lines[3].split_whitespace().collect::<Vec<_>>(),
            ["greedy", "-35.3", "12.5", "40", "21.5"]
        );
        assert!(lines[4].ends_with(": run/arena/elo.svg"), "{text}");
        assert_eq!(lines.len(), 5);
    }
}
