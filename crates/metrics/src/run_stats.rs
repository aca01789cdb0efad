//! Counters, rates and means of a running job (games/s, positions/s, mean game length, …), kept
//! cheaply so every worker can update them and a reporter can print them or log them to
//! TensorBoard.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use crate::error::MetricsError;
use crate::event_writer::EventWriter;

/// A counter with its rate over a recent time window and since it started.
#[derive(Debug, Clone)]
pub struct RateMeter {
    started: Instant,
    window: Duration,
    total: u64,
    /// Total as of the newest sample dropped from `samples`.
    baseline: u64,
    /// `(time, total after the increment)`, oldest first, covering at least the last window.
    samples: VecDeque<(Instant, u64)>,
}

impl RateMeter {
    pub fn new(window: Duration) -> RateMeter {
        RateMeter::starting_at(Instant::now(), window)
    }

    /// A meter whose clock starts at `started` (lets tests use synthetic times).
    pub fn starting_at(started: Instant, window: Duration) -> RateMeter {
        RateMeter {
            started,
            window,
            total: 0,
            baseline: 0,
            samples: VecDeque::new(),
        }
    }

    pub fn add(&mut self, count: u64) {
        self.add_at(Instant::now(), count);
    }

    pub fn add_at(&mut self, now: Instant, count: u64) {
        self.total += count;
        self.samples.push_back((now, self.total));
        if let Some(horizon) = now.checked_sub(self.window) {
            while let Some(&(t, total)) = self.samples.front() {
                if t >= horizon {
                    break;
                }
                self.baseline = total;
                self.samples.pop_front();
            }
        }
    }

    pub fn total(&self) -> u64 {
        self.total
    }

    /// Events per second since the meter started.
    pub fn overall_rate_at(&self, now: Instant) -> f64 {
        per_second(self.total, now.saturating_duration_since(self.started))
    }

    pub fn overall_rate(&self) -> f64 {
        self.overall_rate_at(Instant::now())
    }

    /// Events per second over the last window (or since the start, if that is shorter).
    pub fn recent_rate_at(&self, now: Instant) -> f64 {
        let window_start = now
            .checked_sub(self.window)
            .map_or(self.started, |t| t.max(self.started));
        let total_at_start = self
            .samples
            .iter()
            .take_while(|&&(t, _)| t <= window_start)
            .last()
            .map_or(self.baseline, |&(_, total)| total);
        per_second(
            self.total - total_at_start,
            now.saturating_duration_since(window_start),
        )
    }

    pub fn recent_rate(&self) -> f64 {
        self.recent_rate_at(Instant::now())
    }
}

fn per_second(count: u64, elapsed: Duration) -> f64 {
    let seconds = elapsed.as_secs_f64();
    if seconds > 0.0 {
        count as f64 / seconds
    } else {
        0.0
    }
}

/// Count, mean, minimum and maximum of observed values (e.g. game lengths, batch fill).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RunningMean {
    pub count: u64,
    pub sum: f64,
    pub min: f64,
    pub max: f64,
}

impl RunningMean {
    pub fn observe(&mut self, value: f64) {
        if self.count == 0 {
            self.min = value;
            self.max = value;
        } else {
            self.min = self.min.min(value);
            self.max = self.max.max(value);
        }
        self.count += 1;
        self.sum += value;
    }

    /// `None` before the first observation.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }
}

/// Named rate meters and means of one job, e.g. `count("games", 1)`, `observe("game_length", n)`.
/// Not synchronised: share it behind a `Mutex` (updates are a map lookup and a push).
#[derive(Debug, Clone)]
pub struct RunStats {
    window: Duration,
    started: Instant,
    counters: BTreeMap<String, RateMeter>,
    means: BTreeMap<String, RunningMean>,
}

impl RunStats {
    /// `window`: the span recent rates are measured over.
    pub fn new(window: Duration) -> RunStats {
        RunStats {
            window,
            started: Instant::now(),
            counters: BTreeMap::new(),
            means: BTreeMap::new(),
        }
    }

