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
GEN=		# iris's CLI generation for fake-iris (old | mid | new), "" for ray

# The fake CLI as $PROFILE first on PATH, a fresh fake cluster, the shipped profiles.
jsetup() {
	mkdir -p "$T/bin" "$T/cluster" "$T/work"
	ln -sf "$TOP/tests/e2e/fixtures/fake-$PROFILE" "$T/bin/$PROFILE"
	export PATH="$T/bin:$PATH" FAKE_JOB_DIR="$T/cluster" WATCHKEEPER_PROFILES="$TOP/profiles"
	[ -z "$GEN" ] || export FAKE_IRIS_GEN="$GEN"
	# The user iris submits as (the profile passes it, and find narrows by
	# it): the login name, as getpass gives it (old Iris has no IRIS_USER).
	unset IRIS_USER
	export LOGNAME=wk USER=wk
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
  // ray's profile fetches a live job's log every 10 s (the whole log each
  // time): every poll here, so that a test waits on events, not on that;
  // test_logs_poll_paced keeps the profile's pace
  "job": {"logs_poll_ms": ${LOGS_POLL_MS:-0}${JOBX:+, $JOBX}},
  ${1-}
  "chain": ${2:-$CHAIN2}
}
JSON
}

# word STATE: the manager's word for our state name (fake-iris's _jobs and
# _set speak today's lowercase in every generation).
word() {
	case $PROFILE:$1 in
	ray:*) printf '%s\n' "$1" | tr '[:lower:]' '[:upper:]' ;;
	iris:stopped) echo killed ;;
	iris:*) echo "$1" ;;
	esac
}
# raw_word STATE: the word the profile's status prints (old iris: the seed's JOB_STATE_*).
raw_word() {
	case $PROFILE:$GEN in
	iris:old) printf 'JOB_STATE_%s\n' "$(word "$1" | tr '[:lower:]' '[:upper:]')" ;;
	*) word "$1" ;;
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
	iris) cli job run --no-wait --job-name "wk-t1-$1" -- sh -c true 2>/dev/null ;;
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
# run_running: onbox run in the background ($first), its train job submitted
# and set running ($id).  kill_first: kill -9 that onbox and reap it.
run_running() {
	bg_onbox run
	first=$LAST_PID
	wait_for 20 has_submits 1
	id=$(job_of train)
	set_state "$id" running
}
kill_first() { kill -9 "$first"; wait "$first" 2>/dev/null || true; }
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
	assert_grep "job: $id \($(raw_word pending)\)" "$T/st"
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
	run_running
	cli _log "$id" "before the kill"
	wait_for 20 grep -q 'before the kill' "$W/logs/train.1.log"
	kill_first
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
	run_running
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
	kill_first
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
	run_running
	wait_for 20 grep -qE '"job_state":[[:space:]]*"running"' "$W/stages/train.json"
	kill_first
	case $1 in
	failed) set_state "$id" failed ;;
	gone) job_gone "$id" ;;
	esac
	nid=$(hand_submit train)
	set_state "$nid" running
	n=$(submits)
	rerun
	if [ "$PROFILE" = iris ]; then
		# Iris gives a name its id again (the old job finished or gone):
		# the same id, now the live job; followed, never submitted again.
		assert_eq "$nid" "$id"
		wait_for 20 grep -q "re-attaching to job $id" "$T/onbox.out"
		cli _log "$nid" "Training completed"
		set_state "$nid" succeeded
		wait_for 20 test -f "$W/markers/TRAIN_DONE"
		assert_eq "$(hist train 'len(d["attempts"])')" 1
		wait_for 20 has_submits $((n + 1))
		assert_eq "$(submits)" $((n + 1)) "only eval submitted after the re-attach"
		return 0
	fi
	[ -n "$nid" ] && [ "$nid" != "$id" ] || fail "hand submit gave '$nid'"
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
	kill_first
	rm -f "$T/hang.submit"	# the wedged submit ends (nothing submitted yet)
	assert_eq "$(submits)" 0
	if [ "$1" != none ]; then
		nid=$(hand_submit train)
		set_state "$nid" running
	fi
	if [ "$1" = crowded ]; then
		# 60 newer jobs of other names (and of another user): not among the
		# 50 newest, ours is found all the same (find narrows by prefix).
		for i in $(seq 1 60); do
			case $PROFILE in
			iris) cli _add "/$([ $((i % 2)) = 0 ] && echo wk || echo other)/other-$i" running ;;
			ray) cli job submit --submission-id "other-$i-20990101-000000" --no-wait -- sh -c true >/dev/null ;;
			esac
		done
	fi
	n=$(submits)
	rerun
	if [ "$1" != none ]; then
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
	[ "$1" != none ] || want=$((n + 2))
	wait_for 20 njobs_is eval 1
	assert_eq "$(njobs train)" 1
	assert_eq "$(submits)" "$want" "train never submitted again; eval once"
}
test_inflight_submit_found() { inflight found; }
test_inflight_submit_none() { inflight none; }
test_inflight_found_among_many() { inflight crowded; }

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
	run_running
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


