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
# await SECONDS PATH...: blocks, without polling, until a PATH exists (exit
# 0) or SECONDS pass (exit 1): for the stage scripts the tests write, which
# would otherwise fork sleep(1) ten times a second while they wait
# (tests/unit/await.c).
AWAIT="$TOP/$BUILD/await"
[ -x "$AWAIT" ] || { echo "FAIL setup: $AWAIT not built (make unit)"; exit 1; }
JSONQ="$TOP/$BUILD/jsonq"
[ -x "$JSONQ" ] || { echo "FAIL setup: $JSONQ not built (make unit)"; exit 1; }
PORTHOLD="$TOP/$BUILD/porthold"
[ -x "$PORTHOLD" ] || { echo "FAIL setup: $PORTHOLD not built (make unit)"; exit 1; }
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

fail() { echo "assertion failed: $*" >&2; return 1; }

# A pipe nobody writes to: `read -t` on it is a sleep without a fork (a
# fork and exec of sleep(1) costs more here than the 20 ms it sleeps, and
# the files of `make test` run side by side on two cores).
exec {_WK_NAP_FD}<> <(:)
nap() { read -r -t "$1" -u "$_WK_NAP_FD" _ || true; }

# wait_for SECONDS COMMAND...: poll until COMMAND succeeds, bounded: the
# first pause 20 ms, each next one half as long again up to 250 ms, and never
# shorter than the last check took (a check that forks costs 10 ms of CPU and
# more here; most waits are over in a few pauses, a long one checks four times
# a second); SECONDS of pauses in all (a loaded machine stretches the bound,
# never shortens it).
wait_for() {
	local limit=$1 slept=0 step=20 t0 took
	shift
	while [ $slept -lt $((limit * 1000)) ]; do
		t0=${EPOCHREALTIME//[!0-9]/}
		if "$@"; then return 0; fi
		took=$(( (${EPOCHREALTIME//[!0-9]/} - t0) / 1000 ))
		[ $took -le $step ] || step=$took
		[ $step -le 250 ] || step=250
		printf -v t0 '%03d' $step
		nap "0.$t0"
		slept=$((slept + step))
		step=$((step + step / 2))
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
line_ok() { grep -qE "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z t1 $1( |$)" "$2" || fail "no '$1' report line in $2: $(<"$2")"; }
# live PID: the process exists and is not a zombie; gone PID: not live.
# (/proc/PID/stat's state field, read in this shell: ps was a fork and an
# exec at each poll of a wait_for.)
live() {
	local l
	case $1 in '' | *[!0-9]*) return 1 ;; esac
	{ IFS= read -r l <"/proc/$1/stat"; } 2>/dev/null || return 1
	l=${l##*) }
	[ -n "$l" ] && [ "${l%% *}" != Z ]
}
gone() { ! live "$1"; }

# json FILE EXPR: a value from a JSON file, outside the code under test:
# EXPR is Python over d (python3's json), printed as print() does (booleans
# lower-case).  The common shapes, d["k"][0]..., len(d["k"]...), d.get("k")
# and d.get("k", N), are answered by build/jsonq itself (tests/unit/jsonq.c,
# cJSON: a python3 start costs some 80 ms of CPU here, jq's 30, jsonq's one)
# when the value is a string, an integer, a boolean or null; where python3
# would raise (no file, no key) jsonq says so and fails.  The rest jsonq
# hands to python3 (--or-python: it execs python3 with the same one-liner).
# `json` is also an alias for the command, so that `$(json ...)` in the
# files that source this one is one process, not a fork of the test's bash
# that then starts jsonq (a fork costs some 8 ms of CPU here); the function
# stays for `wait_for 10 json ...` and the like.
json() { "$JSONQ" --or-python "$@"; }
shopt -s expand_aliases
alias json='"$JSONQ" --or-python'

# json_ge FILE EXPR N: json's number at EXPR (its integer part) is N or more;
# json_ne FILE EXPR V: json's answer is there and is not V.  Both false while
# FILE or the value is missing: conditions for wait_for (no python3 a poll).
json_ge() { local v; v=$(json "$1" "$2" 2>/dev/null) || return 1; v=${v%.*}; [[ $v =~ ^-?[0-9]+$ ]] && [ "$v" -ge "$3" ]; }
json_ne() { local v; v=$(json "$1" "$2" 2>/dev/null) || return 1; [ -n "$v" ] && [ "$v" != "$3" ]; }

# jsonq_s FILE BASE EXPR: jsonq for an EXPR over s, the value at d BASE (e.g.
# '["structuredContent"]'): s[...] and len(s[...]) become d BASE[...]; exit as
# jsonq's (2: the caller's python3 answers).  For the MCP tests' helpers.
jsonq_s() {
	local q=$3
	case $q in
	's['*) q="d$2${q#s}" ;;
	'len(s['*) q="len(d$2${q#len(s}" ;;
	esac
	"$JSONQ" "$1" "$q"
}

# W: the run's state directory; t sets $W to the same (no fork).
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

# path_without DIR NAME...: DIR holds a symlink to every command of /usr/bin
# and /bin (/bin's where both have one) but the NAMEs: a PATH without them.
# One ln a directory, not one a command (some 1,400 forks here).
path_without() {
	local d=$1 n
	shift
	mkdir -p "$d"
	ln -sf /usr/bin/* "$d/"
	[ /bin -ef /usr/bin ] || ln -sf /bin/* "$d/"
	for n in "$@"; do rm -f "$d/$n"; done
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
	# A tmux server only where its socket is (a tmux client start is an exec).
	if [ -n "${TMUX_TMPDIR:-}" ] && [ -S "$TMUX_TMPDIR/tmux-$UID/default" ]; then
		tmux kill-server 2>/dev/null
	fi
	if [ -S "$T/tmux/tmux-$UID/default" ] && [ "${TMUX_TMPDIR:-}" != "$T/tmux" ]; then
		TMUX_TMPDIR="$T/tmux" tmux kill-server 2>/dev/null
	fi
	return 0
}

# t NAME FUNCTION: run one test in its own directory and report it.  The
# test has a HOME, a tmux server (TMUX_TMPDIR, also on the box: sshd.sh) and
# state directories of its own, so it can run beside any other test.
t() {
	local name=$1 fn=$2 rc
	# WK_TEST_MATCH=RE: only the tests whose name matches (a developer's loop).
	if [ -n "${WK_TEST_MATCH-}" ] && ! [[ $name =~ $WK_TEST_MATCH ]]; then
		return 0
	fi
	T=$(mktemp -d /tmp/wk-e2e.XXXXXX)
	export T
	W="$T/work/.watchkeeper"	# $W: W's answer with no fork (tests poll it)
	(
		set -e
		cd "$T"
		export HOME="$T/home" TMUX_TMPDIR="$T/tmux"
		unset XDG_STATE_HOME XDG_CONFIG_HOME XDG_CACHE_HOME XDG_DATA_HOME TMUX
		mkdir -p "$HOME" "$TMUX_TMPDIR"
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

# port_take MODE VAR: a TCP port on 127.0.0.1 that this test owns, in VAR.
# build/porthold (tests/unit/porthold.c) takes it with bind(0) and holds it
# until the test ends (its pid is in $T/.pids): MODE hold hands it over to a
# server that binds it with SO_REUSEADDR (sshd, slurmctld, slurmd) and keeps
# it refused and untaken after that server stops; full never answers; mute
# never speaks.
_WK_PORTN=0
port_take() {
	local _wk_pf="$T/.port.$BASHPID.$((++_WK_PORTN))"	# (not f: VAR may be f)
	"$PORTHOLD" "$1" "$_wk_pf" >>"$T/ports.out" 2>&1 &
	echo $! >>"$T/.pids"
	wait_for 30 test -s "$_wk_pf" || { fail "porthold $1 took no port: $(<"$T/ports.out")"; return 1; }
	printf -v "$2" "%s" "$(<"$_wk_pf")"
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
	RPORT=$(<"$T/recv.port")
}
stop_receiver() { kill "$RPID" 2>/dev/null; wait "$RPID" 2>/dev/null || true; }
# recv_json EXPR: evaluate EXPR over r, the list of logged requests.
recv_json() { python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; v=eval(sys.argv[2]); print(v if not isinstance(v,bool) else str(v).lower())' "$T/recv.jsonl" "$1"; }
# (jq, not python3: it is polled.)
recv_count() { [ -f "$T/recv.jsonl" ] && jq -s '[.[] | select(.status == 200 or .status == 204)] | length' "$T/recv.jsonl" || echo 0; }

# A real PyTorch training (tests/e2e/fixtures/torch/train.py) under Debian's
# python3-torch and python3-tqdm, always /usr/bin/python3 (a pyenv or venv
# python3 earlier in PATH has no torch).  need_torch prints the reason and
# returns 1 when they are missing: a test does `need_torch || skip_test "..."`.
TORCH_PY=/usr/bin/python3
TORCH_TRAIN="$TOP/tests/e2e/fixtures/torch/train.py"
# torch_missing prints the reason and returns 0 when they are missing, else
# returns 1.  Asked once a file (torch_check, in the file's own shell), and
# without importing torch (two seconds of CPU here, at each of the files'
# twenty-odd tests): whether the modules are installed.  One that is
# installed but broken fails its tests, never skips them.
_WK_TORCH_WHY=unknown
torch_check() {
	[ "$_WK_TORCH_WHY" = unknown ] || return 0
	if [ ! -x "$TORCH_PY" ]; then
		_WK_TORCH_WHY="$TORCH_PY not found"
	elif "$TORCH_PY" -c 'import importlib.util as u, sys; sys.exit(not (u.find_spec("torch") and u.find_spec("tqdm")))' 2>/dev/null; then
		_WK_TORCH_WHY=""
	else
		_WK_TORCH_WHY="python3-torch or python3-tqdm not installed (scripts/install-deps.sh installs them; optional)"
	fi
}
torch_missing() {
	torch_check
	[ -n "$_WK_TORCH_WHY" ] || return 1
	echo "$_WK_TORCH_WHY"
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
	torch_check
	if [ -n "$_WK_TORCH_WHY" ]; then echo "SKIP $1: $_WK_TORCH_WHY"; else t "$@"; fi
}
