#!/usr/bin/env bash
# Part of make bench: `patrol --all` over a fleet of BENCH_FLEET_RUNS runs
# (default 100) on BENCH_FLEET_BOXES boxes (default 10): one throwaway sshd
# listening on one port per box (each box its own Host alias, port and
# connections), every run's workdir on the box with a heartbeat, a progress
# line and a log, as a live run leaves them.  Each run is made known to
# patrol by one `patrol --once` first (what a schedule's first tick does);
# then `patrol --all` is timed, BENCH_FLEET_N times, with the ssh
# connections the sshd accepted during each.  No onbox runs there, so each
# tick's verdict is NEEDS_RESUME (patrol.auto_resume is off: nothing is
# started): the look, the decision and the report line cost what a live
# run's do.  BENCH_KEEP=1 keeps the directory.
# Prints one JSON object on its last stdout line:
#   {"runs": 100, "boxes": 10, "jobs": J, "all_s": [...], "connections": [...]}
# Usage: bench/fleet_bench.sh BUILD_DIR
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
RUNS=${BENCH_FLEET_RUNS:-100} BOXES=${BENCH_FLEET_BOXES:-10} N=${BENCH_FLEET_N:-3}
# shellcheck source=/dev/null
. "$top/tests/e2e/lib.sh"
# shellcheck source=/dev/null
. "$top/tests/e2e/sshd.sh"
PATROL="$top/$BUILD/patrol"
T=$(mktemp -d /tmp/wk-bench-fleet.XXXXXX)
export T
sshd_at_exit 'cleanup_procs'
sshd_at_exit '[ -n "${BENCH_KEEP:-}" ] || rm -rf "$T"'
export HOME="$T/home" XDG_STATE_HOME="$T/state"
mkdir -p "$HOME" "$T/state"

# The extra boxes: more ports on the same sshd (its config's ListenAddress lines).
extra=""
ports=()
for i in $(seq 1 $((BOXES - 1))); do
	sshd_free_port p
	ports+=("$p")
	extra="${extra}ListenAddress 127.0.0.1:$p"$'\n'
done
SSHD_EXTRA_CONFIG=$extra sshd_start >/dev/null
ports=("$SSHD_PORT" "${ports[@]}")
for i in $(seq 0 $((BOXES - 1))); do
	for j in $(seq 1 20); do sshd_port_open "${ports[$i]}" && break; nap 0.1; done
	echo "[127.0.0.1]:${ports[$i]} $(cut -d' ' -f1,2 "$T/sshd/host_ed25519.pub")" >>"$T/sshd/known_hosts"
	cat >>"$SSH_CFG" <<EOF
Host box$i
	HostName 127.0.0.1
	Port ${ports[$i]}
	User root
	IdentityFile $SSHD_CLIENT_KEY
	IdentitiesOnly yes
	UserKnownHostsFile $T/sshd/known_hosts
	StrictHostKeyChecking yes
	BatchMode yes
EOF
done
ln -sf "$top/$BUILD/onbox" "$T/sshd/bin/onbox"

# A run's workdir as a live run leaves it: heartbeat, progress, a log line.
now=$(date +%s)
for k in $(seq 1 "$RUNS"); do
	w="$T/w-$k" b=$(( (k - 1) % BOXES ))
	mkdir -p "$w/.watchkeeper/markers"
	cat >"$T/r$k.json" <<JSON
{ "run": "r$k", "workdir": "$w", "detach": "nohup", "heartbeat_s": 60,
  "box": {"host": "box$b", "ssh_config": "$SSH_CFG", "config": "$T/r$k.json", "connect_timeout_s": 5},
  "progress": {"pattern": "step (\\\\d+)/(\\\\d+)"},
  "chain": [{"stage": "train", "run": "python train.py"}] }
JSON
	cat >"$w/.watchkeeper/state.json" <<JSON
{"run": "r$k", "time_unix": $now, "heartbeat_s": 60, "status": "running", "nstages": 1,
 "stage": "train", "stage_index": 0, "attempt": 1, "progress": {"text": "~$k/1000", "cur": $k, "max": 1000}}
JSON
done

# Known to patrol: one tick each (several at a time).
seq 1 "$RUNS" | xargs -P 4 -I{} sh -c '"$1" -c "$2/r$3.json" --once >/dev/null 2>&1 || :' _ "$PATROL" "$T" {}
known=$(ls "$T/state/watchkeeper" | wc -l)
[ "$known" -ge "$RUNS" ] || { echo "fleet_bench: only $known of $RUNS runs are known to patrol" >&2; exit 1; }

jobs=${BENCH_FLEET_JOBS:-}
times=() conns=()
for i in $(seq 1 "$N"); do
	before=$(sshd_accepted_count)
	t0=$(date +%s%N)
	"$PATROL" --all ${jobs:+--jobs "$jobs"} >"$T/all.$i" 2>&1 || :
	t1=$(date +%s%N)
	lines=$(wc -l <"$T/all.$i")
	[ "$lines" -ge "$RUNS" ] || { echo "fleet_bench: $lines report lines for $RUNS runs:" >&2; tail -5 "$T/all.$i" >&2; exit 1; }
	times+=("$(( (t1 - t0) / 1000000 ))")
	conns+=("$(( $(sshd_accepted_count) - before ))")
done
python3 -c 'import json, sys; r, b, j, t, c = sys.argv[1:]; print(json.dumps({"runs": int(r), "boxes": int(b), "jobs": j or "default", "all_s": [int(x) / 1000 for x in t.split()], "connections": [int(x) for x in c.split()]}))' \
	"$RUNS" "$BOXES" "$jobs" "${times[*]}" "${conns[*]}"
