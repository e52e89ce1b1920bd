#!/usr/bin/env bash
# End-to-end tests of "detach": "slurm": a real one-node Slurm cluster
# (slurmctld + slurmd + munge, tests/e2e/slurm.sh) that each test starts and
# stops itself, real onbox stage wrappers running as Slurm jobs, and patrol
# reaching the "login node" (this machine) over the suite's sshd.  Without
# the Slurm packages every test says SKIP and none counts as passed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/slurm.sh"
PATROL="$TOP/$BUILD/patrol"

patrol() { $ONBOX_WRAP "$PATROL" -c "$T/wk.json" "$@"; }

# cluster: the sshd "box" with the run's tools, the cluster, and Slurm's
# commands reachable from remote shells.
cluster() {
	box
	slurm_start
	slurm_remote_wrappers
}

# sconf EXTRA CHAIN: a slurm run's config (pconf with detach slurm).
sconf() {
	pconf "\"detach\": \"slurm\", \"patrol\": {\"auto_resume\": ${AUTO:-false}}, $1" "$2"
	# conf's own "detach": "nohup" goes: a key given twice is a config error.
	sed -i 's/"detach": "nohup",//' "$T/wk.json"
}

# Live jobs (pending or running) named wk-t1-STAGE.
live_jobs() { squeue -h -t PD,R,CG,CF -n "wk-t1-$1" -o %i | wc -l | tr -d ' '; }
all_jobs() { squeue -h -t all -n "wk-t1-$1" -o %i | wc -l | tr -d ' '; }
job_of() { squeue -h -t all -n "wk-t1-$1" -o '%i %T' | sort -n | tail -n 1 | cut -d' ' -f1; }
job_state() { squeue -h -j "$1" -o %T 2>/dev/null; }
job_reason() { squeue -h -j "$1" -o %r 2>/dev/null; }
has_marker() { [ -f "$W/markers/$1" ]; }

# A stage script: fails (exit 3) until $T/ok.<name> exists.
flaky() {
	mkdir -p "$T/bin"
	cat >"$T/bin/$1.sh" <<SH
#!/bin/sh
echo "$1 running"
[ -f "$T/ok.$1" ] || { echo "Error: $1 is not ready"; exit 3; }
echo "$1 finished"
SH
	chmod +x "$T/bin/$1.sh"
}

three() {
	flaky a
	flaky b
	flaky c
	echo "[{\"stage\": \"a\", \"run\": \"$T/bin/a.sh\"}, {\"stage\": \"b\", \"run\": \"$T/bin/b.sh\"}, {\"stage\": \"c\", \"run\": \"$T/bin/c.sh\"}]"
}

test_chain_completes_and_start_is_idempotent() {
	cluster
	touch "$T/ok.a" "$T/ok.b" "$T/ok.c"
	sconf '' "$(three)"
	# Hold the first job so the second start surely sees all three queued.
	rc=0; onbox start >"$T/s1" 2>&1 || rc=$?
	assert_eq "$rc" 0 "first start: $(<"$T/s1")"
	assert_grep 'a job [0-9]+ \(submitted\), b job [0-9]+ \(submitted, after [0-9]+\), c job [0-9]+ \(submitted, after' "$T/s1"
	rc=0; onbox start >"$T/s2" 2>&1 || rc=$?
	# Either all three are still queued (75, nothing submitted) or some already finished: never a second job per stage.
	for s in a b c; do
		[ "$(all_jobs $s)" = 1 ] || fail "stage $s has $(all_jobs $s) jobs after two starts"
	done
	case $rc in 0 | 75) ;; *) fail "second start exit $rc: $(<"$T/s2")" ;; esac
	if [ "$rc" = 75 ]; then assert_grep 'nothing submitted' "$T/s2"; fi
	wait_for 90 has_marker C_DONE
	has_marker A_DONE && has_marker B_DONE
	# Each stage ran once, in its own job, as onbox's stage wrapper.
	for s in a b c; do
		assert_eq "$(json "$W/stages/$s.json" 'len(d["attempts"])')" 1
		id=$(json "$W/stages/$s.json" 'd["attempts"][0]["job_id"]')
		assert_eq "$id" "$(json "$W/slurm.json" "d['stages']['$s']['job_id']")" "stage $s's job"
	done
	assert_grep '"event":"chain_done"' "$W/events.jsonl"
	# A third start has nothing to do; patrol over ssh says DONE.
	onbox start >"$T/s3" 2>&1
	assert_grep 'nothing to do' "$T/s3"
	rc=0; patrol --once >"$T/p" 2>&1 || rc=$?
	assert_eq "$rc" 0 "patrol: $(<"$T/p")"
	assert_grep ' DONE every marker present' "$T/p"
}

