//! `koshogi bench <target>`: throughput benchmarks. Each target's measuring code lives in the
//! crate that owns what is measured (so it can use that crate's internals) or, for `search`,
//! in a file of its own below (`bench/search.rs`); this file only dispatches.

mod search;

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
    Arena(koshogi_arena::bench::ArenaBenchArgs),
    /// Network inference (positions/s per batch size) and training-step speed, per model size
    /// and precision, with peak memory.
    Nn(koshogi_nn::bench::NnBenchArgs),
    /// Network evaluations/s through the batched search driver versus raw batched forward
    /// passes at the same batch size (goal ratio >= 0.90), with peak memory.
    Search(search::SearchBenchArgs),
    /// Training samples/s through the real sampler and shards versus raw training steps on one
    /// batch (goal ratio >= 0.95), with peak memory.
    Train(koshogi_train::bench::TrainBenchArgs),
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    match args.target {
        BenchTarget::Arena(arena_args) => koshogi_arena::bench::run(&arena_args)
            .map_err(anyhow::Error::msg)
            .context("bench arena"),
        BenchTarget::Nn(nn_args) => koshogi_nn::bench::run(&nn_args).context("bench nn"),
        BenchTarget::Search(search_args) => {
            search::run(&search_args).map_err(|e| anyhow::anyhow!("bench search: {e}"))
        }
        BenchTarget::Train(train_args) => koshogi_train::bench::run(&train_args)
            .map(|_report| ())
            .context("bench train"),
    }
}
