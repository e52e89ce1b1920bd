#!/usr/bin/env bash
# End-to-end tests of `patrol checkpoints [--prune [--confirm]]` (retention,
# core/ckptkeep.c): the real patrol over the suite's sshd, real directories
# on "the box", a real attempt history naming the checkpoint it launched from.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
PATROL="$TOP/$BUILD/patrol"

patrol() { $ONBOX_WRAP "$PATROL" -c "$T/wk.json" "$@"; }

# ck NAME: a complete checkpoint directory; ck NAME 0: an incomplete one.
ck() { mkdir -p "$T/work/ckpt/$1"; [ "${2-1}" = 0 ] || echo '{}' >"$T/work/ckpt/$1/metadata.json"; }

test_list_prune_confirm() {
	box
	pconf '"progress": {"pattern": "step (\\d+)", "max": 3000}, "checkpoints": {"dir": "ckpt", "pattern": "^step_(\\d+)$", "keep": 2, "permanent_every": 1000, "reject": ["step_2200"]},' \
		'[{"stage": "train", "run": "echo resume {checkpoint}"}]'
	ck step_500; ck step_1000; ck step_1500
	onbox run >"$T/r1" 2>&1
	assert_eq "$(json "$W/stages/train.json" 'd["attempts"][0]["checkpoint"]')" "$T/work/ckpt/step_1500"
	ck step_700 0; ck step_1200; ck step_2000 0; ck step_2200; ck step_2500; ck step_3000; ck step_3500 0
	echo weights >"$T/work/ckpt/step_600"
	echo '{}' >"$T/work/ckpt/step_600.metadata.json"
	patrol checkpoints >"$T/c1" 2>&1
	assert_grep "^checkpoints of run t1 in $T/work/ckpt: 11 entries, 7 complete$" "$T/c1"
	assert_grep '^ +500 +complete .* step_500 +delete candidate$' "$T/c1"
	assert_grep '^ +600 +complete .* step_600 +delete candidate$' "$T/c1"
	assert_grep '^ +700 +incomplete .* step_700 +delete candidate$' "$T/c1"
	assert_grep '^ +1000 +complete .* step_1000 +milestone$' "$T/c1"
	assert_grep '^ +1200 +complete .* step_1200 +delete candidate$' "$T/c1"
	assert_grep '^ +1500 +complete .* step_1500 +launch$' "$T/c1"
	assert_grep '^ +2000 +incomplete .* step_2000 +delete candidate$' "$T/c1"
	assert_grep '^ +2200 +rejected .* step_2200 +rejected lineage$' "$T/c1"
	assert_grep '^ +2500 +complete .* step_2500 +newest$' "$T/c1"
	assert_grep '^ +3000 +complete .* step_3000 +recovery, final, newest, milestone$' "$T/c1"
	assert_grep '^ +3500 +incomplete .* step_3500 +in progress$' "$T/c1"
	rc=0; patrol checkpoints --confirm >"$T/c2" 2>&1 || rc=$?
	assert_eq "$rc" 64
	patrol checkpoints --prune >"$T/c3" 2>&1
	assert_grep '^5 deletion candidates: step_500 step_600 step_700 step_1200 step_2000$' "$T/c3"
	assert_grep 'nothing was deleted: .*--prune --confirm' "$T/c3"
	assert_eq "$(ls "$T/work/ckpt" | wc -l)" 12
	patrol checkpoints --prune --confirm >"$T/c4" 2>&1
	assert_grep "^deleted $T/work/ckpt/step_500$" "$T/c4"
	assert_grep '^5 of 5 deletion candidates deleted$' "$T/c4"
	assert_eq "$(ls "$T/work/ckpt" | tr '\n' ' ')" "step_1000 step_1500 step_2200 step_2500 step_3000 step_3500 "
	assert_grep 'CHECKPOINTS PRUNED' "$T/state/watchkeeper/t1/LOGBOOK.md"
	assert_grep '^step_1200$' "$T/state/watchkeeper/t1/LOGBOOK.md"
	# Again: nothing left to prune.
	patrol checkpoints --prune >"$T/c5" 2>&1
	assert_grep '^nothing to prune: every checkpoint is kept$' "$T/c5"
}

test_refusals() {
	box
	pconf '' '[{"stage": "train", "run": "true"}]'
	rc=0; patrol checkpoints >"$T/c1" 2>&1 || rc=$?
	assert_eq "$rc" 78
	assert_grep 'has no "checkpoints"' "$T/c1"
	pconf '"checkpoints": {"dir": "ckpt", "pattern": "^step_(\\d+)$"},' '[{"stage": "train", "run": "true"}]'
	rc=0; patrol --prune >"$T/c2" 2>&1 || rc=$?
	assert_eq "$rc" 64
	# A box that cannot be reached: 2, nothing listed.
	sed -i 's/"connect_timeout_s": 3/"connect_timeout_s": 1/; s/"host": "box"/"host": "nobox"/' "$T/wk.json"
	rc=0; patrol checkpoints >"$T/c3" 2>&1 || rc=$?
	assert_eq "$rc" 2
	# No directory yet: listed as such.
	sed -i 's/"host": "nobox"/"host": "box"/' "$T/wk.json"
	patrol checkpoints --prune >"$T/c4" 2>&1
	assert_grep '0 entries, 0 complete \(the directory does not exist\)' "$T/c4"
	assert_grep 'nothing to prune' "$T/c4"
}

t list_prune_confirm test_list_prune_confirm
t refusals test_refusals
