#!/usr/bin/env bash
# Self-test of tests/e2e/slurm.sh, the one-node Slurm cluster the detach
# "slurm" tests run against: it starts (also on a taken port, and next to a
# second cluster), runs a batch job to completion, keeps an afterok
# dependent of a failed job PENDING (DependencyNeverSatisfied), records
# finished jobs for `sacct -c`, is reachable over the test sshd through the
# remote wrappers, and slurm_stop leaves no process of the cluster alive
# (and kills nothing else).  Without Slurm installed every test prints
# "SKIP name: reason" and the script exits 0.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/slurm.sh"

# jstate ID: the job's state (finished jobs too: squeue without -t hides them).
jstate() { squeue -h -t all -j "$1" -o %T 2>/dev/null; }
jreason() { squeue -h -t all -j "$1" -o %r 2>/dev/null; }
is_state() { [ "$(jstate "$1")" = "$2" ]; }
# sbatch_wrap NAME SCRIPT [SBATCH ARGS...]: submit, print the job id.
sbatch_wrap() {
	local name=$1 script=$2
	shift 2
	sbatch --parsable -J "$name" -o "$T/$name.out" "$@" --wrap "$script"
}

test_starts() {
	slurm_start
	assert_eq "$(sinfo -h -o %T)" idle
	assert_eq "$(sinfo -h -o %N)" "$SLURM_NODE"
	assert_grep "^SlurmctldPort=[0-9]+$" "$SLURM_CONF"
	assert_grep "^MinJobAge=3600$" "$SLURM_CONF"
	assert_no_grep "kill_invalid_depend" "$SLURM_CONF"
	# Everything under $T/slurm; the daemons are the ones slurm_start recorded.
	case $SLURM_CONF in "$T/slurm/"*) ;; *) fail "SLURM_CONF outside \$T: $SLURM_CONF" ;; esac
	assert_eq "$(<"$SLURM_DIR/slurmctld.pid")" "$SLURM_CTLD_PID"
	assert_eq "$(<"$SLURM_DIR/slurmd.pid")" "$SLURM_SLURMD_PID"
	scontrol ping | grep -q 'is UP' || fail "scontrol ping: $(scontrol ping 2>&1)"
}

test_wrap_job_completes() {
	slurm_start
	id=$(sbatch_wrap hello 'echo "hello from $SLURM_JOB_ID"')
	case $id in '' | *[!0-9]*) fail "sbatch --parsable printed '$id'" ;; esac
	wait_for 30 is_state "$id" COMPLETED
	assert_grep "^hello from $id$" "$T/hello.out"
	scontrol -o show job "$id" >"$T/show"
	assert_grep ' ExitCode=0:0 ' "$T/show"
	# Finished jobs stay visible (MinJobAge=3600) and in the jobcomp file.
	sacct -c -n -P -o jobid,jobname,state,exitcode -j "$id" >"$T/sacct"
	assert_grep "^$id\|hello\|COMPLETED\|0:0$" "$T/sacct"
}

test_afterok_after_failure_stays_pending() {
	slurm_start
	a=$(sbatch_wrap first 'exit 3')
	b=$(sbatch_wrap second 'echo ran' --dependency=afterok:"$a")
	wait_for 30 is_state "$a" FAILED
	# The scheduler marks the dependency as never satisfied; the job stays PENDING.
	wait_for 30 sh -c "[ \"\$(squeue -h -j $b -o %r)\" = DependencyNeverSatisfied ]"
	assert_eq "$(jstate "$b")" PENDING
	scontrol -o show job "$b" >"$T/show"
	assert_grep " Dependency=afterok:$a\(failed\) " "$T/show"
	assert_no_file "$T/second.out"
	scontrol -o show job "$a" >"$T/show.a"
	assert_grep ' JobState=FAILED .* ExitCode=3:0 ' "$T/show.a"
}

test_sacct_c_shows_failed_job() {
	slurm_start
	# Plain sacct needs accounting storage, which this cluster does not have.
	rc=0; sacct -n >"$T/plain" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep 'accounting storage is disabled' "$T/plain"
	a=$(sbatch_wrap failing 'exit 3')
	wait_for 30 is_state "$a" FAILED
	# The jobcomp record is written as the job ends; -c reads it back.
	wait_for 10 grep -q "JobId=$a " "$SLURM_DIR/jobcomp.txt"
	sacct -c -n -P -o jobid,jobname,state,exitcode -j "$a" >"$T/sacct"
	assert_eq "$(<"$T/sacct")" "$a|failing|FAILED|3:0"
}

test_taken_ports_are_retried() {
	python3 -c 'import socket,sys,time
s=socket.socket(); s.bind(("0.0.0.0",0)); s.listen()
open(sys.argv[1]+".tmp","w").write(str(s.getsockname()[1])); import os; os.rename(sys.argv[1]+".tmp",sys.argv[1])
time.sleep(120)' "$T/busy.port" &
echo $! >>"$T/.pids"
	wait_for 10 test -s "$T/busy.port"
	busy=$(<"$T/busy.port")
	# The first try puts slurmctld on the taken port: it must move elsewhere.
	_slurm_free_port dport
	SLURM_TRY_PORTS="$busy $dport" slurm_start 2>"$T/start.err"
	assert_grep 'taken, retrying' "$T/start.err"
	assert_no_grep "^SlurmctldPort=$busy$" "$SLURM_CONF"
	assert_eq "$(sinfo -h -o %T)" idle
}

