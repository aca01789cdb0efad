//! Model cards (`koshogi_nn::checkpoint::read_card`: size bound, JSON, versions and plane
//! counts, the weights file name, the architecture's bounds) as every checkpoint loader, the
//! engine's `setoption name model`, the viewer and export read them; no weights are loaded.
//! An accepted card's architecture is usable without a panic (the parameter bound that is
//! checked against the weights file, its block layout) and its rules options are read as the
//! loaders read them.
#![no_main]

use koshogi_nn::checkpoint::read_card;
use koshogi_rules::RulesOptions;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = koshogi_fuzz::scratch_file("model.json", data);
    let Ok(card) = read_card(&path) else {
        return;
    };
    let architecture = &card.architecture;
    let _ = architecture.parameter_lower_bound();
    for block in 0..architecture.blocks {
        let _ = architecture.is_global_pool_block(block);
    }
    assert!(architecture.same_weights_as(architecture));
    let _ = serde_json::from_value::<RulesOptions>(card.rules_options.clone());
    let text = serde_json::to_string(&card).expect("a card serialises");
    let again: koshogi_nn::checkpoint::ModelCard =
        serde_json::from_str(&text).expect("a card's own JSON reads back");
    assert_eq!(again.architecture, card.architecture);
});
