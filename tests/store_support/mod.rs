//! The distributed roles against one stored run, as separate processes: two self-play workers
//! and a trainer meet only through the store; then a worker and the trainer are killed with
//! SIGKILL and restarted, and nothing published may be lost or corrupt. Shared by the
//! `file://` test (always) and the S3 test (a moto server on loopback).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use koshogi_replay::Shard;
use koshogi_run_store::{remote_checkpoints, RemoteRun};

/// The tiny network of the CLI tests, with games and shards big enough that two workers write
/// a few objects a second (moto, a Python server, serves about 150 requests a second here);
/// the trainer waits for data (2 samples per new row), so checkpoints come every few seconds.
pub fn store_run() -> String {
    koshogi_test_support::tiny_run_toml(
        r#"[search]
simulations = 8
[selfplay]
workers = 1
games_per_worker = 4
max_plies = 40
cheap_simulations = 2
positions_per_shard = 160
[train]
batch_size = 8
start_rows = 32
samples_per_new_row = 2.0
poll_seconds = 0.2
log_every_steps = 10
[train.window]
min_rows = 64
[train.checkpoint]
every_steps = 200
keep_last = 1000
"#,
    )
}

pub struct Roles {
    /// Shards already read and verified: name → model step.
    verified: std::sync::Mutex<BTreeMap<String, u64>>,
    pub url: String,
    pub env: Vec<(String, String)>,
    pub root: tempfile::TempDir,
    /// The configuration file the trainer is started with (a test may rewrite it first).
    pub config: PathBuf,
}

/// What the store holds, read through the same crate the roles use.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// Shard name → the checkpoint step its games were played with.
    pub shards: BTreeMap<String, u64>,
    pub published: BTreeSet<u64>,
    pub latest: Option<u64>,
    /// Shards the newest published checkpoint's trainer state has seen.
    pub trained_on: BTreeSet<String>,
}

impl Snapshot {
    /// The shards of worker `id` (names start with `<id>_`).
    pub fn of_worker<'a>(
        &'a self,
        id: &'a str,
    ) -> impl Iterator<Item = (&'a String, &'a u64)> + 'a {
        self.shards.iter().filter(move |(name, _)| {
            koshogi_replay::parse_shard_file_name(name)
                .is_some_and(|(_, writer)| writer.starts_with(&format!("{id}_")))
        })
    }

    pub fn plays_a_trained_checkpoint(&self, id: &str) -> bool {
        self.of_worker(id).any(|(_, step)| *step > 0)
    }

    pub fn trainer_used(&self, id: &str) -> bool {
        self.of_worker(id)
            .any(|(name, _)| self.trained_on.contains(name))
    }
}

impl Roles {
    pub fn new(url: String, env: Vec<(String, String)>, root: tempfile::TempDir) -> Roles {
        let config = root.path().join("store-run.toml");
        std::fs::write(&config, store_run()).unwrap();
        Roles {
            verified: Default::default(),
            url,
            env,
            root,
            config,
        }
    }

    pub fn remote(&self) -> RemoteRun {
        RemoteRun::open(&self.url).unwrap()
    }

