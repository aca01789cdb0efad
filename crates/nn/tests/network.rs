//! The network end to end on real positions: inference returns the softmax of the summed leg
//! logits over exactly the legal moves, bfloat16 agrees with float32, checkpoints round-trip
//! and reject mismatches, and a training step lowers the loss.

use koshogi_nn::checkpoint;
use koshogi_nn::features::{
    encode_batch, encode_position, FeatureInput, FEATURE_LEN, INPUT_PLANES,
};
use koshogi_nn::geometry::POINTS;
use koshogi_nn::move_encoding::{encode_moves, MoveLegs, POLICY_PLANES};
use koshogi_nn::{
    compute_losses, DeviceSpec, EvalPosition, Evaluation, InferenceModel, LossWeights, Model,
    ModelConfig, NnError, Precision, RuntimeConfig, SampleTargets, TrainingBatchBuilder,
};
use koshogi_rules::{Game, Position, RulesOptions};
use tch::nn::OptimizerConfig;
use tch::{Device, Kind, Tensor};

fn runtime(precision: Precision) -> RuntimeConfig {
    RuntimeConfig {
        device: DeviceSpec::Cpu,
        precision,
        channels_last: None,
    }
}

/// A few positions along a fixed random game, with their legal moves.
fn positions(count: usize) -> Vec<(Position, Vec<koshogi_rules::Move>)> {
    let mut game = Game::new(RulesOptions::default());
    let mut out = Vec::new();
    let mut state = 12345u64;
    while out.len() < count && game.outcome().is_none() {
        let moves = game.legal_moves();
        out.push((game.position().clone(), moves.clone()));
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
        game.play(moves[(state >> 33) as usize % moves.len()]);
    }
    out
}

/// The input planes of `samples` (no game history, no attack planes) as one
/// `[N, INPUT_PLANES, 19, 19]` batch for a network's forward pass.
fn input_batch(samples: &[(Position, Vec<koshogi_rules::Move>)]) -> Tensor {
    let options = RulesOptions::default();
    let inputs: Vec<FeatureInput<'_>> = samples
        .iter()
        .map(|(position, _)| FeatureInput::from_position(position, &options))
        .collect();
    let mut features = vec![0f32; samples.len() * FEATURE_LEN];
    encode_batch(&inputs, &mut features).unwrap();
    Tensor::from_slice(&features).view([samples.len() as i64, INPUT_PLANES as i64, 19, 19])
}

fn evaluate(
    model: &mut InferenceModel,
    samples: &[(Position, Vec<koshogi_rules::Move>)],
) -> Vec<Evaluation> {
    let options = RulesOptions::default();
    let requests: Vec<EvalPosition<'_>> = samples
        .iter()
        .map(|(p, m)| EvalPosition {
            input: FeatureInput::from_position(p, &options),
            moves: m,
        })
        .collect();
    let mut out = Vec::new();
    model.evaluate(&requests, &mut out).unwrap();
    out
}

