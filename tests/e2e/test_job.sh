#!/usr/bin/env bash
# End-to-end tests of the job backend (detach "job", onbox/jobrun.c): onbox
# supervises each run stage as a job of a cluster manager, through a shipped
# profile's commands, against the scripted stand-in CLIs
# (tests/e2e/fixtures/fake-ray, fake-iris) installed first on PATH under the
# names the profiles use.  Every test runs once per profile (the loop at the
# bottom); the stand-in runs nothing: each test drives the job's states
# (`_set`), its log (`_log`) and hand-made jobs, and counts submits in the
# fake cluster's directory ($FAKE_JOB_DIR/seq: one per job created).
. "$(dirname "$0")/lib.sh"

PROFILE=	# ray | iris: set by the loop at the bottom

# The fake CLI as $PROFILE first on PATH, a fresh fake cluster, the shipped profiles.
jsetup() {
	mkdir -p "$T/bin" "$T/cluster" "$T/work"
	ln -sf "$TOP/tests/e2e/fixtures/fake-$PROFILE" "$T/bin/$PROFILE"
	export PATH="$T/bin:$PATH" FAKE_JOB_DIR="$T/cluster" WATCHKEEPER_PROFILES="$TOP/profiles"
}
cli() { "$T/bin/$PROFILE" "$@"; }

# jconf [EXTRA_TOP_LEVEL_JSON] [CHAIN_JSON]: $T/wk.json for run t1 with "profile": $PROFILE.
CHAIN2='[{"stage": "train", "run": "python train.py --steps 10", "done_when": "Training completed"},
	{"stage": "eval", "run": "python eval.py"}]'
jconf() {
	jsetup
	cat >"$T/wk.json" <<JSON
{
  // written by test_job.sh
  "run": "t1",
  "profile": "$PROFILE",
  "workdir": "$T/work",
  "heartbeat_s": 1,
  "poll_ms": 100,
  ${1-}
  "chain": ${2:-$CHAIN2}
}
JSON
}

