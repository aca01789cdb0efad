#!/usr/bin/env bash
# Checks deploy/slurm/ end to end on this machine: brings up a private single-node Slurm cluster
# (Debian's slurm-wlm and munge; loopback only, every file under a temporary directory), runs a
# trivial job, then a moto S3 server on 127.0.0.1 (scripts/setup-moto.sh) and the real thing:
# a run begun here with `koshogi run` and `koshogi store push`ed to the bucket, continued by
# deploy/slurm/submit.sh with deploy/slurm/tiny.toml — one trainer (`--steps`), a job array of
# two self-play workers (`--games`), a ladder pass and the gate, all finishing by themselves. It passes
# when every job completed with exit code 0 and the bucket holds checkpoints (with the
# checkpoints/latest.json pointer), shards from two workers and arena/ladder.csv, and the state of
# the trainer's last checkpoint numbers worker shards (it trained on them: its configuration has
# it wait for one row more than the local run wrote).
# Everything it started (jobs, slurmd, slurmctld, munged, moto) is stopped on exit, pass or fail.
#
#   scripts/check-slurm.sh                  # the whole check (builds koshogi unless KOSHOGI_BIN)
#   scripts/check-slurm.sh --cluster-only   # only the cluster and a trivial job
#
# Needs root (slurmd starts jobs as their user; munged and the daemons run as root here) and
# installs slurm-wlm, munge and curl with apt-get if they are missing. Safe to run twice, also
# at once: each run has its own directory, munge socket and ports, and touches nothing in /etc.
# The jobs run at the nice value CHECK_NICE (default 19), so a running job keeps its CPUs.
#
# Environment:
#   KOSHOGI_BIN    the koshogi binary to test (default: built here with
#                  `cargo build --release -p koshogi` after sourcing scripts/env.sh)
#   CHECK_TIMEOUT  seconds to wait for the koshogi jobs (default 900)
#   CHECK_STEPS    the trainer's --steps (default 6); CHECK_GAMES the workers' --games (default 8)
#   CHECK_NICE     nice value of the daemons and so of the jobs (default 19)
#   CHECK_LADDER=0 leave out the ladder (deploy/slurm/ladder.sbatch; run and checked by default)
#   CHECK_LOCAL_STEPS  the run starts on this machine with `koshogi run --steps N` (default 4),
#                  is pushed to the store with `koshogi store push`, and the Slurm jobs continue
#                  it to N + CHECK_STEPS steps: checked are the local checkpoints and shards
#                  still in the store and the trainer resuming at step N. 0 starts in the store.
#   CHECK_GATE=0   leave out the gate (deploy/slurm/gate.sbatch, with tiny.toml plus [gate]
#                  enabled; run and checked by default: checkpoints/accepted.json in the store)
#   KEEP=1         keep the temporary directory (logs, job output) even when the check passes
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { echo "check-slurm: error: $*" >&2; exit 1; }
say() { echo "check-slurm: $*" >&2; }

cluster_only=0
case "${1:-}" in
  "") ;;
  --cluster-only) cluster_only=1 ;;
  -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) die "unknown argument '$1' (try --help)." ;;
esac
timeout_s="${CHECK_TIMEOUT:-900}"
steps="${CHECK_STEPS:-6}"
games="${CHECK_GAMES:-8}"
nice_value="${CHECK_NICE:-19}"
ladder="${CHECK_LADDER:-1}"
gate="${CHECK_GATE:-1}"
local_steps="${CHECK_LOCAL_STEPS:-4}"
[[ "$local_steps" =~ ^[0-9]+$ ]] || die "CHECK_LOCAL_STEPS must be a whole number."

[ "$(id -u)" = 0 ] || die "run as root (slurmd and munged are started here)."

# --- packages ---------------------------------------------------------------------------------
missing_pkgs=()
for tool in slurmctld:slurm-wlm slurmd:slurm-wlm sbatch:slurm-client munged:munge mungekey:munge curl:curl; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || missing_pkgs+=("${tool#*:}")
done
if [ "${#missing_pkgs[@]}" -gt 0 ]; then
  say "installing ${missing_pkgs[*]} with apt-get ..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || die "apt-get update failed."
  # slurm-wlm pulls in the client and munge; the set is small (about 60 MB).
  apt-get install -y -qq slurm-wlm munge curl >&2 || die "apt-get install slurm-wlm munge curl failed."
fi

