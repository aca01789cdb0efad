//! `koshogi bench <target>`: throughput benchmarks. The measurements live in the koshogi-bench
//! library, one module each; here are only their flags, one file each below (`bench/arena.rs`,
//! `bench/classic.rs`, `bench/nn.rs`, `bench/search.rs`, `bench/train.rs`), which turn them into
//! the library's options and print its report; this file only dispatches.

mod arena;
mod classic;
mod nn;
mod search;
mod train;

use anyhow::Context;
use clap::{Args, Subcommand};

#[derive(Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub target: BenchTarget,
}

#[derive(Subcommand)]
pub enum BenchTarget {
    /// Match speed per player kind (random, greedy, raw policy, search) against the random
    /// mover: games/s, plies/s, the player's moves/s and batch size, with peak memory.
    Arena(arena::ArenaBenchArgs),
    /// The classical engine: depth reached and nodes/s per move time on fixed positions, with
    /// peak memory.
    Classic(classic::ClassicBenchArgs),
    /// Network inference (positions/s per batch size) and training-step speed, per model size
    /// and precision, with peak memory.
    Nn(nn::NnBenchArgs),
    /// Network evaluations/s through the batched search driver versus raw batched forward
    /// passes at the same batch size (goal ratio >= 0.90), with peak memory.
    Search(search::SearchBenchArgs),
    /// Training samples/s through the real sampler and shards versus raw training steps on one
    /// batch (goal ratio >= 0.95), with peak memory.
    Train(train::TrainBenchArgs),
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    match args.target {
        BenchTarget::Arena(arena_args) => arena::run(arena_args).context("bench arena"),
        BenchTarget::Classic(classic_args) => classic::run(classic_args).context("bench classic"),
        BenchTarget::Nn(nn_args) => nn::run(nn_args).context("bench nn"),
        BenchTarget::Search(search_args) => search::run(search_args).context("bench search"),
        BenchTarget::Train(train_args) => train::run(train_args).context("bench train"),
    }
}
