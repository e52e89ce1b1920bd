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
	assert_file "$W/markers/TRAIN_DONE"
	assert_file "$W/markers/EVAL_DONE"
	# A restarted failure leaves no FAILED marker; its events say it restarted.
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	assert_eq "$(grep -c '"restarting":true' "$W/events.jsonl")" 2
	assert_grep 'restart 2 of restart.max 3' "$T/out"
	assert_eq "$(json "$W/stages/train.json" 'd["attempts"][0]["policy"]["rule"]')" retry
}

test_budget_spent_stops() {
	flaky 100 nccl
	pconf '{"max": 2, "escalate_s": 0}'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(launches)" 3 "two restarts, then stop"
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["policy"]["rule"]')" budget
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["attempt"]')" 3
	assert_grep 'not restarted: .*restart budget spent' "$T/out"
	assert_no_file "$W/markers/EVAL_DONE"
}

test_never_retry_class_not_restarted() {
	flaky 100 oom
	pconf '{"max": 3}'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(launches)" 1
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["class"]')" cuda_oom
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["policy"]["rule"]')" never_retry
	assert_grep 'Lower the batch size' "$T/out"
}

test_same_class_right_after_restart_escalates() {
	flaky 100 nccl
	pconf '{"max": 5, "escalate_s": 600}'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(launches)" 2 "one restart, then escalated"
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["policy"]["rule"]')" escalate
}

test_flapping_stops() {
	flaky 100 nccl
	pconf '{"max": 100, "escalate_s": 0, "window_s": 600, "max_in_window": 2}'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(launches)" 3 "more than 2 failures in the window stops"
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["policy"]["rule"]')" flapping
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
	assert_eq "$(json "$W/stages/train.json" 'd["attempts"][0]["class"]')" preempted
	assert_eq "$(json "$W/stages/train.json" 'd["attempts"][1]["policy"]["counts"]')" false
}

# A retryable failure restarts from the newest COMPLETE checkpoint by numeric
# step: step_10 after step_9, the newer step_11 without metadata.json skipped.
test_restart_from_newest_complete_checkpoint() {
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
printf '%s\n' "\${1-(none)}" >>"$T/args"
if [ "\$(wc -l <"$T/args")" -eq 1 ]; then
	for s in 9 10; do mkdir -p ckpt/step_\$s; echo '{}' >ckpt/step_\$s/metadata.json; done
	mkdir -p ckpt/step_11
	echo "RuntimeError: NCCL communicator was aborted: Watchdog caught collective operation timeout" >&2
	exit 1
fi
echo "Training completed"
SH
	chmod +x "$T/bin/train.sh"
	conf '"restart": {"escalate_s": 0}, "checkpoints": {"dir": "ckpt", "pattern": "^step_(\\d+)$"},' \
		"[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh {checkpoint}\"}]"
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(sed -n 1p "$T/args")" "" "a fresh start gets checkpoints.none"
	assert_eq "$(sed -n 2p "$T/args")" "$T/work/ckpt/step_10"
	assert_eq "$(json "$W/stages/train.json" 'd["attempts"][1]["checkpoint"]')" "$T/work/ckpt/step_10"
	assert_grep '"checkpoint":"[^"]*/ckpt/step_10"' "$W/events.jsonl"
	assert_grep 'resumes from checkpoint .*step_10 \(step 10\)' "$T/out"
	# onbox status reports the newest complete one and its age.
	onbox status >"$T/st"
	assert_grep '^checkpoints: newest complete checkpoint step 10 \(step_10, [0-9]+s old\); 2 complete, 1 incomplete \(newest step 11\)$' "$T/st"
	assert_eq "$(onbox status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["checkpoint"]["step"])')" 10
}

