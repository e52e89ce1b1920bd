#!/usr/bin/env bash
# End-to-end tests of the slurm-job profile (detach "job" over Slurm's own
# CLI, profiles/slurm-job.json) against a real one-node Slurm cluster
# (tests/e2e/slurm.sh) that each test starts and stops itself: onbox on the
# "login node" (this machine) submits, follows, stops and adopts real Slurm
# jobs whose commands print their own logs.  The same scenarios as
# test_job.sh's for Ray and Iris: submit; status through pending, running and
# the end; a 100,000-line log whose final traceback reaches the FAILED
# marker; stop; find by name among more than 50 other jobs; a job started by
# hand adopted and recovered with the owner's resubmit command; capacity_wait.
# Without the Slurm packages every test says SKIP.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/slurm.sh"

# sjconf [EXTRA_TOP_LEVEL_JSON] CHAIN_JSON: $T/wk.json for run t1, profile slurm-job.
sjconf() {
	mkdir -p "$T/work"
	export WATCHKEEPER_PROFILES="$TOP/profiles"
	cat >"$T/wk.json" <<JSON
{
  // written by test_slurm_job.sh
  "run": "t1",
  "profile": "slurm-job",
  "workdir": "$T/work",
  "heartbeat_s": 1,
  "poll_ms": 200,
  // the profile reads a live job's output file every 10 s: every poll here
  "job": {"logs_poll_ms": 0${JOBX:+, $JOBX}},
  ${1-}
  "chain": $2
}
JSON
}
jobs_named() { squeue -h -t all -n "$1" -o %i | sort -n; }
njobs() { jobs_named "$1" | wc -l | tr -d ' '; }
job_of() { jobs_named "wk-t1-$1" | tail -n 1; }
has_job() { [ -n "$(job_of "$1")" ]; }
job_state() { squeue -h -t all -j "$1" -o %T 2>/dev/null; }
is_state() { [ "$(job_state "$1")" = "$2" ]; }
hist() { json "$W/stages/$1.json" "$2"; }

# A stage runs as a Slurm job: held first (pending, capacity_wait), released,
# its log copied, its end a marker; status says pending then running.
test_held_then_done() {
	JOBX='"pending_alert_s": 1' sjconf '' \
	    '[{"stage": "train", "run": "echo step 1; sleep 2; echo Training completed", "done_when": "Training completed", "job": {"hold": true}}]'
	bg_onbox run
	wait_for 30 has_job train
	id=$(job_of train)
	wait_for 30 grep -q "pending for capacity (PENDING)" "$T/onbox.out"
	wait_for 30 grep -q '"kind":"capacity_wait"' "$W/events.jsonl"
	wait_for 30 grep -q '"capacity_wait"' "$W/state.json"
	is_state "$id" PENDING || fail "the held job was touched: $(job_state "$id")"
	scontrol release "$id"
	wait_for 60 grep -q "is running (RUNNING)" "$T/onbox.out"
	wait_for 60 test -f "$W/markers/TRAIN_DONE"
	assert_grep 'step 1' "$W/logs/train.1.log"
	assert_eq "$(grep -c "\"event\":\"health_alert\".*\"kind\":\"capacity_wait\"" "$W/events.jsonl")" 1
	assert_eq "$(njobs wk-t1-train)" 1
	wait "$LAST_PID"
}

# 100,000 lines, then a traceback and exit 1: FAILED with where.
test_long_log_traceback() {
	mkdir -p "$T/work"
	cat >"$T/work/big.sh" <<SH
#!/bin/sh
awk 'BEGIN { for (i = 1; i <= 100000; i++) printf "step %d loss 2.5 %0150d\\n", i, 0 }'
cat '$TOP/tests/e2e/fixtures/code_error.log'	# its traceback last
exit 1
SH
	chmod +x "$T/work/big.sh"
	sjconf '"restart": {"max": 0},' "[{\"stage\": \"train\", \"run\": \"$T/work/big.sh\"}]"
	bg_onbox run
	wait_for 90 test -f "$W/markers/TRAIN_DONE.FAILED"
	fm=$W/markers/TRAIN_DONE.FAILED
	assert_eq "$(json "$fm" 'd["class"]')" code_error
	assert_eq "$(json "$fm" 'd["where"]["file"]')" /root/run/train.py
	assert_eq "$(json "$fm" 'd["where"]["line"]')" 44
	assert_eq "$(hist train 'd["attempts"][0]["job_raw_state"]')" FAILED
	assert_eq "$(grep -c "KeyError: 'learning_rate'" "$W/logs/train.1.log")" 1
}

