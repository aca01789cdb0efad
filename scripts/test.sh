#!/usr/bin/env bash
# The whole test suite: formatting, lints, and every crate's tests. Installs libtorch first if
# needed (scripts/setup-libtorch.sh). This is the README's test command and what CI runs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
# Two cores: keep libtorch's intra-op pool from fighting the test harness's threads.
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-2}"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
# Idle OpenMP threads sleep instead of spinning (libtorch is 5-10x slower on 2 busy cores otherwise).
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"
echo "== cargo fmt --check"
cargo fmt --all -- --check
# python/rl (the koshogi Python package's PyO3 crate) is a cargo workspace of its own.
cargo fmt --manifest-path "$repo_root/python/rl/Cargo.toml" -- --check
echo "== cargo clippy --all-targets -- -D warnings"
cargo clippy --workspace --all-targets -- -D warnings
# The web viewer's end-to-end test drives headless Chromium (installed here when missing).
echo "== scripts/setup-chromium.sh"
bash "$repo_root/scripts/setup-chromium.sh"
# python/ (the network's PyTorch twin, ONNX export) is tested with onnx and onnxruntime.
echo "== scripts/setup-python.sh"
bash "$repo_root/scripts/setup-python.sh" >/dev/null
# The object-store tests run the distributed roles against moto's S3 server on loopback.
echo "== scripts/setup-moto.sh"
KOSHOGI_MOTO_PYTHON="$(bash "$repo_root/scripts/setup-moto.sh")"
export KOSHOGI_MOTO_PYTHON KOSHOGI_REQUIRE_MOTO=1
# python/rl: the koshogi wheel (PyO3 + maturin, no libtorch) in its own venv with pettingzoo and
# open_spiel; tests/python_package.rs runs python/rl/tests against the binary.
echo "== scripts/setup-python-rl.sh"
KOSHOGI_RL_PYTHON="$(bash "$repo_root/scripts/setup-python-rl.sh")"
export KOSHOGI_RL_PYTHON KOSHOGI_REQUIRE_PYTHON_RL=1
echo "== cargo clippy python/rl -- -D warnings"
rl_target="$KOSHOGI_CACHE/target-python-rl/clippy-$(printf '%s' "$repo_root" | sha256sum | cut -c1-12)"
CARGO_TARGET_DIR="$rl_target" PYO3_PYTHON="$KOSHOGI_RL_PYTHON" cargo clippy \
  --manifest-path "$repo_root/python/rl/Cargo.toml" --all-targets -- -D warnings
echo "== cargo test"
cargo test --workspace
