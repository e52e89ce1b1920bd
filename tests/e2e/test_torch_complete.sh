#!/usr/bin/env bash
# End-to-end tests of completion on the real training (fixtures/torch/train.py):
# completion.require checked before the chain's last marker (a missing result
# file, a final checkpoint short of progress.max: class missing_artifacts, no
# marker, a FAILED one, not restarted), and loss.on_nan "stop" (the stage's
# process group stopped, class nan_loss, the eval never run) against the
# default "alert" (DONE, with the health_alert).  The chain is train + a tiny
# eval stage, the eval last: the require check runs before EVAL_DONE.
. "$(dirname "$0")/lib.sh"

# tconf TRAIN_ARGS EXTRA_JSON: train (real torch) + eval (records that it ran).
tconf() {
	local args=$1 extra=$2
	conf "\"progress\": { \"pattern\": \"step (\\\\d+)/(\\\\d+)\" },
  \"checkpoints\": { \"dir\": \"ckpt\", \"pattern\": \"^step_(\\\\d+)\$\", \"complete_file\": \"metadata.json\" },
  \"restart\": { \"max\": 3, \"escalate_s\": 0 },
  $extra" "[ { \"stage\": \"train\", \"run\": \"$TORCH_PY $TORCH_TRAIN --out . --no-bar --pidfile $T/train.pid $args --resume {checkpoint} >> train.log 2>&1\", \"log\": \"train.log\", \"done_when\": \"Training completed\" },
    { \"stage\": \"eval\", \"run\": \"echo ran >> $T/eval.ran\" } ]"
}
F() { echo "$W/markers/$1.FAILED"; }
# gone PID: no such process, or a zombie its new parent has yet to reap.  The stage's
# shell dies first; the python in its group gets the same SIGTERM and is dying, an
# orphan of a reaper that may not be onbox any more (after a restart): wait for it, bounded.
gone() { ! kill -0 "$1" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]; }
attempts() { json "$W/stages/$1.json" 'len(d["attempts"])'; }

test_missing_results_file() {
	tconf "--steps 6 --ckpt-every 3 --step-sleep 0 --no-results" \
		'"completion": { "require": ["results/metrics.json", "{final_checkpoint}"] },'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1 "onbox exit"
	assert_file "$W/markers/TRAIN_DONE"
	assert_file "$T/eval.ran"
	assert_no_file "$W/markers/EVAL_DONE"
	assert_eq "$(json "$(F EVAL_DONE)" 'd["class"]')" missing_artifacts
	assert_eq "$(json "$(F EVAL_DONE)" 'd["evidence"]')" "missing: results/metrics.json"
	assert_eq "$(json "$(F EVAL_DONE)" 'd["retryable"]')" false
	assert_eq "$(json "$(F EVAL_DONE)" 'd["policy"]["rule"]')" never_retry
	assert_eq "$(attempts eval)" 1
	assert_no_grep '"restarting":true' "$W/events.jsonl"
	assert_no_grep 'chain_done' "$W/events.jsonl"
	assert_grep 'eval FAILED \(missing_artifacts.*missing: results/metrics.json' "$T/out"
}

test_final_checkpoint_short() {
	tconf "--steps 12 --ckpt-every 5 --step-sleep 0 --skip-final-ckpt" \
		'"completion": { "require": ["results/metrics.json", "{final_checkpoint}"] },'
	# progress.max 12 in the config (the log says 12 too)
	python3 - "$T/wk.json" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
s = s.replace('"progress": {', '"progress": { "max": 12,', 1)
open(p, "w").write(s)
PY
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1 "onbox exit"
	assert_file "$T/work/results/metrics.json"
	assert_file "$T/work/ckpt/step_000010/metadata.json"
	assert_no_file "$W/markers/EVAL_DONE"
	assert_eq "$(json "$(F EVAL_DONE)" 'd["class"]')" missing_artifacts
	assert_eq "$(json "$(F EVAL_DONE)" 'd["evidence"]')" \
		"final checkpoint: newest complete is step_000010, progress.max is 12"
	assert_eq "$(attempts eval)" 1
}

# Without progress.max the total comes from the log's "step N/12" (the eval prints none).
test_final_checkpoint_short_total_from_log() {
	tconf "--steps 12 --ckpt-every 5 --step-sleep 0 --skip-final-ckpt" \
		'"completion": { "require": ["{final_checkpoint}"] },'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1 "onbox exit"
	assert_eq "$(json "$(F EVAL_DONE)" 'd["evidence"]')" \
		"final checkpoint: newest complete is step_000010, the log's progress total is 12"
}

test_all_present_done() {
	tconf "--steps 12 --ckpt-every 5 --step-sleep 0" \
		'"completion": { "require": ["results/*.json", "ckpt", "{final_checkpoint}"] },'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0 "onbox exit"
	assert_file "$W/markers/EVAL_DONE"
	assert_no_file "$(F EVAL_DONE)"
	assert_grep '"event":"chain_done"' "$W/events.jsonl"
}

# An empty result file is not a result.
test_empty_file_missing() {
	tconf "--steps 4 --ckpt-every 2 --step-sleep 0" \
		'"completion": { "require": ["results/metrics.json", "results/notes.txt"] },'
	mkdir -p "$T/work/results"
	: >"$T/work/results/notes.txt"
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1 "onbox exit"
	assert_eq "$(json "$(F EVAL_DONE)" 'd["evidence"]')" "missing: results/notes.txt (empty)"
}

NAN_ARGS="--fail nan --fail-at 4 --steps 40 --ckpt-every 5 --step-sleep 0.1"

test_on_nan_stop() {
	tconf "$NAN_ARGS" '"loss": { "pattern": "loss=([-+\\w.]+)", "on_nan": "stop" },'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1 "onbox exit"
	assert_eq "$(json "$(F TRAIN_DONE)" 'd["class"]')" nan_loss
	assert_grep '^step 4/40 loss=nan' "$T/work/train.log"
	assert_no_grep 'Training completed' "$T/work/train.log"
	json "$(F TRAIN_DONE)" 'd["evidence"]' >"$T/evidence"
	assert_grep 'nan' "$T/evidence"
	assert_eq "$(json "$(F TRAIN_DONE)" 'd["policy"]["rule"]')" never_retry
	assert_eq "$(attempts train)" 1
	assert_eq "$(json "$W/stages/train.json" 'd["attempts"][0]["nan_stop"]')" "$(<"$T/evidence")"
	pid=$(<"$T/train.pid")
	wait_for 30 gone "$pid" || fail "the training (pid $pid) still runs"
	assert_no_file "$T/eval.ran"
	assert_no_file "$W/markers/EVAL_DONE"
	assert_no_file "$W/stages/eval.json"
	assert_grep '"kind":"nan_loss"' "$W/events.jsonl"
	assert_grep '"action":"stop_stage"' "$W/events.jsonl"
	assert_no_grep '"restarting":true' "$W/events.jsonl"
	assert_grep 'train FAILED \(nan_loss' "$T/out"
}

# onbox killed before the NaN; the next one reads the rest of the log, sees it and stops the stage.
test_on_nan_stop_across_onbox_restart() {
	tconf "--fail nan --fail-at 8 --steps 400 --ckpt-every 5 --step-sleep 0.1" \
		'"loss": { "pattern": "loss=([-+\\w.]+)", "on_nan": "stop" },'
	bg_onbox run
	wait_for 60 grep -qs '^step 2/400' "$T/work/train.log"
	kill -9 "$LAST_PID"
	wait "$LAST_PID" 2>/dev/null || true
	wait_for 60 grep -qs '^step 9/400 loss=nan' "$T/work/train.log"
	assert_no_grep '"kind":"nan_loss"' "$W/events.jsonl"
	pid=$(<"$T/train.pid")
	kill -0 "$pid" || fail "the training should still run"
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1 "onbox exit"
	assert_eq "$(json "$(F TRAIN_DONE)" 'd["class"]')" nan_loss
	assert_eq "$(attempts train)" 1
	wait_for 30 gone "$pid" || fail "the training (pid $pid) still runs"
	assert_no_grep 'Training completed' "$T/work/train.log"
	assert_no_file "$T/eval.ran"
	assert_eq "$(grep -c '"kind":"nan_loss"' "$W/events.jsonl")" 1
}

test_on_nan_alert_default_done() {
	tconf "$NAN_ARGS" '"loss": { "pattern": "loss=([-+\\w.]+)" },'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0 "onbox exit"
	assert_file "$W/markers/TRAIN_DONE"
	assert_file "$W/markers/EVAL_DONE"
	assert_file "$T/eval.ran"
	assert_grep 'Training completed' "$T/work/train.log"
	assert_grep '"event":"health_alert".*"kind":"nan_loss"' "$W/events.jsonl"
	assert_no_grep '"action":"stop_stage"' "$W/events.jsonl"
	assert_grep '"event":"chain_done"' "$W/events.jsonl"
}

tt missing_results_file test_missing_results_file
tt final_checkpoint_short test_final_checkpoint_short
tt final_checkpoint_short_total_from_log test_final_checkpoint_short_total_from_log
tt all_present_done test_all_present_done
tt empty_file_missing test_empty_file_missing
tt on_nan_stop test_on_nan_stop
tt on_nan_stop_across_onbox_restart test_on_nan_stop_across_onbox_restart
tt on_nan_alert_default_done test_on_nan_alert_default_done
