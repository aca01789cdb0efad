#!/usr/bin/env bash
# Builds the fuzz targets of fuzz/ (cargo-fuzz layout, its own workspace) and runs each for a
# bounded time, one after the other, printing executions, speed and any crash per target
# (docs/fuzzing.md).
#
#   bash scripts/fuzz.sh [seconds-per-target] [target ...]     default: 60 s, every target
#
# Environment:
#   FUZZ_RUNS=N       stop a target after N executions (the time is then only a cap)
#   FUZZ_RSS_MB=N     libFuzzer's memory limit per target (default 2048)
#   FUZZ_NICE=N       niceness of the build and the runs (default 19)
#   FUZZ_BUILD=0      skip the build (use the binaries already built)
#   FUZZ_SANITIZER=S  cargo-fuzz's sanitizer (default none; address etc. need -Z flags, which the
#                     stable toolchain accepts with RUSTC_BOOTSTRAP=1, set here for them)
#
# Works on the stable toolchain: with sanitizer none, cargo-fuzz passes only stable rustc flags
# (-Cpasses=sancov-module, -Cllvm-args=-sanitizer-coverage-…, --cfg fuzzing, -Cdebug-assertions).
# The parsers have no `unsafe`, so panics, overflow checks, debug assertions, timeouts (10 s per
# input) and the RSS limit are what is looked for. One fuzzing process at a time.
# Everything that grows stays out of the repository: the grown corpus, crash artefacts and logs
# go to $KOSHOGI_CACHE/fuzz/; fuzz/corpus/<target>/ holds the few committed seeds (read only).
set -euo pipefail

# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

seconds="${1:-60}"
shift $(($# > 0 ? 1 : 0))
nice_level="${FUZZ_NICE:-19}"
rss_mb="${FUZZ_RSS_MB:-2048}"
sanitizer="${FUZZ_SANITIZER:-none}"
fuzz_dir="$repo_root/fuzz"
target_dir="$KOSHOGI_CACHE/fuzz-target"
if [ "$sanitizer" != none ]; then
  target_dir="$KOSHOGI_CACHE/fuzz-target-$sanitizer"
  export RUSTC_BOOTSTRAP=1
fi
work="$KOSHOGI_CACHE/fuzz"
triple="$(rustc -vV | sed -n 's/^host: //p')"
bin_dir="$target_dir/$triple/release"

if ! command -v cargo-fuzz >/dev/null 2>&1; then
  echo "error: cargo-fuzz not found: cargo install cargo-fuzz --locked" >&2
  exit 1
fi

cd "$fuzz_dir"
if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo fuzz list)
fi

if [ "${FUZZ_BUILD:-1}" != 0 ]; then
  echo "== building the fuzz targets (sanitizer $sanitizer, debug assertions on)"
  nice -n "$nice_level" cargo fuzz build -O -a -s "$sanitizer" --target "$triple" \
    --target-dir "$target_dir"
fi

scratch_base=/dev/shm
[ -d "$scratch_base" ] || scratch_base="${TMPDIR:-/tmp}"

printf '\n%-16s %12s %10s %8s %8s %8s  %s\n' target executions "exec/s" seconds corpus "rss MB" result
failed=0
for target in "${targets[@]}"; do
  bin="$bin_dir/$target"
  if [ ! -x "$bin" ]; then
    echo "error: no fuzz target $target ($bin)" >&2
    exit 1
  fi
  corpus="$work/corpus/$target"
  artifacts="$work/artifacts/$target"
  log="$work/logs/$target.log"
  scratch="$scratch_base/koshogi-fuzz-$target-$$"
  seeds="$fuzz_dir/corpus/$target"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")" "$seeds"
  limits=(-max_total_time="$seconds")
  # Protocol words, routes and configuration keys (libFuzzer gets few string-compare hints
  # without a sanitizer runtime).
  [ -f "$fuzz_dir/dict/$target.dict" ] && limits+=(-dict="$fuzz_dir/dict/$target.dict")
  [ -n "${FUZZ_RUNS:-}" ] && limits+=(-runs="$FUZZ_RUNS")
  start=$(date +%s.%N)
  status=0
  # New inputs go to the first corpus directory (the cache); the seeds are only read.
  KOSHOGI_FUZZ_SCRATCH="$scratch" nice -n "$nice_level" "$bin" "${limits[@]}" \
    -rss_limit_mb="$rss_mb" -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$corpus" "$seeds" >"$log" 2>&1 || status=$?
  end=$(date +%s.%N)
  rm -rf "$scratch"
  stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
  executions="$(stat number_of_executed_units)"
  rss="$(stat peak_rss_mb)"
  elapsed="$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')"
  rate="$(awk -v n="${executions:-0}" -v t="$elapsed" 'BEGIN { printf "%d", n / t }')"
  units="$(find "$corpus" -type f | wc -l)"
  if [ "$status" -eq 0 ]; then
    result=ok
  else
    failed=1
    artifact="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)"
    reason="$(grep -m1 -E "panicked at|ERROR: libFuzzer|==ERROR" "$log" || true)"
    result="FAILED (exit $status): ${reason:-see $log} ${artifact:+artefact $artifact}"
  fi
  printf '%-16s %12s %10s %8.0f %8s %8s  %s\n' "$target" "${executions:-?}" "$rate" \
    "$elapsed" "$units" "${rss:-?}" "$result"
done
echo
echo "logs: $work/logs/, grown corpora: $work/corpus/, crash artefacts: $work/artifacts/"
exit "$failed"
