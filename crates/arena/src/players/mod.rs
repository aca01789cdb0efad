//! Ko shogi players and the textual syntax that names them (`koshogi arena --a/--b`, the ladder's
//! baselines, `koshogi eval --opponents`). The [`Player`](crate::Player) interface itself belongs
//! to the match machinery ([`crate::matches`]).
//!
//! * `spec.rs`: [`PlayerSpec`], the `random | greedy | ab:<depth> | material:<sims> |
//!   policy:<ckpt> | mcts:<ckpt>[:sims] | engine:<command>[@limits]` syntax;
//! * `search_settings.rs`: [`SearchSettings`], the search players' `@movetime=…,utility=…,
//!   forced=…` (equal time, and the hand-written parts off for the controls);
//! * `build.rs`: [`build_player`], a spec → a player ([`PlayerOptions`]);
//! * `spec_match.rs`: [`play_spec_match`], a match between two specs (`koshogi arena --a --b`);
//! * `baselines.rs`: the classical players that need no network (greedy material, alpha-beta),
//!   which koshogi-baselines owns with their names ([`BaselineSpec`]), as match players
//!   ([`GreedyPlayer`], [`AlphaBetaPlayer`], [`ClassicPlayer`]);
//! * `network.rs`: players backed by a checkpoint, the raw policy ([`PolicyPlayer`]) and tree
//!   search ([`MctsPlayer`]);
//! * [`engine`]: any program speaking the engine protocol, as a subprocess ([`EnginePlayer`]);
//! * `repetition.rs`: how the network players steer away from repeated positions.

mod baselines;
mod build;
pub mod engine;
mod network;
mod repetition;
mod search_settings;
mod spec;
mod spec_match;

pub use baselines::{AlphaBetaPlayer, ClassicPlayer, GreedyPlayer};
pub use build::{build_player, match_rules, BuildPlayerError, BuiltPlayer, PlayerOptions};
pub use engine::{EnginePlayer, EngineSpec};
pub use koshogi_baselines::BaselineSpec;
pub use network::{
    card_rules_options, resolve_card, CheckpointPathError, MctsPlayer, PolicyPlayer,
};
pub use search_settings::{SearchSettings, SearchSettingsError};
pub use spec::{parse_player_list, split_player_list, PlayerSpec, PlayerSpecError};
pub use spec_match::{play_spec_match, SpecMatchError};
