#!/usr/bin/env bash
# End-to-end tests of the run record (seed 004): the logbook committed and
# pushed to a git repository (logbook.git: a local bare repository here,
# pushes included, one that fails -- unreachable, rejected -- keeping the
# commit for the next push) and `patrol seal` on the real training (the
# final checkpoint's metadata, W&B's final summary as wandb-core writes it:
# train.py --wandb-id; the tag seal/<run>; the schedule removed).  The real
# patrol over the suite's sshd on 127.0.0.1.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
PATROL="$TOP/$BUILD/patrol"

patrol() { $ONBOX_WRAP "$PATROL" -c "$T/wk.json" "$@"; }
R() { git --git-dir "$T/lb.git" "$@"; }
LB() { echo "$T/state/watchkeeper/t1/LOGBOOK.md"; }
commits() { R rev-list --count HEAD 2>/dev/null || echo 0; }

test_logbook_pushed_and_retried() {
	box
	git init -q --bare "$T/lb.git"
	pconf "\"logbook\": {\"git\": \"$T/lb.git\", \"path\": \"runs/t1.md\"}," '[{"stage": "train", "run": "echo step 1"}]'
	onbox run >/dev/null 2>&1
	patrol --once >"$T/p1" 2>&1
	assert_eq "$(commits)" 1
	R show HEAD:runs/t1.md >"$T/shown"
	cmp "$T/shown" "$(LB)"
	assert_grep 'verdict DONE' "$T/shown"
	R log -1 --format=%s >"$T/msg"
	assert_grep '^t1: .*verdict DONE' "$T/msg"
	assert_eq "$(json "$T/state/watchkeeper/t1/patrol.json" 'd["logbook_git"]["pushed"]')" true
	# Nothing new: no commit.
	patrol --once >"$T/p2" 2>&1
	assert_eq "$(commits)" 1
	# The remote unreachable: the entry is committed, the push fails and is said ...
	mv "$T/lb.git" "$T/lb.away"
	rm -f "$W"/markers/*
	onbox run >/dev/null 2>&1
	patrol --once >"$T/p3" 2>&1 || :
	assert_grep 'logbook.git: .*kept .*pushed at the next tick' "$T/p3"
	assert_eq "$(json "$T/state/watchkeeper/t1/patrol.json" 'd["logbook_git"]["pushed"]')" false
	# ... and pushed by the next tick, with nothing new to add.
	mv "$T/lb.away" "$T/lb.git"
	patrol --once >"$T/p4" 2>&1
	assert_eq "$(commits)" 2
	R show HEAD:runs/t1.md >"$T/shown"
	cmp "$T/shown" "$(LB)"
	# Rejected: someone else pushed meanwhile; rebased onto it, then pushed.
	git clone -q "$T/lb.git" "$T/other"
	echo "notes" >"$T/other/NOTES.md"
	git -C "$T/other" add NOTES.md
	git -C "$T/other" -c user.email=o@example.com -c user.name=o commit -q -m other
	git -C "$T/other" push -q origin HEAD
	rm -f "$W"/markers/*
	onbox run >/dev/null 2>&1
	patrol --once >"$T/p5" 2>&1
	assert_eq "$(commits)" 4
	R show HEAD:NOTES.md >/dev/null
	R show HEAD:runs/t1.md >"$T/shown"
	cmp "$T/shown" "$(LB)"
}

# sconf EXTRA: the real training, its final checkpoint at progress.max, a W&B run r7a1.
sconf() {
	conf "\"box\": {\"host\": \"box\", \"ssh_config\": \"$SSH_CFG\", \"config\": \"$T/wk.json\", \"connect_timeout_s\": 3},
  \"hero\": true, \"output_root\": \"out\", \"results\": \"results/metrics.json\",
  \"logbook\": {\"git\": \"$T/lb.git\"},
  \"progress\": { \"pattern\": \"step (\\\\d+)/(\\\\d+)\", \"max\": 8 },
  \"checkpoints\": { \"dir\": \"ckpt\", \"pattern\": \"^step_(\\\\d+)\$\" },
  \"wandb\": { \"id\": \"r7a1\", \"name\": \"hero-a\" },
  $1" "[ { \"stage\": \"train\", \"run\": \"$TORCH_PY $TORCH_TRAIN --out . --no-bar --step-sleep 0 --steps 8 --ckpt-every 4 --wandb-id r7a1 >> train.log 2>&1\", \"log\": \"train.log\", \"done_when\": \"Training completed\" } ]"
}

test_seal() {
	box
	git init -q --bare "$T/lb.git"
	sconf ''
	patrol --install-schedule --scheduler cron >/dev/null
	assert_grep 'patrol' "$T/crontab.txt"
	# Not done yet: blocked, each missing piece named, nothing written.
	rc=0; patrol seal >"$T/s1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep '^SEAL BLOCKED: stage train has not succeeded' "$T/s1"
	assert_grep '^SEAL BLOCKED: no complete checkpoint' "$T/s1"
	assert_grep '^SEAL BLOCKED: no W&B run on the box' "$T/s1"
	assert_no_grep 'SEAL' "$(LB)" 2>/dev/null || :
	onbox run --allow-dirty >"$T/run" 2>&1
	assert_file "$W/markers/TRAIN_DONE"
	patrol seal >"$T/s2" 2>&1
	assert_grep 'Run t1 sealed: 1 of 1 stages succeeded. Final step 8 \(progress.max\)' "$T/s2"
	assert_grep "Final checkpoint: $T/work/ckpt/step_000008 \(step 8, metadata present\)" "$T/s2"
	assert_grep 'W&B run r7a1 \(hero-a\): final _step 8' "$T/s2"
	assert_grep 'logbook: committed, pushed and tagged seal/t1' "$T/s2"
	assert_grep 'run t1 is sealed \(logbook pushed, tagged\); its schedule is removed' "$T/s2"
	assert_grep '· SEAL' "$(LB)"
	assert_grep '"final_loss"' "$(LB)"
	R rev-parse -q --verify refs/tags/seal/t1 >/dev/null || fail "no tag seal/t1 in the logbook repository"
	R show seal/t1:t1/LOGBOOK.md | grep -q '· SEAL' || fail "the tag does not hold the seal"
	assert_no_grep 'patrol' "$T/crontab.txt"
	# Sealed once: again says so.
	patrol seal >"$T/s3" 2>&1
	assert_grep '^run t1 was sealed at ' "$T/s3"
	assert_eq "$(grep -c '· SEAL' "$(LB)")" 1
}

# W&B logged to another run than wandb.id: the seal is blocked and says which.
test_seal_blocked_by_wandb_identity() {
	box
	git init -q --bare "$T/lb.git"
	sconf ''
	sed -i 's/"id": "r7a1"/"id": "zz99"/' "$T/wk.json"
	onbox run --allow-dirty >"$T/run" 2>&1
	rc=0; patrol seal >"$T/s1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep "^SEAL BLOCKED: the latest W&B run \(run-[0-9_]+-r7a1\) is r7a1, not wandb.id zz99" "$T/s1"
	assert_eq "$(commits)" 0
}

t logbook_pushed_and_retried test_logbook_pushed_and_retried
tt seal test_seal
tt seal_blocked_by_wandb_identity test_seal_blocked_by_wandb_identity
