//! End-to-end training on tiny synthetic shards with a tiny network: exact resume, the
//! checkpoint layout, stopping on request, bfloat16 steps with float32 master weights, and the
//! weight average that checkpoints publish.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use koshogi_nn::{DeviceSpec, ModelConfig};
use koshogi_run_store::local_checkpoints::list_checkpoints;
use koshogi_train::checkpoint_manager::published_steps_to_keep;
use koshogi_train::config::TrainPrecision;
use koshogi_train::sampler::Draw;
use koshogi_train::synthetic::{write_random_games, SyntheticOptions};
use koshogi_train::trainer_state::{
    MODEL_CARD_FILE, OPTIMIZER_FILE, RAW_MODEL_CARD_FILE, TRAINER_STATE_FILE,
};
use koshogi_train::weight_average::warm_decay;
use koshogi_train::{OptimizerKind, StopReason, TrainConfig, Trainer, TrainerSetup};
use tch::{Kind, Tensor};

fn write_shards(run_dir: &Path) {
    let options = SyntheticOptions {
        games: 3,
        max_plies: 20,
        positions_per_shard: 16,
        seed: 3,
        ..Default::default()
    };
    write_random_games(&run_dir.join("shards"), &options).unwrap();
}

fn setup(run_dir: &Path, steps: u64, kind: OptimizerKind) -> TrainerSetup {
    let mut train = TrainConfig {
        batch_size: 6,
        steps,
        seed: 17,
        device: DeviceSpec::Cpu,
        threads: 1,
        samples_per_new_row: 0.0,
        start_rows: 1,
        max_grad_norm: 1.0,
        log_every_steps: 2,
        ..TrainConfig::default()
    };
    train.optimizer.kind = kind;
    train.optimizer.lr = if kind == OptimizerKind::Sgd {
        0.05
    } else {
        1e-3
    };
    train.schedule.warmup_steps = 2;
    train.checkpoint.every_steps = 3;
    train.checkpoint.keep_last = 10;
    TrainerSetup {
        run_dir: run_dir.to_path_buf(),
        shards: None,
        model: ModelConfig::tiny(),
        train,
        rules: serde_json::json!({}),
        max_plies: Some(20),
        config_hash: "test".into(),
        resume: true,
        follow: false,
        tensorboard: true,
    }
}