# --- state and teardown -----------------------------------------------------------------------
work="$(mktemp -d "${TMPDIR:-/tmp}/koshogi-slurm-check.XXXXXX")"
chmod 700 "$work"
mkdir -p "$work"/{munge,state,spool,logs,jobs}
daemon_pids=()   # started here, stopped in reverse order
cluster_up=0
passed=0

stop_pid() {   # TERM, up to 15 s, then KILL; only processes this script started
  local pid="$1"
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 150); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local rc=$?
  set +e
  if [ "$cluster_up" = 1 ]; then
    # Jobs first, while slurmd can still signal them (SIGTERM, then SIGKILL after KillWait).
    if [ -n "$(squeue -h -o %i 2>/dev/null)" ]; then
      say "cancelling the jobs still queued or running ..."
      scancel --quiet --user="$(id -un)" 2>/dev/null
      for _ in $(seq 60); do
        [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
        sleep 0.5
      done
    fi
  fi
  local i
  for ((i = ${#daemon_pids[@]} - 1; i >= 0; i--)); do
    stop_pid "${daemon_pids[i]}"
  done
  if [ "$passed" = 1 ] && [ "${KEEP:-0}" != 1 ]; then
    rm -rf "$work"
  else
    say "logs and job output kept in $work"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() {   # a TCP port free on loopback right now
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_for() {   # wait_for SECONDS DESCRIPTION COMMAND...: polls COMMAND every 0.5 s
  local seconds="$1" what="$2"; shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || die "timed out after ${seconds}s waiting for $what."
    sleep 0.5
  done
}

# --- munge ------------------------------------------------------------------------------------
socket="$work/munge/munge.socket"
mungekey --create --keyfile="$work/munge/munge.key" >&2 || die "mungekey could not create a key."
chmod 400 "$work/munge/munge.key"
# --force: the temporary directory's parents (/tmp) are world-writable, which munged refuses
# otherwise; the key itself is private to this run.
munged --foreground --force --socket="$socket" --key-file="$work/munge/munge.key" \
  --log-file="$work/logs/munged.log" --pid-file="$work/munge/munged.pid" \
  --seed-file="$work/munge/munged.seed" >>"$work/logs/munged.log" 2>&1 &
daemon_pids+=("$!")
munge_works() { munge --socket="$socket" -n | unmunge --socket="$socket"; }
wait_for 20 "munged ($work/logs/munged.log)" munge_works

# --- slurm ------------------------------------------------------------------------------------
ctld_port="$(free_port)"
slurmd_port="$(free_port)"
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port="$(free_port)"; done
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<EOF
# A private single-node cluster for scripts/check-slurm.sh (loopback only; no cgroups, no
# accounting daemon). Job completions are logged to jobcomp.log.
ClusterName=koshogicheck
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool/%n
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/logs/slurmctld.log
SlurmdLogFile=$work/logs/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$work/logs/jobcomp.log
SwitchType=switch/none
MpiDefault=none
PlugStackConfig=$work/plugstack.conf
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# Finished jobs stay visible to 'scontrol show job' for an hour (there is no slurmdbd for sacct).
MinJobAge=3600
KillWait=30
SlurmdTimeout=60
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
# FORCE:6: up to 6 jobs share each CPU, so the trainer, both workers, the ladder and the gate
# (2 CPUs each by their sbatch files) run at once on 2 cores, as on a real cluster; all run at
# nice 19.
PartitionName=check Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:6
EOF
: >"$work/plugstack.conf"

slurmctld -D -f "$SLURM_CONF" >>"$work/logs/slurmctld.out" 2>&1 &
daemon_pids+=("$!")
cluster_up=1
wait_for 30 "slurmctld ($work/logs/slurmctld.log)" scontrol ping
# -n: the daemon's nice value, which slurmstepd and so every job inherit.
slurmd -D -f "$SLURM_CONF" -N localhost -n "$nice_value" >>"$work/logs/slurmd.out" 2>&1 &
daemon_pids+=("$!")
node_idle() { sinfo -h -N -n localhost -o '%t' | grep -qx 'idle'; }
wait_for 60 "the node to be idle in sinfo ($work/logs/slurmd.log)" node_idle
say "cluster up: $(sinfo -h -N -o '%N %P %t %c CPUs' | head -1) (slurmctld port $ctld_port)"

# Prints "STATE EXITCODE" of one job (e.g. "COMPLETED 0:0"), or nothing if it is unknown.
job_state() {
  scontrol -o show job "$1" 2>/dev/null | head -1 \
    | sed -n 's/.* JobState=\([A-Z_]*\) .* ExitCode=\([0-9:]*\) .*/\1 \2/p'
}

# --- a trivial job ----------------------------------------------------------------------------
# shellcheck disable=SC2016  # $$ is the job's shell, expanded in the job
trivial="$(sbatch --parsable --output="$work/jobs/hostname-%j.out" \
  --wrap 'hostname; echo "nice $(ps -o ni= -p $$)"')" || die "sbatch --wrap 'hostname' failed."
trivial="${trivial%%;*}"
trivial_done() { [ -z "$(squeue -h -j "$trivial" -o %i 2>/dev/null)" ]; }
wait_for 60 "the trivial job $trivial" trivial_done
state="$(job_state "$trivial")"
[ "$state" = "COMPLETED 0:0" ] \
  || die "the trivial job $trivial ended as '${state:-unknown}' (see $work/logs/slurmd.log)."
say "trivial job $trivial: $state; its output: $(tr '\n' ' ' <"$work/jobs/hostname-$trivial.out")"

if [ "$cluster_only" = 1 ]; then
  passed=1
  say "PASS (cluster only): single-node Slurm works; the koshogi jobs were not run."
  exit 0
fi

# --- koshogi ----------------------------------------------------------------------------------
if [ -n "${KOSHOGI_BIN:-}" ]; then
  bin="$KOSHOGI_BIN"
else
  say "building koshogi (cargo build --release -p koshogi, at nice 19) ..."
  # shellcheck disable=SC2016  # expanded by the inner shell
  bin="$(bash -c 'source "$1/scripts/env.sh" >&2 \
    && nice -n 19 cargo build --release -p koshogi >&2 \
    && echo "$CARGO_TARGET_DIR/release/koshogi"' _ "$repo_root")" || die "could not build koshogi."
fi
command -v "$bin" >/dev/null 2>&1 || [ -x "$bin" ] || die "no koshogi binary at '$bin'."
bin="$(command -v "$bin")"
for role in selfplay train; do
  "$bin" "$role" --help >/dev/null 2>&1 || die "$bin has no '$role' command; is it built with the object-store roles?"
done

py="$(bash "$repo_root/scripts/setup-moto.sh")" || die "scripts/setup-moto.sh failed."
moto_port="$(free_port)"
"$(dirname "$py")/moto_server" -H 127.0.0.1 -p "$moto_port" >"$work/logs/moto.log" 2>&1 &
daemon_pids+=("$!")
moto_up() { curl -s -o /dev/null "http://127.0.0.1:$moto_port/"; }
wait_for 30 "moto on port $moto_port ($work/logs/moto.log)" moto_up
# moto accepts any credentials; these are placeholders, not secrets.
export AWS_ENDPOINT_URL="http://127.0.0.1:$moto_port" AWS_ACCESS_KEY_ID=check \
  AWS_SECRET_ACCESS_KEY=check AWS_REGION=us-east-1
bucket="koshogi-check"
run_url="s3://$bucket/run"
"$py" -c 'import boto3, sys; boto3.client("s3").create_bucket(Bucket=sys.argv[1])' "$bucket" \
  || die "could not create the bucket $bucket on moto."
say "moto on 127.0.0.1:$moto_port with bucket $bucket"

# The jobs get this environment (sbatch's default --export=ALL): the store, the binary, and
# their local caches under the temporary directory.
export KOSHOGI_BIN="$bin" KOSHOGI_RUN_CACHE="$work/cache" RUST_LOG="${RUST_LOG:-info}"
ladder_opts=()
if [ "$ladder" = 1 ]; then
  # One ladder pass 20 s after submission; it resubmits itself while the trainer lives.
  ladder_opts=(--ladder-every 20 --ladder-args "--games-per-pair 2 --anchors random")
fi
config="$repo_root/deploy/slurm/tiny.toml"
gate_opts=()
if [ "$gate" = 1 ]; then
  # Gated: workers play the accepted checkpoint, which the gate job moves on (2-game matches).
  config="$work/tiny-gated.toml"
  { cat "$repo_root/deploy/slurm/tiny.toml"
    printf '[gate]\nenabled = true\ngames = 2\nmax_plies = 8\nparallel_games = 2\n'; } >"$config"
  gate_opts=(--gate --gate-every 5)
fi
if [ "$local_steps" -gt 0 ]; then
  # The run begins on one machine, as a user's would, and moves to the cluster.
  say "koshogi run --steps $local_steps on this machine, then koshogi store push to $run_url ..."
  nice -n "$nice_value" "$bin" run --config "$config" --run "$work/local-run" --steps "$local_steps" \
    >"$work/logs/local-run.log" 2>&1 || { tail -n 20 "$work/logs/local-run.log" >&2; die "koshogi run failed."; }
  "$bin" store push "$work/local-run" "$run_url" >"$work/logs/push.log" 2>&1 \
    || { tail -n 20 "$work/logs/push.log" >&2; die "koshogi store push failed."; }
  # The local shards alone would let the Slurm trainer reach its step target before any worker
  # shard arrives (issue #34: it did, in 0.3 s). Its configuration asks for one row more than
  # they hold before it trains, so what it trains on includes the workers' shards.
  local_rows="$("$py" - "$work/local-run/shards" <<'PY'
import ast, glob, sys, zipfile
rows = 0
for path in glob.glob(sys.argv[1] + "/shard-*.npz"):
    with zipfile.ZipFile(path) as shard, shard.open("game_id.npy") as member:
        head = member.read(4096)
        rows += ast.literal_eval(head[head.index(b"{"):head.index(b"}") + 1].decode())["shape"][0]
print(rows)
PY
)" || die "could not count the rows of the local run's shards."
  sed "s/^start_rows = .*/start_rows = $((local_rows + 1))/" "$config" >"$work/slurm.toml"
  grep -q "^start_rows = $((local_rows + 1))\$" "$work/slurm.toml" || die "could not set start_rows in $work/slurm.toml."
  say "the local run wrote $local_rows positions; the Slurm trainer starts at $((local_rows + 1))"
  config="$work/slurm.toml"
fi
total_steps=$((local_steps + steps))
submitted="$(bash "$repo_root/deploy/slurm/submit.sh" --name check --workers 2 \
  --steps "$total_steps" --games "$games" --logs "$work/jobs" ${ladder_opts[@]+"${ladder_opts[@]}"} \
  ${gate_opts[@]+"${gate_opts[@]}"} "$run_url" "$config")" || die "deploy/slurm/submit.sh failed."
echo "$submitted" >&2
if ! grep -q '^trainer [0-9]' <<<"$submitted" || ! grep -q '^selfplay [0-9]' <<<"$submitted"; then
  die "could not read the job ids from submit.sh's output."
fi

# Every job of this private cluster is ours: wait until none is queued or running.
jobs_done() { [ -z "$(squeue -h -o %i 2>/dev/null)" ]; }
say "waiting up to ${timeout_s}s for the jobs to finish ..."
deadline=$((SECONDS + timeout_s))
until jobs_done; do
  if [ "$SECONDS" -ge "$deadline" ]; then
    squeue >&2 || true
    die "the jobs did not finish within ${timeout_s}s (output in $work/jobs)."
  fi
  sleep 5
done

failed=0
# One line per job and per array task: "JobId=... JobState=... ExitCode=... StdOut=...".
while read -r line; do
  id="$(sed -n 's/^JobId=\([0-9]*\) .*/\1/p' <<<"$line")"
  task="$(sed -n 's/.* ArrayTaskId=\([0-9]*\) .*/\1/p' <<<"$line")"
  name="$(sed -n 's/.* JobName=\([^ ]*\) .*/\1/p' <<<"$line")"
  st="$(sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p' <<<"$line")"
  ec="$(sed -n 's/.* ExitCode=\([0-9:]*\) .*/\1/p' <<<"$line")"
  out="$(sed -n 's/.* StdOut=\([^ ]*\).*/\1/p' <<<"$line")"
  say "job $id${task:+ (array task $task)} $name: $st, exit code $ec"
  if [ "$st" != COMPLETED ] || [ "$ec" != 0:0 ]; then
    failed=1
    if [ -f "$out" ]; then
      say "last lines of $out:"
      tail -n 30 "$out" >&2
    fi
  fi
done < <(scontrol -o show job)
[ "$failed" = 0 ] || die "a job failed (jobcomp log: $work/logs/jobcomp.log)."
ladder_jobs="$(scontrol -o show job | grep -c ' JobName=check-ladder ' || true)"

# What the store holds: published checkpoints and their pointer, shards per writer, the ladder.
"$py" - "$bucket" "run/" "$ladder" "$gate" "$local_steps" "$total_steps" <<'PY' || die "the store does not hold what the run should have written."
import boto3, re, sys
bucket, prefix, ladder, gate = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4] == "1"
local_steps, total_steps = int(sys.argv[5]), int(sys.argv[6])
keys = []
for page in boto3.client("s3").get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
    keys += [o["Key"][len(prefix):] for o in page.get("Contents", [])]
# A checkpoint is published when its directory has published.json (written after its files).
steps = sorted({int(m.group(1)) for k in keys if (m := re.match(r"checkpoints/step-(\d+)/published\.json$", k))})
# Shard names are shard-<sequence>-<writer>.npz, the writer being the worker id or starting
# with it and `_` (one writer per self-play thread and start).
writers = {}
for k in keys:
    m = re.match(r"shards/shard-\d+-([A-Za-z0-9_]+)\.npz$", k)
    if m:
        writers[m.group(1)] = writers.get(m.group(1), 0) + 1
per_worker = {w: sum(n for writer, n in writers.items() if writer == w or writer.startswith(w + "_"))
              for w in ("s1", "s2")}
games = sum(1 for k in keys if k.startswith("games/"))
pointer = "checkpoints/latest.json" in keys
print(f"check-slurm: store: {len(keys)} objects; published checkpoints at steps {steps}; "
      f"pointer checkpoints/latest.json: {'yes' if pointer else 'no'}; shards per worker: {per_worker} "
      f"(writers {sorted(writers)}); {games} game records", file=sys.stderr)
arena = [k for k in keys if k.startswith("arena/")]
if ladder:
    print(f"check-slurm: store: {len(arena)} objects under arena/, arena/ladder.csv: "
          f"{'yes' if 'arena/ladder.csv' in keys else 'no'}", file=sys.stderr)
accepted = "checkpoints/accepted.json" in keys
if gate:
    print(f"check-slurm: store: checkpoints/accepted.json: {'yes' if accepted else 'no'}", file=sys.stderr)
# The local run's part: its last checkpoint and its shards (writers that are no Slurm worker).
local_writers = sorted(w for w in writers if not re.match(r"s[12](_|$)", w))
if local_steps:
    print(f"check-slurm: store: local run's checkpoint step {local_steps}: "
          f"{'yes' if local_steps in steps else 'no'}; its shard writers: {local_writers}; "
          f"last step {max(steps, default=None)} (wanted {total_steps})", file=sys.stderr)
continued = not local_steps or (local_steps in steps and local_writers and max(steps) == total_steps)
ok = (continued and len(steps) >= 1 and pointer and all(n >= 1 for n in per_worker.values())
      and (not ladder or "arena/ladder.csv" in keys) and (not gate or accepted))
sys.exit(0 if ok else 1)
PY

# The trainer trained on the workers' shards, not only on the local run's: the state of its last
# published checkpoint numbers shards of the Slurm workers.
"$py" - "$bucket" "run/" <<'PY' || die "the trainer's last published state numbers no shard of a Slurm worker: it did not train on their data."
import boto3, json, re, sys
bucket, prefix = sys.argv[1], sys.argv[2]
s3 = boto3.client("s3")
read = lambda key: json.loads(s3.get_object(Bucket=bucket, Key=prefix + key)["Body"].read())
step = read("checkpoints/latest.json")["step"]
names = [s["file"] for s in read(f"checkpoints/step-{step:09d}/trainer_state.json")["sampler"]["shards"]]
per_worker = {w: sum(1 for n in names if re.match(rf"shard-\d+-{w}_", n)) for w in ("s1", "s2")}
print(f"check-slurm: the trainer's state at step {step} numbers {len(names)} shards, "
      f"of the Slurm workers {per_worker}", file=sys.stderr)
sys.exit(0 if sum(per_worker.values()) >= 1 else 1)
PY

if [ "$local_steps" -gt 0 ]; then
  grep -h "resuming from" "$work"/jobs/check-train-*.out | grep -q "step=$local_steps" \
    || die "the Slurm trainer did not resume at the local run's step $local_steps (see $work/jobs)."
  say "the Slurm trainer resumed at the local run's step $local_steps and trained on to $total_steps"
fi

say "koshogi store ls $run_url:"
"$bin" store ls "$run_url" >&2 || die "koshogi store ls $run_url failed."

passed=1
[ "$ladder" = 0 ] || say "ladder: $ladder_jobs pass(es), arena/ladder.csv in the store"
[ "$gate" = 0 ] || say "gate: checkpoints/accepted.json in the store"
say "PASS: trainer and 2 self-play workers ran under Slurm against moto and exited 0; the store holds checkpoints and shards from 2 workers, and the trainer's state numbers worker shards$([ "$local_steps" = 0 ] || echo ", and the run begun on this machine ($local_steps steps) went on from where it was")."