# The CLI's dialect (iris: its generation) is detected once and recorded.
test_dialect_recorded() {
	jconf '' '[{"stage": "train", "run": "python train.py"}]'
	bg_onbox run
	wait_for 20 has_submits 1
	id=$(job_of train)
	set_state "$id" running
	wait_for 20 grep -qE '"job_state":[[:space:]]*"running"' "$W/stages/train.json"
	case $PROFILE:$GEN in
	iris:old) want=iris-json ;;
	iris:mid) want=iris-summary ;;
	iris:new) want=iris-describe ;;
	ray:) want= ;;
	esac
	if [ -n "$want" ]; then
		assert_eq "$(json "$W/job.json" 'd["dialect"]')" "$want"
		assert_grep "speaks dialect $want" "$T/onbox.out"
		wait_for 20 grep -qE "\"dialect\":[[:space:]]*\"$want\"" "$W/state.json"
	else
		assert_no_file "$W/job.json"
	fi
	set_state "$id" succeeded
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	assert_eq "$(grep -c 'speaks dialect' "$T/onbox.out")" "$([ -n "$want" ] && echo 1 || echo 0)"
}

# A log of 100,000 lines whose last lines are a traceback: it reaches the
# FAILED marker with its where, though iris shows a window of 2,000 lines and
# ray's log is past the 16 MiB kept (the copy never freezes).
test_long_log_traceback() {
	jconf '"restart": {"max": 0},' '[{"stage": "train", "run": "python train.py"}]'
	bg_onbox run
	wait_for 20 has_submits 1
	id=$(job_of train)
	set_state "$id" running
	cli _log "$id" "step 0 of 100000"
	wait_for 20 grep -q 'step 0 of 100000' "$W/logs/train.1.log"
	pad=$(printf '%0150d' 0)
	awk -v pad="$pad" 'BEGIN { for (i = 1; i <= 99992; i++) printf "step %d loss 2.5 %s\n", i, pad }' >"$T/big.log"
	cat "$TOP/tests/e2e/fixtures/code_error.log" >>"$T/big.log"	# its traceback last
	assert_eq "$(wc -l <"$T/big.log" | tr -d ' ')" 99999
	cli _logfile "$id" "$T/big.log"
	wait_for 30 grep -q "KeyError: 'learning_rate'" "$W/logs/train.1.log"
	set_state "$id" failed
	wait_for 30 test -f "$W/markers/TRAIN_DONE.FAILED"
	fm=$W/markers/TRAIN_DONE.FAILED
	assert_eq "$(json "$fm" 'd["class"]')" code_error
	assert_eq "$(json "$fm" 'd["where"]["file"]')" /root/run/train.py
	assert_eq "$(json "$fm" 'd["where"]["line"]')" 44
	assert_eq "$(json "$fm" 'd["where"]["function"]')" main
	# The line before the gap (if any) and the traceback, each once.
	assert_eq "$(grep -c 'step 0 of 100000' "$W/logs/train.1.log")" 1
	assert_eq "$(grep -c "KeyError: 'learning_rate'" "$W/logs/train.1.log")" 1
	if [ "$PROFILE" = iris ]; then
		assert_grep 'lines in between may be missing' "$W/logs/train.1.log"
	fi
}

