#!/usr/bin/env bash
# A sharded sweep on a real Slurm: starts munged, slurmctld and slurmd on localhost in a
# temporary directory (its own key, socket, ports and slurm.conf; nothing under /etc is used or
# changed), submits a 4-task job array in which each task runs
# `archipelago-cli sweep PRESET --space SPACE --shard auto -o out_$SLURM_ARRAY_TASK_ID.json`,
# waits for it, merges the outputs with `archipelago-cli merge` and checks that the merged
# fronts, top lists and base rank equal an unsharded sweep's.
#
#   tests/slurm/slurm_array_test.sh ARCHIPELAGO_CLI SOURCE_DIR
#
# Exit 0 when they match, 1 when they do not or the job fails, 77 (CTest's skip code) when Slurm
# or munge is not installed or the daemons cannot run on this machine. Every daemon is stopped on
# any exit (trap), each wait has a deadline, and the daemons run under `timeout` as well, so a
# killed test leaves nothing running for long. Works as root and, where slurmd can run
# unprivileged, as another user (SlurmUser and SlurmdUser are the current user).
set -euo pipefail

cli=${1:?usage: slurm_array_test.sh ARCHIPELAGO_CLI SOURCE_DIR}
src=${2:?usage: slurm_array_test.sh ARCHIPELAGO_CLI SOURCE_DIR}
cli=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
preset=$src/presets/gpt3-175b-1024-a100.json
tasks=4
budget_s=240       # the whole test; CTest's TIMEOUT is above it
daemon_life_s=600  # a daemon outlives a killed test by at most this

