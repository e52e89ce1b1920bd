#!/usr/bin/env bash
# End-to-end tests of the launch gate (core/gate.c; seed 004's launch rules)
# as onbox runs it: `onbox start --check` prints the contract and starts
# nothing, `onbox start` and `onbox run` refuse before anything launches,
# --allow-dirty lets a dirty tree through and keeps its diff's sha256, which
# passes later launches of the same diff and no other.  Real git work trees,
# real processes.  (patrol deploy's side: test_deploy.sh gate_over_ssh.)
. "$(dirname "$0")/lib.sh"

G() { git -C "$T/work" -c user.email=t@example.com -c user.name=t -c commit.gpgsign=false "$@"; }

# A git work tree with one committed file, train.py.
repo() {
	mkdir -p "$T/work"
	G init -q
	echo v1 >"$T/work/train.py"
	G add train.py
	G commit -q -m v1
}

trainer() {
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
echo "\$*" >>"$T/args"
echo "step 1"
SH
	chmod +x "$T/bin/train.sh"
}
launches() { [ -f "$T/args" ] && wc -l <"$T/args" | tr -d ' ' || echo 0; }

# hconf EXTRA: a hero run whose one stage carries secret-looking words.
hconf() {
	trainer
	conf "\"hero\": true, \"output_root\": \"out\", \"progress\": {\"pattern\": \"step (\\\\d+)\", \"max\": 1}, $1" \
		"[{\"stage\": \"train\", \"run\": \"WANDB_API_KEY=sekrit0123456789 $T/bin/train.sh --token tok0123456789 --lr 3e-4\"}]"
}

# The launch contract the last stage_started event carried.
contract() { grep '"stage_started"' "$W/events.jsonl" | tail -n 1 >"$T/ev.json"; json "$T/ev.json" "$1"; }

