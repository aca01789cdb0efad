//! The run configuration: one TOML file describes a whole training run.
//!
//! Each section belongs to the crate that uses it (`[rules]` koshogi-rules, `[model]` and
//! `[inference]` koshogi-nn, `[search]` and `[driver]` koshogi-mcts, `[selfplay]`
//! koshogi-selfplay, `[train]` koshogi-train); this file only assembles them. Every field has a
//! default, and unknown keys are errors so that a typo never silently falls back to a default.
//! The shipped files are in `configs/` (docs/training.md says what each is for).

use std::path::{Path, PathBuf};

use koshogi_arena::gate::GateConfig;
use koshogi_mcts::{DriverConfig, SearchConfig};
use koshogi_nn::{ModelConfig, RuntimeConfig};
use koshogi_rules::RulesOptions;
use koshogi_run_store::layout::RunLayout;
use koshogi_selfplay::SelfplayConfig;
use koshogi_train::{config_hash, TrainConfig, TrainerSetup};
use serde::{Deserialize, Serialize};

use crate::config_override::{apply_overrides, place_with_overrides, ConfigOverride};
use crate::RunError;

/// The whole configuration file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    pub run: RunSection,
    pub rules: RulesOptions,
    pub model: ModelConfig,
    /// How self-play and the arena run the network (device, precision, layout).
    pub inference: RuntimeConfig,
    pub search: SearchConfig,
    pub driver: DriverConfig,
    pub selfplay: SelfplayConfig,
    pub train: TrainConfig,
    /// Gating of new checkpoints in `koshogi run` (off by default).
    pub gate: GateConfig,
}

/// `[run]`: settings of the run as a whole.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunSection {
    /// Default run directory when the command line names none.
    pub dir: PathBuf,
    /// Seeds self-play (the trainer has `train.seed`); 0 = a fresh seed every start.
    pub seed: u64,
    /// libtorch intra-op threads of each self-play evaluation thread.
    pub inference_threads: i32,
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection {
            dir: PathBuf::from("runs/default"),
            seed: 0,
            inference_threads: 1,
        }
    }
}

/// Refuses a store URL where a command reads a local run directory, saying how to get one.
pub fn require_local_run(run: &Path) -> Result<(), RunError> {
    if let koshogi_run_store::RunTarget::Remote(remote) = koshogi_run_store::RunTarget::parse(run)?
    {
        koshogi_run_store::RunTarget::Remote(remote).require_local()?;
    }
    Ok(())
}

/// Creates the run directory and keeps a copy of the configuration there (once).
pub fn prepare_run_dir(run_dir: &Path, config_text: &str) -> Result<(), RunError> {
    std::fs::create_dir_all(run_dir).map_err(|source| RunError::Io {
        what: "creating the run directory",
        path: run_dir.to_path_buf(),
        source,
    })?;
    let kept = RunLayout::new(run_dir).config_file();
    if !kept.exists() && !config_text.is_empty() {
        // Atomically: a crash must not leave a truncated copy that every later start keeps.
        koshogi_files::atomic::write_atomic(&kept, config_text.as_bytes()).map_err(|source| {
            RunError::Io {
                what: "writing",
                path: kept.clone(),
                source,
            }
        })?;
    }
    Ok(())
}

/// The file kept in every run directory, so that later commands and resumes use the settings
/// the run started with (the run layout's one name for it).
pub use koshogi_run_store::layout::CONFIG_FILE as RUN_CONFIG_FILE;

impl RunConfig {
    /// Reads and checks a configuration file; also returns its text (kept in the run directory).
    pub fn load(path: &Path) -> Result<(RunConfig, String), RunError> {
        RunConfig::load_with(path, &[])
    }

