#!/usr/bin/env bash
# End-to-end tests of `onbox run --stage NAME`, the stage wrapper each Slurm
# job of a "detach": "slurm" chain runs, on real processes: one stage per
# invocation with the chain's markers, triage and events; the gate on the
# stages before it; the Slurm attributes of attempts; and a Slurm requeue
# (the same job id, SLURM_RESTART_COUNT raised, the earlier run's processes
# SIGKILLed) ending the attempt as preempted, free of the restart budget.
# No Slurm is needed: the environment Slurm gives a job is set by hand, and
# what Slurm does to a requeued job (SIGKILL to every process) is done here.
. "$(dirname "$0")/lib.sh"

# The suite may itself run inside a Slurm job: these tests set Slurm's variables themselves.
unset SLURM_JOB_ID SLURM_RESTART_COUNT SLURMD_NODENAME

# mkstage NAME [BLOCKING]: a stage script counting its launches in $T/launch.NAME.
# Its first BLOCKING launches wait (bounded) for $T/go.NAME; then it prints its done line.
mkstage() {
	local name=$1 blocking=${2:-0}
	mkdir -p "$T/bin"
	cat >"$T/bin/$name.sh" <<SH
#!/bin/sh
echo x >>"$T/launch.$name"
echo "step 1/5 loss=0.5"
if [ "\$(wc -l <"$T/launch.$name")" -le $blocking ]; then
	n=0
	"$AWAIT" 30 "$T/go.$name" || :
fi
echo "$name completed"
SH
	chmod +x "$T/bin/$name.sh"
}

# mkfail NAME N LINE: a stage whose first N launches print LINE and exit 1.
mkfail() {
	local name=$1 n=$2 line=$3
	mkdir -p "$T/bin"
	cat >"$T/bin/$name.sh" <<SH
#!/bin/sh
echo x >>"$T/launch.$name"
if [ "\$(wc -l <"$T/launch.$name")" -le $n ]; then echo "$line" >&2; exit 1; fi
echo "$name completed"
SH
	chmod +x "$T/bin/$name.sh"
}
launches() { [ -f "$T/launch.$1" ] && wc -l <"$T/launch.$1" | tr -d ' ' || echo 0; }