test_two_clusters_at_once() {
	# A second cluster in its own directory, started at the same time as this one.
	(
		_SSHD_EXIT_CMDS=()
		T="$T/other"
		mkdir -p "$T"
		slurm_start && id=$(sbatch --parsable -o "$T/j.out" --wrap 'echo other') &&
			wait_for 30 is_state "$id" COMPLETED && grep -q '^other$' "$T/j.out" &&
			echo "$SLURM_CLUSTER $SLURM_NODE $(sed -n 's/^SlurmctldPort=//p' "$SLURM_CONF")" >"$T/../other.ok"
		slurm_stop
	) >"$T/other.log" 2>&1 &
	other=$!
	slurm_start
	id=$(sbatch_wrap mine 'echo mine')
	wait_for 30 is_state "$id" COMPLETED
	wait "$other" || true
	[ -s "$T/other.ok" ] || { fail "the second cluster failed:"; cat "$T/other.log" >&2; return 1; }
	read -r oc on op <"$T/other.ok"
	[ "$oc" != "$SLURM_CLUSTER" ] || fail "same ClusterName $oc"
	[ "$on" != "$SLURM_NODE" ] || fail "same NodeName $on"
	assert_no_grep "^SlurmctldPort=$op$" "$SLURM_CONF"
	assert_grep '^mine$' "$T/mine.out"
}

test_remote_wrappers_reach_the_cluster() {
	sshd_start
	slurm_start
	slurm_remote_wrappers
	# The remote side has no SLURM_CONF: the wrappers first on its PATH bring it.
	id=$(ssh -F "$SSH_CFG" box 'env -u SLURM_CONF sbatch --parsable -J remote -o '"$T/remote.out"' --wrap "echo \$SLURM_CLUSTER_NAME"')
	case $id in '' | *[!0-9]*) fail "remote sbatch printed '$id'" ;; esac
	wait_for 30 is_state "$id" COMPLETED
	assert_eq "$(ssh -F "$SSH_CFG" box "squeue -h -t all -j $id -o %j")" remote
	assert_grep "^$SLURM_CLUSTER$" "$T/remote.out"
}

test_stop_leaves_nothing() {
	sleep 300 &
	bystander=$!
	echo "$bystander" >>"$T/.pids"
	slurm_start
	# A job whose process tree runs away: a detached grandchild in its own session.
	id=$(sbatch_wrap runaway "setsid sh -c 'echo \$\$ >$T/gc.pid; exec sleep 300' </dev/null >/dev/null 2>&1 &
echo \$\$ >$T/job.pid; sleep 300")
	wait_for 30 is_state "$id" RUNNING
	wait_for 10 test -s "$T/gc.pid"
	wait_for 10 test -s "$T/job.pid"
	# The job's slurmstepd is its shell's parent (re-parented to init, its environment overwritten).
	stepd=$(awk '{ sub(/.*\) /, ""); print $2 }' "/proc/$(<"$T/job.pid")/stat")
	grep -q '^slurmstepd' "/proc/$stepd/cmdline" || fail "$stepd is not slurmstepd: $(tr '\0' ' ' <"/proc/$stepd/cmdline")"
	pids="$(slurm_pids) $(<"$T/gc.pid") $(<"$T/job.pid")"
	for p in "$SLURM_CTLD_PID" "$SLURM_SLURMD_PID" "$SLURM_MUNGED_PID" "$stepd" $(<"$T/gc.pid"); do
		case " $pids " in *" $p "*) ;; *) fail "slurm_pids misses $p" ;; esac
	done
	# This shell holds a file of the cluster open: it is not the cluster's.
	exec 9>>"$SLURM_DIR/held-by-test"
	slurm_stop
	exec 9>&-
	for p in $pids; do
		! slurm_pid_alive "$p" || fail "still alive after slurm_stop: $p $(tr '\0' ' ' </proc/$p/cmdline)"
	done
	assert_eq "$(slurm_pids)" ""
	slurm_pid_alive "$bystander" || fail "slurm_stop killed an unrelated process"
	kill "$bystander"
}

TESTS="starts:test_starts
wrap_job_completes:test_wrap_job_completes
afterok_after_failure_stays_pending:test_afterok_after_failure_stays_pending
sacct_c_shows_failed_job:test_sacct_c_shows_failed_job
taken_ports_are_retried:test_taken_ports_are_retried
two_clusters_at_once:test_two_clusters_at_once
remote_wrappers_reach_the_cluster:test_remote_wrappers_reach_the_cluster
stop_leaves_nothing:test_stop_leaves_nothing"

if ! slurm_available; then
	for x in $TESTS; do echo "SKIP ${x%%:*}: $SLURM_SKIP_REASON"; done
	exit 0
fi
for x in $TESTS; do t "${x%%:*}" "${x#*:}"; done