# word STATE: the manager's word for our state name.
word() {
	case $PROFILE:$1 in
	ray:*) printf '%s\n' "$1" | tr '[:lower:]' '[:upper:]' ;;
	iris:stopped) echo JOB_STATE_KILLED ;;
	iris:*) printf 'JOB_STATE_%s\n' "$(printf '%s' "$1" | tr '[:lower:]' '[:upper:]')" ;;
	esac
}
# jobs_of STAGE: the ids of the stage's jobs, oldest first; job_of STAGE: the newest.
jobs_of() { cli _jobs | awk -v s="wk-t1-$1" 'index($1, s) { print $1 }'; }
job_of() { jobs_of "$1" | tail -n 1; }
njobs() { jobs_of "$1" | wc -l | tr -d ' '; }
njobs_is() { [ "$(njobs "$1")" = "$2" ]; }
state_of() { cli _jobs | awk -v i="$1" '$1 == i { print $2 }'; }
is_state() { [ "$(state_of "$1")" = "$(word "$2")" ]; }
set_state() { cli _set "$1" "$(word "$2")"; }
# (read, not cat: has_submits is polled, and a fork and an exec cost some 10 ms of CPU here)
submits() { local n=0; read -r n 2>/dev/null <"$T/cluster/seq"; echo "${n:-0}"; }
has_submits() { local n=0; read -r n 2>/dev/null <"$T/cluster/seq"; [ "${n:-0}" -ge "$1" ]; }
# hand_submit STAGE: a person submits the stage's job by hand under its name
# (another user for iris, a later time stamp for ray); prints the new id.
hand_submit() {
	case $PROFILE in
	ray) cli job submit --submission-id "wk-t1-$1-20991231-235959" --no-wait -- sh -c true >/dev/null
		echo "wk-t1-$1-20991231-235959" ;;
	iris) cli job run --no-wait --job-name "wk-t1-$1" --user hand -- sh -c true 2>/dev/null ;;
	esac
}
# job_gone ID: the manager forgets the job.
job_gone() {
	local f
	for f in "$T"/cluster/jobs/*/id; do
		[ "$(<"$f")" = "$1" ] && rm -rf "$(dirname "$f")"
	done
	return 0
}
# A killed onbox's lock can outlive it for a moment (a CLI call it was
# forking still holds a copy until exec): wait for it before the next onbox.
lock_free() {
	python3 -c 'import fcntl, sys; fcntl.lockf(open(sys.argv[1], "r+"), fcntl.LOCK_EX | fcntl.LOCK_NB)' \
	    "$W/onbox.lock" 2>/dev/null
}
rerun() { wait_for 20 lock_free; bg_onbox run; }
hist() { json "$W/stages/$1.json" "$2"; }
nevents() { grep -c "\"event\":\"$1\"" "$W/events.jsonl" || true; }
# hang_submits: a submit (only) made while $T/hang.submit exists hangs until
# it is removed, then fails having submitted nothing: a wedged CLI.  Its pid
# goes to $T/.pids.
hang_submits() {
	touch "$T/hang.submit"
	rm -f "$T/bin/$PROFILE"
	cat >"$T/bin/$PROFILE" <<SH
#!/bin/sh
case "\$*" in
*"job submit"*|*"job run"*)
	if [ -e "$T/hang.submit" ]; then
		echo \$\$ >>"$T/.pids"
		while [ -e "$T/hang.submit" ]; do sleep 0.05; done
		exit 1
	fi ;;
esac
exec "$TOP/tests/e2e/fixtures/fake-$PROFILE" "\$@"
SH
	chmod +x "$T/bin/$PROFILE"
}

# A two-stage chain completes: jobs submitted one after the other, the log
# copied into the attempt's output log with each line once, markers written.
test_chain_completes() {
	jconf
	bg_onbox run
	wait_for 20 has_submits 1
	id=$(job_of train)
	set_state "$id" running
	cli _log "$id" "step 1/10"
	wait_for 20 grep -q 'step 1/10' "$W/logs/train.1.log"
	cli _log "$id" "Training completed"
	wait_for 20 grep -q 'Training completed' "$W/logs/train.1.log"
	set_state "$id" succeeded
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	wait_for 20 has_submits 2
	eid=$(job_of eval)
	set_state "$eid" succeeded
	wait_for 20 test -f "$W/markers/EVAL_DONE"
	wait "$LAST_PID"
	assert_eq "$(submits)" 2
	assert_eq "$(grep -c 'step 1/10' "$W/logs/train.1.log")" 1 "each log line copied once"
	assert_eq "$(grep -c 'Training completed' "$W/logs/train.1.log")" 1
	assert_eq "$(hist train 'd["attempts"][0]["job_id"]')" "$id"
	assert_eq "$(hist train 'd["attempts"][0]["job_name"]')" wk-t1-train
	assert_eq "$(hist eval 'd["attempts"][0]["job_id"]')" "$eid"
	assert_eq "$(json "$W/attempts/train.1.json" 'd["job_id"]')" "$id"
	grep '"event":"stage_started"' "$W/events.jsonl" | head -n 1 >"$T/ev"
	assert_grep "\"job_id\":\"$id\"" "$T/ev"
	assert_grep '"job_name":"wk-t1-train"' "$T/ev"
	assert_eq "$(json "$W/state.json" 'd["status"]')" done
	# The job ran the stage's command in the workdir.
	grep -rqF 'python train.py --steps 10' "$T/cluster/jobs" || fail "command not submitted"
}

# Pending for capacity is waiting: said once, shown by status, never a failure.
test_pending_is_waiting() {
	jconf
	bg_onbox run
	wait_for 20 has_submits 1
	id=$(job_of train)
	wait_for 20 grep -q 'pending for capacity' "$T/onbox.out"
	wait_for 20 grep -qE '"waiting":[[:space:]]*"pending for capacity"' "$W/state.json"
	onbox status >"$T/st"
	assert_grep "stage: train attempt 1 \(job $id, pending: pending for capacity\)" "$T/st"
	assert_grep "job: $id \($(word pending)\)" "$T/st"
	# Heartbeats go on while it waits (many polls): still no failure, said once.
	t0=$(json "$W/state.json" 'd["time_unix"]')
	wait_for 20 json_ge "$W/state.json" 'd["time_unix"]' $((${t0%.*} + 2))
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	kill -0 "$LAST_PID"
	assert_eq "$(nevents job_pending)" 1
	assert_eq "$(nevents stage_failed)" 0
	set_state "$id" running
	cli _log "$id" "Training completed"
	set_state "$id" succeeded
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	assert_eq "$(njobs train)" 1
}

# A failed job: FAILED marker, class from its log; a never-retry class is not resubmitted.
test_failed_job_class_from_log() {
	jconf '"restart": {"max": 3},'
	bg_onbox run
	wait_for 20 has_submits 1
	id=$(job_of train)
	set_state "$id" running
	cli _log "$id" "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
	set_state "$id" failed
	wait_for 20 test -f "$W/markers/TRAIN_DONE.FAILED"
	rc=0; wait "$LAST_PID" || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["class"]')" cuda_oom
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["policy"]["rule"]')" never_retry
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["exit_code"]')" 1
	assert_eq "$(submits)" 1 "never resubmitted"
	assert_no_file "$W/markers/EVAL_DONE"
}

# A job stopped from outside (preempted) is restarted as a new submit without spending budget.
test_stopped_job_restarted_free() {
	jconf '"restart": {"max": 0, "escalate_s": 0},'
	bg_onbox run
	wait_for 20 has_submits 1
	id=$(job_of train)
	set_state "$id" running
	set_state "$id" stopped
	# Ray refuses a second submit in the same second (the id has the time): retried.
	wait_for 30 sh -c "grep -qE '\"job_id\":' '$W/attempts/train.2.json' 2>/dev/null"
	id2=$(json "$W/attempts/train.2.json" 'd["job_id"]')
	wait_for 20 is_state "$id2" pending
	assert_eq "$(hist train 'd["attempts"][0]["class"]')" preempted
	assert_eq "$(hist train 'd["attempts"][0]["policy"]["counts"]')" false
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	set_state "$id2" running
	cli _log "$id2" "Training completed"
	set_state "$id2" succeeded
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	assert_eq "$(hist train 'd["attempts"][1]["job_id"]')" "$id2"
	assert_eq "$(json "$W/markers/TRAIN_DONE" 'd["attempt"]')" 2
	[ "$PROFILE" = iris ] || [ "$id2" != "$id" ] || fail "the same job followed twice"
	assert_eq "$(njobs train)" "$([ "$PROFILE" = iris ] && echo 1 || echo 2)" "iris reuses the name's id"
	wait_for 20 njobs_is eval 1
}

# kill -9 onbox mid-job: the next onbox re-attaches to the same job id (no second submit).
test_kill9_reattaches_same_job() {
	jconf
	bg_onbox run
	first=$LAST_PID
	wait_for 20 has_submits 1
	id=$(job_of train)
	set_state "$id" running
	cli _log "$id" "before the kill"
	wait_for 20 grep -q 'before the kill' "$W/logs/train.1.log"
	kill -9 "$first"
	wait "$first" 2>/dev/null || true
	cli _log "$id" "while nobody watched"
	rerun
	wait_for 20 grep -q 'while nobody watched' "$W/logs/train.1.log"
	assert_grep "re-attaching to job $id" "$T/onbox.out"
	cli _log "$id" "Training completed"
	set_state "$id" succeeded
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	assert_eq "$(njobs train)" 1 "no second submit"
	assert_eq "$(hist train 'len(d["attempts"])')" 1
	assert_eq "$(grep -c 'before the kill' "$W/logs/train.1.log")" 1 "each line once"
	assert_eq "$(grep -c 'while nobody watched' "$W/logs/train.1.log")" 1
}

# SIGTERM stops onbox, not the job; the next onbox re-attaches to it.
test_sigterm_leaves_job_running() {
	jconf '' '[{"stage": "train", "run": "python train.py"}]'
	bg_onbox run
	first=$LAST_PID
	wait_for 20 has_submits 1
	id=$(job_of train)
	set_state "$id" running
	wait_for 20 grep -qE '"job_state":[[:space:]]*"running"' "$W/stages/train.json"
	kill -TERM "$first"
	rc=0; wait "$first" || rc=$?
	assert_eq "$rc" 143
	assert_eq "$(json "$W/state.json" 'd["status"]')" stopped
	is_state "$id" running || fail "the job was touched: $(state_of "$id")"
	rerun
	wait_for 20 grep -q "re-attaching to job $id" "$T/onbox.out"
	set_state "$id" succeeded
	wait "$LAST_PID"
	assert_file "$W/markers/TRAIN_DONE"
	assert_eq "$(njobs train)" 1
}

# A job that finished while nobody watched is reported finished, not lost.
test_finished_unwatched_is_done() {
	jconf
	bg_onbox run
	first=$LAST_PID
	wait_for 20 has_submits 1
	id=$(job_of train)
	wait_for 20 grep -q 'pending for capacity' "$T/onbox.out"
	kill -9 "$first"
	wait "$first" 2>/dev/null || true
	cli _log "$id" "Training completed"
	set_state "$id" succeeded
	rerun
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	assert_eq "$(json "$W/markers/TRAIN_DONE" 'd["attempt"]')" 1
	assert_eq "$(njobs train)" 1
	assert_eq "$(nevents stage_lost)" 0
}

# The job id changed by hand while onbox was down: the old job OLD (failed or
# gone), a new one under the same name live.  The new onbox adopts it and
# never submits the stage again.
id_changed() {
	jconf
	bg_onbox run
	first=$LAST_PID
	wait_for 20 has_submits 1
	id=$(job_of train)
	set_state "$id" running
	wait_for 20 grep -qE '"job_state":[[:space:]]*"running"' "$W/stages/train.json"
	kill -9 "$first"
	wait "$first" 2>/dev/null || true
	case $1 in
	failed) set_state "$id" failed ;;
	gone) job_gone "$id" ;;
	esac
	nid=$(hand_submit train)
	[ -n "$nid" ] && [ "$nid" != "$id" ] || fail "hand submit gave '$nid'"
	set_state "$nid" running
	n=$(submits)
	rerun
	wait_for 20 grep -q "adopting job $nid" "$T/onbox.out"
	assert_eq "$(hist train 'd["attempts"][0]["job_id"]')" "$nid"
	assert_eq "$(hist train 'd["attempts"][0]["job_replaced"][0]')" "$id"
	wait_for 20 grep -q '"event":"job_adopted"' "$W/events.jsonl"
	cli _log "$nid" "Training completed"
	set_state "$nid" succeeded
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	assert_eq "$(hist train 'len(d["attempts"])')" 1
	assert_eq "$(json "$W/attempts/train.1.json" 'd["job_id"]')" "$nid"
	wait_for 20 has_submits $((n + 1))
	assert_eq "$(njobs train)" "$([ "$1" = gone ] && echo 1 || echo 2)" "no train job submitted by onbox"
	assert_eq "$(submits)" $((n + 1)) "only eval submitted after the adoption"
}
test_id_changed_old_failed() { id_changed failed; }
test_id_changed_old_gone() { id_changed gone; }

# `onbox start` twice: one onbox, one submit; the second start exits 75.
test_start_twice_submits_once() {
	jconf
	onbox start >"$T/start.out" 2>&1
	# start returns once state.json names the onbox it started (no wait here)
	pid=$(json "$W/state.json" 'd["onbox_pid"]')
	echo "$pid" >>"$T/.pids"
	assert_grep "started run t1 with job \(onbox pid $pid\)" "$T/start.out"
	rc=0; onbox start >"$T/start2.out" 2>&1 || rc=$?
	assert_eq "$rc" 75
	assert_grep 'already running' "$T/start2.out"
	wait_for 20 has_submits 1
	id=$(job_of train)
	wait_for 20 grep -q 'pending for capacity' "$W/onbox.out"
	assert_eq "$(submits)" 1
	set_state "$id" running
	cli _log "$id" "Training completed"
	set_state "$id" succeeded
	wait_for 20 has_submits 2
	set_state "$(job_of eval)" succeeded
	wait_for 20 test -f "$W/markers/EVAL_DONE"
	wait_for 20 sh -c "! kill -0 $pid 2>/dev/null"
	assert_eq "$(submits)" 2
}

# A submit in flight when onbox died (recorded, no id): reconciled by name
# before any new submit.  found: the submit went through (adopted, not
# submitted again); none: nothing of that name, so onbox submits once.
inflight() {
	jconf
	hang_submits
	bg_onbox run
	first=$LAST_PID
	wait_for 20 grep -qs '"job_submit"' "$W/stages/train.json"
	wait_for 20 grep -qs 'submitting job wk-t1-train' "$T/onbox.out"
	kill -9 "$first"
	wait "$first" 2>/dev/null || true
	rm -f "$T/hang.submit"	# the wedged submit ends (nothing submitted yet)
	assert_eq "$(submits)" 0
	if [ "$1" = found ]; then
		nid=$(hand_submit train)
		set_state "$nid" running
	fi
	n=$(submits)
	rerun
	if [ "$1" = found ]; then
		wait_for 20 grep -q "adopting job $nid" "$T/onbox.out"
		assert_grep 'submit in flight' "$T/onbox.out"
	else
		wait_for 20 has_submits 1
		nid=$(job_of train)
		wait_for 20 grep -q "submitted job wk-t1-train as $nid" "$T/onbox.out"
	fi
	assert_grep 'was in flight when the last onbox stopped' "$T/onbox.out"
	assert_eq "$(hist train 'd["attempts"][0]["job_id"]')" "$nid"
	cli _log "$nid" "Training completed"
	set_state "$nid" succeeded
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	# Then eval's one submit: n + 1 in all when train's job was adopted,
	# n + 2 when the rerun submitted it (it never had been).
	want=$((n + 1))
	[ "$1" = found ] || want=$((n + 2))
	wait_for 20 njobs_is eval 1
	assert_eq "$(njobs train)" 1
	assert_eq "$(submits)" "$want" "train never submitted again; eval once"
}
test_inflight_submit_found() { inflight found; }
test_inflight_submit_none() { inflight none; }

# The CLI failing is "unknown": polled again, said loudly when it lasts, never dead.
test_unknown_is_not_dead() {
	export WATCHKEEPER_JOB_UNKNOWN_S=1
	jconf
	bg_onbox run
	wait_for 20 has_submits 1
	id=$(job_of train)
	set_state "$id" running
	wait_for 20 grep -qE '"job_state":[[:space:]]*"running"' "$W/stages/train.json"
	cli _fault fail
	wait_for 20 grep -q 'is unknown' "$T/onbox.out"
	wait_for 20 grep -q '"event":"job_unknown"' "$W/events.jsonl"
	assert_grep 'UNKNOWN for .*NOT treat it as dead' "$T/onbox.out"
	wait_for 20 grep -qE '"state":[[:space:]]*"unknown"' "$W/state.json"
	kill -0 "$LAST_PID"
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	cli _fault none
	wait_for 20 grep -q 'answers again' "$T/onbox.out"
	cli _log "$id" "Training completed"
	set_state "$id" succeeded
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	assert_eq "$(nevents job_unknown)" 1
	assert_eq "$(njobs train)" 1
}

# timeout_s: onbox asks the manager to stop the job; the attempt is a timeout.
test_stage_timeout_stops_job() {
	jconf '"restart": {"max": 0},' '[{"stage": "train", "run": "python train.py", "timeout_s": 1}]'
	# Running from its submit on: a state set after it could land after
	# onbox's stop (the 1 s timeout), and undo it.
	word running >"$T/cluster/submit_state"
	bg_onbox run
	wait_for 20 has_submits 1
	id=$(job_of train)
	wait_for 20 test -f "$W/markers/TRAIN_DONE.FAILED"
	rc=0; wait "$LAST_PID" || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["class"]')" timeout
	is_state "$id" stopped || fail "job $id not stopped: $(state_of "$id")"
}

# onbox stop: the running onbox asks the manager to stop the job (the profile's job.stop);
# the attempt is "stopped", not failed, and nothing is submitted again.
test_onbox_stop_stops_job() {
	jconf '' '[{"stage": "train", "run": "python train.py"}]'
	bg_onbox run
	first=$LAST_PID
	wait_for 20 has_submits 1
	id=$(job_of train)
	set_state "$id" running
	wait_for 20 grep -qE '"job_state":[[:space:]]*"running"' "$W/stages/train.json"
	rc=0; onbox stop >"$T/stop.out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep 'stopped run t1: stage train attempt 1 \(job.stop: the cluster manager stopped its job\)' "$T/stop.out"
	is_state "$id" stopped || fail "job $id not stopped: $(state_of "$id")"
	rc=0; wait "$first" || rc=$?
	assert_eq "$rc" 143
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	assert_eq "$(json "$W/stages/train.json" 'd["attempts"][-1]["result"]')" stopped
	assert_eq "$(grep -c '"run_stopped"' "$W/events.jsonl")" 1
	assert_eq "$(submits)" 1
}

for PROFILE in ray iris; do
	t "chain_completes[$PROFILE]" test_chain_completes
	t "pending_is_waiting[$PROFILE]" test_pending_is_waiting
	t "failed_job_class_from_log[$PROFILE]" test_failed_job_class_from_log
	t "stopped_job_restarted_free[$PROFILE]" test_stopped_job_restarted_free
	t "kill9_reattaches_same_job[$PROFILE]" test_kill9_reattaches_same_job
	t "sigterm_leaves_job_running[$PROFILE]" test_sigterm_leaves_job_running
	t "finished_unwatched_is_done[$PROFILE]" test_finished_unwatched_is_done
	t "id_changed_old_failed[$PROFILE]" test_id_changed_old_failed
	t "id_changed_old_gone[$PROFILE]" test_id_changed_old_gone
	t "start_twice_submits_once[$PROFILE]" test_start_twice_submits_once
	t "inflight_submit_found[$PROFILE]" test_inflight_submit_found
	t "inflight_submit_none[$PROFILE]" test_inflight_submit_none
	t "unknown_is_not_dead[$PROFILE]" test_unknown_is_not_dead
	t "stage_timeout_stops_job[$PROFILE]" test_stage_timeout_stops_job
	t "onbox_stop_stops_job[$PROFILE]" test_onbox_stop_stops_job
done