fn weights(trainer: &Trainer) -> Vec<(String, Tensor)> {
    let mut all: Vec<(String, Tensor)> = trainer.model().vs.variables().into_iter().collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// Train 3 steps, checkpoint, train 2 more; separately resume from the step-3 checkpoint and
/// train the same 2 steps: the weights must be bit-identical (CPU, one thread), whether the
/// steps run on the float32 master or on a bfloat16 working copy.
#[test]
fn resume_continues_bit_identically() {
    tch::set_num_threads(1);
    let cases = [
        (OptimizerKind::Sgd, TrainPrecision::Float32),
        (OptimizerKind::Adamw, TrainPrecision::Float32),
        (OptimizerKind::Sgd, TrainPrecision::BFloat16),
        (OptimizerKind::Adamw, TrainPrecision::BFloat16),
    ];
    for (kind, precision) in cases {
        let setup = |run_dir: &Path, steps, kind| {
            let mut setup = setup(run_dir, steps, kind);
            setup.train.precision = precision;
            setup
        };
        let root = tempfile::tempdir().unwrap();
        let straight = root.path().join("straight");
        write_shards(&straight);
        let stop = AtomicBool::new(false);
        let mut trainer = Trainer::open(setup(&straight, 5, kind)).unwrap();
        let summary = trainer.run(&stop, None).unwrap();
        assert_eq!(summary.reason, StopReason::ReachedSteps);
        assert_eq!(trainer.step(), 5);
        let uninterrupted = weights(&trainer);

        // A second run directory holding the shards and only the step-3 checkpoint.
        let resumed_dir = root.path().join("resumed");
        copy_dir(&straight.join("shards"), &resumed_dir.join("shards"));
        let step3 = list_checkpoints(&straight.join("checkpoints"))
            .unwrap()
            .into_iter()
            .find(|c| c.step == 3)
            .expect("a checkpoint at step 3");
        copy_dir(
            &step3.path,
            &resumed_dir.join("checkpoints").join("step-000000003"),
        );
        let mut resumed = Trainer::open(setup(&resumed_dir, 5, kind)).unwrap();
        assert_eq!(resumed.step(), 3);
        resumed.run(&stop, None).unwrap();
        assert_eq!(resumed.step(), 5);
        for ((name, a), (name_b, b)) in uninterrupted.iter().zip(weights(&resumed)) {
            assert_eq!(name, &name_b);
            assert!(
                a.equal(&b),
                "{kind:?} {precision}: {name} differs after resume"
            );
        }
        // Training did move the weights away from the initial checkpoint.
        let step0 = list_checkpoints(&straight.join("checkpoints")).unwrap()[0].clone();
        assert_eq!(step0.step, 0);
        let (initial, _) =
            koshogi_nn::checkpoint::load(&step0.path.join(MODEL_CARD_FILE), tch::Device::Cpu)
                .unwrap();
        let moved = initial
            .vs
            .variables()
            .iter()
            .any(|(name, t)| !t.equal(&trainer.model().vs.variables()[name]));
        assert!(moved);
    }
}

#[test]
fn checkpoints_hold_every_file_and_a_fresh_run_refuses_an_existing_directory() {
    let root = tempfile::tempdir().unwrap();
    let run = root.path().join("run");
    write_shards(&run);
    let stop = AtomicBool::new(false);
    let mut trainer = Trainer::open(setup(&run, 4, OptimizerKind::Sgd)).unwrap();
    let summary = trainer.run(&stop, None).unwrap();
    assert_eq!(summary.samples, 4 * 6);
    let steps: Vec<u64> = list_checkpoints(&run.join("checkpoints"))
        .unwrap()
        .iter()
        .map(|c| c.step)
        .collect();
    // Step 0 (the initial network), every 3 steps, and the final step.
    assert_eq!(steps, vec![0, 3, 4]);
    let last = summary.last_checkpoint.unwrap();
    for file in [
        MODEL_CARD_FILE,
        "model.safetensors",
        OPTIMIZER_FILE,
        TRAINER_STATE_FILE,
    ] {
        assert!(last.path.join(file).is_file(), "{file} missing");
    }
    // Without a weight average the trained weights are the published ones: no second copy.
    assert!(!last.path.join(RAW_MODEL_CARD_FILE).exists());
    let card = koshogi_nn::checkpoint::read_card(&last.path.join(MODEL_CARD_FILE)).unwrap();
    assert_eq!(card.training_step, 4);
    let stats = summary.last_step.unwrap();
    assert!(stats.losses.iter().all(|l| l.is_finite()));
    // The policy is a distribution over a few hundred legal moves: 0 < entropy < ln(1000).
    assert!(stats.policy_entropy > 0.0 && stats.policy_entropy < 1000f64.ln());
    assert!((0.0..=1.0).contains(&stats.value_accuracy));
    let scalars = koshogi_metrics::read_scalars(&run.join("tb")).unwrap();
    for tag in [
        "loss/total",
        "train/batch_wait_ms",
        "train/prepare_cpu_seconds_per_batch",
    ] {
        let points = scalars.get(tag).unwrap_or_else(|| panic!("{tag} missing"));
        assert!(points.iter().all(|p| p.value >= 0.0 && p.value.is_finite()));
    }

    let fresh = TrainerSetup {
        resume: false,
        ..setup(&run, 4, OptimizerKind::Sgd)
    };
    let refused = Trainer::open(fresh).err().expect("refused").to_string();
    assert!(refused.contains("--resume"), "{refused}");
}

/// `keep_hours`: the step that passes a listed hour of the training clock is written although
/// no checkpoint is due, and pruning spares it (and nothing else beyond `keep_last`). Passing
/// the hour is made certain by resuming: the mark lies a microsecond after the resumed
/// checkpoint's clock, and opening a trainer takes longer than that.
#[test]
fn the_step_that_passes_a_kept_hour_is_written_and_kept() {
    let root = tempfile::tempdir().unwrap();
    let run = root.path().join("run");
    write_shards(&run);
    let steps_of = |run: &Path| -> Vec<u64> {
        list_checkpoints(&run.join("checkpoints"))
            .unwrap()
            .iter()
            .map(|c| c.step)
            .collect()
    };
    let with_keep = |steps: u64, keep_hours: Vec<f64>| {
        let mut config = setup(&run, steps, OptimizerKind::Sgd);
        config.train.checkpoint.keep_last = 1;
        config.train.checkpoint.keep_every = 0;
        config.train.checkpoint.keep_hours = keep_hours;
        config
    };
    let stop = AtomicBool::new(false);
    Trainer::open(with_keep(4, Vec::new()))
        .unwrap()
        .run(&stop, None)
        .unwrap();
    assert_eq!(steps_of(&run), vec![4], "keep_last = 1 and nothing else");
    let card = koshogi_nn::checkpoint::read_card(
        &run.join("checkpoints/step-000000004").join(MODEL_CARD_FILE),
    )
    .unwrap();
    let clock = card.training_seconds.expect("the card records the clock");

    let mark_hours = (clock + 1e-6) / 3600.0;
    let mut trainer = Trainer::open(with_keep(7, vec![mark_hours])).unwrap();
    trainer.run(&stop, None).unwrap();
    // Step 5 passed the mark (every_steps = 3 would not have written it); step 6 was due and
    // pruned; step 7 is the last.
    assert_eq!(steps_of(&run), vec![5, 7]);
    let kept = koshogi_nn::checkpoint::read_card(
        &run.join("checkpoints/step-000000005").join(MODEL_CARD_FILE),
    )
    .unwrap();
    assert!(kept.training_seconds.unwrap() >= mark_hours * 3600.0);

    // A later start keeps it still, and keeps no other.
    Trainer::open(with_keep(10, vec![mark_hours]))
        .unwrap()
        .run(&stop, None)
        .unwrap();
    assert_eq!(steps_of(&run), vec![5, 10]);

    // A store keeps the same hour checkpoint among its published steps, read from the local
    // cards, and everything when the local directory cannot be listed (here: it is a file).
    let keep = with_keep(10, vec![mark_hours]).train.checkpoint;
    let published = [0, 3, 4, 5, 6, 9, 10];
    let local = run.join("checkpoints");
    assert_eq!(
        published_steps_to_keep(&published, &keep, &local),
        [5, 10].into_iter().collect()
    );
    assert_eq!(
        published_steps_to_keep(&published, &keep, &local.join("step-000000005/model.json")),
        published.into_iter().collect()
    );
}

#[test]
fn a_stop_request_ends_training_with_a_checkpoint() {
    let root = tempfile::tempdir().unwrap();
    let run = root.path().join("run");
    write_shards(&run);
    let stop = AtomicBool::new(true);
    let mut trainer = Trainer::open(setup(&run, 100, OptimizerKind::Sgd)).unwrap();
    let summary = trainer.run(&stop, None).unwrap();
    assert_eq!(summary.reason, StopReason::Requested);
    assert_eq!(summary.end_step, 0);
    assert_eq!(
        list_checkpoints(&run.join("checkpoints")).unwrap().len(),
        1,
        "only the initial checkpoint"
    );
}

#[test]
fn without_follow_training_stops_at_the_reuse_cap() {
    let root = tempfile::tempdir().unwrap();
    let run = root.path().join("run");
    write_shards(&run);
    let mut config = setup(&run, 1000, OptimizerKind::Sgd);
    config.train.samples_per_new_row = 0.5;
    let rows: u64 = koshogi_replay::read_all_shards(&run.join("shards"))
        .unwrap()
        .iter()
        .map(|s| s.len() as u64)
        .sum();
    let mut trainer = Trainer::open(config).unwrap();
    let summary = trainer.run(&AtomicBool::new(false), None).unwrap();
    assert!(matches!(summary.reason, StopReason::OutOfData(_)));
    assert_eq!(summary.end_step, rows / 2 / 6);
}

#[test]
fn with_follow_training_waits_for_self_play_data() {
    let root = tempfile::tempdir().unwrap();
    let run = root.path().join("run");
    let mut config = setup(&run, 2, OptimizerKind::Sgd);
    config.follow = true;
    config.train.poll_seconds = 0.05;
    let mut trainer = Trainer::open(config).unwrap();
    // Self-play delivers its first shards only after the trainer has started waiting.
    let producer_run = run.clone();
    let producer = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        write_shards(&producer_run);
    });
    let summary = trainer.run(&AtomicBool::new(false), None).unwrap();
    producer.join().unwrap();
    assert_eq!(summary.reason, StopReason::ReachedSteps);
    assert_eq!(summary.end_step, 2);
    assert!(summary.elapsed >= std::time::Duration::from_millis(300));
}