# sconf [EXTRA]: the 3-stage chain prep -> train -> eval, each with its done line.
sconf() {
	conf "$1" "[
	{\"stage\": \"prep\", \"run\": \"$T/bin/prep.sh\", \"done_when\": \"prep completed\", \"marker\": \"PREP_DONE\"},
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"train completed\", \"marker\": \"TRAIN_DONE\"},
	{\"stage\": \"eval\", \"run\": \"$T/bin/eval.sh\", \"marker\": \"EVAL_DONE\"}]"
}

# att STAGE EXPR: EXPR over the attempts list a of STAGE's history.
att() { python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["attempts"]; v=eval(sys.argv[2]); print(v if not isinstance(v,bool) else str(v).lower())' "$W/stages/$1.json" "$2"; }
# evs EXPR: EXPR over the list e of events (events.jsonl).
evs() { python3 -c 'import json,sys; e=[json.loads(l) for l in open(sys.argv[1])]; v=eval(sys.argv[2]); print(v if not isinstance(v,bool) else str(v).lower())' "$W/events.jsonl" "$1"; }
# rec STAGE N KEY: a key of attempt N's process record.
rec() { json "$W/attempts/$1.$2.json" "d.get('$3', 0)"; }
# gone PID: no such process, or only its zombie (which holds no lock and runs nothing).
gone() { [ ! -e "/proc/$1" ] || grep -q ') [ZX] ' "/proc/$1/stat" 2>/dev/null; }
# snap: every file under .watchkeeper with its digest, to prove nothing was written.
snap() { (cd "$W" && find . -type f -exec sha1sum {} + | sort); }

# start_train_job COUNT: `onbox run --stage prep` done, then `--stage train` in the
# background as Slurm job 77 (restart COUNT), until its first attempt runs.
start_train_job() {
	onbox run --stage prep >/dev/null 2>&1
	SLURM_JOB_ID=77 SLURM_RESTART_COUNT=$1 bg_onbox run --stage train
	wait_for 10 test -f "$W/attempts/train.1.json"
	wait_for 10 grep -q '"stage_started".*"train"' "$W/events.jsonl"
	wait_for 10 grep -q 'step 1/5' "$W/logs/train.1.log"
	JOB_ONBOX=$LAST_PID
	WRAPPER=$(rec train 1 wrapper_pid)
	STAGE=$(rec train 1 pid)
	[ "$WRAPPER" != 0 ] && [ "$STAGE" != 0 ] || fail "no pids in train's record"
}

# slurm_kill [all|stage]: what Slurm does to a job it requeues or cancels: SIGKILL to
# onbox and the stage's process group, and (all) to the attempt's wrapper too.
slurm_kill() {
	kill -9 "$JOB_ONBOX"
	[ "$1" = all ] && kill -9 "$WRAPPER"
	kill -9 -- "-$STAGE"
	wait "$JOB_ONBOX" 2>/dev/null || true
	wait_for 10 gone "$STAGE"
	if [ "$1" = all ]; then wait_for 10 gone "$WRAPPER"; fi
	return 0
}

test_chain_stage_by_stage() {
	mkstage prep; mkstage train; mkstage eval
	sconf ''
	onbox run --stage prep >"$T/out1" 2>&1
	assert_file "$W/markers/PREP_DONE"
	assert_no_file "$W/markers/TRAIN_DONE"
	assert_eq "$(launches train)" 0 "--stage prep runs prep only"
	# One stage done, the chain is not: nothing runs, the next stage's job is awaited.
	assert_eq "$(json "$W/state.json" 'd["status"]')" waiting
	assert_eq "$(json "$W/state.json" 'd["stage"]')" prep
	assert_grep 'the chain continues with train' "$T/out1"
	onbox run --stage train >"$T/out2" 2>&1
	assert_eq "$(launches eval)" 0
	assert_eq "$(json "$W/state.json" 'd["status"]')" waiting
	assert_eq "$(grep -c '"chain_done"' "$W/events.jsonl")" 0
	onbox run --stage eval >"$T/out3" 2>&1
	for m in PREP_DONE TRAIN_DONE EVAL_DONE; do assert_file "$W/markers/$m"; done
	assert_eq "$(grep -c '"stage_started"' "$W/events.jsonl")" 3
	assert_eq "$(grep -c '"stage_done"' "$W/events.jsonl")" 3
	# The last stage's job reports the chain, once.
	assert_eq "$(grep -c '"chain_done"' "$W/events.jsonl")" 1
	assert_grep 'chain DONE' "$T/out3"
	assert_eq "$(json "$W/state.json" 'd["status"]')" done
	for s in prep train eval; do assert_eq "$(launches $s)" 1 "$s"; done
	# Run again (a requeued last job): nothing launched, no second chain_done.
	onbox run --stage eval >"$T/out4" 2>&1
	assert_eq "$(grep -c '"chain_done"' "$W/events.jsonl")" 1
	assert_eq "$(launches eval)" 1
	onbox status --json >"$T/s.json"
	assert_eq "$(json "$T/s.json" 'd["done"]')" true
}

test_earlier_marker_missing_exits_1_writes_nothing() {
	mkstage prep; mkstage eval
	mkfail train 100 'KeyError: lr'
	sconf ''
	# Nothing has run: nothing may appear, not even .watchkeeper/.
	rc=0; onbox run --stage eval >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep 'stage prep has no marker PREP_DONE: eval.s job must run after prep.s \(sbatch --dependency=afterok\)' "$T/out"
	assert_no_file "$T/work/.watchkeeper"
	assert_eq "$(launches eval)" 0
	# prep done, train failed: eval's job finds train's marker missing and touches nothing.
	onbox run --stage prep >/dev/null 2>&1
	rc=0; onbox run --stage train >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 1
	snap >"$T/before"
	rc=0; onbox run --stage eval >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep 'stage train has no marker TRAIN_DONE \(it failed: see its .FAILED marker\): eval.s job must run after train.s' "$T/out"
	snap >"$T/after"
	cmp "$T/before" "$T/after" || fail "--stage eval wrote into .watchkeeper: $(diff "$T/before" "$T/after")"
	assert_no_file "$W/stages/eval.json"
	assert_no_file "$W/markers/EVAL_DONE.FAILED"
	assert_eq "$(launches eval)" 0
}

test_unknown_stage_exits_64() {
	mkstage prep; mkstage train; mkstage eval
	sconf ''
	rc=0; onbox run --stage evaluate >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 64
	assert_grep 'run --stage "evaluate": .*/wk.json has no stage of that name \(its chain: prep, train, eval\)' "$T/out"
	assert_no_file "$T/work/.watchkeeper"
	rc=0; onbox run --stage >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 64 "--stage without a name"
	rc=0; onbox run --stage train extra >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 64 "a stray argument"
	for s in prep train eval; do assert_eq "$(launches $s)" 0; done
}

test_failing_stage_exits_1_with_failed_marker() {
	mkstage prep; mkstage eval
	mkfail train 100 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB'
	sconf ''
	onbox run --stage prep >/dev/null 2>&1
	rc=0; onbox run --stage train >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_file "$W/markers/TRAIN_DONE.FAILED"
	assert_no_file "$W/markers/TRAIN_DONE"
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["class"]')" cuda_oom
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["policy"]["rule"]')" never_retry
	assert_eq "$(json "$W/state.json" 'd["status"]')" failed
	assert_eq "$(evs "[x['class'] for x in e if x['event'] == 'stage_failed']")" "['cuda_oom']"
	assert_grep 'train FAILED \(cuda_oom' "$T/out"
	assert_eq "$(launches eval)" 0
}

# A retryable failure is restarted by the policy inside the same --stage process.
test_policy_restart_inside_the_stage_job() {
	mkstage prep; mkstage eval
	mkfail train 1 'RuntimeError: NCCL communicator was aborted: Watchdog caught collective operation timeout'
	sconf '"restart": {"max": 2, "escalate_s": 0},'
	onbox run --stage prep >/dev/null 2>&1
	rc=0; onbox run --stage train >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(launches train)" 2
	assert_file "$W/markers/TRAIN_DONE"
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	assert_eq "$(launches eval)" 0
}

test_marker_present_exits_0_without_launch() {
	mkstage prep; mkstage train; mkstage eval
	sconf ''
	onbox run --stage prep >/dev/null 2>&1
	onbox run --stage train >/dev/null 2>&1
	h=$(sha1sum <"$W/stages/train.json")
	rc=0; SLURM_JOB_ID=90 onbox run --stage train >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep 'stage train: its marker TRAIN_DONE is already there: nothing to run' "$T/out"
	assert_eq "$(launches train)" 1
	assert_eq "$(att train 'len(a)')" 1
	assert_eq "$(sha1sum <"$W/stages/train.json")" "$h" "no new attempt"
	assert_eq "$(grep -c '"stage_started"' "$W/events.jsonl")" 2
}

test_slurm_attributes_recorded() {
	mkstage prep; mkstage train; mkstage eval
	sconf ''
	SLURM_JOB_ID=77 SLURM_RESTART_COUNT=0 SLURMD_NODENAME=node-1 onbox run --stage prep >/dev/null 2>&1
	assert_eq "$(att prep 'a[0]["job_id"]')" 77
	assert_eq "$(att prep 'type(a[0]["job_id"]).__name__')" str
	assert_eq "$(att prep 'a[0]["slurm_restart_count"]')" 0
	assert_eq "$(att prep 'a[0]["node"]')" node-1
	assert_eq "$(evs "[(x['job_id'], x['slurm_restart_count']) for x in e if x['event'] == 'stage_started']")" "[('77', 0)]"
	# SLURM_RESTART_COUNT unset: a job never requeued, count 0.
	SLURM_JOB_ID=78 onbox run --stage train >/dev/null 2>&1
	assert_eq "$(att train '(a[0]["job_id"], a[0]["slurm_restart_count"], "node" in a[0])')" "('78', 0, False)"
	# Not under Slurm: nothing of it.
	onbox run --stage eval >/dev/null 2>&1
	assert_eq "$(att eval '[k for k in ("job_id", "slurm_restart_count", "node") if k in a[0]]')" "[]"
	assert_eq "$(evs "[x['stage'] for x in e if x['event'] == 'stage_started' and 'job_id' in x]")" "['prep', 'train']"
}

test_slurm_env_garbage_ignored() {
	mkstage prep; mkstage train; mkstage eval
	sconf ''
	SLURM_JOB_ID='77;touch pwned' onbox run --stage prep >"$T/out1" 2>&1
	assert_grep 'SLURM_JOB_ID is not a Slurm job id' "$T/out1"
	assert_eq "$(att prep '"job_id" in a[0]')" false
	long=$(printf 'n%.0s' $(seq 1 70))
	SLURM_JOB_ID=77 SLURM_RESTART_COUNT='1 2' SLURMD_NODENAME="$long" onbox run --stage train >"$T/out2" 2>&1
	assert_grep 'SLURM_RESTART_COUNT is not a count' "$T/out2"
	assert_grep 'SLURMD_NODENAME is not a node name' "$T/out2"
	assert_eq "$(att train '(a[0]["job_id"], "slurm_restart_count" in a[0], "node" in a[0])')" "('77', False, False)"
	SLURM_JOB_ID=77 SLURMD_NODENAME='node$(id)' onbox run --stage eval >"$T/out3" 2>&1
	assert_grep 'SLURMD_NODENAME is not a node name' "$T/out3"
	# Never copied anywhere: not into records, events, logs, warnings.
	for g in 'touch pwned' "$long" 'node\$\(id\)' '1 2"'; do
		! grep -rqE -- "$g" "$W" "$T/out1" "$T/out2" "$T/out3" || fail "garbage /$g/ was copied"
	done
	assert_no_file "$T/work/pwned"
	for m in PREP_DONE TRAIN_DONE EVAL_DONE; do assert_file "$W/markers/$m"; done
}

# The requeue: job 77's first run is SIGKILLed whole (onbox, wrapper, stage) before
# anything was recorded; Slurm runs job 77 again with SLURM_RESTART_COUNT=1.
test_requeue_ends_attempt_as_preempted() {
	mkstage prep; mkstage train 1; mkstage eval
	# restart.max 0: a counting failure would never be restarted.
	sconf '"restart": {"max": 0, "escalate_s": 0},'
	start_train_job 0
	slurm_kill all
	assert_eq "$(rec train 1 state)" running "the wrapper recorded no end"
	rc=0; SLURM_JOB_ID=77 SLURM_RESTART_COUNT=1 onbox run --stage train >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep 'train requeued by Slurm \(job 77, restart 1\): attempt 2 starts' "$T/out"
	assert_eq "$(att train 'len(a)')" 2
	assert_eq "$(att train '(a[0]["result"], a[0]["class"], a[0]["requeued"])')" "('failed', 'preempted', True)"
	assert_eq "$(att train '"ended_unix" in a[0] and "policy" not in a[0]')" true "ended, no policy decision"
	assert_eq "$(att train '(a[1]["result"], a[1]["job_id"], a[1]["slurm_restart_count"])')" "('done', '77', 1)"
	assert_eq "$(evs "[(x['attempt'], x['job_id'], x['slurm_restart_count']) for x in e if x['event'] == 'stage_requeued']")" "[(1, '77', 1)]"
	assert_eq "$(evs "[x['attempt'] for x in e if x['event'] in ('stage_failed', 'stage_lost')]")" "[]"
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	assert_file "$W/markers/TRAIN_DONE"
	assert_eq "$(launches train)" 2
	onbox status >"$T/st"
	assert_grep 'stage_requeued train#1 \(preempted\)' "$T/st"
	# The chain completes: eval's job runs, and reports the chain.
	SLURM_JOB_ID=78 onbox run --stage eval >/dev/null 2>&1
	assert_file "$W/markers/EVAL_DONE"
	assert_eq "$(grep -c '"chain_done"' "$W/events.jsonl")" 1
}

# The wrapper outlived its stage long enough to record the SIGKILL: still a requeue,
# not a cgroup OOM (what a SIGKILL from nowhere would otherwise be classified as).
test_requeue_after_wrapper_recorded_the_kill() {
	mkstage prep; mkstage train 1
	conf '"restart": {"max": 0, "escalate_s": 0},' "[
	{\"stage\": \"prep\", \"run\": \"$T/bin/prep.sh\"},
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"train completed\"}]"
	start_train_job 0
	slurm_kill stage
	wait_for 10 grep -q '"exited"' "$W/attempts/train.1.json"
	wait_for 10 gone "$WRAPPER"
	rc=0; SLURM_JOB_ID=77 SLURM_RESTART_COUNT=1 onbox run --stage train >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(att train '(a[0]["class"], a[0]["requeued"], a[0]["signal"])')" "('preempted', True, 9)"
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	assert_file "$W/markers/TRAIN_DONE"
	assert_eq "$(grep -c '"chain_done"' "$W/events.jsonl")" 1 "train is the last stage here"
}

# The requeued attempt costs nothing: with restart.max 1, the counting failure after
# it is still restarted (budget 1 of 1), and the stage completes.
test_requeue_leaves_the_budget_untouched() {
	mkstage prep
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
echo x >>"$T/launch.train"
n=\$(wc -l <"$T/launch.train")
echo "step 1/5"
if [ \$n -eq 1 ]; then i=0; while [ \$i -lt 300 ]; do sleep 0.1; i=\$((i+1)); done; fi
if [ \$n -eq 2 ]; then echo "RuntimeError: NCCL communicator was aborted: Watchdog caught collective operation timeout" >&2; exit 1; fi
echo "train completed"
SH
	chmod +x "$T/bin/train.sh"
	conf '"restart": {"max": 1, "escalate_s": 0, "max_in_window": 10},' "[
	{\"stage\": \"prep\", \"run\": \"$T/bin/prep.sh\"},
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"train completed\"}]"
	start_train_job 0
	slurm_kill all
	rc=0; SLURM_JOB_ID=77 SLURM_RESTART_COUNT=1 onbox run --stage train >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(launches train)" 3
	assert_eq "$(att train '[(x["result"], x.get("class")) for x in a]')" "[('failed', 'preempted'), ('failed', 'nccl_timeout'), ('done', None)]"
	assert_eq "$(att train '(a[1]["policy"]["rule"], a[1]["policy"]["counts"], a[1]["policy"]["budget_used"], a[1]["policy"]["budget_max"])')" "('retry', True, 1, 1)"
	assert_eq "$(att train '[x["slurm_restart_count"] for x in a]')" "[0, 1, 1]"
	assert_file "$W/markers/TRAIN_DONE"
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
}

# Slurm's sweep (scancel, time limit, requeue) can reach the stage before onbox:
# the stage dies first, onbox's own SIGTERM comes a moment later.  onbox must
# neither judge nor restart that attempt inside a job being torn down; the
# job's next run (a requeue here) ends it as requeued.  (Seen on a real
# one-node Slurm: without the wait, `scontrol requeue` got the attempt
# judged "lost" and a new one launched before onbox's SIGTERM was read.)
test_teardown_reaching_the_stage_first() {
	mkstage prep; mkstage train 1
	conf '"restart": {"max": 0, "escalate_s": 0},' "[
	{\"stage\": \"prep\", \"run\": \"$T/bin/prep.sh\"},
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"train completed\"}]"
	start_train_job 0
	kill -TERM "$WRAPPER"
	kill -TERM -- "-$STAGE"
	wait_for 10 gone "$STAGE"
	sleep 0.3	# the sweep's order, not a timing assertion: onbox is signalled last
	kill -TERM "$JOB_ONBOX" 2>/dev/null || true	# without the wait it has already moved on
	rc=0; wait "$JOB_ONBOX" || rc=$?
	assert_eq "$rc" 143
	assert_eq "$(launches train)" 1 "no new attempt inside the stopping job"
	assert_eq "$(att train '(len(a), a[0]["result"])')" "(1, 'running')"
	assert_eq "$(evs "[x['event'] for x in e if x['event'] in ('stage_failed', 'stage_lost')]")" "[]"
	assert_grep 'ended as Slurm job 77 is being stopped \(signal 15\)' "$T/onbox.out"
	rc=0; SLURM_JOB_ID=77 SLURM_RESTART_COUNT=1 onbox run --stage train >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(att train '[(x["result"], x.get("class"), x.get("requeued", False)) for x in a]')" "[('failed', 'preempted', True), ('done', None, False)]"
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	assert_file "$W/markers/TRAIN_DONE"
}

# The attempt finished on its own (exit 0, done line) while its onbox was gone,
# then Slurm requeued the job: judged on its outcome, never run again.
test_requeue_after_attempt_ended_on_its_own() {
	mkstage prep; mkstage train 1
	conf '' "[
	{\"stage\": \"prep\", \"run\": \"$T/bin/prep.sh\"},
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"train completed\"}]"
	start_train_job 0
	kill -9 "$JOB_ONBOX"
	wait "$JOB_ONBOX" 2>/dev/null || true
	touch "$T/go.train"
	wait_for 10 grep -q '"exited"' "$W/attempts/train.1.json"
	wait_for 10 gone "$WRAPPER"
	rc=0; SLURM_JOB_ID=77 SLURM_RESTART_COUNT=1 onbox run --stage train >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep 'attempt 1 ended on its own \(exit 0\) before Slurm requeued job 77' "$T/out"
	assert_eq "$(launches train)" 1
	assert_eq "$(att train '(len(a), a[0]["result"], "requeued" in a[0])')" "(1, 'done', False)"
	assert_eq "$(grep -c '"stage_requeued"' "$W/events.jsonl")" 0
	assert_eq "$(json "$W/markers/TRAIN_DONE" 'd["attempt"]')" 1
}

# Same job id, SLURM_RESTART_COUNT unchanged, previous run dead: not a requeue,
# the existing "lost" path (stage_lost, policy decision).
test_same_restart_count_is_lost_not_requeued() {
	mkstage prep; mkstage train 1
	conf '"restart": {"max": 0, "escalate_s": 0},' "[
	{\"stage\": \"prep\", \"run\": \"$T/bin/prep.sh\"},
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"train completed\"}]"
	start_train_job 0
	slurm_kill all
	rc=0; SLURM_JOB_ID=77 SLURM_RESTART_COUNT=0 onbox run --stage train >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(att train '(a[0]["result"], a[0]["class"], "requeued" in a[0], a[0]["policy"]["rule"])')" "('lost', 'lost', False, 'retry')"
	assert_eq "$(evs "[x['event'] for x in e if x['event'] in ('stage_lost', 'stage_requeued')]")" "['stage_lost']"
	assert_grep 'train attempt 1 LOST' "$T/out"
	assert_file "$W/markers/TRAIN_DONE"
}

# Slurm requeued the job but the attempt still runs here (it escaped Slurm's kill):
# onbox re-attaches to it; a second copy is never launched.
test_requeue_with_attempt_still_running_reattaches() {
	mkstage prep; mkstage train 1
	conf '' "[
	{\"stage\": \"prep\", \"run\": \"$T/bin/prep.sh\"},
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"train completed\"}]"
	start_train_job 0
	kill -9 "$JOB_ONBOX"
	wait "$JOB_ONBOX" 2>/dev/null || true
	kill -0 "$STAGE"
	SLURM_JOB_ID=77 SLURM_RESTART_COUNT=1 bg_onbox run --stage train
	wait_for 10 grep -q 're-attaching to attempt 1' "$T/onbox.out"
	assert_grep 'Slurm requeued job 77 \(restart 1\) but the attempt still runs here' "$T/onbox.out"
	touch "$T/go.train"
	rc=0; wait "$LAST_PID" || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(launches train)" 1
	assert_eq "$(att train '(len(a), a[0]["result"])')" "(1, 'done')"
	assert_eq "$(grep -c '"stage_requeued"' "$W/events.jsonl")" 0
	assert_file "$W/markers/TRAIN_DONE"
}

# stage_requeued passes a sink's event filter and reads as a sentence.
test_requeue_event_reaches_webhook() {
	start_receiver
	mkstage prep; mkstage train 1
	conf "\"notify\": [{\"type\": \"slack\", \"url\": \"http://127.0.0.1:$RPORT/slack\", \"events\": [\"stage_requeued\"]}]," "[
	{\"stage\": \"prep\", \"run\": \"$T/bin/prep.sh\"},
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"train completed\"}]"
	start_train_job 0
	slurm_kill all
	SLURM_JOB_ID=77 SLURM_RESTART_COUNT=1 onbox run --stage train >"$T/out" 2>&1
	wait_for 10 sh -c "[ -s '$T/recv.jsonl' ]"
	assert_eq "$(recv_count)" 1 "only stage_requeued passes the filter"
	recv_json "json.loads(r[0]['body'])['text']" >"$T/text"
	assert_grep '^\[t1\] train attempt 1 REQUEUED by Slurm \(job 77, restart 1\)$' "$T/text"
}

test_concurrent_stage_run_exits_75() {
	mkstage prep; mkstage train 1
	sconf ''
	start_train_job 0
	rc=0; SLURM_JOB_ID=77 SLURM_RESTART_COUNT=0 onbox run --stage train >"$T/second" 2>&1 || rc=$?
	assert_eq "$rc" 75
	assert_grep 'already running' "$T/second"
	assert_eq "$(launches train)" 1
	touch "$T/go.train"
	rc=0; wait "$JOB_ONBOX" || rc=$?
	assert_eq "$rc" 0
}

# scancel or the time limit: SIGTERM to every process of the job.  onbox stops (143,
# status stopped); a new job (a new id: not a requeue) finishes the attempt's story.
test_sigterm_under_slurm() {
	mkstage prep; mkstage train 1
	conf '"restart": {"max": 0, "escalate_s": 0},' "[
	{\"stage\": \"prep\", \"run\": \"$T/bin/prep.sh\"},
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"train completed\"}]"
	start_train_job 0
	kill -TERM "$JOB_ONBOX" "$WRAPPER"
	kill -TERM -- "-$STAGE"
	rc=0; wait "$JOB_ONBOX" || rc=$?
	assert_eq "$rc" 143
	assert_eq "$(json "$W/state.json" 'd["status"]')" stopped
	wait_for 10 gone "$STAGE"
	wait_for 10 gone "$WRAPPER"
	rc=0; SLURM_JOB_ID=78 onbox run --stage train >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(att train 'a[0]["result"] in ("lost", "failed") and "requeued" not in a[0]')" true
	assert_eq "$(att train '(a[1]["job_id"], a[1]["result"])')" "('78', 'done')"
	assert_file "$W/markers/TRAIN_DONE"
}

t chain_stage_by_stage test_chain_stage_by_stage
t earlier_marker_missing_exits_1_writes_nothing test_earlier_marker_missing_exits_1_writes_nothing
t unknown_stage_exits_64 test_unknown_stage_exits_64
t failing_stage_exits_1_with_failed_marker test_failing_stage_exits_1_with_failed_marker
t policy_restart_inside_the_stage_job test_policy_restart_inside_the_stage_job
t marker_present_exits_0_without_launch test_marker_present_exits_0_without_launch
t slurm_attributes_recorded test_slurm_attributes_recorded
t slurm_env_garbage_ignored test_slurm_env_garbage_ignored
t requeue_ends_attempt_as_preempted test_requeue_ends_attempt_as_preempted
t requeue_after_wrapper_recorded_the_kill test_requeue_after_wrapper_recorded_the_kill
t requeue_leaves_the_budget_untouched test_requeue_leaves_the_budget_untouched
t teardown_reaching_the_stage_first test_teardown_reaching_the_stage_first
t requeue_after_attempt_ended_on_its_own test_requeue_after_attempt_ended_on_its_own
t same_restart_count_is_lost_not_requeued test_same_restart_count_is_lost_not_requeued
t requeue_with_attempt_still_running_reattaches test_requeue_with_attempt_still_running_reattaches
t requeue_event_reaches_webhook test_requeue_event_reaches_webhook
t concurrent_stage_run_exits_75 test_concurrent_stage_run_exits_75
t sigterm_under_slurm test_sigterm_under_slurm
