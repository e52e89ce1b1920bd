#!/usr/bin/env bash
# End-to-end tests of the restart policy (core/policy.c) as onbox applies it
# on the box, on real processes: retryable failures restarted within the
# budget, never-retry classes stopped with their remediation, the same class
# again right after a restart escalated, flapping stopped, infrastructure
# failures free, a restarted failure leaving no FAILED marker behind.
. "$(dirname "$0")/lib.sh"

# flaky N CLASS: a stage that fails N times with CLASS's signature, then succeeds.
flaky() {
	local n=$1 cls=$2 line
	case $cls in
	nccl) line='RuntimeError: NCCL communicator was aborted: Watchdog caught collective operation timeout' ;;
	oom) line='torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB' ;;
	esac
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
echo x >>"$T/launch.train"
n=\$(wc -l <"$T/launch.train")
if [ "\$n" -le $n ]; then echo "$line" >&2; exit 1; fi
echo "Training completed"
SH
	chmod +x "$T/bin/train.sh"
}
launches() { [ -f "$T/launch.train" ] && wc -l <"$T/launch.train" | tr -d ' ' || echo 0; }
pconf() { conf "\"restart\": $1," "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}, {\"stage\": \"eval\", \"run\": \"true\"}]"; }

test_retryable_restarted_within_budget() {
	flaky 2 nccl
	pconf '{"max": 3, "escalate_s": 0}'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0 "onbox exit"
	assert_eq "$(launches)" 3
	assert_file "$(W)/markers/TRAIN_DONE"
	assert_file "$(W)/markers/EVAL_DONE"
	# A restarted failure leaves no FAILED marker; its events say it restarted.
	assert_no_file "$(W)/markers/TRAIN_DONE.FAILED"
	assert_eq "$(grep -c '"restarting":true' "$(W)/events.jsonl")" 2
	assert_grep 'restart 2 of restart.max 3' "$T/out"
	assert_eq "$(json "$(W)/stages/train.json" 'd["attempts"][0]["policy"]["rule"]')" retry
}

test_budget_spent_stops() {
	flaky 100 nccl
	pconf '{"max": 2, "escalate_s": 0}'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(launches)" 3 "two restarts, then stop"
	assert_eq "$(json "$(W)/markers/TRAIN_DONE.FAILED" 'd["policy"]["rule"]')" budget
	assert_eq "$(json "$(W)/markers/TRAIN_DONE.FAILED" 'd["attempt"]')" 3
	assert_grep 'not restarted: .*restart budget spent' "$T/out"
	assert_no_file "$(W)/markers/EVAL_DONE"
}

test_never_retry_class_not_restarted() {
	flaky 100 oom
	pconf '{"max": 3}'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(launches)" 1
	assert_eq "$(json "$(W)/markers/TRAIN_DONE.FAILED" 'd["class"]')" cuda_oom
	assert_eq "$(json "$(W)/markers/TRAIN_DONE.FAILED" 'd["policy"]["rule"]')" never_retry
	assert_grep 'Lower the batch size' "$T/out"
}

test_same_class_right_after_restart_escalates() {
	flaky 100 nccl
	pconf '{"max": 5, "escalate_s": 600}'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(launches)" 2 "one restart, then escalated"
	assert_eq "$(json "$(W)/markers/TRAIN_DONE.FAILED" 'd["policy"]["rule"]')" escalate
}

test_flapping_stops() {
	flaky 100 nccl
	pconf '{"max": 100, "escalate_s": 0, "window_s": 600, "max_in_window": 2}'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(launches)" 3 "more than 2 failures in the window stops"
	assert_eq "$(json "$(W)/markers/TRAIN_DONE.FAILED" 'd["policy"]["rule"]')" flapping
}

# Preemption (SIGTERM from outside) is infrastructure: restarted even with no budget at all.
test_infra_failure_does_not_consume_budget() {
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
echo x >>"$T/launch.train"
if [ "\$(wc -l <"$T/launch.train")" -le 2 ]; then kill -TERM \$\$; sleep 5; fi
echo done
SH
	chmod +x "$T/bin/train.sh"
	pconf '{"max": 0, "escalate_s": 0}'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(launches)" 3
	assert_eq "$(json "$(W)/stages/train.json" 'd["attempts"][0]["class"]')" preempted
	assert_eq "$(json "$(W)/stages/train.json" 'd["attempts"][1]["policy"]["counts"]')" false
}

t retryable_restarted_within_budget test_retryable_restarted_within_budget
t budget_spent_stops test_budget_spent_stops
t never_retry_class_not_restarted test_never_retry_class_not_restarted
t same_class_right_after_restart_escalates test_same_class_right_after_restart_escalates
t flapping_stops test_flapping_stops
t infra_failure_does_not_consume_budget test_infra_failure_does_not_consume_budget
