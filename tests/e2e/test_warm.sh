#!/usr/bin/env bash
# End-to-end tests of warm looks (ssh/warm.c, ssh/warm-hold.c): a process
# that looks more than once keeps one ssh connection per box and runs each
# look as a new channel on it.  Against the suite's sshd, counting its
# accepted connections ("Accepted publickey"):
#   several status/logs/events calls through one `patrol mcp`: one connection;
#   the connection's sshd child killed: the next look reconnects and succeeds;
#   an idle holder closes its connection (WATCHKEEPER_WARM_IDLE_S);
#   a cancelled wait ends the box's `onbox wait`, and the connection stays
#   for the next look;
#   the server SIGKILLed: its holder goes and closes the connection;
#   `patrol --all` with three runs on one box: one connection.
# The MCP client is tests/e2e/mcp_steps.py (standard library only).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
PATROL="$TOP/$BUILD/patrol"
STEPS="$TOP/tests/e2e/mcp_steps.py"

# A stage that prints a line and waits for $T/go.
stage() {
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "step 3/10"\n"%s" 100 "%s/go" || :\necho "Training completed"\n' \
	    "$AWAIT" "$T" >"$T/bin/train.sh"
	chmod +x "$T/bin/train.sh"
	pconf '"progress": {"pattern": "step (\\d+)/(\\d+)", "max": 10},' "[
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"Training completed\", \"marker\": \"TRAIN_DONE\"}]"
}
running() {
	box
	stage
	bg_onbox run
	wait_for 20 grep -qs '"stage_started"' "$W/events.jsonl"
}
# steps STEP...: one mcp server (-v: its debug lines in $T/steps.err) through every step; the results in $T/steps.out.
steps() {
	python3 "$STEPS" $ONBOX_WRAP "$PATROL" -v mcp -c "$T/wk.json" -- "$@" >"$T/steps.out" 2>>"$T/steps.err" ||
	    { cat "$T/steps.err" >&2; fail "mcp steps"; }
}
# The n-th result (1-based) is not an error.
result_ok() {
	local v
	v=$(sed -n "${1}p" "$T/steps.out" | python3 -c 'import json,sys; d=json.load(sys.stdin); r=d.get("result") or {}; print("ok" if d.get("error") is None and not r.get("isError") else "bad: " + json.dumps(d)[:600])')
	assert_eq "$v" ok "call $1"
}
accepted() { sshd_accepted_count; }
# The sshd children serving a connection now (one per connection: "sshd: root@notty").
conn_pids() { ps -o pid=,args= --ppid "$SSHD_PID" | awk '/sshd: /{print $1}'; }
no_conn() { [ -z "$(conn_pids)" ]; }
box_onbox_wait() { ps -e -o args= | grep -qE "^([^ ]*/)?onbox .*wait .*--workdir $T/work( |$)"; }

test_mcp_looks_share_one_connection() {
	running
	steps 'call:status:{"run": "t1"}' 'call:logs:{"run": "t1"}' 'call:events:{"run": "t1"}' \
	    'call:status:{"run": "t1"}' 'call:logs:{"run": "t1"}'
	for i in 1 2 3 4 5; do result_ok $i; done
	grep -q 'step 3/10' "$T/steps.out" || fail "the logs call did not bring the stage's line"
	assert_eq "$(accepted)" 1 "ssh connections for five looks"
}

# The system ssh's transport (box.transport openssh: its ControlMaster held by
# the holder): the looks are sessions on one connection too.
test_openssh_looks_share_one_connection() {
	running
	sed -i 's/"box": {/"box": {"transport": "openssh", /' "$T/wk.json"
	steps 'call:status:{"run": "t1"}' 'call:logs:{"run": "t1"}' 'call:events:{"run": "t1"}' \
	    'call:status:{"run": "t1"}'
	for i in 1 2 3 4; do result_ok $i; done
	grep -q 'step 3/10' "$T/steps.out" || fail "the logs call did not bring the stage's line"
	assert_eq "$(accepted)" 1 "ssh connections for four looks"
}

test_mcp_reconnects_after_a_drop() {
	running
	# The connection's sshd child killed between two looks: the next look reconnects.
	steps 'call:logs:{"run": "t1"}' \
	    "sh:p=\$(ps -o pid=,args= --ppid $SSHD_PID | awk '/sshd: /{print \$1}'); [ -n \"\$p\" ] && kill \$p" \
	    'call:logs:{"run": "t1"}' 'call:status:{"run": "t1"}'
	result_ok 1
	result_ok 2
	result_ok 3
	assert_eq "$(accepted)" 2 "connections: the first and the one after the drop"
}