# Lines that arrive a few at a time through a window (iris) or the whole log
# (ray) are copied once each, in order, over many polls.
test_log_flows_in_order() {
	jconf '' '[{"stage": "train", "run": "python train.py"}]'
	bg_onbox run
	wait_for 20 has_submits 1
	id=$(job_of train)
	set_state "$id" running
	for i in $(seq 1 30); do
		cli _log "$id" "line $i"
		[ $((i % 10)) != 0 ] || wait_for 20 grep -q "line $i\$" "$W/logs/train.1.log"
	done
	set_state "$id" succeeded
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	grep -oE 'line [0-9]+$' "$W/logs/train.1.log" >"$T/got"
	seq 1 30 | sed 's/^/line /' >"$T/want"
	assert_eq "$(cat "$T/got")" "$(cat "$T/want")"
	assert_no_grep 'may be missing' "$W/logs/train.1.log"
}

# chain[].job: the stage's own options reach the CLI; one watchkeeper sets is refused.
test_stage_options() {
	case $PROFILE in
	iris) opts='{"tpu": "v5p-8", "memory": "64GB", "enable-extra-resources": true}'
		want='--tpu=v5p-8 --memory=64GB --enable-extra-resources'
		bad='{"job-name": "x"}' badname=job-name ;;
	ray) opts='{"entrypoint-num-gpus": 1, "runtime-env-json": "{\"pip\": [\"x\"]}"}'
		want='--entrypoint-num-gpus=1 --runtime-env-json={"pip": ["x"]}'
		bad='{"submission-id": "x"}' badname=submission-id ;;
	esac
	jconf '' "[{\"stage\": \"train\", \"run\": \"python train.py\", \"job\": $opts}]"
	bg_onbox run
	wait_for 20 has_submits 1
	id=$(job_of train)
	got=$(cat "$T"/cluster/jobs/*/opts | tr '\n' ' ')
	for w in $want; do
		case " $got " in *" $w "*) ;; *) fail "option $w not passed: $got" ;; esac
	done
	set_state "$id" succeeded
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	wait "$LAST_PID"
	# Refused before anything runs: the option is watchkeeper's.
	rm -rf "$T/work/.watchkeeper"
	jconf '' "[{\"stage\": \"train\", \"run\": \"python train.py\", \"job\": $bad}]"
	rc=0; onbox run >"$T/bad.out" 2>&1 || rc=$?
	assert_eq "$rc" 78
	assert_grep "chain\\[0\\].job \\(stage train\\): \"$badname\": watchkeeper sets --$badname itself" "$T/bad.out"
	# Not an option the profile lists (a typo).
	jconf '' '[{"stage": "train", "run": "python train.py", "job": {"gpux": "1"}}]'
	rc=0; onbox run >"$T/bad2.out" 2>&1 || rc=$?
	assert_eq "$rc" 78
	assert_grep 'is not an option job.options lists' "$T/bad2.out"
}

# A job started by hand is adopted (never submitted), watched and triaged as
# ours; on a failure the owner's resubmit command recovers it, its new id is
# captured and the attempt count kept.
test_adopt_and_resubmit() {
	jsetup
	case $PROFILE in
	iris) hid=$(cli job run --no-wait --job-name held-sweep -- sh -c 'python sweep.py' 2>/dev/null)
		resub='iris job run --no-wait --job-name held-sweep -- sh -c \"python sweep.py\"' ;;
	ray) cli job submit --submission-id ray-run-held-sweep-20260131-051716 --no-wait -- \
		    sh -c 'python sweep.py' >/dev/null
		hid=ray-run-held-sweep-20260131-051716
		resub='ray job submit --submission-id ray-run-held-sweep-$(date +%s%N) --no-wait -- sh -c \"python sweep.py\"' ;;
	esac
	set_state "$hid" running
	n0=$(submits)
	jconf '"restart": {"max": 2, "escalate_s": 0},' "[{\"stage\": \"train\", \"adopt\": \"$hid\", \"resubmit\": \"$resub\"}]"
	bg_onbox run
	wait_for 20 grep -q "adopting job $hid" "$T/onbox.out"
	wait_for 20 grep -qE '"job_state":[[:space:]]*"running"' "$W/stages/train.json"
	assert_eq "$(submits)" "$n0" "an adopted job is not submitted"
	assert_eq "$(hist train 'd["attempts"][0]["job_adopt"]')" "$hid"
	cli _log "$hid" "NCCL error: unhandled system error, remote process exited"
	set_state "$hid" failed
	wait_for 30 test -f "$W/attempts/train.2.json"
	wait_for 20 has_submits $((n0 + 1))
	wait_for 20 grep -qE '"job_id"' "$W/attempts/train.2.json"
	nid=$(json "$W/attempts/train.2.json" 'd["job_id"]')
	assert_grep 'chain\[0\].resubmit' "$T/onbox.out"
	assert_eq "$(hist train 'd["attempts"][0]["class"]')" nccl_timeout
	assert_eq "$(hist train 'd["attempts"][1]["job_id"]')" "$nid"
	[ "$PROFILE" = iris ] || [ "$nid" != "$hid" ] || fail "ray gave the same id"
	set_state "$nid" running
	cli _log "$nid" "step 5"
	wait_for 20 grep -q 'step 5' "$W/logs/train.2.log"
	set_state "$nid" succeeded
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	assert_eq "$(json "$W/markers/TRAIN_DONE" 'd["attempt"]')" 2
	assert_eq "$(submits)" $((n0 + 1)) "one resubmit, by the owner's command"
}

# The resubmit must not wait for the job; refused as a config error.
test_resubmit_needs_no_wait() {
	jconf '' '[{"stage": "train", "adopt": "x", "resubmit": "sh -c true"}]'
	rc=0; onbox run >"$T/bad.out" 2>&1 || rc=$?
	assert_eq "$rc" 78
	assert_grep 'chain\[0\].resubmit \(stage train\): must pass --no-wait' "$T/bad.out"
}

# Pending past job.pending_alert_s: one degraded capacity_wait alert, nothing changed.
test_capacity_wait() {
	JOBX='"pending_alert_s": 1' jconf '' '[{"stage": "train", "run": "python train.py"}]'
	bg_onbox run
	wait_for 20 has_submits 1
	id=$(job_of train)
	wait_for 20 grep -q '"kind":"capacity_wait"' "$W/events.jsonl"
	wait_for 20 grep -q '"capacity_wait"' "$W/state.json"
	assert_grep '"severity":"degraded"' "$W/events.jsonl"
	# Heartbeats go on: still one alert, the job untouched and not resubmitted.
	t0=$(json "$W/state.json" 'd["time_unix"]')
	wait_for 20 json_ge "$W/state.json" 'd["time_unix"]' $((${t0%.*} + 2))
	assert_eq "$(grep -c '"kind":"capacity_wait"' "$W/events.jsonl")" 1
	is_state "$id" pending || fail "the job was touched: $(state_of "$id")"
	assert_eq "$(submits)" 1
	set_state "$id" running
	wait_for 20 sh -c "! grep -q '\"capacity_wait\"' '$W/state.json'"
	set_state "$id" succeeded
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
}

# A job the manager failed with nothing in its log: cluster_failure, retried.
test_cluster_failure_retried() {
	jconf '"restart": {"max": 1, "escalate_s": 0},' '[{"stage": "train", "run": "python train.py"}]'
	bg_onbox run
	wait_for 20 has_submits 1
	id=$(job_of train)
	set_state "$id" running
	case $PROFILE in iris) set_state "$id" worker_failed ;; ray) set_state "$id" failed ;; esac
	wait_for 30 sh -c "grep -qE '\"job_id\":' '$W/attempts/train.2.json' 2>/dev/null"
	assert_eq "$(hist train 'd["attempts"][0]["class"]')" cluster_failure
	assert_eq "$(hist train 'd["attempts"][0]["policy"]["rule"]')" retry
	id2=$(json "$W/attempts/train.2.json" 'd["job_id"]')
	set_state "$id2" succeeded
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
}

# A bad accelerator is never relaunched onto the same worker: the owner is asked.
test_bad_accelerator_asks_owner() {
	jconf '"restart": {"max": 3},' '[{"stage": "train", "run": "python train.py"}]'
	bg_onbox run
	wait_for 20 has_submits 1
	id=$(job_of train)
	set_state "$id" running
	cli _log "$id" "RuntimeError: No accelerator found on worker tpu-v5p-8-w-7"
	set_state "$id" failed
	wait_for 20 test -f "$W/markers/TRAIN_DONE.FAILED"
	fm=$W/markers/TRAIN_DONE.FAILED
	assert_eq "$(json "$fm" 'd["class"]')" bad_accelerator
	assert_eq "$(json "$fm" 'd["policy"]["rule"]')" consent
	assert_grep 'tpu-v5p-8-w-7' "$fm"
	assert_eq "$(submits)" 1 "not relaunched in place"
}

# A cluster signal in a live job's log (OwnerDiedError, a dead node, the
# autoscaler's unsatisfied resources) goes into the heartbeat, where patrol
# reads it: with no progress, the run is DEGRADED (cluster_stall).
test_cluster_signal_recorded() {
	jconf '' '[{"stage": "train", "run": "python train.py"}]'
	bg_onbox run
	wait_for 20 has_submits 1
	id=$(job_of train)
	set_state "$id" running
	cli _log "$id" "step 10"
	cli _log "$id" "(autoscaler +2m) Warning: The following resource request cannot be scheduled right now: {'TPU': 8.0}. Resources are unsatisfied resource demand"
	wait_for 20 grep -q '"cluster_signal"' "$W/state.json"
	assert_eq "$(json "$W/state.json" 'd["job"]["cluster_signal"]["signal"]')" "autoscaler unsatisfied resources"
	assert_grep 'shows a cluster signal \(autoscaler unsatisfied resources\)' "$T/onbox.out"
	cli _log "$id" "ray.exceptions.OwnerDiedError: Failed to retrieve object"
	wait_for 20 grep -q '"signal":[[:space:]]*"OwnerDiedError"' "$W/state.json"
	kill -0 "$LAST_PID"
	set_state "$id" succeeded
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
}

# onbox killed after it appended a piece of the job's log but before it
# recorded how far it got (the record as it was before the append): the
# next onbox goes on from the output log's own end, each line once.
test_crash_between_copy_and_record() {
	jconf '' '[{"stage": "train", "run": "python train.py"}]'
	run_running
	cli _log "$id" "line one"
	wait_for 20 grep -q 'line one' "$W/logs/train.1.log"
	kill_first
	python3 - "$W/stages/train.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a = d["attempts"][-1]
a.pop("job_log_anchor", None)
a.pop("job_log_seen_ms", None)
a["job_log_bytes"] = 0
json.dump(d, open(sys.argv[1], "w"))
PY
	cli _log "$id" "line two"
	rerun
	wait_for 20 grep -q 'line two' "$W/logs/train.1.log"
	assert_grep 'went further than recorded' "$T/onbox.out"
	set_state "$id" succeeded
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	assert_eq "$(grep -c 'line one' "$W/logs/train.1.log")" 1 "each line once"
	assert_eq "$(grep -c 'line two' "$W/logs/train.1.log")" 1
	assert_no_grep 'may be missing' "$W/logs/train.1.log"
}

# The CLI upgraded under a running job (the seed's Iris to today's): the
# recorded dialect's status is refused as a usage error (exit 2), so onbox
# detects the dialect again, records it, and follows the same job.
test_cli_upgraded_mid_run() {
	jconf '' '[{"stage": "train", "run": "python train.py"}]'
	run_running
	wait_for 20 grep -qE '"job_state":[[:space:]]*"running"' "$W/stages/train.json"
	assert_eq "$(json "$W/job.json" 'd["dialect"]')" iris-json
	kill_first
	export FAKE_IRIS_GEN=new
	rerun
	wait_for 20 grep -q 'detecting its dialect again' "$T/onbox.out"
	wait_for 20 grep -q 'speaks dialect iris-describe of job.dialects; it spoke iris-json' "$T/onbox.out"
	assert_eq "$(json "$W/job.json" 'd["dialect"]')" iris-describe
	assert_eq "$(json "$W/job.json" 'd["previous"]')" iris-json
	cli _log "$id" "Training completed"
	set_state "$id" succeeded
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	assert_eq "$(njobs train)" 1
}

# The profile's own pace (ray: every 10 s, the whole log each time): a live
# job's log is fetched no more often than that, and once more at its end.
test_logs_poll_paced() {
	LOGS_POLL_MS=3000 jconf '"restart": {"max": 0},' '[{"stage": "train", "run": "python train.py"}]'
	bg_onbox run
	wait_for 20 has_submits 1
	id=$(job_of train)
	set_state "$id" running
	cli _log "$id" "first"
	wait_for 20 grep -q 'first' "$W/logs/train.1.log"
	cli _log "$id" "second"
	# Polls go on (the heartbeat's time moves) while the log waits its turn.
	t0=$(json "$W/state.json" 'd["time_unix"]')
	wait_for 20 json_ge "$W/state.json" 'd["time_unix"]' $((${t0%.*} + 1))
	wait_for 20 grep -q 'second' "$W/logs/train.1.log"
	cli _log "$id" "last words"
	set_state "$id" failed
	wait_for 20 test -f "$W/markers/TRAIN_DONE.FAILED"
	assert_grep 'last words' "$W/logs/train.1.log"
}

for V in ray iris:old iris:mid iris:new; do
	PROFILE=${V%%:*}
	GEN=
	case $V in *:*) GEN=${V#*:} ;; esac
	V=$PROFILE${GEN:+-$GEN}
	t "chain_completes[$V]" test_chain_completes
	t "pending_is_waiting[$V]" test_pending_is_waiting
	t "failed_job_class_from_log[$V]" test_failed_job_class_from_log
	t "stopped_job_restarted_free[$V]" test_stopped_job_restarted_free
	t "kill9_reattaches_same_job[$V]" test_kill9_reattaches_same_job
	t "sigterm_leaves_job_running[$V]" test_sigterm_leaves_job_running
	t "finished_unwatched_is_done[$V]" test_finished_unwatched_is_done
	t "id_changed_old_failed[$V]" test_id_changed_old_failed
	t "id_changed_old_gone[$V]" test_id_changed_old_gone
	t "start_twice_submits_once[$V]" test_start_twice_submits_once
	t "inflight_submit_found[$V]" test_inflight_submit_found
	t "inflight_submit_none[$V]" test_inflight_submit_none
	t "unknown_is_not_dead[$V]" test_unknown_is_not_dead
	t "stage_timeout_stops_job[$V]" test_stage_timeout_stops_job
	t "onbox_stop_stops_job[$V]" test_onbox_stop_stops_job
	t "dialect_recorded[$V]" test_dialect_recorded
	t "long_log_traceback[$V]" test_long_log_traceback
	t "log_flows_in_order[$V]" test_log_flows_in_order
	t "inflight_found_among_many[$V]" test_inflight_found_among_many
	t "stage_options[$V]" test_stage_options
	t "adopt_and_resubmit[$V]" test_adopt_and_resubmit
	t "resubmit_needs_no_wait[$V]" test_resubmit_needs_no_wait
	t "capacity_wait[$V]" test_capacity_wait
	t "cluster_failure_retried[$V]" test_cluster_failure_retried
	t "bad_accelerator_asks_owner[$V]" test_bad_accelerator_asks_owner
	t "cluster_signal_recorded[$V]" test_cluster_signal_recorded
	t "crash_between_copy_and_record[$V]" test_crash_between_copy_and_record
	t "logs_poll_paced[$V]" test_logs_poll_paced
	[ "$V" != iris-old ] || t "cli_upgraded_mid_run[$V]" test_cli_upgraded_mid_run
done