#[test]
fn inference_is_the_softmax_of_summed_legs_over_legal_moves() {
    tch::set_num_threads(1);
    tch::manual_seed(3);
    let master = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
    let mut inference = InferenceModel::from_model(&master, &runtime(Precision::Float32)).unwrap();
    let samples = positions(5);
    let evaluations = evaluate(&mut inference, &samples);
    assert_eq!(evaluations.len(), samples.len());

    // Recompute by hand from the dense policy output of the master.
    let options = RulesOptions::default();
    for ((position, moves), evaluation) in samples.iter().zip(&evaluations) {
        let mut features = vec![0f32; FEATURE_LEN];
        encode_position(
            &FeatureInput::from_position(position, &options),
            &mut features,
        )
        .unwrap();
        let input = Tensor::from_slice(&features).view([1, INPUT_PLANES as i64, 19, 19]);
        let output = tch::no_grad(|| master.network.forward(&input));
        let dense: Vec<f32> = Vec::try_from(output.policy.view([-1])).unwrap();
        assert_eq!(dense.len(), POLICY_PLANES * POINTS);
        let mut legs = Vec::new();
        encode_moves(position, moves, &mut legs).unwrap();
        let logits: Vec<f32> = legs
            .iter()
            .map(|l| l.iter().map(|e| dense[e as usize]).sum())
            .collect();
        let max = logits.iter().copied().fold(f32::MIN, f32::max);
        let total: f32 = logits.iter().map(|l| (l - max).exp()).sum();
        assert_eq!(evaluation.policy.len(), moves.len());
        for (p, l) in evaluation.policy.iter().zip(&logits) {
            assert!((p - (l - max).exp() / total).abs() < 1e-5);
        }
        let wdl: Vec<f32> =
            Vec::try_from(output.wdl_logits.softmax(-1, Kind::Float).view([-1])).unwrap();
        for (got, want) in evaluation.wdl.iter().zip(&wdl) {
            assert!((got - want).abs() < 1e-5);
        }
        assert!((evaluation.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    }
}

#[test]
fn bfloat16_channels_last_agrees_with_float32() {
    tch::set_num_threads(1);
    tch::manual_seed(4);
    let master = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
    let mut f32_model = InferenceModel::from_model(&master, &runtime(Precision::Float32)).unwrap();
    let bf16_runtime = RuntimeConfig {
        channels_last: Some(true),
        ..runtime(Precision::BFloat16)
    };
    let mut bf16_model = InferenceModel::from_model(&master, &bf16_runtime).unwrap();
    assert_eq!(bf16_model.runtime().kind, Kind::BFloat16);
    let samples = positions(6);
    let (a, b) = (
        evaluate(&mut f32_model, &samples),
        evaluate(&mut bf16_model, &samples),
    );
    for (x, y) in a.iter().zip(&b) {
        // Compare log-probabilities: with ~250 legal moves each probability is small.
        let worst = x
            .policy
            .iter()
            .zip(&y.policy)
            .map(|(p, q)| (p.ln() - q.ln()).abs())
            .fold(0f32, f32::max);
        assert!(worst < 0.1, "log-probability differs by {worst}");
        for k in 0..3 {
            assert!(
                (x.wdl[k] - y.wdl[k]).abs() < 0.02,
                "wdl {:?} vs {:?}",
                x.wdl,
                y.wdl
            );
        }
        // The head predicts plies / 256: allow bfloat16's ~1% error on that scale.
        let tolerance =
            0.02 * koshogi_nn::model::MOVES_LEFT_SCALE as f32 + 0.02 * x.moves_left.abs();
        assert!(
            (x.moves_left - y.moves_left).abs() < tolerance,
            "{} vs {}",
            x.moves_left,
            y.moves_left
        );
    }
}

#[test]
fn checkpoints_round_trip_and_reject_mismatches() {
    tch::set_num_threads(1);
    tch::manual_seed(5);
    let dir = tempfile::tempdir().unwrap();
    let card_path = dir.path().join("model-000042.json");
    let master = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
    let rules = serde_json::to_value(RulesOptions::default()).unwrap();
    let card = checkpoint::save(&master, &card_path, 42, rules.clone()).unwrap();
    assert_eq!(card.training_step, 42);
    assert!(dir.path().join("model-000042.safetensors").exists());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left behind");

    let (loaded, loaded_card) = checkpoint::load(&card_path, Device::Cpu).unwrap();
    assert_eq!(loaded_card, card);
    assert_eq!(loaded_card.rules_options, rules);
    let original = master.vs.variables();
    for (name, tensor) in loaded.vs.variables() {
        assert!(
            tensor.equal(&original[&name]),
            "{name} differs after loading"
        );
    }
    let samples = positions(2);
    let mut from_master =
        InferenceModel::from_model(&master, &runtime(Precision::Float32)).unwrap();
    let (mut from_disk, _) =
        InferenceModel::load(&card_path, &runtime(Precision::Float32)).unwrap();
    assert_eq!(
        evaluate(&mut from_master, &samples),
        evaluate(&mut from_disk, &samples)
    );

    // The configured architecture must match.
    let other = ModelConfig {
        channels: 24,
        ..ModelConfig::tiny()
    };
    let err = checkpoint::load_expecting(&card_path, Device::Cpu, &other).unwrap_err();
    assert!(
        matches!(err, NnError::IncompatibleCheckpoint { .. }),
        "{err}"
    );
    // It names what differs, with both values, and nothing that does not.
    let tiny = ModelConfig::tiny();
    let named = format!("channels ({}, 24)", tiny.channels);
    assert!(err.to_string().contains(&named), "{err}");
    assert!(!err.to_string().contains("blocks"), "{err}");

    let original_text = std::fs::read_to_string(&card_path).unwrap();
    let write_card = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut json: serde_json::Value = serde_json::from_str(&original_text).unwrap();
        edit(&mut json);
        std::fs::write(&card_path, serde_json::to_string(&json).unwrap()).unwrap();
    };
    // A different feature version.
    write_card(&|j| j["feature_version"] = serde_json::json!(999));
    let err = checkpoint::load(&card_path, Device::Cpu).unwrap_err();
    assert!(
        err.to_string().contains("input feature version 999"),
        "{err}"
    );
    // A different move encoding version.
    write_card(&|j| j["move_encoding_version"] = serde_json::json!(0));
    let err = checkpoint::load(&card_path, Device::Cpu).unwrap_err();
    assert!(err.to_string().contains("move encoding version"), "{err}");
    // A card claiming another architecture than the weights have.
    write_card(&|j| j["architecture"]["channels"] = serde_json::json!(24));
    let err = checkpoint::load(&card_path, Device::Cpu).unwrap_err();
    assert!(
        matches!(err, NnError::IncompatibleCheckpoint { .. }) && err.to_string().contains("shape"),
        "{err}"
    );
    // Weights that are not the ones the card was written for.
    write_card(&|_| {});
    let weights = dir.path().join("model-000042.safetensors");
    let mut bytes = std::fs::read(&weights).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(&weights, bytes).unwrap();
    let err = checkpoint::load(&card_path, Device::Cpu).unwrap_err();
    assert!(err.to_string().contains("SHA-256"), "{err}");
    // Not a card at all.
    std::fs::write(&card_path, "{ not json").unwrap();
    assert!(matches!(
        checkpoint::load(&card_path, Device::Cpu),
        Err(NnError::Checkpoint { .. })
    ));
}

#[test]
fn the_policy_loss_is_the_mean_over_rows_with_a_policy_target() {
    tch::manual_seed(3);
    let model = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
    let options = RulesOptions::default();
    let mut features = vec![0f32; FEATURE_LEN];
    let mut legs: Vec<MoveLegs> = Vec::new();
    let policy = [(0u32, 0.5f32), (3, 0.5)];
    let mut policy_loss = |policy_weights: &[f32]| {
        let mut builder = TrainingBatchBuilder::new();
        for (&weight, (position, moves)) in policy_weights
            .iter()
            .zip(positions(policy_weights.len()).iter())
        {
            encode_position(
                &FeatureInput::from_position(position, &options),
                &mut features,
            )
            .unwrap();
            encode_moves(position, moves, &mut legs).unwrap();
            let targets = SampleTargets {
                policy: &policy,
                policy_weight: weight,
                wdl: [0.0, 1.0, 0.0],
                moves_left: 100.0,
                material: 0.0,
            };
            builder.push(&features, &legs, &targets).unwrap();
        }
        let batch = builder.build(Device::Cpu);
        let losses = compute_losses(&model.network, &batch, &LossWeights::default()).unwrap();
        losses.policy.double_value(&[])
    };
    // The same first row, alone or among three rows without a policy target (cheap searches):
    // those must not dilute it.
    let alone = policy_loss(&[1.0]);
    let among_cheap_rows = policy_loss(&[1.0, 0.0, 0.0, 0.0]);
    assert!(alone > 1.0, "{alone}");
    assert!(
        (alone - among_cheap_rows).abs() < 1e-4 * alone,
        "{alone} vs {among_cheap_rows}"
    );
    assert_eq!(policy_loss(&[0.0, 0.0]), 0.0);
}

#[test]
fn a_few_training_steps_lower_the_loss_on_a_fixed_batch() {
    tch::set_num_threads(1);
    tch::manual_seed(6);
    let model = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
    let options = RulesOptions::default();
    let mut builder = TrainingBatchBuilder::new();
    let mut features = vec![0f32; FEATURE_LEN];
    let mut legs: Vec<MoveLegs> = Vec::new();
    for (i, (position, moves)) in positions(12).iter().enumerate() {
        encode_position(
            &FeatureInput::from_position(position, &options),
            &mut features,
        )
        .unwrap();
        encode_moves(position, moves, &mut legs).unwrap();
        let target = [
            ((i * 37) % moves.len()) as u32,
            ((i * 11 + 5) % moves.len()) as u32,
        ];
        let policy = [(target[0], 0.75), (target[1], 0.25)];
        let wdl = [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]][i % 3];
        let targets = SampleTargets {
            policy: &policy,
            policy_weight: 1.0,
            wdl,
            moves_left: 400.0 + 50.0 * i as f32,
            material: i as f32 - 6.0,
        };
        builder.push(&features, &legs, &targets).unwrap();
    }
    let batch = builder.build(Device::Cpu);
    let weights = LossWeights::default();
    let mut optimizer = tch::nn::Adam::default().build(&model.vs, 1e-2).unwrap();
    let first_losses = compute_losses(&model.network, &batch, &weights).unwrap();
    let first = first_losses.values();
    let first_entropy = first_losses.policy_entropy.double_value(&[]);
    // At initialisation the policy is spread over ~250 legal moves: entropy near ln(250) ≈ 5.5.
    assert!(
        first_entropy > 3.0 && first_entropy <= (400f64).ln(),
        "entropy {first_entropy}"
    );
    for _ in 0..60 {
        let losses = compute_losses(&model.network, &batch, &weights).unwrap();
        optimizer.zero_grad();
        losses.total.backward();
        optimizer.step();
    }
    let last_losses = compute_losses(&model.network, &batch, &weights).unwrap();
    let last = last_losses.values();
    let last_entropy = last_losses.policy_entropy.double_value(&[]);
    assert!(
        last_entropy < first_entropy,
        "entropy {first_entropy} -> {last_entropy}"
    );
    // Accuracy over 12 samples moves in steps of 1/12: it may lose one sample while the value
    // loss (asserted below) falls, and the torch seed is shared with tests running beside this
    // one, so the starting weights differ from run to run.
    let accuracy = last_losses.value_accuracy.double_value(&[]);
    let first_accuracy = first_losses.value_accuracy.double_value(&[]);
    assert!(
        (0.0..=1.0).contains(&accuracy) && accuracy + 1.0 / 12.0 + 1e-9 >= first_accuracy,
        "value accuracy {first_accuracy} -> {accuracy}"
    );
    assert!(first.iter().all(|v| v.is_finite()) && last.iter().all(|v| v.is_finite()));
    assert!(
        last[0] < 0.6 * first[0],
        "total loss {} -> {}",
        first[0],
        last[0]
    );
    assert!(
        last[1] < first[1],
        "policy loss {} -> {}",
        first[1],
        last[1]
    );
    assert!(last[2] < first[2], "value loss {} -> {}", first[2], last[2]);
}

