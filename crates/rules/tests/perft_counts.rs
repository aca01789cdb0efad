//! The perft counts of `data/rules/perft.txt` (format in `data/README.md`): every line's position
//! searched to its depth must give its leaf count. A file without counts fails.

use std::path::Path;

use koshogi_rules::perft::perft;
use koshogi_rules::{Position, RulesOptions};

#[test]
fn every_perft_count_of_data_rules_perft_holds() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/rules/perft.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut counts = 0;
    for (index, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap().trim();
        if line.is_empty() {
            continue;
        }
        let at = format!("perft.txt:{}", index + 1);
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
