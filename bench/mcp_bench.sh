#!/usr/bin/env bash
# Part of make bench: `patrol mcp` driven by the official MCP SDK client
# (tests/mcp/client.mjs), against the test suite's throwaway sshd and a live
# run, in the same bench run:
#   - a `status` call through one persistent server, each call timed by the
#     client, beside `patrol --once --json` started as a new process each time
#     (the same tick: one connection, one probe, the report line);
#   - a marker landing on the box -> the `wait` tool's result arriving at the
#     client (the box's `onbox wait` is in place before the marker lands, as
#     in bench/sentinel_bench.sh --follow).
# Prints one JSON object on its last stdout line:
#   {"mcp_status_us": [...], "cli_status_us": [...], "wait_us": [...]}
# or {"skipped": "why"} when node or the SDK is missing (scripts/install-deps.sh).
# Usage: bench/mcp_bench.sh BUILD_DIR [N]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build} N=${2:-20}	# lib.sh makes an absolute BUILD relative to $top
# shellcheck source=/dev/null
. "$top/tests/e2e/lib.sh"
# shellcheck source=/dev/null
. "$top/tests/e2e/sshd.sh"
client="$MCPDIR/client.mjs"
if why=$(mcp_missing); then
	python3 -c 'import json, sys; print(json.dumps({"skipped": sys.argv[1]}))' "$why"
	exit 0
fi
PATROL="$top/$BUILD/patrol"
T=$(mktemp -d /tmp/wk-bench-mcp.XXXXXX)
export T
CP=
# sshd.sh owns the EXIT trap; our cleanup goes through it.
sshd_at_exit 'if [ -n "$CP" ]; then kill -9 "$CP" 2>/dev/null; fi'
sshd_at_exit 'cleanup_procs'
sshd_at_exit 'rm -rf "$T"'
now_ns() { date +%s%N; }
set -E
trap 'echo "mcp_bench: failed at line $LINENO; the client and server said:" >&2; tail -n 20 "$T/err" >&2; cat "$T/w.json" >&2 2>/dev/null' ERR

sshd_start >/dev/null
mkdir -p "$T/work" "$T/state" "$T/state.wait" "$T/sshd/bin"
ln -sf "$top/$BUILD/onbox" "$T/sshd/bin/onbox"
# A live run (train sleeps) for status; its second stage keeps a landed
# TRAIN_DONE from making the run DONE.
cat >"$T/wk.json" <<JSON
{ "run": "bench", "workdir": "$T/work", "detach": "nohup", "heartbeat_s": 5, "poll_ms": 600000,
  "box": { "host": "box", "ssh_config": "$SSH_CFG", "config": "$T/wk.json" },
  "chain": [ { "stage": "train", "run": "sleep 600", "marker": "TRAIN_DONE" },
             { "stage": "eval", "run": "true", "marker": "EVAL_DONE" } ] }
JSON
export XDG_STATE_HOME="$T/state"
: >"$T/err"
mcp() { node "$client" --patrol "$PATROL" -c "$T/wk.json" "$@" 2>>"$T/err"; }

# (a) status: the persistent server, then a new patrol process per tick.
bg_onbox run
wait_for 20 grep -qs '"pid":[[:space:]]*[1-9]' "$T/work/.watchkeeper/attempts/train.1.json"
mcp bench "$N" status '{"run": "bench"}' >"$T/a.json"
cli=()
for i in $(seq 1 "$N"); do
	t0=$(now_ns)
	"$PATROL" -c "$T/wk.json" --once --json >/dev/null 2>>"$T/err" || true
	t1=$(now_ns)
	cli+=($(( (t1 - t0) / 1000 )))
done
# The run stopped (onbox, the stage's group), the sshd kept (its pid is in .pids too).
grep -vx "$SSHD_PID" "$T/.pids" >"$T/.pids.run" || true
mv "$T/.pids.run" "$T/.pids"
cleanup_procs

# (b) marker -> wait returned, with nothing running (poll_ms ten minutes:
# only the box's inotify can see it in time), from a state dir of its own:
# against (a)'s last verdict (OK), the dead run would be a verdict change.
export XDG_STATE_HOME="$T/state.wait"
marker="$T/work/.watchkeeper/markers/TRAIN_DONE"
land() { : >"$T/m.tmp"; mv "$T/m.tmp" "$marker"; }
no_waiter() { ! pgrep -f "[w]ait --workdir $T/work" >/dev/null; }
wait_us=()
for i in $(seq 1 "$N"); do
	rm -f "$marker"
	wait_for 10 no_waiter
	node "$client" --patrol "$PATROL" -c "$T/wk.json" --timeout-ms 200000 \
		call wait '{"run": "bench", "marker": "TRAIN_DONE", "timeout_s": 120}' >"$T/w.json" 2>>"$T/err" &
	CP=$!
	wait_for 60 pgrep -f "[w]ait --workdir $T/work" >/dev/null
	sleep 0.2	# its first look is done and its watches are in place
	t0=$(now_ns); land; wait "$CP"; CP=
	python3 - "$T/w.json" "$t0" >>"$T/wait.us" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["structuredContent"]["happened"] == "marker", r
print(int(r["done_at_ms"] * 1000 - int(sys.argv[2]) / 1000))
PY
done
mapfile -t wait_us <"$T/wait.us"
python3 - "$T/a.json" "${cli[*]}" "${wait_us[*]}" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
print(json.dumps({"mcp_status_us": [int(x * 1000) for x in a["ms"]],
                  "cli_status_us": [int(x) for x in sys.argv[2].split()],
                  "wait_us": [int(x) for x in sys.argv[3].split()]}))
PY
