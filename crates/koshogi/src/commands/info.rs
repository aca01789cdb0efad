//! `koshogi info`: what hardware and libtorch this build would use.

use anyhow::Result;
use clap::Args;

#[derive(Args)]
pub struct InfoArgs {}

pub fn run(_args: InfoArgs) -> Result<()> {
    let cuda = tch::Cuda::is_available();
    let device = if cuda { "cuda:0" } else { "cpu" };
    println!("koshogi {}", env!("CARGO_PKG_VERSION"));
    println!("device (auto): {device}");
    println!("cuda available: {cuda}");
    if cuda {
        println!("cuda devices: {}", tch::Cuda::device_count());
        println!("cudnn available: {}", tch::Cuda::cudnn_is_available());
    }
    println!("libtorch: {}", libtorch_version());
    println!("intra-op threads: {}", tch::get_num_threads());
    println!("inter-op threads: {}", tch::get_num_interop_threads());
    println!(
        "logical cores: {}",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    Ok(())
}

/// libtorch does not export its version through tch; the wheel's `version.py` (next to the
/// library directory torch-sys linked) carries it.
fn libtorch_version() -> String {
    option_env!("LIBTORCH")
        .map(|root| std::path::Path::new(root).join("version.py"))
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| {
            text.lines()
                .find_map(|line| line.strip_prefix("__version__ = "))
                .map(|v| v.trim().trim_matches('\'').trim_matches('"').to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}
