#!/usr/bin/env bash
# End-to-end tests of stopping a run on purpose: `onbox stop` on the box and
# `patrol stop` from the owner's machine (the suite's sshd), with real stage
# processes, process groups, tmux and the webhook receiver.
#   - SIGTERM first (a trap proves it), SIGKILL after stop_grace_s only for
#     what ignores it, the whole process group (grandchildren too);
#   - the runner records it: attempt "stopped", no FAILED marker, the
#     stopped record, run_stopped exactly once at the receiver;
#   - a stage left without its onbox (onbox killed -9) is stopped too;
#   - patrol says STOPPED (exit 0) every tick and resumes nothing, even with
#     auto_resume; `onbox start` / `patrol deploy` start from the first
#     missing marker; patrol stop against a dead port exits 2, records nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
PATROL="$TOP/$BUILD/patrol"

patrol() { $ONBOX_WRAP "$PATROL" -c "$T/wk.json" "$@"; }
launches() { [ -f "$T/launch.$1" ] && wc -l <"$T/launch.$1" | tr -d ' ' || echo 0; }
# group_live PGID: the live (not zombie) members of a process group.
group_live() { ps -e -o pid=,pgid=,stat= | awk -v g="$1" '$2 == g && $3 !~ /^Z/ { print $1 }'; }

# stage NAME LEADER GRANDCHILD: a stage script.  LEADER "trap" writes
# $T/term.NAME on SIGTERM and exits 0; "ignore" ignores SIGTERM.  GRANDCHILD
# "plain" is a sleep; "ignore" a shell ignoring SIGTERM; its pid goes to
# $T/gc.NAME.  The leader writes $T/ready.NAME, then waits; from its second
# launch on it prints its done line and exits 0 at once.
stage() {
	local name=$1 leader=$2 gc=$3 trapline gcline
	mkdir -p "$T/bin"
	case $leader in
	trap) trapline="trap 'echo TERM >>\"$T/term.$name\"; exit 0' TERM" ;;
	ignore) trapline="trap '' TERM" ;;
	esac
	case $gc in
	plain) gcline="sleep 300 &" ;;
	ignore) gcline="sh -c 'trap \"\" TERM; while :; do sleep 0.1; done' &" ;;
	esac
	cat >"$T/bin/$name.sh" <<SH
#!/bin/sh
echo x >>"$T/launch.$name"
if [ "\$(wc -l <"$T/launch.$name")" -gt 1 ]; then echo "$name completed"; exit 0; fi
$trapline
$gcline
echo \$! >"$T/gc.$name"
echo \$\$ >"$T/leader.$name"
echo "step 1/10"
echo ready >"$T/ready.$name"
while :; do sleep 0.1; done
SH
	chmod +x "$T/bin/$name.sh"
}

