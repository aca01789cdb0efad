#!/usr/bin/env bash
# Installs moto's S3 server (`moto[server]`, from PyPI) into its own venv in the per-user cache,
# for tests and checks of the object-store run directory (`--run s3://bucket/prefix`) without a
# cloud account: scripts/check-slurm.sh and the Rust integration tests start it on loopback.
# The venv also has boto3 (a dependency of moto), which the checks use to list the bucket.
#
# Idempotent: a second run only checks the installed version (well under a second).
# Prints the venv's python on stdout (`PY="$(bash scripts/setup-moto.sh)"`); the server is
# `"$(dirname "$PY")/moto_server"`.
# Environment: KOSHOGI_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/koshogi-zero),
#              PYTHON (default python3; 3.9+).
#
# Starting the server on loopback on port PORT (in-memory; everything is lost when it stops):
#   PY="$(bash scripts/setup-moto.sh)"
#   "$(dirname "$PY")/moto_server" -H 127.0.0.1 -p "$PORT" >moto.log 2>&1 &   # or: "$PY" -m moto.server -H 127.0.0.1 -p "$PORT"
#   moto_pid=$!
# and waiting until it answers (a couple of seconds; any HTTP answer counts):
#   for _ in $(seq 100); do
#     curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.1
#   done
# moto accepts any credentials; point clients at it with
#   AWS_ENDPOINT_URL=http://127.0.0.1:$PORT AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1
# create a bucket (`"$PY" -c 'import boto3; boto3.client("s3").create_bucket(Bucket="b")'`)
# and stop it with `kill "$moto_pid"`.
set -euo pipefail

# The version is checked below, so changing it here reinstalls on the next run.
MOTO_VERSION="5.2.5"

cache_root="${KOSHOGI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/koshogi-zero}"
venv="$cache_root/moto-venv"
python="${PYTHON:-python3}"

die() { echo "setup-moto: error: $*" >&2; exit 1; }
say() { echo "setup-moto: $*" >&2; }

# Prints nothing when moto is installed at $MOTO_VERSION with its server extra and boto3, else why not.
missing() {
  [ -x "$venv/bin/python" ] || { echo "no venv"; return; }
  [ -f "$venv/.complete" ] || { echo "incomplete venv"; return; }
  [ -x "$venv/bin/moto_server" ] || { echo "no moto_server"; return; }
  "$venv/bin/python" - "$MOTO_VERSION" <<'PY' 2>/dev/null || echo "(could not check)"
import importlib.metadata as m, sys
want = sys.argv[1]
try:
    have = m.version("moto")
except m.PackageNotFoundError:
    have = None
if have != want:
    print(f"moto {have} (want {want})")
else:
    for name in ("boto3", "flask", "flask_cors"):  # the client and the server extra
        try:
            __import__(name)
        except ImportError:
            print(f"{name} missing")
            break
PY
}

why="$(missing)"
if [ -n "$why" ]; then
  command -v "$python" >/dev/null 2>&1 || die "'$python' not found: install Python 3.9+ (or set PYTHON=/path/to/python3)."
  "$python" -c 'import venv, ensurepip' 2>/dev/null \
    || die "'$python' lacks the venv/ensurepip modules (Debian: apt-get install python3-venv)."
  say "installing moto[server]==$MOTO_VERSION from PyPI into $venv ($why; about 20 s, 100 MB) ..."
  rm -rf "$venv"
  mkdir -p "$cache_root"
  "$python" -m venv "$venv" || die "could not create a virtual environment at $venv."
  if ! "$venv/bin/python" -m pip install --disable-pip-version-check --progress-bar off --quiet \
        "moto[server]==$MOTO_VERSION" >&2; then
    rm -rf "$venv"
    die "pip could not install moto[server]==$MOTO_VERSION (is PyPI reachable? see the pip output above)."
  fi
  touch "$venv/.complete"
  still="$(missing)"
  [ -z "$still" ] || die "moto is still not usable after pip install: $still."
  say "moto $MOTO_VERSION ready: $venv/bin/moto_server"
fi
echo "$venv/bin/python"
