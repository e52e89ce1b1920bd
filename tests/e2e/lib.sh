# Shared helpers for the end-to-end tests; sourced by tests/e2e/test_*.sh.
#
# Each test is a shell function run by `t NAME FUNCTION` in a subshell with its
# own fresh directory ($T), and prints PASS/FAIL.  Everything a test starts is
# stopped by pid at the end: onbox processes it launched (recorded with
# `bg_onbox`) and every stage process recorded in the attempts/ records.
# Every wait is bounded (`wait_for`), never a bare sleep loop.

: "${BUILD:=build}"
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# The tests join "$TOP/$BUILD": an absolute BUILD becomes relative to TOP.
case $BUILD in /*) BUILD=$(realpath -m --relative-to="$TOP" "$BUILD") ;; esac
ONBOX="$TOP/$BUILD/onbox"
[ -x "$ONBOX" ] || { echo "FAIL setup: $ONBOX not built"; exit 1; }
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

fail() { echo "assertion failed: $*" >&2; return 1; }

# wait_for SECONDS COMMAND...: poll every 20 ms, bounded.
wait_for() {
	local limit=$1 i=0 n
	shift
	n=$((limit * 50))
	while [ $i -lt $n ]; do
		if "$@"; then return 0; fi
		sleep 0.02
		i=$((i + 1))
	done
	echo "timed out after ${limit}s waiting for: $*" >&2
	return 1
}

assert_file() { [ -e "$1" ] || fail "missing file $1"; }
assert_no_file() { [ ! -e "$1" ] || fail "file should not exist: $1"; }
assert_eq() { [ "$1" = "$2" ] || fail "expected '$2', got '$1'${3:+ ($3)}"; }
assert_grep() { grep -qE -- "$1" "$2" || { fail "no /$1/ in $2:"; sed 's/^/      /' "$2" >&2; return 1; }; }
assert_no_grep() { ! grep -qE -- "$1" "$2" || fail "unexpected /$1/ in $2"; }
# line_ok VERDICT FILE: FILE has patrol's report line for run t1 with VERDICT.
line_ok() { grep -qE "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z t1 $1( |$)" "$2" || fail "no '$1' report line in $2: $(cat "$2")"; }
# live PID: the process exists and is not a zombie; gone PID: not live.
live() { local s; s=$(ps -o stat= -p "$1" 2>/dev/null) || return 1; [ -n "$s" ] && [ "${s#Z}" = "$s" ]; }
gone() { ! live "$1"; }

# json FILE EXPR: a value from a JSON file (python3's json, outside the code under test).
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=eval(sys.argv[2],{"d":d}); print(v if not isinstance(v,bool) else str(v).lower())' "$1" "$2"; }

W() { echo "$T/work/.watchkeeper"; }

# conf [EXTRA_TOP_LEVEL_JSON] CHAIN_JSON: write $T/wk.json for run "t1" in $T/work.
conf() {
	local extra=$1 chain=$2
	mkdir -p "$T/work"
	cat >"$T/wk.json" <<JSON
{
  // written by the e2e test
  "run": "t1",
  "workdir": "$T/work",
  "detach": "nohup",
  "heartbeat_s": 1,
  $extra
  "chain": $chain
}
JSON
}

# ONBOX_WRAP (e.g. valgrind) runs before onbox, for `make memcheck`.
ONBOX_WRAP=${ONBOX_WRAP:-}

# onbox ARGS...: run onbox in the foreground against $T/wk.json.
onbox() { $ONBOX_WRAP "$ONBOX" -c "$T/wk.json" "$@"; }

# bg_onbox run: start `onbox run` in the background, remember its pid in $T/.pids.
bg_onbox() {
	$ONBOX_WRAP "$ONBOX" -c "$T/wk.json" "$@" >>"$T/onbox.out" 2>&1 &
	echo $! >>"$T/.pids"
	LAST_PID=$!
}

# Stop everything the test started: onbox processes, then every attempt's
# wrapper and stage process group, by the pids their records hold.
cleanup_procs() {
	local p f
	if [ -f "$T/.pids" ]; then
		while read -r p; do kill -9 "$p" 2>/dev/null; done <"$T/.pids"
	fi
	for f in "$T"/work/.watchkeeper/attempts/*.json; do
		[ -f "$f" ] || continue
		p=$(json "$f" 'd.get("pid",0)' 2>/dev/null)
		[ -n "$p" ] && [ "$p" != 0 ] && kill -9 -- "-$p" 2>/dev/null
		p=$(json "$f" 'd.get("wrapper_pid",0)' 2>/dev/null)
		[ -n "$p" ] && [ "$p" != 0 ] && kill -9 "$p" 2>/dev/null
	done
	if [ -n "${TMUX_TMPDIR:-}" ] && [ -d "$TMUX_TMPDIR" ]; then
		tmux kill-server 2>/dev/null
	fi
	return 0
}

# t NAME FUNCTION: run one test in its own directory and report it.
t() {
	local name=$1 fn=$2 rc
	T=$(mktemp -d /tmp/wk-e2e.XXXXXX)
	export T
	(
		set -e
		cd "$T"
		"$fn"
	) >"$T/.log" 2>&1
	rc=$?
	(cleanup_procs) >/dev/null 2>&1
	if [ $rc -eq 0 ]; then
		echo "PASS $name"
		rm -rf "$T"
	else
		echo "FAIL $name (exit $rc; kept $T)"
		sed 's/^/    | /' "$T/.log" | tail -n 40
		[ -f "$T/onbox.out" ] && sed 's/^/    onbox.out| /' "$T/onbox.out" | tail -n 20
	fi
	return 0
}

# start_receiver [PORT]: the webhook receiver on 127.0.0.1; sets RPORT, RPID.
# Its requests go to $T/recv.jsonl; its answer is whatever $T/recv.mode says.
start_receiver() {
	rm -f "$T/recv.port"
	python3 "$TOP/tests/e2e/receiver.py" --port "${1:-0}" --port-file "$T/recv.port" \
		--log "$T/recv.jsonl" --mode-file "$T/recv.mode" >>"$T/recv.out" 2>&1 &
	RPID=$!
	echo "$RPID" >>"$T/.pids"
	wait_for 10 test -s "$T/recv.port"
	RPORT=$(cat "$T/recv.port")
}
stop_receiver() { kill "$RPID" 2>/dev/null; wait "$RPID" 2>/dev/null || true; }
# recv_json EXPR: evaluate EXPR over r, the list of logged requests.
recv_json() { python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; v=eval(sys.argv[2]); print(v if not isinstance(v,bool) else str(v).lower())' "$T/recv.jsonl" "$1"; }
recv_count() { [ -f "$T/recv.jsonl" ] && recv_json "len([x for x in r if x['status']==200 or x['status']==204])" || echo 0; }

# A real PyTorch training (tests/e2e/fixtures/torch/train.py) under Debian's
# python3-torch and python3-tqdm, always /usr/bin/python3 (a pyenv or venv
# python3 earlier in PATH has no torch).  need_torch prints the reason and
# returns 1 when they are missing: a test does `need_torch || skip_test "..."`.
TORCH_PY=/usr/bin/python3
TORCH_TRAIN="$TOP/tests/e2e/fixtures/torch/train.py"
torch_missing() {
	[ -x "$TORCH_PY" ] || { echo "$TORCH_PY not found"; return 0; }
	"$TORCH_PY" -c 'import torch, tqdm' 2>/dev/null && return 1
	echo "python3-torch or python3-tqdm not installed (scripts/install-deps.sh installs them; optional)"
	return 0
}
# The official MCP SDK client (tests/mcp/client.mjs, for test_mcp.sh and
# bench/mcp_bench.sh): mcp_missing prints why it cannot run here and returns 0,
# else returns 1.  scripts/install-deps.sh installs Node.js and runs npm ci.
MCPDIR="$TOP/tests/mcp"
mcp_missing() {
	command -v node >/dev/null 2>&1 || { echo "node not found (scripts/install-deps.sh installs nodejs)"; return 0; }
	[ -f "$MCPDIR/node_modules/@modelcontextprotocol/sdk/package.json" ] && return 1
	echo "@modelcontextprotocol/sdk not installed in tests/mcp (scripts/install-deps.sh runs npm ci there)"
}
# tt NAME FUNCTION: `t NAME FUNCTION` on the real training, or SKIP with the reason.
tt() {
	local why
	if why=$(torch_missing); then echo "SKIP $1: $why"; else t "$@"; fi
}