#[test]
fn bad_training_samples_are_rejected() {
    let mut builder = TrainingBatchBuilder::new();
    let legs = [MoveLegs::from_entries(&[1]).unwrap()];
    let targets = SampleTargets {
        policy: &[(3, 1.0)],
        policy_weight: 1.0,
        wdl: [1.0, 0.0, 0.0],
        moves_left: 1.0,
        material: 0.0,
    };
    assert!(builder
        .push(&vec![0.0; FEATURE_LEN], &legs, &targets)
        .is_err());
    assert!(builder
        .push(
            &[0.0; 10],
            &legs,
            &SampleTargets {
                policy: &[],
                ..targets.clone()
            }
        )
        .is_err());
    assert!(builder.is_empty());
}

#[test]
fn sync_from_brings_the_inference_copy_up_to_date() {
    tch::set_num_threads(1);
    tch::manual_seed(8);
    let master = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
    let runtime = RuntimeConfig {
        channels_last: Some(true),
        ..runtime(Precision::Float32)
    };
    let mut inference = InferenceModel::from_model(&master, &runtime).unwrap();
    let samples = positions(3);
    let before = evaluate(&mut inference, &samples);
    // Change the master's weights, as a training step would.
    tch::no_grad(|| {
        for (_, mut var) in master.vs.variables() {
            let noise = var.randn_like() * 0.05;
            let _ = var.f_add_(&noise).unwrap();
        }
    });
    assert_eq!(
        evaluate(&mut inference, &samples),
        before,
        "no sync yet: old weights"
    );
    inference.sync_from(&master).unwrap();
    let after = evaluate(&mut inference, &samples);
    let fresh = evaluate(
        &mut InferenceModel::from_model(&master, &runtime).unwrap(),
        &samples,
    );
    assert_ne!(after, before);
    for (a, f) in after.iter().zip(&fresh) {
        assert!(a
            .policy
            .iter()
            .zip(&f.policy)
            .all(|(x, y)| (x - y).abs() < 1e-6));
    }
    let other = Model::new(
        &ModelConfig {
            blocks: 3,
            ..ModelConfig::tiny()
        },
        Device::Cpu,
    )
    .unwrap();
    assert!(inference.sync_from(&other).is_err());
}

