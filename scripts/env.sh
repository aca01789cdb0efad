# Sourced by the project scripts: installs/locates libtorch and points cargo at a target
# directory in the per-user cache (shared by every clone and by CI, so rebuilds are incremental).
# shellcheck shell=bash
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export KOSHOGI_CACHE="${KOSHOGI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/koshogi-zero}"
# One shared target directory, so that a fresh clone (CI) reuses the dependencies' build. Cargo
# fingerprints workspace crates by workspace-relative paths and modification times: a fresh
# clone's newer files always rebuild them, but two checkouts built in turn (git worktrees) would
# take each other's builds as up to date, so such checkouts set CARGO_TARGET_DIR each.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$KOSHOGI_CACHE/target}"
KOSHOGI_VENV="$(bash "$repo_root/scripts/setup-libtorch.sh")" || exit 1
export KOSHOGI_VENV
export KOSHOGI_PYTHON="$KOSHOGI_VENV/bin/python"
# The same absolute LIBTORCH for every clone (instead of each clone's `.libtorch` link, which
# `.cargo/config.toml` uses otherwise), so clones share one torch-sys build in the cache.
LIBTORCH="$(readlink -f "$repo_root/.libtorch")"
export LIBTORCH
if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo not found: install the Rust toolchain (https://rustup.rs) and retry." >&2
  exit 1
fi
cd "$repo_root" || exit 1
