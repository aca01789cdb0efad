#!/usr/bin/env bash
# Builds the `koshogi` Python package (python/rl: the rules as a PyO3/maturin abi3 wheel, the
# PettingZoo environment, the OpenSpiel game; docs/python.md) and installs it into a venv of
# its own, with what building and testing it needs, from PyPI: maturin, numpy, pettingzoo,
# gymnasium and open_spiel. No torch and no libtorch: the wheel links neither, and this venv is
# the "fresh venv" the package is tested in. scripts/test.sh runs this script before the tests.
#
# Idempotent: packages are installed once (a second run only checks their versions); the wheel
# is rebuilt by cargo incrementally (seconds when python/rl and the crates it uses are
# unchanged) and reinstalled only when it changed.
# Prints the venv's python on stdout (`PY="$(bash scripts/setup-python-rl.sh)"`).
# Environment: KOSHOGI_CACHE (default ~/.cache/koshogi-zero), PYTHON (default python3, 3.9+).
set -euo pipefail

# Keep in step with docs/python.md; the versions are checked below, so changing one here
# reinstalls on the next run.
PACKAGES=("maturin==1.16.0" "numpy==2.4.6" "pettingzoo==1.27.0" "gymnasium==1.4.0"
  "open_spiel==2.0.2")

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { echo "setup-python-rl: error: $*" >&2; exit 1; }
say() { echo "setup-python-rl: $*" >&2; }
# shellcheck source=lib/pinned-packages.sh
source "$repo_root/scripts/lib/pinned-packages.sh"

cache_root="${KOSHOGI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/koshogi-zero}"
venv="$cache_root/python-rl/venv"
base_python="${PYTHON:-python3}"
python="$venv/bin/python"

if [ ! -x "$python" ]; then
  command -v "$base_python" >/dev/null 2>&1 || die "'$base_python' not found: install Python 3.9+ (or set PYTHON=/path/to/python3)."
  mkdir -p "$(dirname "$venv")"
  "$base_python" -m venv "$venv" || die "could not create a virtual environment at $venv."
fi
pinned_install "$python" "$venv" "about 30 s, 350 MB" "${PACKAGES[@]}"

# The wheel: its own cargo target directory (python/rl is a workspace of its own, see its
# Cargo.toml), one wheel directory that holds only the newest build.
target="$cache_root/target-python-rl/$(printf '%s' "$repo_root" | sha256sum | cut -c1-12)"
wheels="$target/wheels"
rm -rf "$wheels"
say "building the koshogi wheel (maturin build --release) ..."
if ! CARGO_TARGET_DIR="$target" "$venv/bin/maturin" build --release --quiet \
      --manifest-path "$repo_root/python/rl/Cargo.toml" --interpreter "$python" \
      --out "$wheels" >&2; then
  die "maturin could not build python/rl (see the cargo output above)."
fi
wheel="$(ls "$wheels"/koshogi-*.whl 2>/dev/null | head -n 1)"
[ -n "$wheel" ] || die "maturin reported success but left no wheel in $wheels."
stamp="$venv/.koshogi-wheel.sha256"
sum="$(sha256sum "$wheel" | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$sum" ] || ! "$python" -c 'import koshogi' 2>/dev/null; then
  "$python" -m pip install --disable-pip-version-check --quiet --no-deps --force-reinstall \
    "$wheel" >&2 || die "pip could not install $wheel."
  echo "$sum" > "$stamp"
fi
echo "$python"
