#!/usr/bin/env bash
# End-to-end tests of `patrol mcp` driven by a real MCP client: the official
# TypeScript SDK (tests/mcp/client.mjs over StdioClientTransport) against a
# run on the suite's sshd, one PASS/FAIL line per tool contract:
#   the eight tools with their schemas and annotations; runs; status (the
#   keys of `patrol --once --json`, its report line); logs, then logs from the
#   returned cursor (only the new lines); a wait that returns when the marker
#   lands (the box's `onbox wait` is in place first); events with a cursor
#   (exactly the box's events.jsonl, split where the cursor was); handbook;
#   stop and resume without confirm (nothing changes on the box or in the
#   state dir) and with it (the stage is gone / onbox runs again); a cancelled
#   wait (its child is gone, the server answers the next call); an unknown run
#   and a bad argument as isError naming them.
# Without node or the SDK (scripts/install-deps.sh installs both) every check
# says SKIP with the reason.
#
# `bash test_mcp.sh --hook NAME` runs one of the hook_* functions below: the
# client runs them (--then/--after) while a call is under way, with $T and
# MCP_SERVER_PID (the server's pid) in the environment.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export BUILD
PATROL="$TOP/$BUILD/patrol"
SELF="$TOP/tests/e2e/test_mcp.sh"

patrol() { $ONBOX_WRAP "$PATROL" -c "$T/wk.json" "$@"; }
launches() { [ -f "$T/launch.$1" ] && wc -l <"$T/launch.$1" | tr -d ' ' || echo 0; }

# tm NAME FUNCTION: `t NAME FUNCTION`, or SKIP with the reason (lib.sh's mcp_missing).
tm() {
	local why
	if why=$(mcp_missing); then echo "SKIP $1: $why"; else t "$@"; fi
}

# mcp SCENARIO ARGS...: the SDK client against `patrol mcp -c $T/wk.json`;
# its JSON lines on stdout, its and the server's stderr to $T/mcp.err.
mcp() { node "$MCPDIR/client.mjs" --patrol "$PATROL" -c "$T/wk.json" "$@" 2>>"$T/mcp.err"; }
# call OUT TOOL [JSON] [client options]: one tools/call, its result in
# $T/OUT.json, its text in $T/OUT.txt.
call() {
	local out=$1 tool=$2 args=${3:-"{}"}
	shift 2; [ $# -gt 0 ] && shift
	mcp "$@" call "$tool" "$args" >"$T/$out.json" || { tail -n 20 "$T/mcp.err" >&2; fail "mcp call $tool $args"; }
	r "$out" 'd["text"]' >"$T/$out.txt"
}
# r OUT EXPR: EXPR over d (the result: isError, structuredContent, text) and
# s (its structuredContent), with python3's json and sys (jsonq first: lib.sh's
# jsonq_s).
r() {
	local rc=0
	jsonq_s "$T/$1.json" '["structuredContent"]' "$2" || rc=$?
	[ $rc = 2 ] || return $rc
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); s = d.get("structuredContent") or {}
v = eval(sys.argv[2]); print(str(v).lower() if isinstance(v, bool) else v)' "$T/$1.json" "$2"
}
ok() { assert_eq "$(r "$1" 'd["isError"]')" false "$1 is not an error: $(r "$1" 'd["text"]')"; }

