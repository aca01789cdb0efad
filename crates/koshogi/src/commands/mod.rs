//! One module per `koshogi` subcommand. A command imports no other command: what two share
//! lives beside this folder (see the crate's header in `main.rs`).

pub mod arena;
pub mod bench;
pub mod diagnose;
pub mod encode;
pub mod engine;
pub mod eval;
pub mod export;
pub mod gate;
pub mod info;
pub mod moves;
pub mod perft;
pub mod play;
pub mod run;
pub mod selfplay;
pub mod serve;
pub mod show;
pub mod store;
pub mod train;