# chain2 EXTRA: prep (instant) then train ($T/bin/train.sh).
chain2() {
	conf "$1" "[
	{\"stage\": \"prep\", \"run\": \"echo prep >>$T/launch.prep\", \"marker\": \"PREP_DONE\"},
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"train completed\", \"marker\": \"TRAIN_DONE\"}]"
}

recv_events() { [ -f "$T/recv.jsonl" ] && recv_json "[json.loads(x['body']).get('event') for x in r if x['status'] == 200]" || echo "[]"; }
recv_n() { recv_json "len([x for x in r if x['status'] == 200 and json.loads(x['body']).get('event') == '$1'])"; }

test_term_first_whole_group_receiver_once() {
	start_receiver
	stage train trap plain
	chain2 "\"notify\": [{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$RPORT/hook\"}],"
	bg_onbox run
	runner=$LAST_PID
	wait_for 10 test -f "$T/ready.train"
	gc=$(<"$T/gc.train")
	live "$gc"
	rc=0; onbox stop >"$T/stop.out" 2>&1 || rc=$?
	assert_eq "$rc" 0 "onbox stop exit"
	assert_grep "asked onbox \(pid $runner\) to stop run t1" "$T/stop.out"
	assert_grep 'stopped run t1: stage train attempt 1 \(SIGTERM; it ended within stop_grace_s=30s\), by onbox stop \(' "$T/stop.out"
	assert_grep "onbox \(pid $runner\) exited" "$T/stop.out"
	# SIGTERM reached the stage (its trap ran); the grandchild died with the group.
	assert_eq "$(<"$T/term.train")" TERM
	gone "$gc"
	# The runner has exited (onbox stop waited for it): 143, stopped on purpose.
	rc=0; wait "$runner" || rc=$?
	assert_eq "$rc" 143 "onbox run exit"
	assert_eq "$(json "$W/stopped" 'd["stage"]')" train
	assert_eq "$(json "$W/stopped" 'd["attempt"]')" 1
	json "$W/stopped" 'd["by"]' | grep -q '^onbox stop (.*@.*)$'
	assert_no_file "$W/stop.request"
	# Not a failure: no FAILED marker, no class, the attempt is "stopped".
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	assert_no_file "$W/markers/TRAIN_DONE"
	assert_eq "$(json "$W/stages/train.json" 'd["attempts"][-1]["result"]')" stopped
	assert_eq "$(json "$W/stages/train.json" '"class" in d["attempts"][-1]')" false
	assert_eq "$(json "$W/state.json" 'd["status"]')" stopped
	assert_eq "$(grep -c '"run_stopped"' "$W/events.jsonl")" 1
	assert_no_grep '"stage_failed"' "$W/events.jsonl"
	# The receiver got run_stopped exactly once (delivered before onbox exited).
	wait_for 10 sh -c "[ \"\$(python3 -c 'import json,sys; print(sum(1 for l in open(sys.argv[1]) if json.loads(json.loads(l)[\"body\"]).get(\"event\") == \"run_stopped\"))' '$T/recv.jsonl')\" = 1 ]"
	assert_eq "$(recv_n run_stopped)" 1
	assert_eq "$(recv_n stage_failed)" 0
	assert_eq "$(launches train)" 1
	# onbox status says so, in words and in --json.
	onbox status >"$T/status.out" 2>&1 || true
	assert_grep '^STOPPED on purpose by onbox stop \(.*\) at .*: train attempt 1 \(SIGTERM' "$T/status.out"
	onbox status --json >"$T/status.json" 2>/dev/null || true
	assert_eq "$(json "$T/status.json" 'd["stopped"]["stage"]')" train
	# A second stop changes nothing: the first record and its one event stand.
	cp "$W/stopped" "$T/stopped.first"
	rc=0; onbox stop >"$T/stop2.out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep 'run t1 was already stopped and nothing runs' "$T/stop2.out"
	cmp "$W/stopped" "$T/stopped.first"
	assert_eq "$(grep -c '"run_stopped"' "$W/events.jsonl")" 1
	assert_eq "$(recv_n run_stopped)" 1
}

test_ignored_term_gets_kill_after_grace() {
	stage train ignore ignore
	chain2 '"stop_grace_s": 2,'
	bg_onbox run
	runner=$LAST_PID
	wait_for 10 test -f "$T/ready.train"
	gc=$(<"$T/gc.train")
	pgid=$(json "$W/attempts/train.1.json" 'd["pgid"]')
	rc=0; onbox stop >"$T/stop.out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep 'SIGTERM, then SIGKILL after stop_grace_s=2s' "$T/stop.out"
	gone "$gc"
	# The order, from onbox's own log: SIGTERM to the group, then SIGKILL.
	t=$(grep -n "stopping process group $pgid: SIGTERM" "$W/onbox.log" | head -n 1 | cut -d: -f1)
	k=$(grep -n "process group $pgid still runs 2 s after SIGTERM: SIGKILL" "$W/onbox.log" | head -n 1 | cut -d: -f1)
	[ -n "$t" ] && [ -n "$k" ] && [ "$t" -lt "$k" ] || fail "SIGTERM line $t, SIGKILL line $k"
	# The script ignoring SIGTERM is gone too (SIGKILL): nothing of the group lives.
	gone "$(<"$T/leader.train")"
	[ -z "$(group_live "$pgid")" ] || fail "process group $pgid still has live members: $(group_live "$pgid")"
	rc=0; wait "$runner" || rc=$?
	assert_eq "$rc" 143
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	assert_eq "$(json "$W/stopped" 'd["how"]')" "SIGTERM, then SIGKILL after stop_grace_s=2s"
}

test_orphan_stage_stopped_without_its_onbox() {
	stage train trap ignore
	chain2 '"stop_grace_s": 2,'
	bg_onbox run
	wait_for 10 test -f "$T/ready.train"
	gc=$(<"$T/gc.train")
	kill -9 "$LAST_PID"
	wait "$LAST_PID" 2>/dev/null || true
	live "$gc"
	rc=0; onbox stop >"$T/stop.out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep 'stage train attempt 1 \(process group [0-9]+\) runs without its onbox' "$T/stop.out"
	assert_grep 'stopped run t1: stage train attempt 1 \(SIGTERM, then SIGKILL after stop_grace_s=2s \(no onbox watched it\)\)' "$T/stop.out"
	# The leader took SIGTERM (its trap); the grandchild ignoring it got SIGKILL.
	assert_eq "$(<"$T/term.train")" TERM
	gone "$gc"
	assert_eq "$(json "$W/stages/train.json" 'd["attempts"][-1]["result"]')" stopped
	assert_eq "$(grep -c '"run_stopped"' "$W/events.jsonl")" 1
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	assert_eq "$(json "$W/state.json" 'd["status"]')" stopped
	# The attempt's wrapper recorded the end and is gone too.
	gone "$(json "$W/attempts/train.1.json" 'd["wrapper_pid"]')"
	assert_eq "$(json "$W/attempts/train.1.json" 'd["state"]')" exited
}

test_start_again_from_first_missing_marker() {
	stage train trap plain
	chain2 ''
	bg_onbox run
	wait_for 10 test -f "$T/ready.train"
	onbox stop >"$T/stop.out" 2>&1
	wait "$LAST_PID" || true
	assert_file "$W/stopped"
	assert_file "$W/markers/PREP_DONE"
	# onbox start removes the stopped record and runs from the first missing marker: train, attempt 2.
	onbox start >"$T/start.out" 2>&1
	assert_grep 'run t1 was stopped on purpose: starting it again from the first missing marker' "$T/start.out"
	assert_no_file "$W/stopped"
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	wait_for 10 grep -q '"status":[[:space:]]*"done"' "$W/state.json"
	assert_eq "$(launches prep)" 1 "prep is not run again"
	assert_eq "$(launches train)" 2
	assert_eq "$(json "$W/stages/train.json" '[a["result"] for a in d["attempts"]]')" "['stopped', 'done']"
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
}

test_nothing_running_done_usage_and_help() {
	stage train trap plain
	chain2 ''
	# Nothing ever ran: recorded stopped anyway, so nothing resumes it; said so.
	rc=0; onbox stop >"$T/s1" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep 'run t1: nothing was running; recorded as stopped so that nothing resumes it' "$T/s1"
	assert_eq "$(json "$W/stopped" 'd["how"]')" "nothing was running"
	assert_eq "$(json "$W/stopped" 'd["stage"]')" prep
	# onbox run removes it (and says so in its log), then runs the chain to the end.
	echo x >"$T/launch.train"	# the stage script completes at once from here
	onbox run >"$T/r1" 2>&1
	assert_grep 'was stopped on purpose: started again from the first missing marker' "$T/r1"
	assert_no_file "$W/stopped"
	assert_file "$W/markers/TRAIN_DONE"
	# A done run has nothing to stop and is not recorded stopped.
	rc=0; onbox stop >"$T/s2" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep 'is done \(every marker is present\): nothing to stop' "$T/s2"
	assert_no_file "$W/stopped"
	# Usage and config errors; the help texts.
	rc=0; onbox stop extra >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 64
	rc=0; "$ONBOX" -c "$T/nope.json" stop >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 78
	"$ONBOX" --help >"$T/help"
	assert_grep '^  stop ' "$T/help"
	assert_grep '`onbox stop`: 0 stopped' "$T/help"
	"$ONBOX" --help-config >"$T/keys"
	assert_grep 'stop_grace_s' "$T/keys"
	# detach slurm with a queue that cannot be read (no cluster here): 75, nothing recorded
	# (test_slurm: onbox_stop_under_slurm stops a real one).
	sed -i 's/"detach": "nohup"/"detach": "slurm"/' "$T/wk.json"
	rm -f "$W/markers/TRAIN_DONE"
	rc=0; SLURM_CONF="$T/no-slurm.conf" onbox stop >"$T/s3" 2>&1 || rc=$?
	assert_eq "$rc" 75
	assert_grep 'cannot read the Slurm queue .*nothing cancelled, nothing recorded' "$T/s3"
	assert_no_file "$W/stopped"
}

test_tmux_detach() {
	command -v tmux >/dev/null || { echo "SKIP tmux_detach: no tmux"; return 0; }
	export TMUX_TMPDIR="$T/tmux"
	mkdir -p "$TMUX_TMPDIR"
	stage train trap plain
	chain2 ''
	sed -i 's/"detach": "nohup"/"detach": "tmux"/' "$T/wk.json"
	onbox start >"$T/start.out" 2>&1
	wait_for 10 test -f "$T/ready.train"
	rc=0; onbox stop >"$T/stop.out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep 'stopped run t1: stage train attempt 1' "$T/stop.out"
	assert_eq "$(<"$T/term.train")" TERM
	# onbox exited, so its tmux session ended.
	wait_for 10 sh -c '! tmux has-session -t =wk-t1 2>/dev/null'
}

# A wait stage (a training started by hand): nothing of ours to signal; the wait ends as stopped.
test_wait_stage_stopped() {
	mkdir -p "$T/work"
	: >"$T/work/train.log"
	conf '' "[{\"stage\": \"train\", \"wait\": {\"log\": \"train.log\", \"pattern\": \"Training completed\", \"timeout_s\": 600}, \"marker\": \"TRAIN_DONE\"}]"
	bg_onbox run
	runner=$LAST_PID
	wait_for 10 grep -q '"stage_started"' "$W/events.jsonl"
	rc=0; onbox stop >"$T/stop.out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep 'stopped run t1: stage train attempt 1 \(a wait: nothing of ours to signal\)' "$T/stop.out"
	rc=0; wait "$runner" || rc=$?
	assert_eq "$rc" 143
	assert_eq "$(json "$W/stages/train.json" 'd["attempts"][-1]["result"]')" stopped
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
}

# ---- patrol stop ----

test_patrol_stop_stopped_every_tick_never_resumed() {
	box
	start_receiver
	stage train trap plain
	pconf "\"stop_grace_s\": 5, \"patrol\": {\"auto_resume\": true}, \"notify\": [{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$RPORT/hook\"}]," "[
	{\"stage\": \"prep\", \"run\": \"echo prep >>$T/launch.prep\", \"marker\": \"PREP_DONE\"},
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"train completed\", \"marker\": \"TRAIN_DONE\"}]"
	sed -i 's|"config": "[^"]*", ||' "$T/wk.json"
	patrol deploy --onbox "$ONBOX" >"$T/d1" 2>&1
	wait_for 10 test -f "$T/ready.train"
	echo "$(json "$W/state.json" 'd["onbox_pid"]')" >>"$T/.pids"
	rc=0; patrol --once >"$T/p0" 2>&1 || rc=$?
	assert_eq "$rc" 0
	line_ok OK "$T/p0"
	# patrol stop: one connection, the box's onbox stop does it.
	before=$(sshd_accepted_count)
	rc=0; patrol stop >"$T/ps" 2>&1 || rc=$?
	assert_eq "$rc" 0 "patrol stop exit"
	assert_eq "$(( $(sshd_accepted_count) - before ))" 1 "connections for patrol stop"
	assert_grep 'stopped run t1: stage train attempt 1 \(SIGTERM; it ended within stop_grace_s=5s\), by patrol stop \(.*@.*\), on the box as ' "$T/ps"
	assert_eq "$(<"$T/term.train")" TERM
	json "$W/stopped" 'd["by"]' | grep -q '^patrol stop ('
	# Every tick: STOPPED, exit 0, nothing resumed (auto_resume is on).
	for i in 1 2 3; do
		rc=0; patrol >"$T/p$i" 2>&1 || rc=$?
		assert_eq "$rc" 0 "tick $i exit"
		line_ok STOPPED "$T/p$i"
		assert_grep 'stopped on purpose by patrol stop \(.*\), on the box as .* at .* · train attempt 1 \(SIGTERM' "$T/p$i"
	done
	assert_no_grep 'resumed' "$T/p3"
	assert_eq "$(launches train)" 1 "nothing started by a tick"
	assert_eq "$(json "$W/stages/train.json" 'len(d["attempts"])')" 1
	assert_eq "$(grep -c ' STOPPED ' "$T/state/watchkeeper/t1/report.log")" 3
	# The crontab entry is not removed for STOPPED (only DONE removes it).
	# The logbook has the stop; the sinks got run_stopped once and the verdict change once.
	assert_grep 'run stopped at train attempt 1' "$T/state/watchkeeper/t1/LOGBOOK.md"
	wait_for 10 sh -c "grep -q run_stopped '$T/recv.jsonl'"
	assert_eq "$(recv_n run_stopped)" 1
	wait_for 10 sh -c "grep -q STOPPED '$T/recv.jsonl'"
	assert_eq "$(recv_json "len([x for x in r if x['status'] == 200 and json.loads(x['body']).get('event') == 'verdict_changed' and json.loads(x['body']).get('verdict') == 'STOPPED'])")" 1
	# patrol deploy starts it again, from the first missing marker (train, attempt 2).
	patrol deploy --onbox "$ONBOX" >"$T/d2" 2>&1
	assert_grep 'stopped on purpose: starting it again from the first missing marker' "$T/d2"
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	assert_eq "$(launches prep)" 1
	assert_eq "$(launches train)" 2
	rc=0; patrol >"$T/p4" 2>&1 || rc=$?
	line_ok DONE "$T/p4"
}

test_patrol_stop_unreachable_records_nothing() {
	box
	stage train trap plain
	pconf '' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"marker\": \"TRAIN_DONE\"}]"
	bg_onbox run
	wait_for 10 test -f "$T/ready.train"
	patrol >"$T/p1" 2>&1 || true
	line_ok OK "$T/p1"
	sd="$T/state/watchkeeper/t1"
	cp "$sd/patrol.json" "$T/patrol.json.before"
	cp "$sd/report.log" "$T/report.log.before"
	sshd_stop
	rc=0; "$PATROL" stop -c "$T/wk.json" >"$T/ps" 2>&1 || rc=$?
	assert_eq "$rc" 2 "patrol stop against a dead port"
	assert_grep 'cannot reach the box: .*nothing was stopped and nothing recorded' "$T/ps"
	cmp "$sd/patrol.json" "$T/patrol.json.before"
	cmp "$sd/report.log" "$T/report.log.before"
	assert_no_file "$W/stopped"
	assert_no_file "$W/stop.request"
	live "$(<"$T/gc.train")"
	assert_no_file "$T/term.train"
	# patrol --help lists STOPPED and the stop command.
	"$PATROL" --help >"$T/help"
	assert_grep '^  STOPPED ' "$T/help"
	assert_grep 'patrol \[-c FILE\] stop' "$T/help"
}

# A sentinel waiting for a marker of a stopped run gives up at once (exit 1,
# "stopped on purpose"), polling or with --follow, instead of waiting out its
# ticks: nothing lands until someone starts the run again.
test_sentinel_gives_up_on_stopped_run() {
	local spid fpid rc
	box
	stage train trap plain
	pconf "\"stop_grace_s\": 5, \"sentinel\": {\"follow_s\": 600}," "[
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"train completed\", \"marker\": \"TRAIN_DONE\"},
	{\"stage\": \"eval\", \"run\": \"echo eval >>$T/launch.eval\", \"marker\": \"EVAL_DONE\"}]"
	sed -i 's|"config": "[^"]*", ||' "$T/wk.json"
	patrol deploy --onbox "$ONBOX" >"$T/d1" 2>&1
	wait_for 10 test -f "$T/ready.train"
	echo "$(json "$W/state.json" 'd["onbox_pid"]')" >>"$T/.pids"
	# One polls every second (up to 300 ticks); one follows (a first look, then
	# one window of 600 s that only inotify on the box can end early).
	$ONBOX_WRAP "$TOP/$BUILD/sentinel" -c "$T/wk.json" --marker TRAIN_DONE --interval 1 \
		--max-ticks 300 >"$T/s.out" 2>"$T/s.err" &
	spid=$!
	echo "$spid" >>"$T/.pids"
	$ONBOX_WRAP "$TOP/$BUILD/sentinel" -c "$T/wk.json" --marker EVAL_DONE --follow --max-ticks 2 \
		--json >"$T/f.out" 2>"$T/f.err" &
	fpid=$!
	echo "$fpid" >>"$T/.pids"
	wait_for 20 grep -q 'tick 2/300' "$T/s.err"
	wait_for 20 grep -q 'tick 1/2' "$T/f.err"
	rc=0; patrol stop >"$T/ps" 2>&1 || rc=$?
	assert_eq "$rc" 0 "patrol stop exit"
	wait_for 60 gone "$spid"
	rc=0; wait "$spid" || rc=$?
	assert_eq "$rc" 1 "polling sentinel exit"
	assert_grep '^sentinel: gave up \(tick [0-9]+, .*\): the run was stopped on purpose by patrol stop \(.* at .*; TRAIN_DONE will not appear until `onbox start`' "$T/s.out"
	assert_no_grep 'tick 300/300' "$T/s.err"
	# Well inside its 600 s window: the stop woke the box's `onbox wait`.
	wait_for 60 gone "$fpid"
	rc=0; wait "$fpid" || rc=$?
	assert_eq "$rc" 1 "following sentinel exit"
	assert_eq "$(json "$T/f.out" 'd["outcome"]')" run_stopped
	assert_eq "$(launches eval)" 0
}

t term_first_whole_group_receiver_once test_term_first_whole_group_receiver_once
t ignored_term_gets_kill_after_grace test_ignored_term_gets_kill_after_grace
t orphan_stage_stopped_without_its_onbox test_orphan_stage_stopped_without_its_onbox
t start_again_from_first_missing_marker test_start_again_from_first_missing_marker
t nothing_running_done_usage_and_help test_nothing_running_done_usage_and_help
t tmux_detach test_tmux_detach
t wait_stage_stopped test_wait_stage_stopped
t patrol_stop_stopped_every_tick_never_resumed test_patrol_stop_stopped_every_tick_never_resumed
t patrol_stop_unreachable_records_nothing test_patrol_stop_unreachable_records_nothing
t sentinel_gives_up_on_stopped_run test_sentinel_gives_up_on_stopped_run
