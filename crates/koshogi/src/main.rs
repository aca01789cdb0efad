//! `koshogi`: the single command-line entry point of koshogi-zero.
//!
//! Each subcommand lives in its own file under `commands/` (a mode with flags of its own in a
//! submodule, `commands/arena/ladder.rs`); this file only parses arguments,
//! sets up logging and turns errors into a message and a non-zero exit (never a panic). What
//! several commands share sits beside `commands/`, so that no command imports another: the
//! position arguments (`position_args`), the network players' flags (`network_flags`), the
//! engine's settings (`engine_settings`), the match flags and progress display
//! (`match_flags`, `match_progress`), the trainer's display (`train_display`), `--run`/`--config` (`run_location`) and a stored run's
//! flags (`store_options`). What a run does (its configuration, roles and one-process wiring)
//! is koshogi-run's.

mod commands;
mod engine_settings;
mod interrupt;
mod match_flags;
mod match_progress;
mod memory_reuse;
mod network_flags;
mod openmp_wait;
mod position_args;
mod progress;
mod run_location;
mod store_options;
mod train_display;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "koshogi", version, about = "Self-play reinforcement learning for Ko shogi", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Listed in the order of a run: the main job and its parts, evaluation and export, then tools.
#[derive(Subcommand)]
enum Command {
    /// The main job: self-play and training together (resumes when run again on a run directory).
    Run(commands::run::RunArgs),
    /// Play self-play games with the run's newest checkpoint and write replay shards.
    Selfplay(commands::selfplay::SelfplayArgs),
    /// Train the network on a run directory's replay shards (checkpoints, TensorBoard, resume).
    Train(commands::train::TrainArgs),
    /// Copy a run between a local directory and object storage (push, pull), or list a stored
    /// run (ls): docs/distributed.md.
    Store(commands::store::StoreArgs),
    /// The gate as a process of its own: each new checkpoint plays the accepted one, the
    /// winner goes to checkpoints/accepted.json (docs/distributed.md).
    Gate(commands::gate::GateArgs),
    /// Play matches between players (Elo ± 95 % CI, SPRT) or rate a run's checkpoints (--ladder).
    Arena(commands::arena::ArenaArgs),
    /// A run's checkpoint against its first checkpoint and fixed opponents, policy and search:
    /// the table (W/D/L, score, Elo, pass and capture rates) printed and written to DIR/eval/.
    Eval(commands::eval::EvalArgs),
    /// What a run's shards teach and what a checkpoint learned: targets and values on passes,
    /// captures and material, earliest vs latest shards.
    Diagnose(commands::diagnose::DiagnoseArgs),
    /// Export a checkpoint as TorchScript and/or ONNX + safetensors + JSON model card for other
    /// clients.
    Export(commands::export::ExportArgs),
    /// Write a position's network input tensor and legal moves' policy legs (npy + JSON), or a
    /// run's replay shards as training arrays for PyTorch (--run / --shards).
    Encode(commands::encode::EncodeArgs),
    /// Speak the engine line protocol on stdin/stdout (docs/engine-protocol.md).
    Engine(commands::engine::EngineArgs),
    /// Play against the engine in the terminal.
    Play(commands::play::PlayArgs),
    /// List every legal move of a position: notation, origin, resulting KSFEN (sorted).
    Moves(commands::moves::MovesArgs),
    /// Count legal move sequences to a depth (move generation check and speed).
    Perft(commands::perft::PerftArgs),
    /// Print a position (or a recorded game's position) as a board with its derived rules state.
    Show(commands::show::ShowArgs),
    /// Web viewer of a run: browse games, the network's view, play a checkpoint, training curves.
    Serve(commands::serve::ServeArgs),
    /// Measure throughput with peak memory: `koshogi bench nn|search|train|arena|classic`.
    Bench(commands::bench::BenchArgs),
    /// Show the compute device, libtorch version and thread counts that would be used.
    Info(commands::info::InfoArgs),
}

/// `RUST_LOG`, else `info`; `object_store` logs at `warn` unless `RUST_LOG` names it, because it
/// reports every retry of a request at `info`, and a store outage is to be told once (by
/// koshogi-run-store), not once per attempt.
fn log_filter() -> tracing_subscriber::EnvFilter {
    let asked = std::env::var("RUST_LOG").unwrap_or_default();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    if asked.contains("object_store") {
        return filter;
    }
    match "object_store=warn".parse() {
        Ok(directive) => filter.add_directive(directive),
        Err(_) => filter,
    }
}

fn main() {
    // libgomp reads its wait policy when it is loaded, before `main`: restart once with idle
    // OpenMP threads sleeping instead of spinning (5-10x faster inference on 2 shared cores).
    if let Err(err) = openmp_wait::reexec_with_passive_openmp_wait() {
        eprintln!("warning: could not restart with OMP_WAIT_POLICY=PASSIVE ({err}); inference may be slow");
    }
    // Activation tensors are freed and allocated again every batch: keep them in the heap.
    memory_reuse::keep_freed_memory_for_reuse();
    tracing_subscriber::fmt()
        .with_env_filter(log_filter())
        // Log lines go between redraws of the progress bars, never through them.
        .with_writer(progress::LogWriter)
        // Colour codes only for a terminal: `koshogi run 2>log` gets plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Arena(args) => commands::arena::run(args),
        Command::Eval(args) => commands::eval::run(args),
        Command::Info(args) => commands::info::run(args),
        Command::Store(args) => commands::store::run(args),
        Command::Gate(args) => commands::gate::run(args),
        Command::Moves(args) => commands::moves::run(args),
        Command::Perft(args) => commands::perft::run(args),
        Command::Play(args) => commands::play::run(args),
        Command::Encode(args) => commands::encode::run(args),
        Command::Engine(args) => commands::engine::run(args),
        Command::Export(args) => commands::export::run(args),
        Command::Run(args) => commands::run::run(args),
        Command::Selfplay(args) => commands::selfplay::run(args),
        Command::Show(args) => commands::show::run(args),
        Command::Serve(args) => commands::serve::run(args),
        Command::Train(args) => commands::train::run(args),
        Command::Bench(args) => commands::bench::run(args),
        Command::Diagnose(args) => commands::diagnose::run(args),
    };
    if let Err(err) = result {
        eprintln!("error: {}", error_text(&err));
        std::process::exit(1);
    }
}

/// The error and its causes joined by ": ", as `{:#}` prints them, but a cause whose text the
/// message before it already holds is left out: a library error that shows its source in its
/// own message (`network: {0}`) would otherwise say everything twice.
fn error_text(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let message = cause.to_string();
        if text.contains(&message) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&message);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::error_text;

    /// A library error in the usual shape: its message holds its source's.
    #[derive(Debug)]
    struct Wrapped(std::io::Error);

    impl std::fmt::Display for Wrapped {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "network: {}", self.0)
        }
    }

    impl std::error::Error for Wrapped {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_cause_already_in_the_message_is_said_once() {
        let io = std::io::Error::other("checkpoint x is incompatible");
        let err = anyhow::Error::from(Wrapped(io)).context("resuming run r");
        assert_eq!(
            error_text(&err),
            "resuming run r: network: checkpoint x is incompatible"
        );
        let plain = anyhow::anyhow!("inner").context("outer");
        assert_eq!(error_text(&plain), format!("{plain:#}"));
    }
}
