//! `koshogi perft`: counts legal move sequences (moves counted by effect, §4.10) to compare the
//! generator with independent implementations, and reports the speed.
//!
//! Output (stdout): with `--divide`, one `<canonical notation>\t<leaf count>` line per legal move,
//! sorted by notation; then `nodes\t<N>`, `time_s\t<seconds>` and `nodes_per_s\t<rate>`.

use anyhow::{ensure, Result};
use clap::Args;
use koshogi_rules::perft::{perft, perft_divide};
use std::io::Write;
use std::time::Instant;

use crate::position_args::{parse_position, parse_rules, quiet_on_broken_pipe};

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Start from this KSFEN position (quoted) or `startpos`.
    #[arg(long, default_value = "startpos", value_name = "KSFEN|startpos")]
    pub position: String,
    /// Number of plies.
    #[arg(long)]
    pub depth: u32,
    /// Print the leaf count below each legal move.
    #[arg(long)]
    pub divide: bool,
    /// Rule options as JSON (§12 keys); default KS-default.
    #[arg(long, value_name = "JSON")]
    pub rules: Option<String>,
}

pub fn run(args: PerftArgs) -> Result<()> {
    ensure!(
        args.depth <= 12,
        "--depth {} is unreasonably large (at most 12)",
        args.depth
    );
    let position = parse_position(&[args.position])?;
    let options = parse_rules(args.rules.as_deref())?;
    let start = Instant::now();
    let (entries, nodes) = if args.divide {
        let entries = perft_divide(&position, args.depth, &options);
        let nodes = if args.depth == 0 {
            1
        } else {
            entries.iter().map(|(_, n)| n).sum()
        };
        (entries, nodes)
    } else {
        (Vec::new(), perft(&position, args.depth, &options))
    };
    let seconds = start.elapsed().as_secs_f64();
    let write = || -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        for (mv, n) in &entries {
            writeln!(out, "{mv}\t{n}")?;
        }
        writeln!(out, "nodes\t{nodes}")?;
        writeln!(out, "time_s\t{seconds:.3}")?;
        writeln!(out, "nodes_per_s\t{:.0}", nodes as f64 / seconds.max(1e-9))?;
        out.flush()
    };
    quiet_on_broken_pipe(write())
}
