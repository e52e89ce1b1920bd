#!/usr/bin/env bash
# End-to-end tests of "classify from evidence" on the real PyTorch training
# (tests/e2e/fixtures/torch/train.py): a SIGKILL we did not send is told
# apart by the oom_kill counter of the stage's own memory cgroup, resolved
# when onbox launches it (oom_cgroup in the attempt's history).
#   - a real kernel OOM kill inside a memory cgroup the test creates (v1 or
#     v2, whichever the machine has), onbox started inside it: cgroup_oom,
#     not retried, no guess;
#   - a kill -9 from outside after two complete checkpoints: killed (not
#     cgroup_oom), retried from the newest complete checkpoint, DONE.
# The unreadable counter (cgroup_oom marked as a guess) is covered by the
# unit tests (tests/unit/test_triage.c): it cannot be made unreadable here.
. "$(dirname "$0")/lib.sh"
# A test's own output goes to its log; SKIP notes go to fd 3, the script's stdout.
exec 3>&1

CG=""
# cg_make NAME LIMIT_BYTES: create a memory cgroup, set CG; 1 and the reason on stdout when impossible.
cg_make() {
	local name=$1 lim=$2 got
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null ||
			{ echo "cgroup v2 without the memory controller enabled at /sys/fs/cgroup"; return 1; }
		CG=/sys/fs/cgroup/$name
		mkdir "$CG" 2>/dev/null || { echo "cannot create $CG (not root, or read-only)"; CG=""; return 1; }
		echo "$lim" >"$CG/memory.max" 2>/dev/null || { echo "cannot write $CG/memory.max"; return 1; }
		[ ! -f "$CG/memory.swap.max" ] || echo 0 >"$CG/memory.swap.max" 2>/dev/null || true
		got=$(<"$CG/memory.max")
	elif [ -d /sys/fs/cgroup/memory ]; then
		CG=/sys/fs/cgroup/memory/$name
		mkdir "$CG" 2>/dev/null || { echo "cannot create $CG (not root, or read-only)"; CG=""; return 1; }
		echo "$lim" >"$CG/memory.limit_in_bytes" 2>/dev/null ||
			{ echo "cannot write $CG/memory.limit_in_bytes"; return 1; }
		# With swap the limit would push pages out instead of killing.
		[ ! -f "$CG/memory.memsw.limit_in_bytes" ] ||
			echo "$lim" >"$CG/memory.memsw.limit_in_bytes" 2>/dev/null || true
		got=$(<"$CG/memory.limit_in_bytes")
		grep -q '^oom_kill ' "$CG/memory.oom_control" ||
			{ echo "$CG/memory.oom_control has no oom_kill counter (kernel before 4.13)"; return 1; }
	else
		echo "no memory cgroup hierarchy under /sys/fs/cgroup"
		return 1
	fi
	# Never run the allocating training without a limit the kernel enforces.
	[ "$got" -le "$lim" ] 2>/dev/null || { echo "the limit did not take ($got)"; return 1; }
	return 0
}
cg_oom_kills() {
	if [ -f "$CG/memory.events" ]; then sed -n 's/^oom_kill //p' "$CG/memory.events"
	else sed -n 's/^oom_kill //p' "$CG/memory.oom_control"; fi
}
cg_empty() { [ ! -s "$CG/cgroup.procs" ]; }
# cg_remove: stop what is left in the test's own cgroup (by pid), then remove it.
cg_remove() {
	local p
	[ -n "$CG" ] && [ -d "$CG" ] || return 0
	for p in $(cat "$CG/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	wait_for 20 cg_empty || true
	rmdir "$CG" || echo "could not remove $CG" >&2
}

# The stage: the real training, its output appended to train.log by the stage's sh.
train_stage() {
	printf '{"stage": "train", "run": "%s %s --out . --steps %s --ckpt-every 2 --step-sleep %s %s --resume {checkpoint} >> train.log 2>&1", "log": "train.log", "done_when": "Training completed", "marker": "TRAIN_DONE"}' \
		"$TORCH_PY" "$TORCH_TRAIN" "$1" "$2" "$3"
}
kconf() {
	conf '"restart": {"max": 2}, "progress": {"pattern": "step (\\d+)/(\\d+)"}, "checkpoints": {"dir": "ckpt", "pattern": "^step_(\\d+)$", "complete_file": "metadata.json"},' \
		"[$(train_stage "$@"), {\"stage\": \"eval\", \"run\": \"true\", \"marker\": \"EVAL_DONE\"}]"
}

# A real kernel OOM kill in the stage's own cgroup: cgroup_oom, from the counter, not retried.
test_oom_kill_in_own_cgroup() {
	local why rc
	# torch's import alone takes ~250 MB resident; the training then allocates 1 MiB tensors.
	if ! cg_make "wk-e2e-$$-oom" $((700 * 1024 * 1024)) >"$T/cg.why"; then
		why=$(<"$T/cg.why")
		cg_remove
		echo >&3 "SKIP oom_kill_in_own_cgroup: $why"
		return 0
	fi
	trap cg_remove EXIT
	kconf 12 0.05 "--fail oom --fail-at 3"
	# onbox itself runs in the cgroup, so the stage inherits it at its launch.
	rc=0
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -c "$3" run' sh "$CG" "$ONBOX" "$T/wk.json" \
		>"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	[ "$(cg_oom_kills)" -ge 1 ] || fail "the kernel counted no OOM kill in $CG"
	local f="$W/markers/TRAIN_DONE.FAILED"
	assert_file "$f"
	assert_eq "$(json "$f" 'd["class"]')" cgroup_oom
	assert_eq "$(json "$f" '"guess" in d')" false "the counter grew: not a guess"
	# Not retried: cgroup_oom is not retryable, whatever the budget.
	local h="$W/stages/train.json"
	assert_eq "$(json "$h" 'len(d["attempts"])')" 1
	assert_eq "$(json "$h" 'd["attempts"][0]["class"]')" cgroup_oom
	# The counter of the stage's own cgroup, not of /sys/fs/cgroup's root.
	assert_eq "$(json "$h" 'd["attempts"][0]["oom_cgroup"]')" "$CG"
	assert_eq "$(json "$h" 'd["attempts"][0]["oom_kill_base"]')" 0
	assert_grep '"event":"stage_failed".*"class":"cgroup_oom"' "$W/events.jsonl"
	assert_no_grep '"guess"' "$W/events.jsonl"
	assert_no_file "$W/markers/EVAL_DONE"
	# Every process of the test gone from the cgroup, then the cgroup itself.
	wait_for 20 cg_empty
	trap - EXIT
	cg_remove
	[ ! -d "$CG" ] || fail "$CG still there"
}

# The newest complete checkpoint (its metadata.json written last), or nothing.
newest_complete() {
	local d best=""
	for d in "$T"/work/ckpt/step_*; do
		[ -f "$d/metadata.json" ] && best=$d
	done
	echo "$best"
}

# kill -9 from outside after two complete checkpoints: killed, retried from the newest, DONE.
test_foreign_sigkill_is_killed_and_resumed() {
	local pid ck step h
	kconf 12 0.3 "--pidfile $T/train.pid"
	bg_onbox run
	wait_for 90 test -f "$T/work/ckpt/step_000004/metadata.json"
	pid=$(<"$T/train.pid")
	kill -9 "$pid"
	ck=$(newest_complete)
	[ -n "$ck" ] || fail "no complete checkpoint"
	step=$((10#${ck##*step_}))
	[ "$step" -ge 4 ] || fail "newest complete checkpoint $ck"
	wait_for 120 test -f "$W/markers/EVAL_DONE"
	wait "$LAST_PID"
	h="$W/stages/train.json"
	assert_eq "$(json "$h" 'len(d["attempts"])')" 2
	# The counter of the stage's own cgroup was readable and did not move: killed.
	assert_eq "$(json "$h" 'd["attempts"][0]["class"]')" killed
	assert_eq "$(json "$h" 'd["attempts"][0]["oom_kill_base"] >= 0')" true
	test -d "$(json "$h" 'd["attempts"][0]["oom_cgroup"]')" || fail "oom_cgroup is no directory"
	assert_eq "$(json "$h" 'd["attempts"][1]["checkpoint"]')" "$ck"
	assert_grep "^resumed from $ck at step $step\$" "$T/work/train.log"
	assert_grep '"event":"stage_failed".*"class":"killed".*"restarting":true' "$W/events.jsonl"
	assert_no_grep '"class":"cgroup_oom"' "$W/events.jsonl"
	assert_no_grep '"guess"' "$W/events.jsonl"
	# Both markers, no FAILED one: the chain is DONE.
	assert_file "$W/markers/TRAIN_DONE"
	assert_file "$W/markers/EVAL_DONE"
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	assert_grep 'Training completed' "$T/work/train.log"
	onbox status >"$T/st" || true
	assert_grep 'DONE' "$T/st"
}

tt oom_kill_in_own_cgroup test_oom_kill_in_own_cgroup
tt foreign_sigkill_is_killed_and_resumed test_foreign_sigkill_is_killed_and_resumed
