#!/usr/bin/env bash
# End-to-end tests of "restarts that must make progress" on the real PyTorch
# training (tests/e2e/fixtures/torch/train.py): the policy rule no_progress
# stops a stage whose failed attempts add no new complete checkpoint, a run
# that checkpoints between its failures is restarted and finishes, and a
# relaunched attempt that never logs a step raises recovery_stalled once.
. "$(dirname "$0")/lib.sh"

# tconf RESTART_JSON PRE [STEP_SLEEP]: the training (log train.log, done line,
# progress and loss patterns, checkpoints with metadata.json) and an eval.
# PRE is shell run before the training that sets $F, the training's extra
# flags (single quotes only: it sits in a JSON string), so a test decides
# per attempt from flag files the training's --fail-once creates.
tconf() {
	local restart=$1 pre=$2 sleep=${3:-0.1} run
	run="$pre $TORCH_PY $TORCH_TRAIN --out . --steps 12 --step-sleep $sleep --no-bar --resume {checkpoint} \$F >> train.log 2>&1"
	conf "\"restart\": $restart,
  \"progress\": { \"pattern\": \"step (\\\\d+)/(\\\\d+)\" },
  \"loss\": { \"pattern\": \"loss=([-+\\\\w.]+)\" },
  \"checkpoints\": { \"dir\": \"ckpt\", \"pattern\": \"^step_(\\\\d+)\$\", \"complete_file\": \"metadata.json\" }," \
	"[ { \"stage\": \"train\", \"run\": \"$run\", \"log\": \"train.log\", \"done_when\": \"Training completed\", \"marker\": \"TRAIN_DONE\" },
    { \"stage\": \"eval\", \"run\": \"test -s results/metrics.json\", \"marker\": \"EVAL_DONE\" } ]"
}

attempts() { json "$W/stages/train.json" 'len(d["attempts"])'; }
att() { json "$W/stages/train.json" "d[\"attempts\"][$1]$2"; }
alerts() { grep -c "\"event\":\"health_alert\".*\"kind\":\"$1\"" "$W/events.jsonl" || true; }

# Preempted (SIGTERM) at step 2 every time, checkpoints every 5 steps: no
# attempt ever completes a checkpoint.  restart.max 5 would allow five
# restarts; no_progress (default restart.no_progress_max 2) stops after
# the second failed attempt without a new one.  escalate_s 0: the escalate
# rule (the same class again right after a restart) would stop attempt 2
# first, as it should, and this test is about the rule behind it.
test_no_new_checkpoint_stops() {
	tconf '{"max": 5, "escalate_s": 0}' "F='--ckpt-every 5 --fail sigterm --fail-at 2';"
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1 "onbox exit"
	assert_eq "$(attempts)" 2 "attempts: stopped after 2 failed attempts without a new checkpoint"
	assert_eq "$(att 0 '["class"]')" preempted
	assert_eq "$(att 1 '["class"]')" preempted
	assert_eq "$(att 0 '["policy"]["rule"]')" retry
	assert_eq "$(att 1 '["policy"]["rule"]')" no_progress
	assert_no_file "$T/work/ckpt/step_000005"
	local m="$W/markers/TRAIN_DONE.FAILED"
	assert_file "$m"
	assert_eq "$(json "$m" 'd["attempt"]')" 2
	assert_eq "$(json "$m" 'd["policy"]["rule"]')" no_progress
	assert_eq "$(json "$m" 'd["policy"]["action"]')" stop
	json "$m" 'd["policy"]["reason"]' >"$T/reason"
	assert_grep '^attempts 1 and 2 both failed without a new complete checkpoint \(still none\): a restart would repeat them, not restarted \(restart.no_progress_max 2\)\. Newest: attempt 2, preempted .*fix the cause, then onbox start' "$T/reason"
	# Not the budget: 1 of 5 restarts used.
	assert_no_grep 'budget' "$T/reason"
	assert_eq "$(json "$m" 'd["policy"]["budget_used"]')" 0
	assert_grep 'train FAILED \(preempted, .*attempt 2 .*not restarted: attempts 1 and 2 both failed without a new complete checkpoint' "$T/out"
	assert_eq "$(grep -c '"restarting":true' "$W/events.jsonl")" 1
	assert_no_file "$W/markers/EVAL_DONE"
}

# Preempted twice, each time after a new complete checkpoint (attempt 1 at
# step 4 after step_000003, attempt 2 at step 8 after step_000006), then no
# failure: never stopped by no_progress, the run finishes.
test_progress_between_failures_finishes() {
	tconf '{"max": 3}' "if [ -e f1 ]; then F='--ckpt-every 3 --fail sigterm --fail-at 8 --fail-once f2'; else F='--ckpt-every 3 --fail sigterm --fail-at 4 --fail-once f1'; fi;"
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0 "onbox exit"
	assert_eq "$(attempts)" 3
	assert_eq "$(att 0 '["class"]')" preempted
	assert_eq "$(att 1 '["class"]')" preempted
	assert_eq "$(att 0 '["checkpoint_step"]')" 3
	assert_eq "$(att 1 '["checkpoint_step_from"]')" 3
	assert_eq "$(att 1 '["checkpoint_step"]')" 6
	assert_eq "$(att 1 '["policy"]["rule"]')" retry
	assert_eq "$(att 2 '["checkpoint"]')" "$T/work/ckpt/step_000006"
	assert_eq "$(att 2 '["result"]')" done
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	assert_file "$W/markers/TRAIN_DONE"
	assert_file "$W/markers/EVAL_DONE"
	assert_grep 'resumed from .*step_000006 at step 6' "$T/work/train.log"
	assert_no_grep 'no_progress' "$W/events.jsonl"
	# Each relaunch logged its first step long before the default limit (600 s at least).
	assert_eq "$(alerts recovery_stalled)" 0
}

# The first attempt logs steps 1-3, 1 s apart (so onbox reads them in
# different clock seconds: its step interval is known), step_000003 complete, and is
# preempted at step 4; the relaunched attempt resumes from step 3 and hangs
# before its first step.  restart.recovery_s 3: one recovery_stalled alert
# for attempt 2, and no second one however long it stays silent.
test_recovery_stalled_once() {
	tconf '{"max": 3, "recovery_s": 3}' "if [ -e f1 ]; then F='--ckpt-every 3 --fail hang --fail-at 4'; else F='--ckpt-every 3 --fail sigterm --fail-at 4 --fail-once f1'; fi;" 1
	bg_onbox run
	local runner=$LAST_PID
	wait_for 120 sh -c "grep -q '\"kind\":\"recovery_stalled\"' '$W/events.jsonl' 2>/dev/null"
	# Five more heartbeats (heartbeat_s 1, each a health tick) after the alert.
	local t0
	t0=$(json "$W/state.json" 'd["time_unix"]')
	wait_for 60 json_ge "$W/state.json" 'd["time_unix"]' $((${t0%.*} + 5))
	assert_eq "$(att 1 '["result"]')" running
	assert_eq "$(alerts recovery_stalled)" 1
	grep '"kind":"recovery_stalled"' "$W/events.jsonl" >"$T/ev"
	assert_eq "$(json "$T/ev" 'd["attempt"]')" 2
	assert_eq "$(json "$T/ev" 'd["stage"]')" train
	assert_eq "$(json "$T/ev" 'd["severity"]')" degraded
	json "$T/ev" 'd["text"]' >"$T/text"
	assert_grep '^no new step [0-9]+ s after the relaunch \(attempt 2; before the failure a step came every [0-9.]+ s\)$' "$T/text"
	# Attempt 1 left its step interval for it (a step a second, as onbox read the lines).
	assert_eq "$(json "$W/stages/train.json" '0 < d["attempts"][0]["step_interval_s"] <= 3')" true
	# The heartbeat's health view says it while no step comes.
	json "$W/state.json" 'd["health"]["degraded"]' >"$T/degraded"
	assert_grep 'recovery_stalled: no new step within 3 s of the relaunch \(attempt 2' "$T/degraded"
	assert_grep 'resumed from .*step_000003 at step 3' "$T/work/train.log"
	# Stop it on purpose; still one alert.
	rc=0; onbox stop >"$T/stop.out" 2>&1 || rc=$?
	assert_eq "$rc" 0 "onbox stop exit"
	rc=0; wait "$runner" || rc=$?
	assert_eq "$rc" 143 "onbox run exit"
	assert_eq "$(alerts recovery_stalled)" 1
}

tt no_new_checkpoint_stops test_no_new_checkpoint_stops
tt progress_between_failures_finishes test_progress_between_failures_finishes
tt recovery_stalled_once test_recovery_stalled_once