#[test]
fn a_checkpoint_argument_resolves_to_its_model_card() {
    use koshogi_nn::checkpoint::{resolve_card, CheckpointPathError};
    let dir = tempfile::tempdir().unwrap();
    let step = dir.path().join("step-000000007");
    std::fs::create_dir_all(&step).unwrap();
    assert!(matches!(
        resolve_card(&step),
        Err(CheckpointPathError::NoCard(_))
    ));
    // A JSON file that is no model card does not count.
    std::fs::write(step.join("notes.json"), "{}").unwrap();
    assert!(matches!(
        resolve_card(&step),
        Err(CheckpointPathError::NoCard(_))
    ));

    let model = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
    checkpoint::save(&model, &step.join("other.json"), 7, serde_json::json!({})).unwrap();
    assert_eq!(resolve_card(&step).unwrap(), step.join("other.json"));
    checkpoint::save(&model, &step.join("third.json"), 7, serde_json::json!({})).unwrap();
    assert!(matches!(
        resolve_card(&step),
        Err(CheckpointPathError::Ambiguous { .. })
    ));
    checkpoint::save(&model, &step.join("model.json"), 7, serde_json::json!({})).unwrap();
    assert_eq!(resolve_card(&step).unwrap(), step.join("model.json"));
    assert_eq!(
        resolve_card(&step.join("third.json")).unwrap(),
        step.join("third.json")
    );
    assert!(matches!(
        resolve_card(&dir.path().join("nope")),
        Err(CheckpointPathError::Missing(_))
    ));
    // A damaged model.json, alone in its directory, says what is wrong with it.
    let damaged = dir.path().join("step-000000009");
    std::fs::create_dir_all(&damaged).unwrap();
    std::fs::write(damaged.join("model.json"), "{\"format\": 3").unwrap();
    let err = resolve_card(&damaged).unwrap_err().to_string();
    assert!(err.contains("unreadable model card"), "{err}");
}

