#!/usr/bin/env bash
# End-to-end tests of the fleet (patrol/fleet.c): `patrol --all` ticks every
# run patrol knows, each in its own process with its own lock (one held by
# another patrol is skipped and said so), a DONE run left out; `patrol
# status --all [--json]` is the table from the state alone.  Runs on the
# suite's sshd and on a mute box (a port that takes the connection and
# never speaks), the real patrol.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
PATROL="$TOP/$BUILD/patrol"

# fconf NAME HOST CHAIN: the run NAME's config in $T/NAME.json, its workdir $T/w-NAME.
fconf() {
	mkdir -p "$T/w-$1"
	cat >"$T/$1.json" <<JSON
{ "run": "$1", "workdir": "$T/w-$1", "detach": "nohup", "heartbeat_s": 1,
  "box": {"host": "$2", "ssh_config": "$SSH_CFG", "config": "$T/$1.json", "connect_timeout_s": 2},
  "progress": {"pattern": "step (\\\\d+)/(\\\\d+)"},
  "chain": $3 }
JSON
}
P() { $ONBOX_WRAP "$PATROL" "$@"; }

# OFD-lock FILE for SECONDS in the background (what another patrol's tick holds).
hold_lock() {
	python3 - "$1" "$2" "$T/held" <<'PY' &
import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, 0, 0, 0))
open(sys.argv[3], "w").close()
time.sleep(float(sys.argv[2]))
PY
	echo $! >>"$T/.pids"
	LOCK_PID=$!
	wait_for 10 test -f "$T/held"
}

test_fleet_tick_and_table() {
	box
	# A mute box: the port takes connections and never answers.
	port_take mute MUTE_PORT
	printf 'Host mute\n  HostName 127.0.0.1\n  Port %s\n' "$MUTE_PORT" >>"$SSH_CFG"
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "step 3/10"\n"%s" 30 "%s/go" || :\n' "$AWAIT" "$T" >"$T/bin/slow.sh"
	chmod +x "$T/bin/slow.sh"
	fconf a box '[{"stage": "train", "run": "echo step 1/1"}]'
	fconf b box "[{\"stage\": \"train\", \"run\": \"$T/bin/slow.sh\"}]"
	fconf c mute '[{"stage": "train", "run": "true"}]'
	"$ONBOX" -c "$T/a.json" run >/dev/null 2>&1
	"$ONBOX" -c "$T/b.json" run >>"$T/onbox-b.out" 2>&1 &
	echo $! >>"$T/.pids"
	B_PID=$!
	wait_for 20 grep -q '~3/10' "$T/w-b/.watchkeeper/state.json"
	# Each run is known once ticked.
	P -c "$T/a.json" --once >/dev/null 2>&1 || :
	P -c "$T/b.json" --once >/dev/null 2>&1 || :
	P -c "$T/c.json" --once >/dev/null 2>&1 || :
	# The fleet: a is DONE (left out), b OK, c unseen: one line each, exit 2.
	rc=0; P --all --jobs 2 >"$T/all" 2>"$T/all.err" || rc=$?
	assert_eq "$rc" 2
	assert_grep '^[0-9T:Z-]+ b OK ' "$T/all"
	assert_grep '^[0-9T:Z-]+ c SSH_DOWN ' "$T/all"
	assert_no_grep ' a ' "$T/all"
	assert_eq "$(wc -l <"$T/all" | tr -d ' ')" 2
	# Another patrol holds b: skipped and said so; c is still ticked.
	hold_lock "$T/state/watchkeeper/b/patrol.lock" 30
	rc=0; P --all >"$T/all2" 2>&1 || rc=$?
	assert_eq "$rc" 2
	assert_grep '^[0-9T:Z-]+ b SKIPPED another patrol is ticking this run' "$T/all2"
	assert_grep ' c SSH_DOWN ' "$T/all2"
	kill "$LOCK_PID" 2>/dev/null; wait "$LOCK_PID" 2>/dev/null || :
	# The table, from the state alone.
	P status --all >"$T/st"
	assert_grep '^RUN +BOX +VERDICT +STAGE +PROGRESS +ETA +SEEN +HEARTBEAT +LAST EVENT +DETAILS' "$T/st"
	assert_grep '^a +box +DONE .* chain_done ' "$T/st"
	assert_grep '^b +box +OK +train#1 +~3/10 +[^ ]+ +[0-9]+s +[0-9]+s +stage_started train#1 ' "$T/st"
	assert_grep '^c +mute +SSH_DOWN +- +- +- +never +- +- ' "$T/st"
	P status --all --json >"$T/st.json"
	assert_eq "$(json "$T/st.json" '[r["run"] + ":" + r["verdict"] for r in d]')" "['a:DONE', 'b:OK', 'c:SSH_DOWN']"
	assert_eq "$(json "$T/st.json" '[r.get("progress_max") for r in d]')" "[1, 10, None]"
	# One run's row; usage errors.
	P -c "$T/b.json" status >"$T/one"
	assert_eq "$(grep -c '^b ' "$T/one")" 1
	assert_no_grep '^a ' "$T/one"
	rc=0; P -c "$T/a.json" --all >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 64
	rc=0; P --all --jobs 0 >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 64
	rc=0; P deploy --all >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 64
	# A config that no longer loads: said on its line, exit 1 (no box was unseen).
	echo '{ "run": ' >"$T/c.json"
	rc=0; P --all >"$T/all3" 2>"$T/all3.err" || rc=$?
	assert_eq "$rc" 1
	assert_grep "^[0-9T:Z-]+ c CONFIG_ERROR $T/c.json does not load" "$T/all3"
	assert_grep ' b (OK|STALLED) ' "$T/all3"
	touch "$T/go"
	wait "$B_PID" || :
}

test_empty_fleet() {
	export XDG_STATE_HOME="$T/state"
	P --all >"$T/o"
	assert_grep '^no runs' "$T/o"
	P status --all --json >"$T/j"
	assert_eq "$(cat "$T/j")" "[]"
}

t fleet_tick_and_table test_fleet_tick_and_table
t empty_fleet test_empty_fleet
