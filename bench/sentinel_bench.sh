#!/usr/bin/env bash
# Part of make bench: sentinel's reaction time, from the moment a marker
# lands on the box to the moment sentinel has exited, against the test
# suite's throwaway sshd: plain polling every 1 s (the marker lands at a
# uniformly drawn point of the poll cycle, as in real life), and --follow,
# where the box's `onbox wait` sees the marker with inotify (interval 600 s
# and poll_ms ten minutes, so nothing else can be what answered).
# Prints one line:
#   POLL_US...|FOLLOW_US...
set -eu
build=${1:-build}
N=${2:-20}
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$build	# lib.sh makes an absolute one relative to $top
# shellcheck source=/dev/null
. "$top/tests/e2e/lib.sh"
# shellcheck source=/dev/null
. "$top/tests/e2e/sshd.sh"
T=$(mktemp -d /tmp/wk-bench-sentinel.XXXXXX)
export T
SP=
# sshd.sh owns the EXIT trap; our cleanup goes through it.
sshd_at_exit 'if [ -n "$SP" ]; then kill -9 "$SP" 2>/dev/null; fi'
sshd_at_exit 'rm -rf "$T"'
now_ns() { date +%s%N; }

sshd_start >/dev/null
mkdir -p "$T/work/.watchkeeper/markers" "$T/state" "$T/sshd/bin"
ln -sf "$top/$BUILD/onbox" "$T/sshd/bin/onbox"
cat >"$T/wk.json" <<JSON
{ "run": "bench", "workdir": "$T/work", "detach": "nohup", "poll_ms": 600000,
  "box": { "host": "box", "ssh_config": "$SSH_CFG" },
  "sentinel": { "follow_s": 60 },
  "chain": [ { "stage": "train", "run": "true", "marker": "TRAIN_DONE" } ] }
JSON
export XDG_STATE_HOME="$T/state"
marker="$T/work/.watchkeeper/markers/TRAIN_DONE"
land() { : >"$T/m.tmp"; mv "$T/m.tmp" "$marker"; }

# until_ok N CMD...: poll every 10 ms, at most N times.
until_ok() {
	local n=$1 i=0
	shift
	while ! "$@" && [ $i -lt "$n" ]; do sleep 0.01; i=$((i + 1)); done
	"$@"
}

# A failure says where, and what sentinel said (-E: also inside functions).
set -E
trap 'echo "sentinel_bench: failed at line $LINENO (sentinel exit or wait timed out); sentinel stderr:" >&2; tail -n 20 "$T/err" >&2' ERR

poll=() follow=()
read -ra offs < <(python3 -c "import random; print(' '.join(str(random.uniform(0, 1)) for _ in range($N)))")
for i in $(seq 1 "$N"); do
	rm -f "$marker"
	: >"$T/err"	# not the last run's "tick 1/": the child truncates it only once it runs
	"$top/$BUILD/sentinel" -c "$T/wk.json" --marker TRAIN_DONE --interval 1 --max-ticks 1000 \
		>/dev/null 2>"$T/err" &
	SP=$!
	until_ok 2000 grep -q 'tick 1/' "$T/err"
	sleep "${offs[$((i - 1))]}"
	t0=$(now_ns); land; wait "$SP"; t1=$(now_ns)
	SP=
	poll+=($(( (t1 - t0) / 1000 )))
done
no_waiter() { ! pgrep -f "[w]ait --workdir $T/work" >/dev/null; }
for i in $(seq 1 "$N"); do
	rm -f "$marker"
	# The last run's `onbox wait` on the box is gone, so the one found next is this run's.
	until_ok 500 no_waiter
	"$top/$BUILD/sentinel" -c "$T/wk.json" --marker TRAIN_DONE --interval 600 --max-ticks 5 \
		--follow >/dev/null 2>"$T/err" &
	SP=$!
	until_ok 2000 pgrep -f "[w]ait --workdir $T/work" >/dev/null
	sleep 0.2	# its first look is done and its watches are in place
	t0=$(now_ns); land; wait "$SP"; t1=$(now_ns)
	SP=
	follow+=($(( (t1 - t0) / 1000 )))
done
echo "${poll[*]}|${follow[*]}"