# onbox stop cancels the job (scancel): the attempt is stopped, not failed.
test_stop_cancels() {
	sjconf '' '[{"stage": "train", "run": "echo started; sleep 300"}]'
	bg_onbox run
	first=$LAST_PID
	wait_for 30 has_job train
	id=$(job_of train)
	wait_for 60 grep -qE '"job_state":[[:space:]]*"running"' "$W/stages/train.json"
	rc=0; onbox stop >"$T/stop.out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	wait_for 30 is_state "$id" CANCELLED
	rc=0; wait "$first" || rc=$?
	assert_eq "$rc" 143
	assert_eq "$(hist train 'd["attempts"][-1]["result"]')" stopped
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
}

# A job of the stage's name already runs (submitted by hand), among 55 other
# jobs: found by name and followed; nothing is submitted.
test_found_among_many() {
	for i in $(seq 1 55); do
		sbatch --hold -J "other-$i" --wrap true -o /dev/null >/dev/null || fail "sbatch other-$i"
	done
	mkdir -p "$T/work"
	hid=$(cd "$T/work" && sbatch --parsable -J wk-t1-train --wrap 'echo by hand; sleep 3; echo Training completed')
	sjconf '' '[{"stage": "train", "run": "echo never", "done_when": "Training completed"}]'
	bg_onbox run
	wait_for 30 grep -q "adopting job $hid" "$T/onbox.out"
	wait_for 60 test -f "$W/markers/TRAIN_DONE"
	assert_eq "$(njobs wk-t1-train)" 1 "not submitted again"
	assert_grep 'by hand' "$W/logs/train.1.log"
	assert_eq "$(hist train 'd["attempts"][0]["job_id"]')" "$hid"
}

# A job started by hand (chain[].adopt) fails; the owner's resubmit command
# recovers it and its new id is followed; the attempt count goes on.
test_adopt_and_resubmit() {
	mkdir -p "$T/work"
	hid=$(cd "$T/work" && sbatch --parsable -J held-sweep --wrap 'echo by hand; sleep 2; echo "NCCL error: unhandled system error"; exit 1')
	resub="sbatch --parsable -J held-sweep --wrap 'echo again; echo Training completed'"
	sjconf '"restart": {"max": 2, "escalate_s": 0},' \
	    "[{\"stage\": \"train\", \"adopt\": \"$hid\", \"resubmit\": \"$resub\", \"done_when\": \"Training completed\"}]"
	bg_onbox run
	wait_for 30 grep -q "adopting job $hid" "$T/onbox.out"
	wait_for 90 test -f "$W/markers/TRAIN_DONE"
	assert_eq "$(hist train 'd["attempts"][0]["class"]')" nccl_timeout
	assert_eq "$(hist train 'd["attempts"][0]["job_adopt"]')" "$hid"
	nid=$(hist train 'd["attempts"][1]["job_id"]')
	[ "$nid" != "$hid" ] || fail "the same job followed twice"
	assert_eq "$(njobs held-sweep)" 2
	assert_grep 'again' "$W/logs/train.2.log"
	assert_eq "$(json "$W/markers/TRAIN_DONE" 'd["attempt"]')" 2
}

# A bad accelerator: resubmitted with --exclude=<the node it failed on>.
# This cluster has one node, so sbatch refuses that ("Requested node
# configuration is not available"): proof that the option reached it.
test_bad_accelerator_excludes_node() {
	sjconf '"restart": {"max": 1},' \
	    '[{"stage": "train", "run": "echo RuntimeError: No accelerator found; exit 1"}]'
	bg_onbox run
	wait_for 60 grep -q "keeping the job off $SLURM_NODE" "$T/onbox.out"
	wait_for 60 grep -q 'Requested node configuration is not available' "$T/onbox.out"
	assert_eq "$(hist train 'd["attempts"][0]["class"]')" bad_accelerator
	assert_eq "$(hist train 'd["attempts"][0]["job_node"]')" "$SLURM_NODE"
	assert_eq "$(hist train 'd["attempts"][0]["policy"]["rule"]')" retry
	assert_grep "\(--exclude=$SLURM_NODE\)" "$T/onbox.out"
}

TESTS="bad_accelerator_excludes_node held_then_done long_log_traceback stop_cancels found_among_many adopt_and_resubmit"
if ! slurm_available; then
	for n in $TESTS; do echo "SKIP slurm_job_$n: $SLURM_SKIP_REASON"; done
	exit 0
fi
for n in $TESTS; do
	eval "tc_$n() { slurm_start; test_$n; }"
	t "slurm_job_$n" "tc_$n"
done