# checkpoints.fallback stop: no complete checkpoint, no launch, a clear FAILED marker.
test_no_checkpoint_fallback_stop() {
	mkdir -p "$T/bin" "$T/work/ckpt/step_5"
	printf '#!/bin/sh\necho x >>"%s/launch.train"\n' "$T" >"$T/bin/train.sh"
	chmod +x "$T/bin/train.sh"
	conf '"checkpoints": {"dir": "ckpt", "pattern": "^step_(\\d+)$", "fallback": "stop"},' \
		"[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh --resume {checkpoint}\"}]"
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(launches)" 0
	json "$W/markers/TRAIN_DONE.FAILED" 'd["exec_error"]' | grep -q 'no complete checkpoint in .*ckpt (1 entr.*newest incomplete: step 5.*fallback is stop' ||
		fail "FAILED marker: $(<"$W/markers/TRAIN_DONE.FAILED")"
}

# "hero": true (seed 004): the first launch starts fresh, but a relaunch with
# no complete checkpoint stops (a hero run never restarts from step 0); a
# checkpoint in checkpoints.reject is never resumed from, however new.
test_hero_relaunch_needs_checkpoint() {
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
printf '%s\n' "\${2-(none)}" >>"$T/args"
mkdir -p ckpt/step_7 ckpt/step_9
echo '{}' >ckpt/step_9/metadata.json
echo "RuntimeError: NCCL communicator was aborted" >&2
exit 1
SH
	chmod +x "$T/bin/train.sh"
	# (the workdir is no git work tree: --allow-dirty lets the launch gate pass it)
	conf '"hero": true, "output_root": "out", "progress": {"pattern": "step (\\d+)", "max": 100}, "restart": {"escalate_s": 0}, "checkpoints": {"dir": "ckpt", "pattern": "^step_(\\d+)$", "reject": ["step_9"]},' \
		"[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh --resume {checkpoint}\"}]"
	rc=0; onbox run --allow-dirty >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(wc -l <"$T/args" | tr -d ' ')" 1 "launched once: the relaunch had nothing to resume from"
	json "$W/markers/TRAIN_DONE.FAILED" 'd["exec_error"]' | grep -q 'hero run: attempt 2 is a relaunch and .*ckpt holds no complete checkpoint' ||
		fail "FAILED marker: $(<"$W/markers/TRAIN_DONE.FAILED")"
	assert_no_grep 'attempt 2: no complete checkpoint .*starting fresh' "$T/out"
	# The same run without the rejection resumes from step_9.
	rm -rf "$T/work/.watchkeeper" "$T/args"
	conf '"hero": true, "output_root": "out", "progress": {"pattern": "step (\\d+)", "max": 100}, "restart": {"escalate_s": 0, "max": 1}, "checkpoints": {"dir": "ckpt", "pattern": "^step_(\\d+)$"},' \
		"[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh --resume {checkpoint}\"}]"
	rc=0; onbox run --allow-dirty >"$T/out" 2>&1 || rc=$?
	assert_eq "$(sed -n 1p "$T/args")" "$T/work/ckpt/step_9"
	# A hero run without its final step in the config is refused before anything runs.
	rm -rf "$T/work/.watchkeeper" "$T/args"
	conf '"hero": true,' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 78
	assert_grep 'key "hero": a hero run needs "progress.max"' "$T/out"
	assert_grep 'key "hero": a hero run needs "output_root"' "$T/out"
	assert_no_file "$T/args"
}

# {checkpoint} without a checkpoints section is a config error (78), before anything runs.
test_checkpoint_token_needs_config() {
	conf '' '[{"stage": "train", "run": "python train.py --resume {checkpoint}"}]'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 78
	assert_grep 'chain\[0\]\.run.*uses \{checkpoint\} but the config has no "checkpoints"' "$T/out"
}

t retryable_restarted_within_budget test_retryable_restarted_within_budget
t hero_relaunch_needs_checkpoint test_hero_relaunch_needs_checkpoint
t budget_spent_stops test_budget_spent_stops
t never_retry_class_not_restarted test_never_retry_class_not_restarted
t same_class_right_after_restart_escalates test_same_class_right_after_restart_escalates
t flapping_stops test_flapping_stops
t infra_failure_does_not_consume_budget test_infra_failure_does_not_consume_budget
t restart_from_newest_complete_checkpoint test_restart_from_newest_complete_checkpoint
t no_checkpoint_fallback_stop test_no_checkpoint_fallback_stop
t checkpoint_token_needs_config test_checkpoint_token_needs_config
