//! The perft counts of `data/rules/perft.txt` (format in `data/README.md`): every line's position
//! searched to its depth must give its leaf count. A file without counts fails.

mod common;

use common::content_lines;
use koshogi_rules::perft::perft;
use koshogi_rules::{Position, RulesOptions};
use koshogi_test_support::data_path;

#[test]
fn every_perft_count_of_data_rules_perft_holds() {
    let path = data_path("rules/perft.txt");
    let mut counts = 0;
    for (number, line) in content_lines(&path) {
        let at = format!("perft.txt:{number}");
        let mut fields = line.splitn(3, ' ');
        let (Some(depth), Some(leaves), Some(position)) =
            (fields.next(), fields.next(), fields.next())
        else {
            panic!("{at}: expected `<depth> <leaf count> <position>`");
        };
        let depth: u32 = depth.parse().unwrap_or_else(|_| panic!("{at}: bad depth"));
        let leaves: u64 = leaves
            .parse()
            .unwrap_or_else(|_| panic!("{at}: bad leaf count"));
        let position = match position {
            "startpos" => Position::startpos(),
            ksfen => Position::from_ksfen(ksfen).unwrap_or_else(|e| panic!("{at}: {e}")),
        };
        assert_eq!(
            perft(&position, depth, &RulesOptions::default()),
            leaves,
            "{at}: perft {depth}"
        );
        counts += 1;
    }
    assert!(counts > 0, "{}: no perft counts", path.display());
}