/// Repeated steps on one fixed batch: the bfloat16 working copy lowers the loss as float32
/// does (from the same initial weights), and what the optimiser updates and checkpoints store
/// stays float32. bfloat16 arithmetic runs on any CPU (emulated where not native, only slower).
#[test]
fn bfloat16_steps_lower_the_loss_like_float32_and_keep_float32_master_weights() {
    tch::set_num_threads(1);
    let root = tempfile::tempdir().unwrap();
    let run = root.path().join("run");
    write_shards(&run);
    let open = |precision| {
        let mut config = setup(&run, 0, OptimizerKind::Sgd);
        config.train.precision = precision;
        config.train.batch_size = 16;
        Trainer::open(config).unwrap()
    };
    // The first trainer writes the step-0 checkpoint, the second resumes from it.
    let mut float32 = open(TrainPrecision::Float32);
    let mut bfloat16 = open(TrainPrecision::BFloat16);
    assert_eq!(float32.input_runtime().kind, Kind::Float);
    assert_eq!(bfloat16.input_runtime().kind, Kind::BFloat16);
    let mut sampler = float32.sampler();
    sampler.refresh().unwrap();
    let Draw::Ready(sampled) = sampler.next_batch().unwrap() else {
        panic!("no batch drawn");
    };
    let mut curves = Vec::new();
    for trainer in [&mut float32, &mut bfloat16] {
        let batch = sampled.builder.build_for(&trainer.input_runtime());
        let losses: Vec<f64> = (0..25)
            .map(|_| trainer.train_step(&batch).unwrap().losses[0])
            .collect();
        curves.push(losses);
    }
    let (first32, last32) = (curves[0][0], curves[0][24]);
    let (first16, last16) = (curves[1][0], curves[1][24]);
    assert!(
        (first16 - first32).abs() < 0.02 * first32,
        "same weights, same batch: {first32} vs {first16}"
    );
    assert!(last32 < 0.8 * first32, "float32 {first32} -> {last32}");
    assert!(last16 < 0.8 * first16, "bfloat16 {first16} -> {last16}");
    // Step-to-step noise is a few percent of the drop (and bfloat16's kernels need not be
    // bit-reproducible run to run): compare the mean of the last five steps, not the last one.
    // A single-step comparison failed once in CI with bf16 *ahead* (4.21 vs 4.47 after a drop
    // of 2.0). The gap depends on the initial weights: with the 142-plane stem's draw it is
    // 16 % of float32's drop on an AMD EPYC (bfloat16 emulated), so the bound is 20 %; a
    // bfloat16 step that did not learn (bfloat16 master weights, a lost update) misses it by far.
    let tail_mean = |curve: &[f64]| curve[20..].iter().sum::<f64>() / 5.0;
    let (tail32, tail16) = (tail_mean(&curves[0]), tail_mean(&curves[1]));
    assert!(
        (tail16 - tail32).abs() < 0.2 * (first32 - tail32),
        "bfloat16 learned differently: {curves:?}"
    );
    for (name, tensor) in bfloat16.model().vs.variables() {
        assert_eq!(tensor.kind(), Kind::Float, "master {name}");
    }
    let entry = bfloat16.save_checkpoint().unwrap();
    for file in ["model.safetensors", OPTIMIZER_FILE] {
        for (name, tensor) in Tensor::read_safetensors(entry.path.join(file)).unwrap() {
            assert!(
                matches!(tensor.kind(), Kind::Float | Kind::Int64),
                "{file}: {name} is {:?}",
                tensor.kind()
            );
        }
    }
}

