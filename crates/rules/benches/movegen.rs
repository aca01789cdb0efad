//! Legal move generation speed: the start position and a fixed set of 32 mid-game positions taken
//! from seeded random playouts at plies 100–600. Throughput is reported in generated legal moves
//! per second (criterion "elements"); the process's peak memory (VmHWM) is printed at the end.
//!
//! Run: `cargo bench -p koshogi-rules --bench movegen`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use koshogi_rules::perft::perft;
use koshogi_rules::{Move, Position, RulesOptions};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

/// 32 positions at plies spread over 100..=600 from seeded random playouts (a playout that ends
/// before its target ply is replaced by the next seed).
fn mid_game_positions(opts: &RulesOptions) -> Vec<Position> {
    let mut out = Vec::new();
    let mut seed = 0u64;
    let mut moves = Vec::new();
    while out.len() < 32 {
        let target = 100 + (out.len() as u32 * 500) / 31;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        seed += 1;
        let mut pos = Position::startpos();
        let mut reached = true;
        for _ in 0..target {
            moves.clear();
            pos.generate_moves(opts, &mut moves);
            if moves.is_empty() {
                reached = false;
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            pos.play(&mv, opts);
        }
        moves.clear();
        pos.generate_moves(opts, &mut moves);
        if reached && !moves.is_empty() {
            out.push(pos);
        }
    }
    out
}

fn count_moves(positions: &[Position], opts: &RulesOptions) -> u64 {
    let mut buf = Vec::new();
    positions
        .iter()
        .map(|p| {
            buf.clear();
            p.generate_moves(opts, &mut buf);
            buf.len() as u64
        })
        .sum()
}

fn bench_movegen(c: &mut Criterion) {
    let opts = RulesOptions::default();
    let start = vec![Position::startpos()];
    let mid = mid_game_positions(&opts);
    let mut group = c.benchmark_group("legal_moves");
    for (name, set) in [("start_position", &start), ("mid_game_32", &mid)] {
        let total = count_moves(set, &opts);
        eprintln!(
            "{name}: {} positions, {total} legal moves per pass",
            set.len()
        );
        group.throughput(Throughput::Elements(total));
        let mut buf: Vec<Move> = Vec::with_capacity(1024);
        group.bench_function(name, |b| {
            b.iter(|| {
                for p in set.iter() {
                    buf.clear();
                    p.generate_moves(&opts, &mut buf);
                    black_box(buf.len());
                }
            })
        });
    }
    // Make + unmake of every legal move of the mid-game set (the other half of search cost).
    let total = count_moves(&mid, &opts);
    group.throughput(Throughput::Elements(total));
    group.bench_function("mid_game_32_play_undo_all", |b| {
        b.iter_batched_ref(
            || mid.clone(),
            |positions| {
                let mut buf = Vec::new();
                for p in positions.iter_mut() {
                    buf.clear();
                    p.generate_moves(&opts, &mut buf);
                    for mv in &buf {
                        let undo = p.play(mv, &opts);
                        p.undo(undo);
                    }
                }
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.throughput(Throughput::Elements(50_940));
    group.bench_function("start_depth_2", |b| {
        b.iter(|| perft(black_box(&start[0]), 2, &opts))
    });
    group.finish();
}

/// CPU seconds used by this thread so far (utime + stime from /proc, 100 ticks per second), so
/// that a per-core rate can be reported even when the machine is shared and wall time is noisy.
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let after_name = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// Legal moves generated per CPU second on the mid-game set (≈3 CPU seconds of work).
fn report_cpu_rate(_: &mut Criterion) {
    let opts = RulesOptions::default();
    let mid = mid_game_positions(&opts);
    let per_pass = count_moves(&mid, &opts);
    let mut buf = Vec::with_capacity(1024);
    let Some(start) = thread_cpu_seconds() else {
        return;
    };
    let mut passes = 0u64;
    while thread_cpu_seconds().unwrap_or(start) - start < 3.0 {
        for _ in 0..100 {
            for p in &mid {
                buf.clear();
                p.generate_moves(&opts, &mut buf);
                black_box(buf.len());
            }
        }
        passes += 100;
    }
    let cpu = thread_cpu_seconds().unwrap_or(start) - start;
    eprintln!(
        "mid_game_32 per CPU second: {:.1} M legal moves/s ({passes} passes, {cpu:.2} CPU s)",
        (passes * per_pass) as f64 / cpu / 1e6
    );
}

fn report_peak_memory(_: &mut Criterion) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak = status
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .unwrap_or("VmHWM: unavailable");
    eprintln!("peak memory {}", peak.trim_start_matches("VmHWM:").trim());
}

criterion_group!(benches, bench_movegen, report_cpu_rate, report_peak_memory);
criterion_main!(benches);
