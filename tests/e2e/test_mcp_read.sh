#!/usr/bin/env bash
# End-to-end tests of patrol mcp's read-only tools: wait, logs, events.  The
# real `patrol mcp -c` on a pipe, driven by a small python3 JSON-RPC client
# (tests/e2e/mcp_call.py, standard library only), against the suite's sshd
# on 127.0.0.1 and a real `onbox run` on the "box" (this machine).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
PATROL="$TOP/$BUILD/patrol"
MCPCALL="$TOP/tests/e2e/mcp_call.py"

# mconf EXTRA CHAIN: the run's config, box part included (TRANSPORT: libssh2 | openssh).
mconf() {
	conf "\"box\": {\"host\": \"box\", \"ssh_config\": \"$SSH_CFG\", \"connect_timeout_s\": 3, \"transport\": \"${TRANSPORT:-libssh2}\"}, $1" "$2"
}

# call OUT TOOL ARGS [driver options]: one tools/call through a fresh server; the answer in $T/OUT.
call() {
	local out=$1 tool=$2 args=$3
	shift 3
	python3 "$MCPCALL" "$@" $ONBOX_WRAP "$PATROL" mcp -c "$T/wk.json" -- "$tool" "$args" >"$T/$out" 2>"$T/$out.err"
}
# bg_call OUT TOOL ARGS [driver options]: the same in the background; CPID.
bg_call() {
	local out=$1 tool=$2 args=$3
	shift 3
	python3 "$MCPCALL" "$@" $ONBOX_WRAP "$PATROL" mcp -c "$T/wk.json" -- "$tool" "$args" >"$T/$out" 2>"$T/$out.err" &
	CPID=$!
	echo "$CPID" >>"$T/.pids"
}
# r OUT EXPR: a value of the call's answer (d: {result, error, progress}; s: structuredContent).
# (jsonq first: lib.sh's jsonq_s; python3 for the rest)
r() {
	local rc=0
	jsonq_s "$T/$1" '["result"]["structuredContent"]' "$2" || rc=$?
	[ $rc = 2 ] || return $rc
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=(d.get("result") or {}).get("structuredContent"); v=eval(sys.argv[2]); print(v if not isinstance(v,bool) else str(v).lower())' "$T/$1" "$2"
}
is_error() { assert_eq "$(r "$1" 'd["result"].get("isError", False)')" true "$1 is an isError result"; }
text_of() { r "$1" 'd["result"]["content"][0]["text"]'; }

exited() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -z "$st" ] || [ "$st" = Z ]
}
# The box's `onbox wait` for this test's workdir runs.
box_waiting() { pgrep -f "wait --workdir $T/work" >/dev/null; }
box_not_waiting() { ! box_waiting; }

# A stage that prints N lines, waits for $T/go (bounded), prints 5 more, then EXIT's way out.
stage() {
	local n=$1 rc=${2:-0}
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
i=1; while [ \$i -le $n ]; do echo "line \$i"; i=\$((i+1)); done
"$AWAIT" 120 "$T/go" || :
for i in 1 2 3 4 5; do echo "more \$i"; done
if [ $rc -ne 0 ]; then echo "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB" >&2; exit $rc; fi
echo "Training completed"
SH
	chmod +x "$T/bin/train.sh"
	mconf '' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"Training completed\", \"marker\": \"TRAIN_DONE\"}]"
}

# The stage started and printed its first lines.
running() {
	bg_onbox run
	wait_for 20 test -f "$W/attempts/train.1.json"
	wait_for 20 grep -q "^line $1\$" "$W/logs/train.1.log"
}

# ---- wait ----

# The marker lands while the wait blocks: "marker", with progress on the way.
wait_marker() {
	box
	stage 3
	running 3
	bg_call w wait '{"run": "t1", "timeout_s": 120}' --progress
	wait_for 30 box_waiting
	touch "$T/go"
	wait_for 30 test -f "$W/markers/TRAIN_DONE"
	wait_for 60 exited "$CPID"
	wait "$CPID"
	assert_eq "$(r w 'd["error"]')" None
	assert_eq "$(r w 's["happened"], s["marker"], s["previous_verdict"]')" "('marker', 'TRAIN_DONE', 'OK')"
	assert_eq "$(r w '"first missing" in s["marker_chosen"]')" true
	assert_eq "$(r w 'len(d["progress"]) >= 1 and all(p["total"] == 120 for p in d["progress"])')" true
	assert_grep "TRAIN_DONE is there" <(text_of w)
	# nothing of the wait lingers on the box
	wait_for 10 box_not_waiting
}

