#!/usr/bin/env bash
# Completes the project's Python environment for `python/` (docs/python.md): the torch venv of
# scripts/setup-libtorch.sh (created first if needed; it already has torch, numpy, safetensors)
# plus what ONNX export needs, from PyPI: `onnx`, `onnxscript` (torch.onnx's exporter) and
# `onnxruntime` (to check the exported graph). `koshogi export --format onnx` and the tests of
# python/ use this environment; scripts/test.sh runs this script before the tests.
#
# Idempotent: a second run only checks the installed versions (well under a second).
# Prints the environment's python on stdout (`PY="$(bash scripts/setup-python.sh)"`).
# Environment: KOSHOGI_CACHE, PYTHON (as for setup-libtorch.sh).
set -euo pipefail

# Keep in step with docs/python.md; the versions are checked below, so changing one here
# reinstalls on the next run.
PACKAGES=("onnx==1.23.2" "onnxscript==0.7.2" "onnxruntime==1.32.0")

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { echo "setup-python: error: $*" >&2; exit 1; }
say() { echo "setup-python: $*" >&2; }
# shellcheck source=lib/pinned-packages.sh
source "$repo_root/scripts/lib/pinned-packages.sh"

venv="$(bash "$repo_root/scripts/setup-libtorch.sh")" || exit 1
python="$venv/bin/python"
[ -x "$python" ] || die "setup-libtorch.sh reported $venv, which has no bin/python."

pinned_install "$python" "$venv" "about 15 s, 120 MB" "${PACKAGES[@]}"
echo "$python"