test_failed_middle_stage_strands_the_next() {
	cluster
	touch "$T/ok.a" "$T/ok.c"
	AUTO=true sconf '' "$(three)"
	onbox start >"$T/s1" 2>&1
	wait_for 90 test -f "$W/markers/B_DONE.FAILED"
	assert_no_file "$W/markers/B_DONE"
	assert_eq "$(json "$W/markers/B_DONE.FAILED" 'd["class"]')" unknown
	c1=$(json "$W/slurm.json" "d['stages']['c']['job_id']")
	wait_for 30 sh -c "[ \"\$(squeue -h -j $c1 -o %r)\" = DependencyNeverSatisfied ]"
	# Patrol names the failed stage and the stranded one; the policy does not retry
	# an unrecognised failure, so nothing is resubmitted and the stranded job stays.
	rc=0; patrol --once >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep " CRASHED b \(unknown\) attempt 1: .* · c job $c1 stranded \(DependencyNeverSatisfied\) · not resumed \(never_retry\)" "$T/p1"
	assert_eq "$(job_state "$c1")" PENDING "the stranded job is not cancelled when the policy says no"
	assert_eq "$(all_jobs b)" 1
	# The owner fixes b and starts again: b is resubmitted, the stranded c replaced.
	touch "$T/ok.b"
	rc=0; onbox start >"$T/s2" 2>&1 || rc=$?
	assert_eq "$rc" 0 "$(<"$T/s2")"
	assert_grep 'a \(done\), b job [0-9]+ \(submitted\), c job [0-9]+ \(submitted, after' "$T/s2"
	wait_for 90 has_marker C_DONE
	assert_eq "$(json "$W/stages/b.json" 'len(d["attempts"])')" 2
	c2=$(json "$W/slurm.json" "d['stages']['c']['job_id']")
	[ "$c2" != "$c1" ] || fail "c was not replaced"
	assert_eq "$(scontrol -o show job "$c1" | grep -o 'JobState=[A-Z]*')" JobState=CANCELLED
	assert_grep '"event":"job_cancelled".*"stage":"c"' "$W/events.jsonl"
	rc=0; patrol --once >"$T/p2" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep ' DONE ' "$T/p2"
}