/// How the search reads the value travels with the checkpoint, and a run may change it
/// without losing its checkpoints; a different shape is still refused, and a card with an
/// out-of-range weight is an error, not a model.
#[test]
fn the_material_utility_travels_with_the_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let card_path = dir.path().join("model.json");
    let config = ModelConfig {
        material_utility: 0.25,
        ..ModelConfig::tiny()
    };
    let model = Model::new(&config, Device::Cpu).unwrap();
    let card = checkpoint::save(&model, &card_path, 3, serde_json::json!({})).unwrap();
    assert_eq!(card.architecture.material_utility, 0.25);
    let (loaded, _) = checkpoint::load(&card_path, Device::Cpu).unwrap();
    assert_eq!(loaded.config().material_utility, 0.25);

    let reread = ModelConfig {
        material_utility: 0.5,
        ..ModelConfig::tiny()
    };
    let (resumed, _) = checkpoint::load_expecting(&card_path, Device::Cpu, &reread).unwrap();
    assert_eq!(resumed.config().material_utility, 0.5);
    let wider = ModelConfig {
        channels: 24,
        ..reread
    };
    assert!(checkpoint::load_expecting(&card_path, Device::Cpu, &wider).is_err());

    let text = std::fs::read_to_string(&card_path).unwrap();
    let hostile = text.replace("\"material_utility\": 0.25", "\"material_utility\": 7.0");
    assert_ne!(hostile, text);
    std::fs::write(&card_path, hostile).unwrap();
    let err = checkpoint::load(&card_path, Device::Cpu).unwrap_err();
    assert!(err.to_string().contains("material_utility"), "{err}");
}