    /// [`Self::load`] with `overrides` (`--set`) made in the text first; the text returned is
    /// the changed one, so a run directory keeps what the run really used.
    pub fn load_with(
        path: &Path,
        overrides: &[ConfigOverride],
    ) -> Result<(RunConfig, String), RunError> {
        let text = std::fs::read_to_string(path).map_err(|source| RunError::ReadConfig {
            path: path.to_path_buf(),
            source,
        })?;
        RunConfig::from_text(&text, &path.display().to_string(), overrides)
    }

    /// The configuration in `text`, read from `place` (a file or a store URL, which errors
    /// name), with `overrides` made; and the text as changed, whose first line then says where
    /// it came from and what was set.
    pub fn from_text(
        text: &str,
        place: &str,
        overrides: &[ConfigOverride],
    ) -> Result<(RunConfig, String), RunError> {
        let place = place_with_overrides(place, overrides);
        let in_place = |source: RunError| RunError::InConfig {
            place: place.clone(),
            source: Box::new(source),
        };
        let changed = match overrides {
            [] => text.to_string(),
            _ => {
                let document =
                    apply_overrides(text, overrides).map_err(|error| in_place(error.into()))?;
                format!("# {place}\n{document}")
            }
        };
        let config = RunConfig::parse(&changed).map_err(in_place)?;
        Ok((config, changed))
    }

    pub fn parse(text: &str) -> Result<RunConfig, RunError> {
        let config: RunConfig = toml::from_str(text)?;
        config.validate()?;
        Ok(config)
    }

    /// Every section's own checks and the cross-section checks they cannot make alone; run
    /// before anything is written into a run directory, so a rejected configuration never
    /// becomes the run's kept `config.toml`.
    pub fn validate(&self) -> Result<(), RunError> {
        self.selfplay.validate()?;
        self.model.validate()?;
        self.train.validate().map_err(RunError::TrainSection)?;
        self.search.validate()?;
        self.gate.validate()?;
        if self.driver.cache_entries > koshogi_mcts::MAX_CACHE_ENTRIES {
            return Err(RunError::Invalid(format!(
                "driver.cache_entries must be at most {} (the slots are allocated up front)",
                koshogi_mcts::MAX_CACHE_ENTRIES
            )));
        }
        if !(1..=koshogi_nn::MAX_INTRA_OP_THREADS as i32).contains(&self.run.inference_threads) {
            return Err(RunError::Invalid(format!(
                "run.inference_threads must be in 1..={}",
                koshogi_nn::MAX_INTRA_OP_THREADS
            )));
        }
        if self.model.material_relative
            && self.train.material_head_target != koshogi_train::MaterialHeadTarget::Ahead
        {
            return Err(RunError::Invalid(
                "model.material_relative needs train.material_head_target = \"ahead\" (the head \
                 predicts how the balance a few plies on differs from the current one)"
                    .to_string(),
            ));
        }
        Ok(())
    }

    /// `--config`, else the run directory's own copy, else the defaults, with `overrides`
    /// (`--set`) made; returns the configuration and the text to keep in the run directory
    /// (empty for untouched defaults).
    pub fn resolve(
        config: Option<&Path>,
        run_dir: &Path,
        overrides: &[ConfigOverride],
    ) -> Result<(RunConfig, String), RunError> {
        let kept = RunLayout::new(run_dir).config_file();
        let path = match config {
            Some(path) => path.to_path_buf(),
            None if kept.exists() => kept,
            None if overrides.is_empty() => return Ok((RunConfig::default(), String::new())),
            None => return RunConfig::from_text("", "the built-in defaults", overrides),
        };
        RunConfig::load_with(&path, overrides)
    }

    /// What the trainer needs of this configuration for the run in `run_dir`.
    pub fn trainer_setup(
        &self,
        run_dir: &Path,
        resume: bool,
        follow: bool,
    ) -> Result<TrainerSetup, RunError> {
        let max_plies = Some(self.selfplay.max_plies);
        Ok(TrainerSetup {
            run_dir: run_dir.to_path_buf(),
            shards: None,
            model: self.model.clone(),
            train: self.train.clone(),
            rules: serde_json::to_value(self.rules).map_err(RunError::RulesOptions)?,
            max_plies,
            config_hash: self.training_hash(),
            resume,
            follow,
            tensorboard: true,
        })
    }

