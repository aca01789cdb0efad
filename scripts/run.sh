#!/usr/bin/env bash
# The main job: a short self-play + training run on the quick CPU configuration.
# Installs libtorch first if needed (scripts/setup-libtorch.sh), builds, then runs
#   koshogi run --config configs/quick.toml --run runs/quick
# Extra arguments are passed to `koshogi run` (e.g. --steps 100). Running it again resumes.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cargo build -p koshogi
exec "$CARGO_TARGET_DIR/debug/koshogi" run --config configs/quick.toml --run runs/quick "$@"