export PATH="$PATH:/usr/sbin:/sbin"
skip() {
  echo "SKIP: $*" >&2
  exit 77
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
left() { echo $((budget_s - SECONDS)); }

for cmd in munged munge unmunge slurmctld slurmd sbatch squeue scontrol scancel sinfo perl; do
  command -v "$cmd" >/dev/null ||
    skip "'$cmd' not found: install Debian's slurm-wlm and munge (scripts/archipelago.sh does)"
done
[ -x "$cli" ] || fail "no archipelago-cli at $cli"

# An outer Slurm job's variables would steer sbatch and the array tasks.
for v in $(compgen -e | grep '^SLURM_' || true); do unset "$v"; done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/archipelago-slurm.XXXXXX")
chmod 755 "$tmp" # munged wants its socket's directory searchable and not writable by others
pids=()
jobid=""

show_logs() {
  for f in "$tmp"/log/*.log "$tmp"/work/slurm-*.out; do
    [ -f "$f" ] || continue
    echo "---- $f (last 15 lines)" >&2
    tail -n 15 "$f" >&2
  done
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$jobid" ]; then
    timeout 10 scancel "$jobid" >/dev/null 2>&1 || true
  fi
  # The array's processes (slurmstepd and the tasks) run in the work directory.
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/cwd" 2>/dev/null)" = "$tmp/work" ] && kill -TERM "${p#/proc/}" 2>/dev/null
  done
  # The daemons in reverse order of start: slurmd, slurmctld, munged.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[i]}" 2>/dev/null || true
  done
  for _ in $(seq 50); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && break
    sleep 0.1
  done
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  [ $status -ne 0 ] && [ $status -ne 77 ] && show_logs
  rm -rf "$tmp"
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Runs "$@" until it succeeds or `seconds` pass; returns 1 on timeout.
wait_for() {
  local seconds=$1
  shift
  local until=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -ge $until ] && return 1
    sleep 0.5
  done
}

# Two free TCP ports on localhost, from the process id so that parallel runs differ.
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ctld_port=""
for try in $(seq 0 40); do
  p=$((20000 + ($$ * 7 + try * 131) % 30000))
  if ! port_in_use "$p" && ! port_in_use $((p + 1)); then
    ctld_port=$p
    break
  fi
done
[ -n "$ctld_port" ] || skip "no two free TCP ports on 127.0.0.1"
slurmd_port=$((ctld_port + 1))

mkdir -p "$tmp"/{munge,log,state,spool,run,work}
chmod 700 "$tmp/munge"
user=$(id -un)
host=$(hostname -s 2>/dev/null || hostname)

# munge: a fresh key, its own socket.
if command -v mungekey >/dev/null; then
  mungekey --create --keyfile="$tmp/munge/munge.key" >/dev/null 2>&1 ||
    skip "mungekey cannot create a key"
else # munge before 0.5.14
  head -c 1024 /dev/urandom >"$tmp/munge/munge.key"
fi
chmod 400 "$tmp/munge/munge.key"
socket=$tmp/munge.socket
timeout "$daemon_life_s" munged --foreground --force --key-file="$tmp/munge/munge.key" \
  --socket="$socket" --pid-file="$tmp/run/munged.pid" --seed-file="$tmp/munge/seed" \
  --log-file="$tmp/log/munged.log" >"$tmp/log/munged.out.log" 2>&1 &
pids+=($!)
probe_munge() { munge -n -S "$socket" | unmunge -S "$socket"; }
wait_for 15 probe_munge || {
  show_logs
  skip "munged does not start on this machine (log above)"
}

cores=$(nproc)
memory_mb=$(awk '/^MemTotal:/ { print int($2 / 1024 / 2) }' /proc/meminfo)
cat >"$tmp/slurm.conf" <<CONF
ClusterName=archipelago-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
SwitchType=switch/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
ReturnToService=2
KillWait=5
NodeName=localhost NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cores RealMemory=$memory_mb State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$tmp/slurm.conf

timeout "$daemon_life_s" slurmctld -D -i -f "$SLURM_CONF" >"$tmp/log/slurmctld.out.log" 2>&1 &
pids+=($!)
wait_for 30 scontrol ping || {
  show_logs
  skip "slurmctld does not start on this machine (log above)"
}
timeout "$daemon_life_s" slurmd -D -N localhost -f "$SLURM_CONF" >"$tmp/log/slurmd.out.log" 2>&1 &
pids+=($!)
node_idle() { [ "$(sinfo -h -n localhost -o %t)" = idle ]; }
wait_for 30 node_idle || {
  show_logs
  skip "slurmd does not register with slurmctld on this machine (log above)"
}
echo "Slurm up after ${SECONDS} s: controller port $ctld_port, $cores CPUs, user $user"

# The array: one shard per task, the shard from the environment (--shard auto).
cat >"$tmp/space.json" <<'SPACE'
{"tp": [4, 8], "pp": [4, 8], "virtual_stages": [1, 2], "micro_batch": [1, 2],
 "schedule": ["1f1b", "interleaved-1f1b", "zb-h1"], "recompute": ["selective", "full"],
 "zero_stage": [0, 1], "distributed_optimizer": [false, true]}
SPACE
cat >"$tmp/work/sweep.sbatch" <<JOB
#!/bin/bash
#SBATCH --job-name=archipelago-sweep
#SBATCH --array=0-$((tasks - 1))
#SBATCH --output=slurm-%A_%a.out
#SBATCH --time=5
exec "$cli" sweep "$preset" --space "$tmp/space.json" --top 5 --shard auto \
  -o "out_\${SLURM_ARRAY_TASK_ID}.json"
JOB
jobid=$(cd "$tmp/work" && sbatch --parsable --chdir="$tmp/work" sweep.sbatch) ||
  fail "sbatch refused the array"
jobid=${jobid%%;*}
echo "submitted array job $jobid ($tasks tasks)"
array_done() { [ -z "$(squeue -h -j "$jobid" -o %i 2>/dev/null)" ]; }
wait_for "$(left)" array_done || fail "the array did not finish within ${budget_s} s"
states=$(scontrol -o show job "$jobid" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | sort | uniq -c |
  tr -s ' \n' ' ')
echo "array finished after ${SECONDS} s:$states"
for ((i = 0; i < tasks; i++)); do
  [ -s "$tmp/work/out_$i.json" ] || fail "task $i wrote no out_$i.json"
done
if scontrol -o show job "$jobid" | grep -v 'JobState=COMPLETED' | grep -q JobState; then
  fail "a task did not complete: $states"
fi

# Merge, and the same sweep unsharded.
outs=()
for ((i = 0; i < tasks; i++)); do outs+=("$tmp/work/out_$i.json"); done
"$cli" merge "${outs[@]}" -o "$tmp/merged.json" >"$tmp/merged.txt" || fail "merge failed"
"$cli" sweep "$preset" --space "$tmp/space.json" --top 5 -o "$tmp/full.json" >/dev/null ||
  fail "the unsharded sweep failed"
grep -q "merged from $tasks shards" "$tmp/merged.txt" || fail "merge's text does not say so"

# Exact comparison of the parts that must match (numbers kept as written: allow_bignum).
extract() {
  perl -MJSON::PP -e '
    local $/; open(my $f, "<", $ARGV[0]) or die "$ARGV[0]: $!"; my $j = JSON::PP->new->allow_bignum->decode(<$f>);
    my %keep = map { $_ => $j->{$_} } qw(fronts top top_by_objective base_rank base inputs);
    $keep{considered} = $j->{counts}{considered}; $keep{space_points} = $j->{counts}{space_points};
    print JSON::PP->new->canonical->allow_bignum->pretty->encode(\%keep);' "$1"
}
extract "$tmp/full.json" >"$tmp/full.cmp"
extract "$tmp/merged.json" >"$tmp/merged.cmp"
perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); exit(@{$j->{fronts}{iteration_time_vs_memory_peak}} >= 2 ? 0 : 1)' \
  <"$tmp/full.json" || fail "the unsharded front is too small to test anything"
if ! diff -u "$tmp/full.cmp" "$tmp/merged.cmp" >"$tmp/diff.txt"; then
  head -n 40 "$tmp/diff.txt" >&2
  fail "the merged result differs from the unsharded sweep (diff above)"
fi
echo "PASS: $tasks Slurm array tasks merged into the unsharded sweep's fronts, top lists and base rank (${SECONDS} s)"