    /// Hash of what the trained network depends on, stored in checkpoints so that a resume under
    /// other settings is reported. Stopping rules (`train.steps`) and self-play or search
    /// settings may change between sessions of a run, and so may the hours whose checkpoints
    /// are kept (`train.checkpoint.keep_hours`), which a long run may be given late.
    fn training_hash(&self) -> String {
        let mut train = TrainConfig {
            steps: 0,
            ..self.train.clone()
        };
        train.checkpoint.keep_hours.clear();
        config_hash(&(&self.model, &train, &self.rules, self.selfplay.max_plies))
    }

    /// The self-play seed: the configured one, or a fresh one per start.
    pub fn selfplay_seed(&self) -> u64 {
        if self.run.seed != 0 {
            return self.run.seed;
        }
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        nanos ^ u64::from(std::process::id()).rotate_left(32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error as the command line prints it (`{:#}`: the whole chain of sources).
    fn message(err: RunError) -> String {
        format!("{:#}", anyhow::Error::from(err))
    }

    /// What a run may change between its starts leaves the hash that checkpoints carry alone;
    /// what the network's training depends on does not.
    #[test]
    fn the_training_hash_ignores_stopping_and_kept_hours() {
        let base = RunConfig::default();
        let mut later = base.clone();
        later.train.steps = 500;
        later.train.checkpoint.keep_hours = vec![1.0, 8.0];
        assert_eq!(base.training_hash(), later.training_hash());
        let mut other = base.clone();
        other.train.optimizer.lr *= 2.0;
        assert_ne!(base.training_hash(), other.training_hash());
    }

    /// The `.toml` files in `dir` and its subdirectories (`configs/ablations/`).
    fn toml_files(dir: &Path) -> Vec<PathBuf> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                found.extend(toml_files(&path));
            } else if path.extension().is_some_and(|e| e == "toml") {
                found.push(path);
            }
        }
        found
    }

    #[test]
    fn every_shipped_config_parses() {
        let dir = koshogi_test_support::workspace_root().join("configs");
        let files = toml_files(&dir);
        for path in &files {
            RunConfig::load(path).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
        }
        assert!(
            files.len() >= 6,
            "quick, cpu, cpu-levers, gpu and the ablations expected in {}",
            dir.display()
        );
    }

    /// Each `configs/ablations/*.toml` is `cpu.toml` with exactly one lever turned on, so that a
    /// run of it against a run of `cpu.toml` measures that lever alone.
    #[test]
    fn each_ablation_config_is_the_cpu_config_plus_one_lever() {
        let root = koshogi_test_support::workspace_root();
        let (cpu, _) = RunConfig::load(&root.join("configs/cpu.toml")).unwrap();
        let same = |config: &RunConfig| {
            serde_json::to_value(config).unwrap() == serde_json::to_value(&cpu).unwrap()
        };
        // Per file: the lever, whether it is on, and how to set it back to cpu.toml's value.
        type Lever = (
            &'static str,
            &'static str,
            fn(&RunConfig) -> bool,
            fn(&mut RunConfig, &RunConfig),
        );
        // The network-shape ablations set the trunk back to cpu.toml's the same way.
        fn cpu_trunk(c: &mut RunConfig, cpu: &RunConfig) {
            c.model.blocks = cpu.model.blocks;
            c.model.channels = cpu.model.channels;
        }
        let levers: [Lever; 7] = [
            (
                "no-attack-planes.toml",
                "attack_planes",
                |c| !c.model.attack_planes,
                |c, cpu| c.model.attack_planes = cpu.model.attack_planes,
            ),
            (
                "counted-material.toml",
                "value_counts_material",
                |c| c.model.value_counts_material,
                |c, cpu| c.model.value_counts_material = cpu.model.value_counts_material,
            ),
            (
                "ema.toml",
                "ema_decay",
                |c| c.train.ema_decay > 0.0,
                |c, cpu| c.train.ema_decay = cpu.train.ema_decay,
            ),
            (
                "search-value.toml",
                "search_value_weight",
                |c| c.train.search_value_weight > 0.0,
                |c, cpu| c.train.search_value_weight = cpu.train.search_value_weight,
            ),
            (
                "self-play-only.toml",
                "fixed_opponent_fraction",
                |c| c.selfplay.fixed_opponent_fraction == 0.0,
                |c, cpu| c.selfplay.fixed_opponent_fraction = cpu.selfplay.fixed_opponent_fraction,
            ),
            (
                "small-network.toml",
                "the network's blocks and channels",
                |c| c.model.blocks < 6 && c.model.channels < 64,
                cpu_trunk,
            ),
            (
                "narrow-network.toml",
                "the network's blocks and channels",
                |c| c.model.blocks < 6 && c.model.channels < 48,
                cpu_trunk,
            ),
        ];
        for (file, lever, is_on, reset) in levers {
            let (mut config, _) =
                RunConfig::load(&root.join("configs/ablations").join(file)).unwrap();
            assert!(
                !same(&config) && is_on(&config),
                "ablations/{file}: {lever} is not on"
            );
            reset(&mut config, &cpu);
            assert!(same(&config), "ablations/{file} changes more than {lever}");
        }
        let mut files: Vec<String> = std::fs::read_dir(root.join("configs/ablations"))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let mut listed: Vec<&str> = levers.iter().map(|(file, ..)| *file).collect();
        listed.sort();
        assert_eq!(files, listed, "every ablation config is checked here");
    }

    #[test]
    fn a_set_key_changes_that_key_alone_and_the_kept_text_says_so() {
        let path =
            koshogi_test_support::workspace_root().join("configs/ablations/small-network.toml");
        let (plain, plain_text) = RunConfig::load(&path).unwrap();
        // Without a --set the text is kept as the file has it.
        assert_eq!(plain_text, std::fs::read_to_string(&path).unwrap());
        let seed: ConfigOverride = "train.seed=2".parse().unwrap();
        let (config, text) = RunConfig::load_with(&path, &[seed]).unwrap();
        assert_eq!((plain.train.seed, config.train.seed), (1, 2));
        let mut back = config.clone();
        back.train.seed = plain.train.seed;
        assert_eq!(
            serde_json::to_value(&back).unwrap(),
            serde_json::to_value(&plain).unwrap(),
            "--set train.seed changed more than the seed"
        );
        // The kept text is the configuration used, and says where it came from.
        assert!(text.starts_with("# "), "{text}");
        assert!(text
            .lines()
            .next()
            .unwrap()
            .ends_with("small-network.toml with --set train.seed=2"));
        let (kept, _) = RunConfig::from_text(&text, "kept", &[]).unwrap();
        assert_eq!(
            serde_json::to_value(&kept).unwrap(),
            serde_json::to_value(&config).unwrap()
        );
    }

    #[test]
    fn a_set_key_that_is_unknown_or_wrong_is_an_error_naming_it() {
        let with = |arg: &str| {
            let change: ConfigOverride = arg.parse().unwrap();
            message(RunConfig::from_text("[train]\nseed = 1\n", "a.toml", &[change]).unwrap_err())
        };
        let err = with("train.seeed=2");
        assert!(
            err.contains("a.toml with --set train.seeed=2") && err.contains("seeed"),
            "{err}"
        );
        let err = with("train.seed=two");
        assert!(
            err.contains("train.seed=two") && err.contains("seed"),
            "{err}"
        );
        let err = with("train.batch_size=0");
        assert!(err.contains("batch_size"), "{err}");
        let err = with("train.seed.x=1");
        assert!(
            err.contains("`train.seed` is a value, not a section"),
            "{err}"
        );
        // With no configuration at all, the keys go on the built-in defaults.
        let change: ConfigOverride = "train.seed=5".parse().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (config, text) = RunConfig::resolve(None, dir.path(), &[change]).unwrap();
        assert_eq!(config.train.seed, 5);
        assert!(
            text.starts_with("# the built-in defaults with --set train.seed=5"),
            "{text}"
        );
    }

    #[test]
    fn a_typo_is_an_error_naming_the_key() {
        let err = message(RunConfig::parse("[selfplay]\ngames_per_wroker = 3\n").unwrap_err());
        assert!(err.contains("games_per_wroker"), "{err}");
    }

    #[test]
    fn the_fixed_opponent_is_named_as_in_the_arena_and_old_runs_still_load() {
        use koshogi_selfplay::fixed_opponent::FixedOpponent;
        let config = RunConfig::parse(
            "[selfplay]\nfixed_opponent = \"ab:1\"\nfixed_opponent_fraction = 0.5\n",
        )
        .unwrap();
        assert_eq!(
            config.selfplay.fixed_opponent,
            FixedOpponent::AlphaBeta { depth: 1 }
        );
        assert_eq!(config.selfplay.fixed_opponent_fraction, 0.5);
        // Runs written before the opponent could be chosen name the fraction after greedy.
        let old = RunConfig::parse("[selfplay]\ngreedy_opponent_fraction = 0.25\n").unwrap();
        assert_eq!(old.selfplay.fixed_opponent, FixedOpponent::Greedy);
        assert_eq!(old.selfplay.fixed_opponent_fraction, 0.25);
        let err = message(RunConfig::parse("[selfplay]\nfixed_opponent = \"ab:9\"\n").unwrap_err());
        assert!(err.contains("ab:9"), "{err}");
    }

    #[test]
    fn the_opponent_schedule_reads_as_an_array_of_tables() {
        use koshogi_selfplay::fixed_opponent::FixedOpponent;
        let text = "[selfplay]\nfixed_opponent = \"greedy\"\n\
                    [[selfplay.fixed_opponent_schedule]]\nfrom_step = 4000\nopponent = \"ab:1\"\n\
                    [[selfplay.fixed_opponent_schedule]]\nfrom_step = 9000\nopponent = \"ab:2\"\n";
        let config = RunConfig::parse(text).unwrap();
        assert_eq!(
            config.selfplay.fixed_opponent_at(3999),
            FixedOpponent::Greedy
        );
        assert_eq!(
            config.selfplay.fixed_opponent_at(4000),
            FixedOpponent::AlphaBeta { depth: 1 }
        );
        assert_eq!(
            config.selfplay.fixed_opponent_at(9000),
            FixedOpponent::AlphaBeta { depth: 2 }
        );
        let backwards = text.replace("9000", "10");
        let err = message(RunConfig::parse(&backwards).unwrap_err());
        assert!(err.contains("fixed_opponent_schedule"), "{err:#}");
        let typo = text.replace("from_step = 4000", "from_stp = 4000");
        let err = message(RunConfig::parse(&typo).unwrap_err());
        assert!(err.contains("from_stp"), "{err}");
    }

    #[test]
    fn an_impossible_value_is_an_error_naming_the_field() {
        let err =
            message(RunConfig::parse("[selfplay]\nfull_search_probability = 2.0\n").unwrap_err());
        assert!(err.contains("full_search_probability"), "{err:#}");
    }

    #[test]
    fn bad_root_search_settings_are_errors_naming_the_field() {
        for (text, field) in [
            (
                "[search.gumbel]\nmax_considered_actions = 4\ncapture_candidates = 5\n",
                "capture_candidates",
            ),
            ("[search.gumbel]\nmin_q_range = -1.0\n", "min_q_range"),
            ("[train]\nbatch_size = 0\n", "batch"),
            (
                "[model]\nmaterial_relative = true\n[train]\nmaterial_head_target = \"final\"\n",
                "material_relative",
            ),
            (
                "[search.gumbel]\nmax_considered_actions = 0\n",
                "max_considered_actions",
            ),
            // The sum overflowed u32 and panicked (fuzz/ target run_config, docs/fuzzing.md).
            (
                "[search.gumbel]\ncapture_candidates = 4294967295\nevasion_candidates = 1\n",
                "capture_candidates",
            ),
            // Sizes that were allocated up front or handed to libtorch unchecked (16 GiB of
            // visit schedule, 2^32 cache slots, a thread count that wrapped to 0 and aborted).
            ("[search]\nsimulations = 4294967295\n", "search.simulations"),
            (
                "[driver]\ncache_entries = 4294967296\n",
                "driver.cache_entries",
            ),
            (
                "[run]\ninference_threads = 2147483647\n",
                "run.inference_threads",
            ),
            ("[train]\nthreads = 4294967296\n", "threads"),
            (
                "[train]\nprefetch_batches = 1000000000\n",
                "prefetch_batches",
            ),
            ("[gate]\ngames = 0\n", "gate.games"),
            ("[gate]\nrequired_score = nan\n", "gate.required_score"),
            ("[gate]\nsimulations = 4294967295\n", "gate.simulations"),
            ("[gate]\nparallel_games = 0\n", "gate.parallel_games"),
        ] {
            let err = message(RunConfig::parse(text).unwrap_err());
            assert!(err.contains(field), "{text}: {err}");
        }
    }

    /// `cpu-levers.toml` is `cpu.toml` with the learning levers on and nothing else changed, so
    /// that a run of each is an ablation of the levers alone.
    #[test]
    fn the_levers_config_is_the_cpu_config_plus_the_levers_only() {
        let root = koshogi_test_support::workspace_root();
        let (cpu, _) = RunConfig::load(&root.join("configs/cpu.toml")).unwrap();
        let (levers, _) = RunConfig::load(&root.join("configs/cpu-levers.toml")).unwrap();
        assert!(levers.train.ema_decay > 0.0);
        assert!(levers.train.search_value_weight > 0.0);
        assert!(levers.train.material_utility_fade_steps > 0);
        assert_eq!(levers.train.schedule.decay, koshogi_train::LrDecay::Cosine);
        assert!(levers.selfplay.pool_size() > 0);
        assert_eq!(
            levers.train.capped_value,
            koshogi_train::config::CappedValue::Balance
        );
        let mut undone = levers.clone();
        undone.train.ema_decay = cpu.train.ema_decay;
        undone.train.search_value_weight = cpu.train.search_value_weight;
        undone.train.material_utility_final = cpu.train.material_utility_final;
        undone.train.material_utility_fade_steps = cpu.train.material_utility_fade_steps;
        undone.train.schedule = cpu.train.schedule.clone();
        undone.train.capped_value = cpu.train.capped_value;
        undone.selfplay.fixed_opponent_schedule = cpu.selfplay.fixed_opponent_schedule.clone();
        assert_eq!(
            serde_json::to_value(&undone).unwrap(),
            serde_json::to_value(&cpu).unwrap()
        );
    }

    #[test]
    fn the_cpu_config_searches_below_the_root() {
        // Sequential halving must give every considered move 2+ visits with the full budget.
        let path = koshogi_test_support::workspace_root().join("configs/cpu.toml");
        let (config, _) = RunConfig::load(&path).unwrap();
        let m = config.search.gumbel.max_considered_actions;
        let schedule = koshogi_mcts::sequential_halving::considered_visit_sequence(
            m,
            config.search.simulations,
        );
        assert_eq!(schedule.iter().filter(|&&v| v == 1).count() as u32, m);
        assert!(config.search.gumbel.capture_candidates >= 1);
        assert!(config.search.gumbel.evasion_candidates >= 1);
        assert!(config.train.material_outlook_weight > 0.0);
    }
}