    pub fn count(&mut self, name: &str, n: u64) {
        if let Some(meter) = self.counters.get_mut(name) {
            meter.add(n);
        } else {
            let mut meter = RateMeter::starting_at(self.started, self.window);
            meter.add(n);
            self.counters.insert(name.to_string(), meter);
        }
    }

    pub fn observe(&mut self, name: &str, value: f64) {
        if let Some(mean) = self.means.get_mut(name) {
            mean.observe(value);
        } else {
            let mut mean = RunningMean::default();
            mean.observe(value);
            self.means.insert(name.to_string(), mean);
        }
    }

    pub fn counter(&self, name: &str) -> Option<&RateMeter> {
        self.counters.get(name)
    }

    pub fn mean(&self, name: &str) -> Option<&RunningMean> {
        self.means.get(name)
    }

    /// `(tag, value)` pairs: `<name>/total` and `<name>/per_second` (recent window) for counters,
    /// `<name>/mean` for observed values.
    pub fn scalars(&self) -> Vec<(String, f64)> {
        let now = Instant::now();
        let mut out = Vec::new();
        for (name, meter) in &self.counters {
            out.push((format!("{name}/total"), meter.total() as f64));
            out.push((format!("{name}/per_second"), meter.recent_rate_at(now)));
        }
        for (name, mean) in &self.means {
            if let Some(m) = mean.mean() {
                out.push((format!("{name}/mean"), m));
            }
        }
        out
    }

    /// Writes [`RunStats::scalars`] under `prefix/` as one TensorBoard event.
    pub fn write_to(
        &self,
        writer: &mut EventWriter,
        prefix: &str,
        step: i64,
    ) -> Result<(), MetricsError> {
        let scalars: Vec<(String, f64)> = self
            .scalars()
            .into_iter()
            .map(|(tag, v)| (format!("{prefix}/{tag}"), v))
            .collect();
        let borrowed: Vec<(&str, f64)> = scalars.iter().map(|(t, v)| (t.as_str(), *v)).collect();
        writer.add_scalars(step, &borrowed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_over_the_window_and_overall() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let mut meter = RateMeter::starting_at(t0, s(10));
        // 5 events per second for 20 s, then nothing for 5 s.
        for second in 1..=20 {
            meter.add_at(t0 + s(second), 5);
        }
        assert_eq!(meter.total(), 100);
        assert!((meter.overall_rate_at(t0 + s(20)) - 5.0).abs() < 1e-9);
        assert!((meter.recent_rate_at(t0 + s(20)) - 5.0).abs() < 1e-9);
        // Window (15, 25]: events at 16..=20 = 25 events over 10 s.
        assert!((meter.recent_rate_at(t0 + s(25)) - 2.5).abs() < 1e-9);
        assert!((meter.overall_rate_at(t0 + s(25)) - 4.0).abs() < 1e-9);
        // Shorter than the window since the start: rate since the start.
        let mut young = RateMeter::starting_at(t0, s(60));
        young.add_at(t0 + s(1), 3);
        assert!((young.recent_rate_at(t0 + s(2)) - 1.5).abs() < 1e-9);
    }

    #[test]
    fn running_mean_and_named_scalars() {
        let mut stats = RunStats::new(Duration::from_secs(60));
        assert!(stats.scalars().is_empty());
        stats.count("games", 2);
        for len in [100.0, 300.0] {
            stats.observe("game_length", len);
        }
        let m = stats.mean("game_length").unwrap();
        assert_eq!(
            (m.mean(), m.min, m.max, m.count),
            (Some(200.0), 100.0, 300.0, 2)
        );
        let tags: Vec<String> = stats.scalars().into_iter().map(|(t, _)| t).collect();
        assert_eq!(
            tags,
            ["games/total", "games/per_second", "game_length/mean"]
        );
        assert_eq!(RunningMean::default().mean(), None);
    }
}
