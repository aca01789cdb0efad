//! The fixed-depth searches of `data/classic/search_counts.txt` (format in `data/README.md`):
//! each line's position, searched with its settings, must give its move and node count. A file
//! without lines fails.

use koshogi_baselines::classic::{ClassicEngine, ClassicSpec};
use koshogi_rules::{Game, Position, RulesOptions};
use koshogi_test_support::data_path;
use rand::SeedableRng;

#[test]
fn every_search_count_of_data_classic_holds() {
    let path = data_path("classic/search_counts.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut checked = 0;
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = format!("search_counts.txt:{}", number + 1);
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [file, settings, best_move, nodes] = fields[..] else {
            panic!("{at}: expected `<position file> <settings> <best move> <nodes>`");
        };
        let nodes: u64 = nodes
            .parse()
            .unwrap_or_else(|_| panic!("{at}: bad node count"));
        let ksfen_path = data_path(&format!("classic/{file}"));
        let ksfen = std::fs::read_to_string(&ksfen_path)
            .unwrap_or_else(|e| panic!("{at}: {}: {e}", ksfen_path.display()));
        let position =
            Position::from_ksfen(ksfen.trim()).unwrap_or_else(|e| panic!("{at}: {file}: {e}"));
        let spec = ClassicSpec::parse_settings(settings).unwrap_or_else(|e| panic!("{at}: {e}"));
        let limits = spec.limits();
        assert!(
            limits.depth.is_some() && limits.movetime.is_none(),
            "{at}: a count needs a fixed depth and no clock"
        );
        let game = Game::from_position(position, RulesOptions::default());
        let result = ClassicEngine::new(spec.config())
            .search(
                &game,
                &limits,
                &mut rand_chacha::ChaCha8Rng::seed_from_u64(7),
                &mut |_| {},
            )
            .unwrap_or_else(|| panic!("{at}: no move"));
        assert_eq!(
            (result.best_move.to_string(), result.nodes),
            (best_move.to_string(), nodes),
            "{at}: {file} with {settings}"
        );
        checked += 1;
    }
    assert!(checked > 0, "{}: no search counts", path.display());
}