/// A model card is input from anyone: sizes beyond any real network, a weights file outside
/// the checkpoint directory, a device behind a link, or an architecture its weights file is too
/// small for are refused with an error before anything large is allocated or read.
#[test]
fn hostile_model_cards_are_refused_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    let card_path = dir.path().join("model.json");
    let model = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
    checkpoint::save(&model, &card_path, 3, serde_json::json!({})).unwrap();
    let text = std::fs::read_to_string(&card_path).unwrap();
    let card: serde_json::Value = serde_json::from_str(&text).unwrap();
    let refused = |edit: &dyn Fn(&mut serde_json::Value), expected: &str| {
        let mut hostile = card.clone();
        edit(&mut hostile);
        std::fs::write(&card_path, serde_json::to_string(&hostile).unwrap()).unwrap();
        let err = checkpoint::load(&card_path, Device::Cpu)
            .unwrap_err()
            .to_string();
        assert!(err.contains(expected), "expected {expected:?} in: {err}");
    };
    refused(
        &|c| c["architecture"]["channels"] = 100_000.into(),
        "channels",
    );
    refused(&|c| c["architecture"]["blocks"] = 100_000.into(), "blocks");
    // Within the bounds, but far more than the weights file holds.
    refused(
        &|c| c["architecture"]["channels"] = 1024.into(),
        "needs at least",
    );
    refused(
        &|c| c["weights_file"] = "/etc/passwd".into(),
        "not a file name",
    );
    refused(
        &|c| c["weights_file"] = "../model.safetensors".into(),
        "not a file name",
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero")).unwrap();
        refused(&|c| c["weights_file"] = "zero".into(), "regular file");
    }
    refused(
        &|c| c["training_seconds"] = (-1.0).into(),
        "training_seconds",
    );
    refused(
        &|c| c["training_seconds"] = "an hour".into(),
        "unreadable model card",
    );
    // The untouched card still loads.
    std::fs::write(&card_path, &text).unwrap();
    checkpoint::load(&card_path, Device::Cpu).unwrap();
}

/// The trainer's cards record how long the run had trained; other cards leave the field out,
/// and cards written before the field existed read as `None`.
#[test]
fn a_trained_card_records_its_training_time() {
    let dir = tempfile::tempdir().unwrap();
    let model = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
    let trained = dir.path().join("trained.json");
    checkpoint::save_trained(&model, &trained, 5, serde_json::json!({}), Some(5400.5)).unwrap();
    assert_eq!(
        checkpoint::read_card(&trained).unwrap().training_seconds,
        Some(5400.5)
    );
    let plain = dir.path().join("plain.json");
    checkpoint::save(&model, &plain, 5, serde_json::json!({})).unwrap();
    let text = std::fs::read_to_string(&plain).unwrap();
    assert!(!text.contains("training_seconds"), "{text}");
    assert_eq!(
        checkpoint::read_card(&plain).unwrap().training_seconds,
        None
    );
}