# The FAILED twin lands while the wait blocks: "failed", the class and the last line.
wait_failed() {
	box
	stage 3 1
	running 3
	bg_call w wait '{"run": "t1", "marker": "TRAIN_DONE", "timeout_s": 120}'
	wait_for 30 box_waiting
	touch "$T/go"
	wait_for 60 exited "$CPID"
	wait "$CPID"
	assert_eq "$(r w 's["happened"], s["marker"], s["failed"]["class"]')" "('failed', 'TRAIN_DONE', 'cuda_oom')"
	assert_grep 'CUDA out of memory' <(r w 's["failed"]["last_line"]')
	assert_eq "$(r w 's["attempt"]')" 1
}

# The run dies without a FAILED twin (everything killed) while the wait blocks:
# the re-probe after the slice sees a new verdict, "verdict".
wait_verdict() {
	box
	stage 3
	running 3
	onbox_pid=$LAST_PID
	bg_call w wait '{"run": "t1", "timeout_s": 300}'
	wait_for 30 box_waiting
	f="$W/attempts/train.1.json"
	kill -9 "$onbox_pid" "$(json "$f" 'd["wrapper_pid"]')"
	kill -9 -- "-$(json "$f" 'd["pid"]')"
	wait_for 120 exited "$CPID"
	wait "$CPID"
	assert_eq "$(r w 's["happened"], s["previous_verdict"]')" "('verdict', 'OK')"
	assert_eq "$(r w 's["verdict"] in ("CRASHED", "NEEDS_RESUME", "MONITOR_STALE")')" true
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
}

# Nothing lands: "timeout" after timeout_s; an unreachable box is SSH_DOWN, retried, not an error.
wait_timeout() {
	box
	stage 3
	running 3
	call w wait '{"run": "t1", "timeout_s": 2}'
	assert_eq "$(r w 's["happened"], s["verdict"], s["marker"]')" "('timeout', 'OK', 'TRAIN_DONE')"
	assert_eq "$(r w 's["waited_s"] >= 2')" true
	assert_eq "$(r w 'd["result"].get("isError", False)')" false
	sshd_stop
	call d wait '{"run": "t1", "timeout_s": 2}'
	assert_eq "$(r d 's["happened"], s["verdict"], s["previous_verdict"]')" "('timeout', 'SSH_DOWN', 'SSH_DOWN')"
}

# Bad arguments are isError results that name the argument; nothing connects.
wait_bad_args() {
	box
	stage 3
	for a in 0 601 '"x"' 1.5; do
		call e wait "{\"run\": \"t1\", \"timeout_s\": $a}"
		is_error e
		assert_grep "timeout_s" <(text_of e)
	done
	call e wait '{"run": "t1", "marker": "a b"}'
	is_error e
	assert_grep "'marker'" <(text_of e)
	call e wait '{"run": "nope"}'
	is_error e
	assert_grep "nope" <(text_of e)
	assert_eq "$(sshd_accepted_count)" 0
}

# A cancelled wait: the server's child, its connection and `onbox wait` on the box all end.
wait_cancel() {
	box
	stage 3
	running 3
	bg_call w wait '{"run": "t1", "timeout_s": 600}' --cancel-when "$T/cancel"
	wait_for 30 box_waiting
	[ "${TRANSPORT:-}" != openssh ] || ! no_master || fail "no ssh master while the wait runs"
	touch "$T/cancel"
	wait_for 30 exited "$CPID"
	wait "$CPID"
	assert_eq "$(r w 'd["cancelled"]')" true
	wait_for 10 box_not_waiting
	! pgrep -f "$PATROL mcp -c $T/wk.json" >/dev/null || fail "a patrol mcp process outlived the cancel"
}

# The same on the system ssh: its ControlMaster goes with the cancelled call too.
wait_cancel_openssh() {
	TRANSPORT=openssh wait_cancel
	wait_for 10 no_master
}
no_master() { ! pgrep -f "ControlPath=$T/state|-S $T/state" >/dev/null; }

# ---- logs ----