/// `train.ema_decay`: after a few steps on one fixed batch, the checkpoint's model is the moving
/// average of the trained weights computed here by hand (warm start included), the trained
/// weights are stored beside it, and a resumed trainer continues both exactly.
#[test]
fn checkpoints_publish_the_weight_average_and_resume_continues_it() {
    tch::set_num_threads(1);
    let root = tempfile::tempdir().unwrap();
    let run = root.path().join("run");
    write_shards(&run);
    let decay = 0.6;
    let config = || {
        let mut config = setup(&run, 0, OptimizerKind::Sgd);
        config.train.precision = TrainPrecision::Float32;
        config.train.ema_decay = decay;
        config
    };
    let mut trainer = Trainer::open(config()).unwrap();
    let mut sampler = trainer.sampler();
    sampler.refresh().unwrap();
    let Draw::Ready(sampled) = sampler.next_batch().unwrap() else {
        panic!("no batch drawn");
    };
    let batch = sampled.builder.build_for(&trainer.input_runtime());
    // A small tensor followed by hand: the smallest variable of the network.
    let (name, _) = trainer
        .model()
        .vs
        .variables()
        .into_iter()
        .min_by_key(|(name, t)| (t.numel(), name.clone()))
        .unwrap();
    let read = |model: &koshogi_nn::Model| -> Vec<f64> {
        let t = model.vs.variables()[&name]
            .to_kind(Kind::Double)
            .flatten(0, -1);
        Vec::<f64>::try_from(&t).unwrap()
    };
    let mut expected = read(trainer.model());
    for n in 0..6u64 {
        trainer.train_step(&batch).unwrap();
        let d = warm_decay(decay, n);
        for (e, r) in expected.iter_mut().zip(read(trainer.model())) {
            *e = d * *e + (1.0 - d) * r;
        }
    }
    let raw = read(trainer.model());
    let published = read(trainer.published_model());
    let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
    assert!(
        close(&published, &expected),
        "{published:?} vs {expected:?}"
    );
    assert!(
        !close(&raw, &expected),
        "the average must lag the trained weights"
    );

    let entry = trainer.save_checkpoint().unwrap();
    let card = koshogi_nn::checkpoint::read_card(&entry.path.join(MODEL_CARD_FILE)).unwrap();
    assert_eq!(card.training_step, 6);
    let (saved, _) =
        koshogi_nn::checkpoint::load(&entry.path.join(MODEL_CARD_FILE), tch::Device::Cpu).unwrap();
    assert!(close(&read(&saved), &expected));
    let (saved_raw, _) =
        koshogi_nn::checkpoint::load(&entry.path.join(RAW_MODEL_CARD_FILE), tch::Device::Cpu)
            .unwrap();
    assert!(close(&read(&saved_raw), &raw));

    // Resume: both copies come back, and one more step moves them as in the original trainer.
    let mut resumed = Trainer::open(config()).unwrap();
    assert_eq!(resumed.step(), 6);
    assert_eq!(read(resumed.model()), raw);
    assert_eq!(read(resumed.published_model()), published);
    trainer.train_step(&batch).unwrap();
    resumed.train_step(&batch).unwrap();
    for (name, a) in trainer.published_model().vs.variables() {
        let b = &resumed.published_model().vs.variables()[&name];
        assert!(a.equal(b), "{name}: the resumed average differs");
    }
}