/// `value_counts_material`: the win/draw/loss logits move by exactly their weight times
/// `tanh(balance / 10)` of the material counted on the board, the piece values are a buffer
/// the optimiser never sees (not trainable, not counted as a parameter), and a checkpoint
/// brings them back; a card that asks for the input refuses weights without it.
#[test]
fn the_value_head_reads_the_counted_material() {
    use koshogi_rules::material::{material_value, search_balance};
    tch::set_num_threads(1);
    tch::manual_seed(11);
    let plain = ModelConfig::tiny();
    let config = ModelConfig {
        value_counts_material: true,
        ..plain.clone()
    };
    let model = Model::new(&config, Device::Cpu).unwrap();
    let variables = model.vs.variables();
    let values = &variables["value.material_values"];
    assert!(!values.requires_grad());
    assert_eq!(
        model.parameter_count(),
        Model::new(&plain, Device::Cpu).unwrap().parameter_count() + 16 + 3,
        "the input adds one weight per hidden unit and per logit, and the table is no parameter"
    );
    // A new network's logits do not read the count yet.
    assert_eq!(
        variables["value.material_wdl.weight"]
            .abs()
            .max()
            .double_value(&[]),
        0.0
    );

    // Positions of a random game, some of them with a material lead for either side.
    let samples = positions(60);
    let input = input_batch(&samples);
    let before = model.network.forward(&input).wdl_logits;
    let weight = [0.5f32, -0.25, 2.0];
    tch::no_grad(|| {
        variables["value.material_wdl.weight"]
            .shallow_clone()
            .copy_(&Tensor::from_slice(&weight).view([3, 1]));
    });
    let after = model.network.forward(&input).wdl_logits;
    let moved = Vec::<Vec<f32>>::try_from(after - before).unwrap();
    let mut unbalanced = 0;
    for ((position, _), row) in samples.iter().zip(&moved) {
        let m = material_value(search_balance(position));
        unbalanced += usize::from(m != 0.0);
        for (k, w) in weight.iter().enumerate() {
            assert!(
                (row[k] - w * m).abs() < 1e-5,
                "logit {k}: {} vs {}",
                row[k],
                w * m
            );
        }
    }
    assert!(unbalanced > 0, "the game should unbalance the material");

    let dir = tempfile::tempdir().unwrap();
    let card_path = dir.path().join("model.json");
    checkpoint::save(&model, &card_path, 1, serde_json::json!({})).unwrap();
    let (loaded, _) = checkpoint::load(&card_path, Device::Cpu).unwrap();
    let reloaded = loaded.vs.variables();
    assert!(reloaded["value.material_values"].equal(values));
    let again = loaded.network.forward(&input).wdl_logits;
    let after = model.network.forward(&input).wdl_logits;
    assert!(again.allclose(&after, 1e-6, 1e-6, false));
    assert!(checkpoint::load_expecting(&card_path, Device::Cpu, &plain).is_err());
}

/// `attack_planes`: the network, not its caller, decides whether the attack planes are filled.
/// Two networks with the same weights, one with the planes, answer alike exactly on the
/// positions where no piece of either side is attacked, although every caller passes inputs
/// without the planes.
#[test]
fn an_inference_model_fills_the_attack_planes_its_card_asks_for() {
    use koshogi_nn::features::OWN_ATTACKED;
    tch::set_num_threads(1);
    let plain = ModelConfig::tiny();
    let attacks = ModelConfig {
        attack_planes: true,
        ..plain.clone()
    };
    let build = |config: &ModelConfig| {
        tch::manual_seed(17);
        InferenceModel::new(config, &runtime(Precision::Float32)).unwrap()
    };
    let (mut with, mut without) = (build(&attacks), build(&plain));
    // Random games attack from the start (shooters reach across the empty ranks), so add
    // quiet positions: the two generals alone, and with a pawn each far apart.
    let mut samples = positions(40);
    let options = RulesOptions::default();
    let empty = "19/".repeat(8);
    for middle in ["19", "3,p,11,P,3"] {
        let ksfen = format!("g,18/{empty}{middle}/{empty}18,G b 1");
        let position = Position::from_ksfen(&ksfen).unwrap();
        let moves = position.legal_moves(&options);
        samples.push((position, moves));
    }
    let (a, b) = (
        evaluate(&mut with, &samples),
        evaluate(&mut without, &samples),
    );
    let options = RulesOptions::default();
    let mut features = vec![0f32; FEATURE_LEN];
    let (mut quiet, mut attacked) = (0, 0);
    for ((position, _), (a, b)) in samples.iter().zip(a.iter().zip(&b)) {
        let input = FeatureInput::from_position(position, &options).with_attack_planes(true);
        encode_position(&input, &mut features).unwrap();
        let marks: f32 = features[OWN_ATTACKED * POINTS..].iter().sum();
        let same = a.wdl == b.wdl && a.policy == b.policy;
        if marks == 0.0 {
            quiet += 1;
            assert!(same, "no attack, yet the answers differ");
        } else {
            attacked += 1;
            assert!(
                !same,
                "{marks} attacked pieces, yet the planes changed nothing"
            );
        }
    }
    assert!(
        quiet > 0 && attacked > 10,
        "{quiet} quiet, {attacked} attacked"
    );
}

