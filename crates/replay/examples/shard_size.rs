//! Measures shard size (bytes per position) and write/read speed on realistic positions: games of
//! uniformly random legal moves from the start position, played by the rules engine, recorded as
//! self-play would record them (playout-cap randomisation, sparse policy targets).
//!
//! `cargo run -p koshogi-replay --example shard_size -- [games] [max_plies] [full_search_fraction]
//! [policy_entries] [seed] [keep_dir]` (defaults 16 300 0.25 16 1, shard in a temp dir). Prints
//! sizes, speeds and the process's peak memory (VmHWM).

use std::io::Read;
use std::time::Instant;

use koshogi_replay::{
    GameRecorder, PolicyEntry, PositionRecord, Provenance, SearchRecord, Shard, ShardArrays,
    ShardDir,
};
use koshogi_rules::{DrawReason, Game, Outcome, RulesOptions};
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn arg<T: std::str::FromStr>(index: usize, default: T) -> T {
    std::env::args()
        .nth(index)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

/// A random game recorded like self-play: a `full_search_fraction` of positions carry a policy
/// over `policy_entries` distinct moves with softmax-shaped weights, and play their top move.
fn random_game(
    rng: &mut ChaCha8Rng,
    game_id: u64,
    max_plies: u32,
    full_search_fraction: f64,
    policy_entries: usize,
) -> Vec<PositionRecord> {
    let mut game = Game::new(RulesOptions::default()).with_max_plies(Some(max_plies));
    let mut recorder = GameRecorder::new(game_id);
    let mut moves = Vec::new();
    let outcome = loop {
        if let Some(outcome) = game.outcome() {
            break outcome;
        }
        moves.clear();
        game.generate_legal_moves(&mut moves);
        if moves.is_empty() {
            break Outcome::Draw(DrawReason::NoLegalMoves);
        }
        let full_search = rng.random_bool(full_search_fraction);
        let (policy, played) = if full_search {
            let k = policy_entries.min(moves.len());
            let logits: Vec<f32> = (0..k).map(|_| rng.random_range(-3.0f32..3.0)).collect();
            let total: f32 = logits.iter().map(|l| l.exp()).sum();
            let policy: Vec<PolicyEntry> = sample(rng, moves.len(), k)
                .into_iter()
                .zip(&logits)
                .map(|(m, l)| PolicyEntry {
                    move_index: m as u32,
                    weight: l.exp() / total,
                })
                .collect();
            let best = policy
                .iter()
                .max_by(|a, b| a.weight.total_cmp(&b.weight))
                .map_or(0, |e| e.move_index);
            (policy, best)
        } else {
            (Vec::new(), rng.random_range(0..moves.len() as u32))
        };
        recorder.record(
            game.position(),
            SearchRecord {
                legal_move_count: moves.len() as u32,
                played_move: played,
                full_search,
                policy,
                search_value: rng.random_range(-1.0..1.0),
            },
        );
        game.play(moves[played as usize]);
    };
    recorder.finish(game.position(), &outcome)
}

fn peak_memory_kib() -> Option<u64> {
    std::fs::read_to_string("/proc/self/status")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

fn main() {
    let games: u64 = arg(1, 16);
    let max_plies: u32 = arg(2, 300);
    let full_search_fraction: f64 = arg(3, 0.25);
    let policy_entries: usize = arg(4, 16);
    let seed: u64 = arg(5, 1);

    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let started = Instant::now();
    let mut arrays = ShardArrays::new();
    for game_id in 0..games {
        for record in random_game(
            &mut rng,
            game_id,
            max_plies,
            full_search_fraction,
            policy_entries,
        ) {
            arrays.push(&record).expect("recorded positions are valid");
        }
    }
    let playout_seconds = started.elapsed().as_secs_f64();

    // An optional sixth argument keeps the shard in that directory (e.g. for scripts/read_shard.py).
    let temp = tempfile::tempdir().expect("temp dir");
    let out_dir = std::env::args()
        .nth(6)
        .map_or_else(|| temp.path().to_path_buf(), Into::into);
    let shard_dir = ShardDir::open(out_dir).expect("shard dir");
    let started = Instant::now();
    let file = shard_dir
        .write_shard("bench", &Provenance::default(), &arrays)
        .expect("write");
    let write_seconds = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let shard = Shard::open(&file.path).expect("read");
    let read_seconds = started.elapsed().as_secs_f64();
    assert_eq!(shard.arrays(), &arrays, "shard must read back exactly");

    let n = arrays.len() as f64;
    println!(
        "games {games}, max_plies {max_plies}, full-search fraction {full_search_fraction}, \
         policy entries {policy_entries}, seed {seed}"
    );
    println!(
        "{}\npositions {}, policy entries {}, shard {} bytes = {:.1} bytes/position \
         (random playouts {:.1} s; write {:.3} s = {:.0} positions/s; read+verify {:.3} s = {:.0} positions/s)",
        file.path.display(),
        arrays.len(),
        arrays.policy_moves.len(),
        shard.file_size(),
        shard.file_size() as f64 / n,
        playout_seconds,
        write_seconds,
        n / write_seconds,
        read_seconds,
        n / read_seconds,
    );
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&file.path).unwrap()).unwrap();
    let mut parts = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let mut sink = Vec::new();
        entry.read_to_end(&mut sink).unwrap();
        parts.push(format!(
            "{} {:.2}",
            entry.name().trim_end_matches(".npy"),
            entry.compressed_size() as f64 / n
        ));
    }
    println!("compressed bytes/position by member: {}", parts.join(", "));
    println!(
        "peak memory (VmHWM): {} KiB",
        peak_memory_kib().unwrap_or(0)
    );
}
