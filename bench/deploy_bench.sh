#!/usr/bin/env bash
# Part of make bench: the time of `patrol deploy` with no flags, a first
# deploy (onbox, config and profile sent, onbox started) beside a re-deploy
# of the same run once it is done (every file unchanged: nothing sent, onbox
# started and finding every marker).  Against the test suite's throwaway sshd
# (tests/e2e/sshd.sh), N rounds, each with a fresh workdir.
#
# The onbox sent is build/portable/onbox-<arch>-linux when `make
# onbox-portable` has made it, else a copy of BUILD/onbox standing in for it
# (WATCHKEEPER_ONBOX_DIR, README: patrol deploy); the result says which.
#
# Prints one JSON object on its last stdout line:
#   {"first_us": [...], "redeploy_us": [...], "onbox": "portable"|"stand-in", "onbox_bytes": N}
# Usage: bench/deploy_bench.sh BUILD_DIR [N]
set -eu
build=${1:-build}
N=${2:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
case $build in /*) ;; *) build="$top/$build" ;; esac
for b in onbox patrol; do
	[ -x "$build/$b" ] || { echo "deploy_bench: no $build/$b (make first)" >&2; exit 64; }
done
BUILD=$build	# lib.sh makes it relative to $top
# shellcheck source=/dev/null
. "$top/tests/e2e/lib.sh"
# shellcheck source=/dev/null
. "$top/tests/e2e/sshd.sh"
T=$(mktemp -d /tmp/wk-bench-deploy.XXXXXX)
export T
bench_stop() {
	cleanup_procs
	rm -rf "$T"
}
sshd_at_exit bench_stop
trap 'exit 130' INT
trap 'exit 143' TERM
die() { echo "deploy_bench: $*" >&2; exit 1; }
now_ns() { date +%s%N; }

sshd_start >/dev/null || die "sshd did not start"
mkdir -p "$T/state" "$T/portable"
export XDG_STATE_HOME="$T/state"
arch=$(uname -m)
if [ -f "$build/portable/onbox-$arch-linux" ]; then
	kind=portable
	port="$build/portable/onbox-$arch-linux"
else
	kind=stand-in
	cp "$ONBOX" "$T/portable/onbox-$arch-linux"
	export WATCHKEEPER_ONBOX_DIR="$T/portable"
	port="$T/portable/onbox-$arch-linux"
fi

done_run() {
	local s="$1/.watchkeeper/state.json" pid
	[ -f "$s" ] || return 1
	pid=$(json "$s" 'd.get("onbox_pid", 0)') || return 1
	[ "$(json "$s" 'd.get("status")')" = done ] && ! kill -0 "$pid" 2>/dev/null
}

first="" again=""
for i in $(seq 1 "$N"); do
	W="$T/work$i"
	cat >"$T/wk$i.json" <<JSON
{ "run": "bench$i", "workdir": "$W", "detach": "nohup", "heartbeat_s": 1, "profile": "generic",
  "box": { "host": "box", "ssh_config": "$SSH_CFG", "connect_timeout_s": 20 },
  "chain": [ { "stage": "train", "run": "true", "marker": "TRAIN_DONE" } ] }
JSON
	t0=$(now_ns)
	"$build/patrol" -c "$T/wk$i.json" deploy >"$T/d$i.1" 2>&1 || die "first deploy failed: $(cat "$T/d$i.1")"
	t1=$(now_ns)
	grep -q '^onbox: uploaded ' "$T/d$i.1" || die "the first deploy sent no onbox: $(cat "$T/d$i.1")"
	wait_for 30 done_run "$W" || die "run bench$i did not finish"
	t2=$(now_ns)
	"$build/patrol" -c "$T/wk$i.json" deploy >"$T/d$i.2" 2>&1 || die "re-deploy failed: $(cat "$T/d$i.2")"
	t3=$(now_ns)
	! grep -q 'uploaded' "$T/d$i.2" || die "the re-deploy sent something: $(cat "$T/d$i.2")"
	wait_for 30 done_run "$W" || die "run bench$i did not finish after the re-deploy"
	first="$first${first:+,}$(( (t1 - t0) / 1000 ))"
	again="$again${again:+,}$(( (t3 - t2) / 1000 ))"
done
echo "{\"first_us\": [$first], \"redeploy_us\": [$again], \"onbox\": \"$kind\", \"onbox_bytes\": $(stat -c %s "$port")}"