/// A checkpoint written for version 1 of the input planes (140, before the attack planes)
/// still loads: its stem gets zero weights for the two new planes, which it never has filled,
/// so it answers exactly as before. A version-1 card that asks for attack planes is refused.
#[test]
fn a_version_1_checkpoint_loads_and_answers_as_it_did() {
    use koshogi_nn::features::{FEATURE_VERSION_1_PLANES, OWN_ATTACKED};
    tch::set_num_threads(1);
    let dir = tempfile::tempdir().unwrap();
    let card_path = dir.path().join("model.json");
    tch::manual_seed(23);
    let model = Model::new(&ModelConfig::tiny(), Device::Cpu).unwrap();
    checkpoint::save(&model, &card_path, 7, serde_json::json!({})).unwrap();
    // The weights as version 1 stored them: the stem's first 140 input planes.
    let weights_path = checkpoint::weights_path_for(&card_path);
    let mut tensors = Tensor::read_safetensors(&weights_path).unwrap();
    for (name, tensor) in &mut tensors {
        if name == "stem.weight" {
            *tensor = tensor
                .narrow(1, 0, FEATURE_VERSION_1_PLANES as i64)
                .contiguous();
        }
    }
    Tensor::write_safetensors(&tensors, &weights_path).unwrap();
    let hash =
        koshogi_files::digest::sha256_hex_of(std::fs::File::open(&weights_path).unwrap()).unwrap();
    let mut card: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&card_path).unwrap()).unwrap();
    card["feature_version"] = 1.into();
    card["input_planes"] = FEATURE_VERSION_1_PLANES.into();
    card["weights_sha256"] = hash.into();
    std::fs::write(&card_path, card.to_string()).unwrap();

    let (loaded, read) = checkpoint::load(&card_path, Device::Cpu).unwrap();
    assert!(read.is_feature_version_1());
    let variables = loaded.vs.variables();
    let stem = &variables["stem.weight"];
    assert_eq!(stem.size()[1], INPUT_PLANES as i64);
    let added = stem.narrow(1, OWN_ATTACKED as i64, 2);
    assert_eq!(added.abs().max().double_value(&[]), 0.0);
    // The same answers as the network that was saved, on inputs without attack planes.
    let input = input_batch(&positions(20));
    let before = model.network.forward(&input).wdl_logits;
    let after = loaded.network.forward(&input).wdl_logits;
    assert_eq!(
        Vec::<f32>::try_from(before.view([-1])).unwrap(),
        Vec::<f32>::try_from(after.view([-1])).unwrap()
    );

    let refused = |card: &serde_json::Value, expected: &str| {
        std::fs::write(&card_path, card.to_string()).unwrap();
        let err = checkpoint::load(&card_path, Device::Cpu)
            .unwrap_err()
            .to_string();
        assert!(err.contains(expected), "expected {expected:?} in: {err}");
    };
    card["architecture"]["attack_planes"] = true.into();
    refused(&card, "attack planes need input feature version 2");
    card["feature_version"] = 3.into();
    refused(&card, "input feature version 3 with 140 planes");
}
