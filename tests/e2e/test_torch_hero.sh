#!/usr/bin/env bash
# End-to-end tests of a hero run (seed 004) on the real PyTorch training
# (fixtures/torch/train.py, deterministic on CPU): the launch gate refuses a
# dirty tree and a missing output_root; a relaunch resumes from the newest
# complete checkpoint and a faithful resume says nothing, while one from
# another lineage (other data) is alerted (resume_mismatch, CRITICAL); a
# relaunch with no complete checkpoint is refused; W&B's own files (written
# as wandb-core writes them: train.py --wandb-id) give a changed run id
# (wandb_identity, CRITICAL) and a logger that stopped (wandb_stale).
. "$(dirname "$0")/lib.sh"

G() { git -C "$T/work" -c user.email=t@example.com -c user.name=t -c commit.gpgsign=false "$@"; }

# A git work tree holding the run's code (train.py committed), ignoring what training writes.
repo() {
	mkdir -p "$T/work"
	G init -q
	cp "$TORCH_TRAIN" "$T/work/train.py"
	printf 'ckpt/\nresults/\nwandb/\n*.log\nout/\n' >"$T/work/.gitignore"
	G add train.py .gitignore
	G commit -q -m "the run's code"
}

# hconf ARGS EXTRA: the hero run on the real training; ARGS go to train.py
# (its --data-seed may be "$S": 0 for the first attempt, 1 once $T/once exists).
hconf() {
	conf "\"hero\": true, \"output_root\": \"out\", \"dri\": \"alice\",
  \"progress\": { \"pattern\": \"step (\\\\d+)/(\\\\d+)\", \"max\": 20 },
  \"loss\": { \"pattern\": \"loss=([-+\\\\w.]+)\" },
  \"checkpoints\": { \"dir\": \"ckpt\", \"pattern\": \"^step_(\\\\d+)\$\" },
  \"restart\": { \"max\": 2, \"escalate_s\": 0 },
  $2" "[ { \"stage\": \"train\", \"run\": \"S=0; [ -e $T/once ] && S=1; $TORCH_PY train.py --out . --no-bar --step-sleep 0 --steps 20 --ckpt-every 5 $1 --resume {checkpoint} >> train.log 2>&1\", \"log\": \"train.log\", \"done_when\": \"Training completed\" } ]"
}
alerts() { grep '"health_alert"' "$W/events.jsonl" | grep -c "\"kind\":\"$1\"" || true; }

test_gate_on_the_real_run() {
	repo
	hconf "--fail sigkill --fail-at 13 --fail-once $T/once" ''
	echo "# tuned" >>"$T/work/train.py"
	rc=0; onbox run >"$T/r1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep "REFUSED: the code in $T/work has uncommitted changes to 1 tracked file" "$T/r1"
	assert_no_file "$T/work/train.log"
	G checkout -q train.py
	# No output_root: a config error (78) before anything runs.
	sed -i 's/"output_root": "out", //' "$T/wk.json"
	rc=0; onbox run >"$T/r2" 2>&1 || rc=$?
	assert_eq "$rc" 78
	assert_grep 'a hero run needs "output_root"' "$T/r2"
	assert_no_file "$T/work/train.log"
}

# Attempt 1 fails at step 13 (checkpoints at 5 and 10); attempt 2 resumes
# from step 10 and replays 11 and 12: the same data gives the same losses.
test_faithful_resume_quiet() {
	repo
	hconf "--fail sigkill --fail-at 13 --fail-once $T/once" ''
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_file "$W/markers/TRAIN_DONE"
	assert_eq "$(json "$W/stages/train.json" 'd["attempts"][1]["checkpoint"]')" "$T/work/ckpt/step_000010"
	assert_grep 'resumed from .*step_000010 at step 10' "$T/work/train.log"
	assert_eq "$(alerts resume_mismatch)" 0
	# The launch carried its contract: the code pinned, the checkpoint it resumed from.
	assert_grep '"contract":' "$W/events.jsonl"
	assert_grep "\"checkpoint\":\"$T/work/ckpt/step_000010\"" "$W/events.jsonl"
}

# Attempt 2 resumes from step 10 but on other data (--data-seed 1): another
# lineage; its loss at step 11 departs from what attempt 1 logged there.
test_departing_resume_alerted() {
	repo
	hconf "--fail sigkill --fail-at 13 --fail-once $T/once --data-seed \$S" ''
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(alerts resume_mismatch)" 1
	grep '"resume_mismatch"' "$W/events.jsonl" | grep -q '"severity":"critical"' ||
		fail "not critical: $(grep resume_mismatch "$W/events.jsonl")"
	assert_grep 'after the resume \(attempt 2, from the checkpoint at step 10\) the loss at step 11 is' "$W/events.jsonl"
}

# A failure before the first checkpoint: a hero run does not start over.
test_no_checkpoint_relaunch_refused() {
	repo
	hconf "--fail sigkill --fail-at 3 --fail-once $T/once" ''
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	json "$W/markers/TRAIN_DONE.FAILED" 'd["exec_error"]' | grep -q 'hero run: attempt 2 is a relaunch and .*ckpt holds no complete checkpoint' ||
		fail "FAILED marker: $(<"$W/markers/TRAIN_DONE.FAILED")"
	assert_eq "$(grep -c '^step 1/20' "$T/work/train.log")" 1
}

# The code edited on the box while attempt 1 runs: its relaunch is refused by the gate.
test_edited_code_relaunch_refused() {
	repo
	hconf "--fail sigkill --fail-at 13 --fail-once $T/once" ''
	sed -i 's/--step-sleep 0 /--step-sleep 0.2 /' "$T/wk.json"
	bg_onbox run
	wait_for 30 grep -q '^step 5/20' "$T/work/train.log"
	echo "# tuned on the box" >>"$T/work/train.py"
	wait "$LAST_PID" || :
	json "$W/markers/TRAIN_DONE.FAILED" 'd["exec_error"]' | grep -q 'hero run: the launch gate refuses attempt 2 (a relaunch): the code in .* has uncommitted changes to 1 tracked file' ||
		fail "FAILED marker: $(cat "$W/markers/TRAIN_DONE.FAILED" 2>&1)"
	assert_eq "$(grep -c '^step 1/20' "$T/work/train.log")" 1
}

# W&B's files: the relaunch logs to a new run id (not wandb.id): critical.
test_wandb_identity_changed() {
	repo
	hconf "--fail sigkill --fail-at 13 --fail-once $T/once --wandb-id \$W_ID" \
		'"wandb": { "id": "r7a1", "name": "hero-a" },'
	sed -i 's/S=0; /S=0; W_ID=r7a1; [ -e '"${T//\//\\/}"'\/once ] \&\& W_ID=zz99; /' "$T/wk.json"
	# heartbeat_s 1: W&B's files are read every heartbeat; attempt 2's 7 steps
	# take 3.5 s, several heartbeats however loaded the machine is.
	sed -i 's/--step-sleep 0 /--step-sleep 0.5 /' "$T/wk.json"
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(alerts wandb_identity)" 1
	grep '"wandb_identity"' "$W/events.jsonl" | grep -q '"severity":"critical"' ||
		fail "not critical: $(grep wandb_identity "$W/events.jsonl")"
	assert_grep 'the run directory logs to W&B run zz99 .*not wandb.id r7a1' "$W/events.jsonl"
	assert_file "$T/work/wandb/latest-run/run-zz99.wandb"
}

# The logger stops writing (train.py --wandb-stall-at) while training goes on: wandb_stale.
test_wandb_stale() {
	repo
	hconf "--wandb-id r7a1 --wandb-stall-at 4 --steps 300 --ckpt-every 100" \
		'"wandb": { "id": "r7a1", "stale_s": 2 },'
	sed -i 's/--step-sleep 0 /--step-sleep 0.02 /; s/--steps 20 //' "$T/wk.json"
	sed -i 's/"max": 20/"max": 300/' "$T/wk.json"
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(alerts wandb_identity)" 0
	assert_eq "$(alerts wandb_stale)" 1
	assert_grep 'its transaction log run-r7a1.wandb \([0-9]+ bytes\) has not grown for' "$W/events.jsonl"
}

tt gate_on_the_real_run test_gate_on_the_real_run
tt faithful_resume_quiet test_faithful_resume_quiet
tt departing_resume_alerted test_departing_resume_alerted
tt no_checkpoint_relaunch_refused test_no_checkpoint_relaunch_refused
tt edited_code_relaunch_refused test_edited_code_relaunch_refused
tt wandb_identity_changed test_wandb_identity_changed
tt wandb_stale test_wandb_stale
