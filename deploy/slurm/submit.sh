#!/usr/bin/env bash
# Submits a koshogi run kept in object storage to Slurm: the trainer (train.sbatch) and a job
# array of self-play workers (selfplay.sbatch), optionally a periodic ladder (ladder.sbatch)
# and the gate (gate.sbatch). Prints one line per submission on stdout — "trainer JOBID",
# "selfplay JOBID", "ladder JOBID", "gate JOBID" — and what it did on stderr.
#
#   deploy/slurm/submit.sh [options] RUN_URL [CONFIG]
#
#   RUN_URL  the run: s3://bucket/prefix (also gs://, az://)
#   CONFIG   run configuration (TOML) given to every job; it must be readable on the compute
#            nodes (a shared filesystem). Leave it out for a run whose config.toml is already
#            in the store.
# Options:
#   --workers N          self-play array tasks (default 8)
#   --first-worker K     first array index, so worker ids are sK, sK+1, ... (default 1): to add
#                        workers to a run later without reusing ids (e.g. --first-worker 9)
#   --throttle M         at most M workers run at once (--array=...%M; change it later with
#                        scontrol update JobId=JOBID ArrayTaskThrottle=M)
#   --games N            each worker stops after N games (default: until cancelled)
#   --steps N            the trainer stops at N steps in total (default: train.steps)
#   --ladder-every SECS  also rate checkpoints every SECS seconds while the trainer lives
#   --ladder-args "ARGS" koshogi arena options (default "--games-per-pair 40 --anchors random,greedy,ab:2")
#   --gate               also run the gate while the trainer lives (only for a run whose
#                        config has [gate] enabled = true: workers then play the accepted
#                        checkpoint, which only the gate moves on)
#   --gate-every SECS    seconds between the gate's looks at the run (default 60)
#   --name NAME          job name prefix (default: the run URL's last part); the trainer is
#                        NAME-train and runs as a singleton: a second one waits for the first
#   --logs DIR           job output files (default ./koshogi-logs; created)
#   --no-trainer         submit only workers (and the ladder, the gate)
#   --no-workers         submit only the trainer (and the ladder, the gate)
#   --trainer-sbatch "ARGS"   extra sbatch options for the trainer, e.g. "--gres=gpu:1 --partition=gpu"
#   --selfplay-sbatch "ARGS"  extra sbatch options for the workers, e.g. "--time=12:00:00"
# Environment: KOSHOGI_BIN, KOSHOGI_ENV_FILE, KOSHOGI_RUN_CACHE and the store's credentials
# reach the jobs through sbatch's default --export=ALL (see deploy/slurm/README.md).
# Bash 4.2 or later.
set -euo pipefail
{ set +x; } 2>/dev/null   # never trace: the environment may hold credentials

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
die() { echo "submit: error: $*" >&2; exit 1; }
say() { echo "submit: $*" >&2; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

workers=8 first=1 throttle="" games="" steps="" ladder_every="" name="" logs="koshogi-logs"
ladder_args="--games-per-pair 40 --anchors random,greedy,ab:2"
want_trainer=1 want_workers=1 trainer_sbatch="" selfplay_sbatch="" want_gate=0 gate_every=60
positional=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --workers) workers="${2:?--workers needs a value}"; shift 2 ;;
    --first-worker) first="${2:?--first-worker needs a value}"; shift 2 ;;
    --throttle) throttle="${2:?--throttle needs a value}"; shift 2 ;;
    --games) games="${2:?--games needs a value}"; shift 2 ;;
    --steps) steps="${2:?--steps needs a value}"; shift 2 ;;
    --ladder-every) ladder_every="${2:?--ladder-every needs a value}"; shift 2 ;;
    --ladder-args) ladder_args="${2?--ladder-args needs a value}"; shift 2 ;;
    --name) name="${2:?--name needs a value}"; shift 2 ;;
    --logs) logs="${2:?--logs needs a value}"; shift 2 ;;
    --gate) want_gate=1; shift ;;
    --gate-every) gate_every="${2:?--gate-every needs a value}"; shift 2 ;;
    --no-trainer) want_trainer=0; shift ;;
    --no-workers) want_workers=0; shift ;;
    --trainer-sbatch) trainer_sbatch="${2?--trainer-sbatch needs a value}"; shift 2 ;;
    --selfplay-sbatch) selfplay_sbatch="${2?--selfplay-sbatch needs a value}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; positional+=("$@"); break ;;
    -*) die "unknown option '$1' (try --help)." ;;
    *) positional+=("$1"); shift ;;
  esac
done
if [ "${#positional[@]}" -lt 1 ] || [ "${#positional[@]}" -gt 2 ]; then usage >&2; exit 2; fi
run_url="${positional[0]}"
config="${positional[1]:-}"

case "$run_url" in
  s3://?*|gs://?*|az://?*) ;;
  *) die "RUN_URL must be an object-store URL (s3://bucket/prefix, gs://..., az://...), not '$run_url'." ;;