/// `train.material_utility_fade_steps`: each checkpoint's card carries the material utility of
/// its step, moving from `[model] material_utility` to `material_utility_final`, and a player
/// loading a late checkpoint (as self-play's evaluator does) reads the network with it.
#[test]
fn checkpoints_carry_the_faded_material_utility_of_their_step() {
    let root = tempfile::tempdir().unwrap();
    let run = root.path().join("run");
    write_shards(&run);
    let mut config = setup(&run, 5, OptimizerKind::Sgd);
    config.model.material_utility = 0.8;
    config.train.material_utility_final = 0.0;
    config.train.material_utility_fade_steps = 4;
    let mut trainer = Trainer::open(config).unwrap();
    trainer.run(&AtomicBool::new(false), None).unwrap();
    let cards: Vec<(u64, f32)> = list_checkpoints(&run.join("checkpoints"))
        .unwrap()
        .iter()
        .map(|c| {
            let card = koshogi_nn::checkpoint::read_card(&c.path.join(MODEL_CARD_FILE)).unwrap();
            (c.step, card.architecture.material_utility)
        })
        .collect();
    assert_eq!(cards.len(), 3, "{cards:?}");
    let expected = [(0, 0.8), (3, 0.2), (5, 0.0)];
    for ((step, utility), (want_step, want)) in cards.iter().zip(expected) {
        assert_eq!(*step, want_step);
        assert!((utility - want).abs() < 1e-6, "step {step}: {utility}");
    }
    let step3 = run.join("checkpoints").join("step-000000003");
    let (late, _) = koshogi_nn::InferenceModel::load(
        &step3.join(MODEL_CARD_FILE),
        &koshogi_nn::RuntimeConfig::default(),
    )
    .unwrap();
    assert!((late.config().material_utility - 0.2).abs() < 1e-6);
}