test_dirty_refused_until_allowed() {
	repo
	hconf '"wandb": {"id": "r1x2", "name": "hero-a"}, "dri": "alice",'
	echo v2 >"$T/work/train.py"
	# --check: the contract, refused; nothing started, nothing written.
	rc=0; onbox start --check >"$T/c1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep '^launch contract of run t1 \(a hero run\)$' "$T/c1"
	assert_grep "^  stage train: WANDB_API_KEY=\*\*\* $T/bin/train.sh --token \*\*\* --lr 3e-4$" "$T/c1"
	assert_no_grep 'sekrit|tok0123' "$T/c1"
	assert_grep "^  code: +git [0-9a-f]{40} in $T/work \+ uncommitted changes to 1 tracked file \(diff sha256 [0-9a-f]{64}\)$" "$T/c1"
	assert_grep '^ +M train.py$' "$T/c1"
	assert_grep "^  output_root: +$T/work/out \(does not exist yet: it can be created\)$" "$T/c1"
	assert_grep '^  final step: +1 \(progress.max\)$' "$T/c1"
	assert_grep '^  W&B: +id r1x2, name hero-a, resume allow$' "$T/c1"
	assert_grep '^  DRI: +alice$' "$T/c1"
	assert_no_grep 'the box has run' "$T/c1"
	assert_grep "^REFUSED: the code in $T/work has uncommitted changes to 1 tracked file; commit them .*--allow-dirty" "$T/c1"
	assert_no_file "$W/gate.json"
	assert_no_file "$W/state.json"
	# start and run refuse alike, before anything launches.
	rc=0; onbox start >"$T/s1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep 'launch gate: run t1 is not started \(1 refusal\)' "$T/s1"
	rc=0; onbox run >"$T/r1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(launches)" 0
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	# --allow-dirty: launched, the diff's sha256 kept and recorded in the launch event.
	sha=$(G diff HEAD --binary | sha256sum | cut -c1-64)
	rc=0; onbox run --allow-dirty >"$T/r2" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(launches)" 1
	assert_eq "$(json "$W/gate.json" 'd["approved_diff_sha256"]')" "$sha"
	assert_eq "$(contract 'd["contract"]["git"]["allowed"]')" --allow-dirty
	assert_eq "$(contract 'd["contract"]["git"]["diff_sha256"]')" "$sha"
	assert_eq "$(contract 'd["contract"]["passed"]')" true
	assert_eq "$(contract 'd["contract"]["output_root"]')" "$T/work/out"
	assert_no_grep 'sekrit|tok0123' "$W/events.jsonl"
	assert_grep 'launch contract of run t1' "$W/onbox.log"
	# The same diff passes a later launch without the flag (a resume by patrol) ...
	rm -f "$W"/markers/*
	rc=0; onbox run >"$T/r3" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(launches)" 2
	assert_eq "$(contract 'd["contract"]["git"]["allowed"]')" "approved before"
	# ... another diff does not.
	echo v3 >"$T/work/train.py"
	rm -f "$W"/markers/*
	rc=0; onbox run >"$T/r4" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep 'uncommitted changes to 1 tracked file \(not the diff approved before\)' "$T/r4"
	assert_eq "$(launches)" 2
	# Committed: clean, launched.
	G commit -q -am v3
	rc=0; onbox run >"$T/r5" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(launches)" 3
	assert_eq "$(contract 'd["contract"]["git"]["dirty"]')" false
}

# A hero run's code must be pinned: no git work tree is refused; an ordinary
# run's is only shown, and refuse_dirty makes an ordinary run strict.
test_code_not_pinned() {
	hconf ''
	rc=0; onbox start --check >"$T/c1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep "^  code: +not pinned: $T/work is no git work tree" "$T/c1"
	assert_grep "^REFUSED: the code is not pinned: $T/work is no git work tree .*a hero run launches only pinned code" "$T/c1"
	trainer
	conf '' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	rc=0; onbox start --check >"$T/c2" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep '^  code: +not pinned' "$T/c2"
	assert_grep '^  output_root: +not pinned \(output_root unset\)$' "$T/c2"
	assert_grep '^  final step: +unknown \(no progress section\)$' "$T/c2"
	assert_grep '^  W&B: +not configured' "$T/c2"
	assert_no_grep '^REFUSED' "$T/c2"
	repo
	echo v2 >"$T/work/train.py"
	conf '"refuse_dirty": true, "progress": {"pattern": "step (\\d+)"},' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	rc=0; onbox run >"$T/r1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep 'REFUSED: the code in .* has uncommitted changes' "$T/r1"
	rc=0; onbox start --check >"$T/c3" 2>&1 || rc=$?
	assert_grep '^  final step: +inferred: the total the progress bar prints' "$T/c3"
	assert_eq "$(launches)" 0
}

# The W&B run the config pins exists on the box already: resume never refuses, allow resumes it.
test_wandb_run_exists() {
	repo
	hconf '"wandb": {"id": "r7a1", "resume": "never"},'
	mkdir -p "$T/work/wandb/run-20261128_101500-r7a1/files"
	rc=0; onbox start --check >"$T/c1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep '^REFUSED: wandb.resume is never but the box has W&B run r7a1 already \(run-20261128_101500-r7a1\)' "$T/c1"
	hconf '"wandb": {"id": "r7a1", "resume": "allow"},'
	rc=0; onbox start --check >"$T/c2" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep 'the box has run r7a1 of it already \(run-20261128_101500-r7a1\): this launch resumes it' "$T/c2"
}

test_output_root_refusals() {
	repo
	: >"$T/afile"
	hconf ''
	sed -i "s|\"output_root\": \"out\"|\"output_root\": \"$T/afile/sub\"|" "$T/wk.json"
	rc=0; onbox run >"$T/r1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep "REFUSED: output_root $T/afile/sub cannot be created: $T/afile is not a directory this user can write" "$T/r1"
	sed -i "s|\"output_root\": \"$T/afile/sub\"|\"output_root\": \"$T/afile\"|" "$T/wk.json"
	rc=0; onbox start --check >"$T/c1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep "REFUSED: output_root $T/afile is not a directory" "$T/c1"
	mkdir -p "$T/outdir"
	sed -i "s|\"output_root\": \"$T/afile\"|\"output_root\": \"$T/outdir\"|" "$T/wk.json"
	rc=0; onbox start --check >"$T/c2" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep "^  output_root: +$T/outdir \(exists\)$" "$T/c2"
	assert_eq "$(launches)" 0
}

# initialize_from: refused without its metadata; its step from the metadata,
# else inferred from its name by checkpoints.pattern (and labelled so).
test_initialize_from() {
	repo
	hconf '"initialize_from": "base/step_500",'
	rc=0; onbox start --check >"$T/c1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep "REFUSED: initialize_from $T/work/base/step_500 does not exist on the box" "$T/c1"
	mkdir -p "$T/work/base/step_500"
	rc=0; onbox run >"$T/r1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep "REFUSED: initialize_from $T/work/base/step_500 has no metadata.json" "$T/r1"
	assert_eq "$(launches)" 0
	echo '{"step": ' >"$T/work/base/step_500/metadata.json"
	rc=0; onbox start --check >"$T/c2" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep 'its metadata.json is not a JSON object' "$T/c2"
	echo '{"global_step": 500, "run": "pretrain"}' >"$T/work/base/step_500/metadata.json"
	rc=0; onbox start --check >"$T/c3" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep "^  initialize_from: $T/work/base/step_500 \(step 500 from metadata.json \"global_step\"\)$" "$T/c3"
	# A plain-file checkpoint with a sidecar, its step only in its name.
	echo x >"$T/work/base/model_700.pt"
	echo '{}' >"$T/work/base/model_700.pt.meta.json"
	hconf '"initialize_from": "base/model_700.pt", "checkpoints": {"dir": "ckpt", "pattern": "^model_(\\d+)\\.pt$", "complete_file": "meta.json"},'
	rc=0; onbox run >"$T/r2" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep "initialize_from: $T/work/base/model_700.pt \(step 700, inferred from its name; meta.json names none\)" "$W/onbox.log"
	assert_eq "$(contract 'd["contract"]["initialize_from"]["step"]')" 700
	assert_eq "$(launches)" 1
}

# onbox dies while a hero run's stage lives, and the code is edited meanwhile:
# the start re-attaches (a refusal would leave the training unwatched) and
# says so; the next stage's launch is gated again and refused.
test_reattach_not_refused() {
	repo
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "step 1"\n"%s" 30 "%s/go" || :\necho done >>"%s/args"\n' "$AWAIT" "$T" "$T" >"$T/bin/slow.sh"
	chmod +x "$T/bin/slow.sh"
	conf '"hero": true, "output_root": "out", "progress": {"pattern": "step (\\d+)", "max": 1},' \
		"[{\"stage\": \"train\", \"run\": \"$T/bin/slow.sh\"}, {\"stage\": \"eval\", \"run\": \"echo eval >>$T/args\"}]"
	bg_onbox run
	first=$LAST_PID
	wait_for 10 test -f "$W/attempts/train.1.json"
	# (the stage's own output: its wrapper is past the fork that held onbox's lock)
	wait_for 10 grep -q 'step 1' "$W/logs/train.1.log"
	kill -9 "$first"
	wait "$first" 2>/dev/null || :
	echo v2 >"$T/work/train.py"
	bg_onbox run
	second=$LAST_PID
	wait_for 10 grep -q 're-attaching to attempt 1' "$T/onbox.out"
	assert_grep 'launch gate: run t1 would be refused \(1 refusal\), but an attempt of it is unfinished: re-attaching' "$T/onbox.out"
	touch "$T/go"
	rc=0; wait "$second" || rc=$?
	assert_eq "$rc" 1
	assert_file "$W/markers/TRAIN_DONE"
	assert_eq "$(cat "$T/args")" done
	json "$W/markers/EVAL_DONE.FAILED" 'd["exec_error"]' | grep -q 'hero run: the launch gate refuses attempt 1: the code in .* has uncommitted changes' ||
		fail "FAILED marker: $(cat "$W/markers/EVAL_DONE.FAILED" 2>&1)"
}

t dirty_refused_until_allowed test_dirty_refused_until_allowed
t code_not_pinned test_code_not_pinned
t wandb_run_exists test_wandb_run_exists
t output_root_refusals test_output_root_refusals
t initialize_from test_initialize_from
t reattach_not_refused test_reattach_not_refused
