#!/usr/bin/env bash
# Installs libtorch (the PyPI torch wheel) into a per-user cache shared by every clone and by CI,
# and points this checkout's `.libtorch` link at it so plain `cargo build/test/run` work.
#
# Idempotent: a second run only checks the venv and refreshes the link (seconds).
# Environment: KOSHOGI_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/koshogi-zero),
#              PYTHON (default python3).
set -euo pipefail

TORCH_VERSION="2.13.0"   # tch 0.26 is built against this libtorch; keep them in step.
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache_root="${KOSHOGI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/koshogi-zero}"
venv="$cache_root/torch-$TORCH_VERSION/venv"
python="${PYTHON:-python3}"

die() { echo "setup-libtorch: error: $*" >&2; exit 1; }
say() { echo "setup-libtorch: $*" >&2; }

torch_dir_of() {
  "$1/bin/python" - <<'PY' 2>/dev/null
import importlib.util, os
spec = importlib.util.find_spec("torch")
print(os.path.dirname(spec.origin) if spec else "")
PY
}

installed_version() {
  "$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("torch"))' 2>/dev/null || true
}

if [ "$(installed_version)" != "$TORCH_VERSION" ] || [ ! -f "$venv/.complete" ]; then
  command -v "$python" >/dev/null 2>&1 || die "'$python' not found: install Python 3.9+ (or set PYTHON=/path/to/python3)."
  "$python" -c 'import venv, ensurepip' 2>/dev/null \
    || die "'$python' lacks the venv/ensurepip modules (Debian: apt-get install python3-venv)."
  say "installing torch==$TORCH_VERSION from PyPI into $venv (about 80 s, 4.7 GB) ..."
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  "$python" -m venv "$venv" || die "could not create a virtual environment at $venv."
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
  if ! "$venv/bin/python" -m pip install --disable-pip-version-check --progress-bar off \
        "torch==$TORCH_VERSION" numpy safetensors tensorboard; then
    rm -rf "$venv"
    die "pip could not install torch==$TORCH_VERSION (is PyPI reachable? see the pip output above)."
  fi
  touch "$venv/.complete"
fi

torch_dir="$(torch_dir_of "$venv")"
[ -n "$torch_dir" ] && [ -f "$torch_dir/lib/libtorch_cpu.so" ] \
  || die "torch is installed in $venv but $torch_dir/lib/libtorch_cpu.so is missing; delete $venv and rerun."

# `.cargo/config.toml` sets LIBTORCH to this link (relative to the checkout), so nothing is exported by hand.
ln -sfn "$torch_dir" "$repo_root/.libtorch"
say "libtorch $TORCH_VERSION ready: $repo_root/.libtorch -> $torch_dir"
echo "$venv"