# A stage that prints five lines, writes $T/ready.train, prints three more when
# $T/more appears and ends ("Training completed") when $T/go appears.
stage() {
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
echo x >>"$T/launch.train"
echo \$\$ >"$T/leader.train"
i=1; while [ \$i -le 5 ]; do echo "step \$i/10 first"; i=\$((i+1)); done
echo ready >"$T/ready.train"
n=0
while [ ! -e "$T/go" ] && [ \$n -lt 3 ]; do
	if [ -e "$T/more" ] && [ ! -e "$T/more.done" ]; then
		echo "step 6/10 more"; echo "step 7/10 more"; echo "step 8/10 more"; : >"$T/more.done"
	fi
	if [ -e "$T/more.done" ]; then "$AWAIT" 100 "$T/go" || :; else "$AWAIT" 100 "$T/go" "$T/more" || :; fi
	n=\$((n+1))
done
echo "Training completed"
SH
	chmod +x "$T/bin/train.sh"
	pconf '"progress": {"pattern": "step (\\d+)/(\\d+)", "max": 10},' "[
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"Training completed\", \"marker\": \"TRAIN_DONE\"},
	{\"stage\": \"eval\", \"run\": \"echo eval >>$T/launch.eval\", \"marker\": \"EVAL_DONE\"}]"
}
# running: the box, the run's config, onbox running the train stage.
running() {
	box
	stage
	bg_onbox run
	wait_for 20 test -f "$T/ready.train"
	# The stage can get there before onbox has written its stage_started event.
	wait_for 20 grep -qs '"stage_started"' "$W/events.jsonl"
}
SD() { echo "$T/state/watchkeeper/t1"; }
# statesum: one checksum over the run's patrol state dir (names and contents).
statesum() { (cd "$(SD)" && find . -type f | sort | xargs sha256sum) | sha256sum; }
# unconfirmed OUT TOOL WOULD: TOOL (stop, resume) without confirm says it would
# WOULD and did nothing, and the state dir is as it was; the box is the caller's.
unconfirmed() {
	local before
	before=$(statesum)
	call "$1" "$2" '{"run": "t1"}'
	ok "$1"
	[ -n "$(r "$1" 'd["text"]')" ] || fail "$2 without confirm says nothing"
	assert_eq "$(r "$1" 's["did"]')" nothing
	assert_eq "$(r "$1" 's["would"]')" "$3"
	assert_eq "$(statesum)" "$before" "the state dir after $2 without confirm"
}

# ---- hooks (run by the client while a call is under way) ----

# A box-side `onbox wait` on this run's workdir: the MCP wait's inotify follow.
box_onbox_wait() { ps -e -o args= | grep -qE "^([^ ]*/)?onbox .*wait .*--workdir $T/work( |$)"; }
server_children() { ps -o pid= --ppid "$MCP_SERVER_PID" | tr -d ' '; }
# The wait is in place on the box; then the stage ends and its marker lands.
hook_go_when_waiting() { wait_for 60 box_onbox_wait && touch "$T/go"; }
# The wait is in place on the box; the server's children (the call's) to $T/children.
hook_waiting() {
	wait_for 60 box_onbox_wait || return 1
	server_children >"$T/children"
	[ -s "$T/children" ] || fail "the server $MCP_SERVER_PID has no child while a wait runs"
}
# Every child the cancelled call had is gone (reaped, not a zombie).
hook_children_gone() {
	local c
	for c in $(<"$T/children"); do wait_for 30 test ! -e "/proc/$c" || return 1; done
}

if [ "${1:-}" = --hook ]; then
	"hook_$2"
	exit
fi

# ---- the checks ----

test_tools_list() {
	box
	stage
	mcp tools >"$T/tools.json" || { cat "$T/mcp.err" >&2; fail "tools"; }
	assert_eq "$(json "$T/tools.json" 'sorted(d["names"])')" \
		"['events', 'handbook', 'logs', 'resume', 'runs', 'status', 'stop', 'wait']"
	assert_eq "$(json "$T/tools.json" 'sorted(d["destructive"])')" "['resume', 'stop']"
}

test_runs() {
	running
	patrol --once >"$T/p1" 2>&1 || true
	call runs runs
	ok runs
	assert_eq "$(r runs 'len(s["runs"])')" 1
	assert_eq "$(r runs 's["runs"][0].get("run", s["runs"][0].get("name"))')" t1
	assert_eq "$(r runs 's["runs"][0]["config"]')" "$T/wk.json"
	assert_eq "$(r runs 's["runs"][0]["verdict"]')" OK
	assert_grep t1 "$T/runs.txt"
}

test_status_is_a_tick() {
	running
	call st status '{"run": "t1"}'
	ok st
	assert_eq "$(r st 's["run"]')" t1
	assert_eq "$(r st 's["verdict"]')" OK
	# The tick's report line, as patrol writes it, is the report log's last line.
	assert_eq "$(r st 's["line"]')" "$(tail -n 1 "$(SD)/report.log")"
	r st 's["line"]' | grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z t1 OK ' || fail "report line $(r st 's["line"]')"
	# Exactly the keys of `patrol --once --json`.
	patrol --once --json >"$T/p.json" || true
	assert_eq "$(r st 'sorted(s)')" "$(json "$T/p.json" 'sorted(d)')"
	assert_eq "$(wc -l <"$(SD)/report.log")" 2
}

test_logs_with_cursor() {
	running
	call l1 logs '{"run": "t1"}'
	ok l1
	assert_eq "$(r l1 '[x for x in s["lines"] if "/10 " in x]')" \
		"['step 1/10 first', 'step 2/10 first', 'step 3/10 first', 'step 4/10 first', 'step 5/10 first']"
	cursor=$(r l1 'json.dumps(s["next_cursor"])')
	touch "$T/more"
	wait_for 20 grep -q 'step 8/10 more' "$W/logs/train.1.log"
	call l2 logs "{\"run\": \"t1\", \"cursor\": $cursor}"
	ok l2
	# Only the new lines: the three "more" ones, none of the first five.
	assert_eq "$(r l2 's["lines"]')" "['step 6/10 more', 'step 7/10 more', 'step 8/10 more']"
	assert_eq "$(r l2 '"/10 first" in json.dumps(d)')" false
	[ "$(r l2 'json.dumps(s["next_cursor"])')" != "$cursor" ] || fail "the cursor did not move: $cursor"
}

test_wait_returns_when_marker_lands() {
	running
	call w wait '{"run": "t1", "marker": "TRAIN_DONE", "timeout_s": 300}' \
		--then "bash '$SELF' --hook go_when_waiting" --timeout-ms 400000
	ok w
	assert_file "$T/go"
	assert_file "$W/markers/TRAIN_DONE"
	# It says the marker landed (not a timeout, not a verdict change).
	assert_eq "$(r w 's["happened"]')" marker
	assert_eq "$(r w 's["marker"]')" TRAIN_DONE
	# The client sent a progressToken: the server reported progress while it waited.
	[ "$(r w 'd["progress"]')" -ge 1 ] || fail "no progress notification during the wait"
	assert_grep TRAIN_DONE "$T/w.txt"
}

test_events_with_cursor() {
	running
	n1=$(wc -l <"$W/events.jsonl")
	call e1 events '{"run": "t1"}'
	ok e1
	# Exactly the box's events.jsonl so far, in order.
	assert_eq "$(r e1 '[e["event"] for e in s["events"]]')" \
		"$(python3 -c 'import json,sys; print([json.loads(l)["event"] for l in open(sys.argv[1])])' "$W/events.jsonl")"
	assert_eq "$(r e1 'len(s["events"])')" "$n1"
	cursor=$(r e1 'json.dumps(s["next_cursor"])')
	touch "$T/go"
	wait_for 30 test -f "$W/markers/EVAL_DONE"
	wait "$LAST_PID" || true
	call e2 events "{\"run\": \"t1\", \"cursor\": $cursor}"
	ok e2
	# From the cursor on: the lines after the first n1, nothing before.
	assert_eq "$(r e2 '[e["event"] for e in s["events"]]')" \
		"$(python3 -c 'import json,sys; print([json.loads(l)["event"] for l in open(sys.argv[1])][int(sys.argv[2]):])' "$W/events.jsonl" "$n1")"
	assert_eq "$(r e2 'len(s["events"]) > 0')" true
}

test_handbook() {
	running
	patrol --once >/dev/null 2>&1 || true
	call h handbook '{"run": "t1"}'
	ok h
	r h 's["markdown"]' >"$T/h.md"
	assert_grep '\bt1\b' "$T/h.md"
	# The state dir's HANDBOOK.md, byte for byte.
	assert_eq "$(r h "s['markdown'] == open('$(SD)/HANDBOOK.md').read()")" true
}

test_stop_without_then_with_confirm() {
	running
	patrol --once >/dev/null 2>&1 || true
	leader=$(<"$T/leader.train")
	# Says what it would do; changes nothing in the state dir or on the box.
	unconfirmed s0 stop stop
	live "$leader"
	assert_no_file "$W/stopped"
	assert_no_file "$W/stop.request"
	call s1 stop '{"run": "t1", "confirm": true}'
	ok s1
	assert_eq "$(r s1 's["did"]')" stopped
	wait_for 30 gone "$leader"
	assert_file "$W/stopped"
	json "$W/stopped" 'd["by"]' | grep -q 'patrol' || fail "stopped by $(json "$W/stopped" 'd["by"]')"
	assert_eq "$(json "$W/stages/train.json" 'd["attempts"][-1]["result"]')" stopped
	assert_eq "$(launches train)" 1
}

test_resume_without_then_with_confirm() {
	box
	stage
	rc=0; patrol --once >"$T/p1" 2>&1 || rc=$?
	assert_grep ' t1 NEEDS_RESUME' "$T/p1"
	unconfirmed r0 resume resume
	assert_eq "$(launches train)" 0
	assert_no_file "$W/state.json"
	call r1 resume '{"run": "t1", "confirm": true}'
	ok r1
	assert_eq "$(r r1 's["did"]')" resumed
	wait_for 20 test -f "$T/ready.train"
	pid=$(json "$W/state.json" 'd["onbox_pid"]')
	echo "$pid" >>"$T/.pids"
	live "$pid"
	assert_eq "$(launches train)" 1
}

test_cancelled_wait() {
	running
	mcp cancel wait '{"run": "t1", "marker": "TRAIN_DONE", "timeout_s": 600}' \
		--then "bash '$SELF' --hook waiting" --after "bash '$SELF' --hook children_gone" \
		>"$T/c.json" || { tail -n 20 "$T/mcp.err" >&2; fail "cancel"; }
	assert_file "$T/children"
	# The server answered the next call (runs) after the cancel.
	assert_eq "$(json "$T/c.json" 'd["next"]["isError"]')" false
	assert_eq "$(json "$T/c.json" 'd["next"]["structuredContent"]["runs"][0].get("run", d["next"]["structuredContent"]["runs"][0].get("name"))')" t1
	assert_no_file "$W/markers/TRAIN_DONE"
	live "$(<"$T/leader.train")"
}

test_unknown_run_and_bad_argument() {
	box
	stage
	call u status '{"run": "nope"}'
	assert_eq "$(r u 'd["isError"]')" true
	assert_grep "nope" "$T/u.txt"
	call b1 wait '{"run": "t1", "marker": "TRAIN_DONE", "timeout_s": 601}'
	assert_eq "$(r b1 'd["isError"]')" true
	assert_grep "timeout_s" "$T/b1.txt"
	call b2 logs '{"run": "t1", "lines": "many"}'
	assert_eq "$(r b2 'd["isError"]')" true
	assert_grep "lines" "$T/b2.txt"
	call b3 stop '{"run": "t1", "confirm": "yes"}'
	assert_eq "$(r b3 'd["isError"]')" true
	assert_grep "confirm" "$T/b3.txt"
	assert_no_file "$W/stopped"
}

tm tools_list test_tools_list
tm runs test_runs
tm status_is_a_tick test_status_is_a_tick
tm logs_with_cursor test_logs_with_cursor
tm wait_returns_when_marker_lands test_wait_returns_when_marker_lands
tm events_with_cursor test_events_with_cursor
tm handbook test_handbook
tm stop_without_then_with_confirm test_stop_without_then_with_confirm
tm resume_without_then_with_confirm test_resume_without_then_with_confirm
tm cancelled_wait test_cancelled_wait
tm unknown_run_and_bad_argument test_unknown_run_and_bad_argument