    fn spawn(&self, name: &str, args: &[&str]) -> Role {
        let log = |suffix: &str| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(self.root.path().join(format!("{name}.{suffix}")))
                .unwrap()
        };
        let child = Command::new(koshogi_test_support::koshogi_binary())
            .args(args)
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env("KOSHOGI_RUN_CACHE", self.root.path().join("cache"))
            .env("RUST_LOG", "info")
            .env("OMP_NUM_THREADS", "1")
            .stdin(Stdio::null())
            .stdout(log("out"))
            .stderr(log("err"))
            .spawn()
            .expect("the koshogi binary starts");
        Role(child)
    }

    pub fn trainer(&self) -> Role {
        let config = self.config.to_str().unwrap();
        let args = [
            "train",
            "--run",
            &self.url,
            "--config",
            config,
            "--follow",
            "--resume",
            "--poll-seconds",
            "0.2",
        ];
        self.spawn("trainer", &args)
    }

    pub fn worker(&self, id: &str) -> Role {
        let args = [
            "selfplay",
            "--run",
            &self.url,
            "--worker-id",
            id,
            "--poll-seconds",
            "0.2",
        ];
        self.spawn(&format!("worker-{id}"), &args)
    }

    /// The logs of every process so far, for failure messages.
    pub fn logs(&self) -> String {
        let mut text = String::new();
        let mut names: Vec<PathBuf> = std::fs::read_dir(self.root.path())
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "err" || x == "out"))
            .collect();
        names.sort();
        for path in names {
            let body = std::fs::read_to_string(&path).unwrap_or_default();
            let tail: Vec<&str> = body.lines().rev().take(25).collect();
            text += &format!("--- {} (last lines)\n", path.display());
            for line in tail.into_iter().rev() {
                text += line;
                text.push('\n');
            }
        }
        text
    }

    /// The cache directory of worker `id` (there is one run under the cache root).
    pub fn worker_cache(&self, id: &str) -> PathBuf {
        let cache = self.root.path().join("cache");
        let run = std::fs::read_dir(&cache).unwrap().next().unwrap().unwrap();
        run.path().join(format!("selfplay-{id}"))
    }

    /// The finished shards worker `id` has not sent yet.
    pub fn worker_outbox(&self, id: &str) -> Vec<String> {
        let mut names = Vec::new();
        {
            let dir = self.worker_cache(id).join("shards");
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if koshogi_replay::parse_shard_file_name(&name).is_some() {
                    names.push(name);
                }
            }
        }
        names
    }

    /// Reads the whole stored run, verifying every shard (checksums) and fetching every
    /// published checkpoint whole (sizes against its marker). Panics on anything corrupt.
    /// Without `full`, only the newest checkpoint is fetched.
    pub fn snapshot(&self, full: bool) -> Snapshot {
        let remote = self.remote();
        let mut snapshot = Snapshot::default();
        let mut verified = self.verified.lock().unwrap();
        for entry in remote.list("shards").unwrap() {
            let name = entry.key.strip_prefix("shards/").unwrap().to_string();
            if let Some(step) = verified.get(&name) {
                snapshot.shards.insert(name, *step);
                continue;
            }
            let bytes = remote.get(&entry.key, 1 << 30).unwrap().unwrap();
            let shard = Shard::from_bytes(Path::new(&entry.key), &bytes)
                .unwrap_or_else(|e| panic!("stored shard {name} is corrupt: {e}\n{}", self.logs()));
            let step = shard.meta().provenance.model_step;
            verified.insert(name.clone(), step);
            snapshot.shards.insert(name, step);
        }
        drop(verified);
        let (published, _) = remote_checkpoints::list(&remote).unwrap();
        snapshot.latest = remote_checkpoints::latest(&remote).unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let newest = published.last().copied();
        for &step in published.iter().filter(|&&s| full || Some(s) == newest) {
            let dir = remote_checkpoints::fetch(&remote, step, scratch.path())
                .unwrap_or_else(|e| panic!("published checkpoint {step} is not whole: {e}"));
            if Some(step) == published.last().copied() {
                let state: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(dir.join("trainer_state.json")).unwrap())
                        .unwrap();
                for shard in state["sampler"]["shards"].as_array().into_iter().flatten() {
                    snapshot
                        .trained_on
                        .insert(shard["file"].as_str().unwrap().to_string());
                }
            }
        }
        snapshot.published = published;
        snapshot
    }

    /// Polls the store until `done` holds, or panics with the logs after `limit`.
    pub fn wait_for(
        &self,
        what: &str,
        limit: Duration,
        done: impl Fn(&Snapshot) -> bool,
    ) -> Snapshot {
        let start = Instant::now();
        loop {
            let snapshot = self.snapshot(false);
            if done(&snapshot) {
                return snapshot;
            }
            if start.elapsed() > limit {
                panic!(
                    "waited {limit:?} for {what}; the store holds {} shards, checkpoints {:?}\n{}",
                    snapshot.shards.len(),
                    snapshot.published,
                    self.logs()
                );
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

/// A role's process, killed if the test ends (or fails) while it still runs.
pub struct Role(Child);

impl Drop for Role {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl std::ops::Deref for Role {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Role {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

pub fn kill(child: &mut Child, signal: i32) {
    // SAFETY: a plain kill(2) of our own child's pid.
    unsafe { libc::kill(child.id() as i32, signal) };
}

/// Waits for a child to exit (at most `limit`), returning whether it exited successfully.
pub fn wait_exit(child: &mut Child, limit: Duration) -> bool {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.success();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The whole scenario (see the module header).
pub fn two_workers_a_trainer_and_two_crashes(roles: &Roles) {
    let limit = Duration::from_secs(150);
    let mut trainer = roles.trainer();
    let mut worker_a = roles.worker("a");
    let mut worker_b = roles.worker("b");

    let before = roles.wait_for(
        "the trainer to use shards of both workers and both to play a trained checkpoint",
        limit,
        |s| {
            ["a", "b"]
                .iter()
                .all(|id| s.plays_a_trained_checkpoint(id) && s.trainer_used(id))
        },
    );

    kill(&mut worker_a, libc::SIGKILL);
    kill(&mut trainer, libc::SIGKILL);
    let _ = worker_a.wait();
    let _ = trainer.wait();
    let mut unsent = roles.worker_outbox("a");
    // Whether or not the kill caught a shard between its write and its upload, plant one: a
    // finished shard left in the cache must be sent by the next process on that cache.
    let planted = "shard-000999999-a_w9_0badf00d.npz".to_string();
    let some_shard = before.shards.keys().next().unwrap();
    let bytes = roles
        .remote()
        .get(&format!("shards/{some_shard}"), 1 << 30)
        .unwrap()
        .unwrap();
    std::fs::write(roles.worker_cache("a").join("shards").join(&planted), bytes).unwrap();
    unsent.push(planted);
    let after_crash = roles.snapshot(true);
    for name in before.shards.keys() {
        assert!(
            after_crash.shards.contains_key(name),
            "shard {name} was lost"
        );
    }
    let newest_before = *after_crash
        .published
        .last()
        .expect("checkpoints were published");

    let mut trainer = roles.trainer();
    let mut worker_a = roles.worker("a");
    let resumed = roles.wait_for(
        "the restarted trainer to publish a newer checkpoint trained on the restarted worker's new shards",
        limit,
        |s| {
            s.published.last().is_some_and(|&n| n > newest_before)
                && s.of_worker("a").any(|(name, step)| {
                    !after_crash.shards.contains_key(name) && !unsent.contains(name) && *step > 0
                })
                && s.trained_on.iter().any(|n| n.contains("-a_") && !after_crash.shards.contains_key(n))
        },
    );
    for name in &unsent {
        assert!(
            resumed.shards.contains_key(name),
            "shard {name}, written before the crash but not sent, was not sent after the restart"
        );
    }

    for child in [&mut worker_a, &mut worker_b, &mut trainer] {
        kill(child, libc::SIGTERM);
    }
    let logs = roles.logs();
    for (name, child) in [
        ("worker a", &mut worker_a),
        ("worker b", &mut worker_b),
        ("trainer", &mut trainer),
    ] {
        assert!(
            wait_exit(child, Duration::from_secs(90)),
            "{name} did not stop cleanly\n{logs}"
        );
    }
    let end = roles.snapshot(true);
    for name in after_crash.shards.keys() {
        assert!(end.shards.contains_key(name), "shard {name} was lost");
    }
    assert!(end.latest >= resumed.latest && end.latest == end.published.last().copied());
    eprintln!(
        "before the crash: {} shards, checkpoints up to {:?}; {} unsent in worker a's cache; \
         after the restart: checkpoints up to {:?}; at the end: {} shards ({} of worker a, {} of b), \
         {} checkpoints published, latest {:?}, trained on {} shards",
        before.shards.len(),
        before.published.last(),
        unsent.len(),
        resumed.published.last(),
        end.shards.len(),
        end.of_worker("a").count(),
        end.of_worker("b").count(),
        end.published.len(),
        end.latest,
        end.trained_on.len()
    );
    let (_, incomplete) = remote_checkpoints::list(&roles.remote()).unwrap();
    assert!(
        incomplete.iter().all(|s| Some(*s) > end.latest),
        "abandoned uploads {incomplete:?} were not cleared"
    );
}