logs_cursor() {
	box
	stage 300
	running 300
	call a logs '{"run": "t1", "lines": 10}'
	assert_eq "$(r a 's["lines"]')" "$(python3 -c 'print([f"line {i}" for i in range(291, 301)])')"
	assert_eq "$(r a 's["stage"], s["attempt"], s["path"], s["more"], s["truncated"]')" \
		"('train', 1, '.watchkeeper/logs/train.1.log', False, True)"
	cur=$(r a 's["next_cursor"]')
	assert_eq "$cur" "train.1:$(stat -c %s "$W/logs/train.1.log")"
	# nothing new yet: no lines, the cursor stays
	call b logs "{\"run\": \"t1\", \"cursor\": \"$cur\"}"
	assert_eq "$(r b 's["lines"], s["next_cursor"]')" "([], '$cur')"
	touch "$T/go"
	wait_for 30 test -f "$W/markers/TRAIN_DONE"
	# exactly the new lines, bounded by lines: 3 then the rest
	call c logs "{\"run\": \"t1\", \"cursor\": \"$cur\", \"lines\": 3}"
	assert_eq "$(r c 's["lines"], s["more"]')" "(['more 1', 'more 2', 'more 3'], True)"
	call d logs "{\"run\": \"t1\", \"cursor\": \"$(r c 's["next_cursor"]')\"}"
	new=$(tail -c +$(( ${cur#train.1:} + 1 )) "$W/logs/train.1.log" | python3 -c 'import sys; print(sys.stdin.read().splitlines()[3:])')
	assert_eq "$(r d 's["lines"]')" "$new"
	assert_eq "$(r d 's["more"], s["next_cursor"]')" "(False, 'train.1:$(stat -c %s "$W/logs/train.1.log")')"
	# a named stage and attempt; an integer cursor is an offset in that log
	call e logs '{"run": "t1", "stage": "train", "attempt": 1, "cursor": 0, "lines": 2}'
	assert_eq "$(r e 's["lines"], s["cursor"]')" "(['line 1', 'line 2'], 'train.1:0')"
}

logs_grep_and_errors() {
	box
	stage 40 1
	running 40
	touch "$T/go"
	wait_for 30 test -f "$W/markers/TRAIN_DONE.FAILED"
	call g logs '{"run": "t1", "lines": 2000, "grep": "^(line 1[0-2]|more [24])$"}'
	assert_eq "$(r g 's["lines"], s["matched"]')" "(['line 10', 'line 11', 'line 12', 'more 2', 'more 4'], 5)"
	call g logs '{"run": "t1", "grep": "OutOfMemory"}'
	assert_grep 'CUDA out of memory' <(r g 's["lines"]')
	call e logs '{"run": "t1", "grep": "(unclosed"}'
	is_error e
	assert_grep "'grep'.*missing closing parenthesis" <(text_of e)
	call e logs '{"run": "t1", "stage": "nope"}'
	is_error e
	assert_grep "'stage'.*nope" <(text_of e)
	call e logs '{"run": "t1", "stage": "train", "attempt": 9}'
	is_error e
	assert_grep "'attempt'.*9" <(text_of e)
	for a in 'lines:0' 'lines:2001' 'cursor:-1' 'cursor:"x"' 'attempt:0'; do
		call e logs "{\"run\": \"t1\", \"${a%%:*}\": ${a#*:}}"
		is_error e
		assert_grep "'${a%%:*}'" <(text_of e)
	done
	sshd_stop
	call d logs '{"run": "t1"}'
	assert_eq "$(r d 's["verdict"], s["lines"], d["result"].get("isError", False)')" "('SSH_DOWN', [], False)"
}

# ---- events ----

events_cursor() {
	box
	stage 3
	running 3
	touch "$T/go"
	wait_for 30 test -f "$W/markers/TRAIN_DONE"
	wait_for 30 grep -q chain_done "$W/events.jsonl"
	call a events '{"run": "t1"}'
	size=$(stat -c %s "$W/events.jsonl")
	assert_eq "$(r a 's["cursor"], s["next_cursor"], s["more"], s["reset"]')" "(0, $size, False, False)"
	assert_eq "$(r a 'len(s["events"])')" "$(wc -l <"$W/events.jsonl")"
	assert_eq "$(r a '[e["type"] for e in s["events"]]')" \
		"$(python3 -c 'import json,sys; print([json.loads(l)["type"] for l in open(sys.argv[1])])' "$W/events.jsonl")"
	# nothing new; then a garbled line and a good one, and only those come
	call b events "{\"run\": \"t1\", \"cursor\": $size}"
	assert_eq "$(r b 's["events"], s["next_cursor"]')" "([], $size)"
	printf 'not json\n{"type": "extra", "n": 1}\n{"type": "half' >>"$W/events.jsonl"
	call c events "{\"run\": \"t1\", \"cursor\": $size}"
	assert_eq "$(r c 's["events"]')" "[{'raw': 'not json'}, {'type': 'extra', 'n': 1}]"
	assert_eq "$(r c 's["next_cursor"]')" "$((size + 35))"
	# the file got shorter than the cursor: from 0 again, reset
	head -n 2 "$W/events.jsonl" >"$W/e.tmp" && mv "$W/e.tmp" "$W/events.jsonl"
	call d events "{\"run\": \"t1\", \"cursor\": $size}"
	assert_eq "$(r d 's["reset"], s["cursor"], len(s["events"])')" "(True, 0, 2)"
	call e events '{"run": "t1", "cursor": -5}'
	is_error e
	assert_grep "'cursor'" <(text_of e)
	sshd_stop
	call f events '{"run": "t1", "cursor": 0}'
	assert_eq "$(r f 's["verdict"], s["events"]')" "('SSH_DOWN', [])"
}

t wait_marker wait_marker
t wait_failed wait_failed
t wait_verdict wait_verdict
t wait_timeout wait_timeout
t wait_bad_args wait_bad_args
t wait_cancel wait_cancel
t wait_cancel_openssh wait_cancel_openssh
t logs_cursor logs_cursor
t logs_grep_and_errors logs_grep_and_errors
t events_cursor events_cursor