test_idle_connection_closes() {
	running
	export WATCHKEEPER_WARM_IDLE_S=2
	# The server stays up while the holder idles out: its connection goes, the server answers.
	steps 'call:logs:{"run": "t1"}' \
	    "sh:. $TOP/tests/e2e/lib.sh >/dev/null 2>&1; for i in \$(seq 100); do [ -z \"\$(ps -o pid=,args= --ppid $SSHD_PID | awk '/sshd: /{print \$1}')\" ] && exit 0; sleep 0.1; done; exit 1" \
	    'call:logs:{"run": "t1"}'
	result_ok 1
	result_ok 2
	assert_eq "$(accepted)" 2 "a look after the idle close connects again"
	assert_grep 'Disconnected from user root|Received disconnect' "$T/sshd/sshd.log"
}

test_cancelled_wait_ends_onbox_wait() {
	running
	steps "cancel:wait:{\"run\": \"t1\", \"timeout_s\": 120}:ps -e -o args= | grep -qE '^([^ ]*/)?onbox .*wait .*--workdir $T/work( |$)'" \
	    "sh:for i in \$(seq 100); do ps -e -o args= | grep -qE '^([^ ]*/)?onbox .*wait .*--workdir $T/work( |$)' || exit 0; sleep 0.1; done; exit 1" \
	    'call:logs:{"run": "t1"}'
	result_ok 2
	assert_eq "$(accepted)" 1 "the connection outlives the cancelled look"
}

test_owner_killed_holder_goes() {
	running
	# The server dies without a word: its holder sees its owner gone and closes the connection.
	steps 'call:logs:{"run": "t1"}' kill9
	result_ok 1
	[ -n "$(conn_pids)" ] || fail "no connection held after the look"
	wait_for 10 no_conn
	wait_for 10 no_patrol_mcp
	# Its private directory went with the last holder.
	d=$(sed -n 's/.*warm looks: holders under \([^ ,]*\),.*/\1/p' "$T/steps.err" | head -1)
	[ -n "$d" ] || fail "no 'holders under' line from patrol -v"
	wait_for 10 test ! -e "$d"
}
no_patrol_mcp() { ! pgrep -f "$PATROL mcp -c $T/wk.json" >/dev/null; }

# fconf NAME: the run NAME on the box, its workdir $T/w-NAME (as test_fleet.sh's).
fconf() {
	mkdir -p "$T/w-$1"
	cat >"$T/$1.json" <<JSON
{ "run": "$1", "workdir": "$T/w-$1", "detach": "nohup", "heartbeat_s": 1,
  "box": {"host": "box", "ssh_config": "$SSH_CFG", "config": "$T/$1.json", "connect_timeout_s": 3},
  "chain": [{"stage": "train", "run": "true"}] }
JSON
}

test_fleet_one_box_one_connection() {
	box
	for r in a b c; do
		fconf $r
		$ONBOX_WRAP "$PATROL" -c "$T/$r.json" --once >/dev/null 2>&1 || :
	done
	before=$(accepted)
	assert_eq "$before" 3 "three --once ticks"
	rc=0; $ONBOX_WRAP "$PATROL" --all --jobs 4 >"$T/all" 2>"$T/all.err" || rc=$?
	for r in a b c; do assert_grep "^[0-9T:Z-]+ $r [A-Z_]+ " "$T/all"; done
	assert_no_grep ' SSH_DOWN ' "$T/all"
	assert_eq "$(accepted)" $((before + 1)) "patrol --all over three runs on one box"
	# The holder goes with the fleet's tick: no connection is left open.
	wait_for 10 no_conn
}

t mcp_looks_share_one_connection test_mcp_looks_share_one_connection
t openssh_looks_share_one_connection test_openssh_looks_share_one_connection
t mcp_reconnects_after_a_drop test_mcp_reconnects_after_a_drop
t idle_connection_closes test_idle_connection_closes
t cancelled_wait_ends_onbox_wait test_cancelled_wait_ends_onbox_wait
t owner_killed_holder_goes test_owner_killed_holder_goes
t fleet_one_box_one_connection test_fleet_one_box_one_connection