esac
case "$run_url" in
  *@*) die "put credentials in the environment, not in the URL." ;;
esac
is_count() { [[ "$1" =~ ^[1-9][0-9]*$ ]]; }
is_count "$workers" || die "--workers must be a positive number."
is_count "$first" || die "--first-worker must be a positive number."
[ -z "$throttle" ] || is_count "$throttle" || die "--throttle must be a positive number."
[ -z "$games" ] || is_count "$games" || die "--games must be a positive number."
[ -z "$steps" ] || is_count "$steps" || die "--steps must be a positive number."
[ -z "$ladder_every" ] || is_count "$ladder_every" || die "--ladder-every must be a number of seconds."
is_count "$gate_every" || die "--gate-every must be a number of seconds."
last=$((first + workers - 1))
# Worker ids are s<index>: 1-16 characters of [A-Za-z0-9_].
[ "${#last}" -le 15 ] || die "array indices that large make worker ids longer than 16 characters."

if [ -z "$name" ]; then
  name="${run_url%/}"; name="${name##*/}"
  name="koshogi-$(tr -c 'A-Za-z0-9_.\n-' '_' <<<"$name")"
fi
command -v sbatch >/dev/null 2>&1 || die "sbatch not found: run this on a Slurm login node."
config_args=()
if [ -n "$config" ]; then
  [ -r "$config" ] || die "cannot read the config '$config'."
  config="$(cd "$(dirname "$config")" && pwd)/$(basename "$config")"
  config_args=(--config "$config")
fi
if [ -z "${KOSHOGI_BIN:-}" ] && ! command -v koshogi >/dev/null 2>&1; then
  say "warning: KOSHOGI_BIN is unset and there is no koshogi on PATH here; the jobs need one."
fi
mkdir -p "$logs"
logs="$(cd "$logs" && pwd)"

read -ra trainer_extra <<<"$trainer_sbatch"
read -ra selfplay_extra <<<"$selfplay_sbatch"
read -ra ladder_extra <<<"$ladder_args"

# sbatch --parsable prints "JOBID" or "JOBID;CLUSTER".
submit() { local out; out="$(sbatch --parsable "$@")" || return 1; echo "${out%%;*}"; }

if [ "$want_trainer" = 1 ]; then
  train_args=(${config_args[@]+"${config_args[@]}"})
  [ -z "$steps" ] || train_args+=(--steps "$steps")
  job="$(submit --job-name="$name-train" --dependency=singleton \
    --output="$logs/$name-train-%j.out" ${trainer_extra[@]+"${trainer_extra[@]}"} \
    "$here/train.sbatch" "$run_url" ${train_args[@]+"${train_args[@]}"})" || die "sbatch of the trainer failed."
  say "trainer: job $job ($name-train), output $logs/$name-train-$job.out"
  echo "trainer $job"
fi

if [ "$want_workers" = 1 ]; then
  array="$first-$last${throttle:+%$throttle}"
  selfplay_args=(${config_args[@]+"${config_args[@]}"})
  [ -z "$games" ] || selfplay_args+=(--games "$games")
  job="$(submit --job-name="$name-selfplay" --array="$array" \
    --output="$logs/$name-selfplay-%A_%a.out" ${selfplay_extra[@]+"${selfplay_extra[@]}"} \
    "$here/selfplay.sbatch" "$run_url" ${selfplay_args[@]+"${selfplay_args[@]}"})" || die "sbatch of the workers failed."
  say "self-play: job array $job ($name-selfplay, tasks $array: workers s$first..s$last), output $logs/$name-selfplay-${job}_<task>.out"
  echo "selfplay $job"
fi

if [ -n "$ladder_every" ]; then
  job="$(KOSHOGI_LADDER_EVERY="$ladder_every" KOSHOGI_TRAIN_JOB_NAME="$name-train" \
    submit --job-name="$name-ladder" --dependency=singleton --begin="now+$ladder_every" \
    --output="$logs/$name-ladder-%j.out" \
    "$here/ladder.sbatch" "$run_url" ${ladder_extra[@]+"${ladder_extra[@]}"})" || die "sbatch of the ladder failed."
  say "ladder: job $job ($name-ladder), first pass in ${ladder_every}s, then every ${ladder_every}s while $name-train lives"
  echo "ladder $job"
fi

if [ "$want_gate" = 1 ]; then
  gate_args=(${config_args[@]+"${config_args[@]}"})
  job="$(KOSHOGI_GATE_EVERY="$gate_every" KOSHOGI_TRAIN_JOB_NAME="$name-train" \
    submit --job-name="$name-gate" --dependency=singleton \
    --output="$logs/$name-gate-%j.out" \
    "$here/gate.sbatch" "$run_url" ${gate_args[@]+"${gate_args[@]}"})" || die "sbatch of the gate failed."
  say "gate: job $job ($name-gate), a look every ${gate_every}s while $name-train lives"
  echo "gate $job"
fi