# A node failure kills the job before onbox can say anything: patrol reads
# NODE_FAIL from Slurm, the policy retries node_lost, and the resume replaces
# the stranded dependents.
test_node_failure_is_resumed_by_patrol() {
	cluster
	mkdir -p "$T/bin"
	cat >"$T/bin/a.sh" <<SH
#!/bin/sh
echo "a running"
[ -f "$T/ok.a" ] && { echo "a finished"; exit 0; }
i=0; while [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
SH
	chmod +x "$T/bin/a.sh"
	flaky b
	touch "$T/ok.b"
	# --no-requeue: the cluster would requeue it (JobRequeue=1); this job ends NODE_FAIL.
	AUTO=true sconf '' "[{\"stage\": \"a\", \"run\": \"$T/bin/a.sh\", \"sbatch\": {\"no-requeue\": true}}, {\"stage\": \"b\", \"run\": \"$T/bin/b.sh\"}]"
	onbox start >"$T/s1" 2>&1
	a1=$(json "$W/slurm.json" "d['stages']['a']['job_id']")
	b1=$(json "$W/slurm.json" "d['stages']['b']['job_id']")
	wait_for 60 grep -qs 'a running' "$W/logs/a.1.log"
	scontrol update NodeName="$SLURM_NODE" State=DOWN Reason=wk-test
	wait_for 60 sh -c "scontrol -o show job $a1 | grep -q JobState=NODE_FAIL"
	# ReturnToService=2 may bring the node back by itself first (then RESUME is refused).
	scontrol update NodeName="$SLURM_NODE" State=RESUME 2>/dev/null || true
	wait_for 60 sh -c "[ \"\$(sinfo -h -n $SLURM_NODE -o %T)\" = idle ]"
	# slurmd cleans the failed job's spool after the node is back; a job it
	# starts meanwhile can lose its own script to that cleanup ("execve():
	# .../slurm_script: No such file or directory", seen once under ASan load).
	wait_for 60 sh -c "[ ! -e '$SLURM_DIR/spool/job$a1' ]"
	touch "$T/ok.a"
	rc=0; patrol --once >"$T/p1" 2>&1 || rc=$?
	assert_grep " RESUMED a \(node_lost\): job $a1 NODE_FAIL" "$T/p1"
	assert_grep 'resumed a \(was CRASHED\): onbox start' "$T/p1"
	wait_for 90 has_marker B_DONE
	assert_eq "$(scontrol -o show job "$b1" | grep -o 'JobState=[A-Z]*')" JobState=CANCELLED
	rc=0; patrol --once >"$T/p2" 2>&1 || rc=$?
	assert_grep ' DONE ' "$T/p2"
}

test_resubmitted_by_hand_is_reconciled() {
	cluster
	touch "$T/ok.b" "$T/ok.c"
	AUTO=false sconf '' "$(three)"
	onbox start >"$T/s1" 2>&1
	wait_for 90 test -f "$W/markers/A_DONE.FAILED"
	a1=$(json "$W/slurm.json" "d['stages']['a']['job_id']")
	# The FAILED marker comes from inside the job; Slurm may still be COMPLETING it
	# (its epilog), which patrol rightly reports as a job that still runs.
	wait_for 60 sh -c "! scontrol -o show job $a1 2>/dev/null | grep -q JobState=COMPLETING"
	rc=0; patrol --once >"$T/p1" 2>&1 || rc=$?
	assert_grep ' CRASHED a ' "$T/p1"
	# While patrol is away, someone cancels the stranded jobs and resubmits a by hand, held.
	scancel -n wk-t1-b
	scancel -n wk-t1-c
	a2=$(sbatch --parsable --hold --job-name=wk-t1-a --chdir="$T/work" --output=/dev/null \
		--wrap "exec $ONBOX -c $T/wk.json run --stage a")
	touch "$T/ok.a"
	# patrol comes back with auto_resume on: the held job is a's job now, never a restart.
	AUTO=true sconf '' "$(three)"
	rc=0; patrol --once >"$T/p2" 2>&1 || rc=$?
	assert_eq "$rc" 0 "patrol: $(<"$T/p2")"
	assert_grep " OK a job $a2 PENDING: held by a user .* · a is job $a2 now \(PENDING: held by a user.*\), was job $a1" "$T/p2"
	assert_no_grep 'resumed' "$T/p2"
	assert_eq "$(live_jobs a)" 1 "a's live jobs"
	assert_grep "a is job $a2 now" "$T/state/watchkeeper/t1/LOGBOOK.md"
	assert_eq "$(json "$T/state/watchkeeper/t1/patrol.json" "d['slurm']['a']['jobs']")" "['$a1', '$a2']"
	# Released, it runs and lands a's marker; b and c never ran, patrol resumes them.
	scontrol release "$a2"
	wait_for 60 has_marker A_DONE
	wait_for 30 sh -c "! squeue -h -j $a2 -t PD,R,CG | grep -q ."
	rc=0; patrol --once >"$T/p3" 2>&1 || rc=$?
	assert_grep ' RESUMED b: nothing is queued or running' "$T/p3"
	wait_for 90 has_marker C_DONE
	# Finished while patrol was away: reported finished, not lost or timed out.
	rc=0; patrol --once >"$T/p4" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep ' DONE every marker present' "$T/p4"
}

test_requeued_job_keeps_its_budget() {
	cluster
	mkdir -p "$T/bin"
	# Run 1 waits (to be requeued), run 2 fails (a counting failure), run 3 succeeds.
	cat >"$T/bin/a.sh" <<SH
#!/bin/sh
n=\$(cat "$T/count" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$T/count"
echo "a run \$n"
case \$n in
1) i=0; while [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done; exit 9 ;;
2) echo "Error: flaky"; exit 3 ;;
esac
echo "a done"
SH
	chmod +x "$T/bin/a.sh"
	# restart.max 1: had the requeue counted, the failure of run 2 would not be restarted.
	sconf '"restart": {"max": 1, "window_s": 600, "max_in_window": 10, "retry_classes": ["unknown"]},' \
		"[{\"stage\": \"a\", \"run\": \"$T/bin/a.sh\", \"sbatch\": {\"requeue\": true, \"time\": \"10:00\"}}]"
	onbox start >"$T/s1" 2>&1
	id=$(json "$W/slurm.json" "d['stages']['a']['job_id']")
	wait_for 60 grep -qs 'a run 1' "$W/logs/a.1.log"
	scontrol requeue "$id"
	wait_for 120 has_marker A_DONE
	h="$W/stages/a.json"
	assert_eq "$(json "$h" '[a.get("class") for a in d["attempts"]]')" "['preempted', 'unknown', None]"
	assert_eq "$(json "$h" 'd["attempts"][0]["requeued"]')" true
	assert_eq "$(json "$h" '[a["job_id"] for a in d["attempts"]]')" "['$id', '$id', '$id']"
	assert_eq "$(json "$h" '[a["slurm_restart_count"] for a in d["attempts"]]')" "[0, 1, 1]"
	assert_grep '"event":"stage_requeued"' "$W/events.jsonl"
	assert_no_file "$W/markers/A_DONE.FAILED"
}

test_unreadable_queue_is_not_dead() {
	cluster
	touch "$T/ok.a"
	AUTO=true sconf '' "[{\"stage\": \"a\", \"run\": \"$T/bin/a.sh\"}]"
	flaky a
	# squeue that fails on the login node: patrol must neither resume nor call the run dead.
	printf '#!/bin/sh\necho "slurm_load_jobs error: Unable to contact slurm controller" >&2\nexit 1\n' >"$T/sshd/bin/squeue"
	chmod +x "$T/sshd/bin/squeue"
	rc=0; patrol --once >"$T/p" 2>&1 || rc=$?
	assert_eq "$rc" 2 "$(<"$T/p")"
	assert_grep ' SSH_DOWN slurm: the queue could not be read: squeue: exit 1: slurm_load_jobs error' "$T/p"
	assert_no_grep resumed "$T/p"
	assert_eq "$(all_jobs a)" 0
	# onbox start refuses to submit blind too.
	rc=0; PATH="$T/sshd/bin:$PATH" onbox start >"$T/s" 2>&1 || rc=$?
	assert_eq "$rc" 75
	assert_grep 'cannot tell which jobs of run t1 are queued' "$T/s"
	assert_eq "$(all_jobs a)" 0
}

# bad_accelerator in a Slurm job: never relaunched in that job (it would run
# on the same node again); the next start submits the stage with
# --exclude=<node>.  This cluster has one node, so sbatch then refuses it
# ("Requested node configuration is not available"): the option reached it.
test_bad_accelerator_moves_node() {
	cluster
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "RuntimeError: No accelerator found"\nexit 1\n' >"$T/bin/a.sh"
	chmod +x "$T/bin/a.sh"
	sconf '"restart": {"max": 3},' "[{\"stage\": \"a\", \"run\": \"$T/bin/a.sh\"}]"
	rc=0; onbox start >"$T/s1" 2>&1 || rc=$?
	assert_eq "$rc" 0 "start: $(<"$T/s1")"
	wait_for 60 test -f "$W/markers/A_DONE.FAILED"
	assert_eq "$(json "$W/markers/A_DONE.FAILED" 'd["class"]')" bad_accelerator
	assert_eq "$(json "$W/markers/A_DONE.FAILED" 'd["policy"]["rule"]')" move_node
	assert_grep "exclude=$SLURM_NODE" "$W/markers/A_DONE.FAILED"
	assert_eq "$(json "$W/stages/a.json" 'len(d["attempts"])')" 1 "not relaunched in the job"
	assert_eq "$(json "$W/stages/a.json" 'd["attempts"][0]["node"]')" "$SLURM_NODE"
	wait_for 30 sh -c "[ \"\$(squeue -h -t PD,R,CG -n wk-t1-a -o %i | wc -l)\" = 0 ]"
	rc=0; onbox start >"$T/s2" 2>&1 || rc=$?
	assert_grep "submitted with --exclude=$SLURM_NODE" "$T/s2"
	assert_grep 'Requested node configuration is not available' "$T/s2"
}

test_bad_sbatch_options_are_config_errors() {
	cluster
	touch "$T/ok.a"
	flaky a
	sconf '' "[{\"stage\": \"a\", \"run\": \"$T/bin/a.sh\", \"sbatch\": {\"job-name\": \"x\"}}]"
	rc=0; onbox start >"$T/s" 2>&1 || rc=$?
	assert_eq "$rc" 78
	assert_grep "wk.json:[0-9]+: chain\[0\].sbatch \(stage a\): \"job-name\": watchkeeper sets --job-name itself" "$T/s"
	assert_eq "$(all_jobs a)" 0
}

# onbox stop under Slurm: SIGUSR1 reaches the job's onbox (scancel --batch), which stops
# its stage (SIGTERM first) and records it; the later stage's waiting job is cancelled;
# patrol says STOPPED (exit 0); onbox start submits again from the first missing marker.
test_onbox_stop_under_slurm() {
	cluster
	mkdir -p "$T/bin"
	cat >"$T/bin/a.sh" <<SH
#!/bin/sh
echo x >>"$T/launch.a"
if [ "\$(wc -l <"$T/launch.a")" -gt 1 ]; then echo "a finished"; exit 0; fi
trap 'echo TERM >>"$T/term.a"; exit 0' TERM
echo ready >"$T/ready.a"
while :; do sleep 0.1; done
SH
	chmod +x "$T/bin/a.sh"
	flaky b
	touch "$T/ok.b"
	sconf '"stop_grace_s": 5,' "[{\"stage\": \"a\", \"run\": \"$T/bin/a.sh\"}, {\"stage\": \"b\", \"run\": \"$T/bin/b.sh\"}]"
	onbox start >"$T/s1" 2>&1
	wait_for 60 test -f "$T/ready.a"
	[ "$(live_jobs b)" = 1 ] || fail "b's job is not waiting: $(live_jobs b)"
	rc=0; onbox stop >"$T/stop.out" 2>&1 || rc=$?
	assert_eq "$rc" 0 "onbox stop: $(<"$T/stop.out")"
	assert_grep 'asking the onbox of Slurm job [0-9]+ to stop run t1' "$T/stop.out"
	assert_grep 'cancelling the run.s job' "$T/stop.out"
	assert_grep 'stopped run t1: stage a attempt 1 \(SIGTERM; it ended within stop_grace_s=5s\)' "$T/stop.out"
	assert_eq "$(<"$T/term.a")" TERM
	wait_for 30 sh -c "[ \"\$(squeue -h -t PD,R,CG,CF -n wk-t1-a,wk-t1-b -o %i | wc -l)\" = 0 ]"
	assert_eq "$(json "$W/stages/a.json" 'd["attempts"][-1]["result"]')" stopped
	assert_no_file "$W/markers/A_DONE.FAILED"
	assert_eq "$(grep -c '"run_stopped"' "$W/events.jsonl")" 1
	rc=0; patrol --once >"$T/p" 2>&1 || rc=$?
	assert_eq "$rc" 0 "patrol: $(<"$T/p")"
	assert_grep ' STOPPED stopped on purpose by onbox stop' "$T/p"
	onbox start >"$T/s2" 2>&1
	assert_grep 'was stopped on purpose: starting it again' "$T/s2"
	wait_for 90 has_marker B_DONE
	assert_eq "$(wc -l <"$T/launch.a" | tr -d ' ')" 2
}

TESTS="bad_accelerator_moves_node chain_completes_and_start_is_idempotent failed_middle_stage_strands_the_next node_failure_is_resumed_by_patrol
resubmitted_by_hand_is_reconciled requeued_job_keeps_its_budget unreadable_queue_is_not_dead
bad_sbatch_options_are_config_errors onbox_stop_under_slurm"

if ! slurm_available; then
	for n in $TESTS; do echo "SKIP slurm_$n: $SLURM_SKIP_REASON"; done
	exit 0
fi
for n in ${ONLY:-$TESTS}; do
	t "slurm_$n" "test_$n"
done
