//! `koshogi`: the single command-line entry point of koshogi-zero.
//!
//! Each subcommand lives in its own file under `commands/`; this file only parses arguments,
//! sets up logging and turns errors into a message and a non-zero exit (never a panic).

mod commands;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "koshogi", version, about = "Self-play reinforcement learning for Ko shogi", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show the compute device, libtorch version and thread counts that would be used.
    Info(commands::info::InfoArgs),
}

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(args) => commands::info::run(args),
    };
    if let Err(err) = result {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}
