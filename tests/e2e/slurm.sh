# A throwaway one-node Slurm cluster (munged, slurmctld, slurmd) for the
# end-to-end tests; sourced after lib.sh (which gives $T, wait_for, fail) and
# sshd.sh (its exit mechanism, port picker and process-tree walk).  Runs as
# root and touches nothing outside
# "$T/slurm/": no /etc/slurm, no /etc/munge, no system munge socket.
#
#   slurm_available       0 when every daemon and client is installed (and
#                         we are root), else 1 with the reason in
#                         SLURM_SKIP_REASON
#   slurm_start           munge key, munged on its own socket, slurm.conf
#                         with free ports (retried when taken), slurmctld,
#                         slurmd; waits (bounded) until the node is idle;
#                         exports SLURM_CONF, SLURM_DIR ($T/slurm),
#                         SLURM_CLUSTER, SLURM_NODE and the daemons' pids
#                         SLURM_CTLD_PID, SLURM_SLURMD_PID, SLURM_MUNGED_PID
#   slurm_stop            scancel everything, then kill, by pid, the daemons
#                         and every process of the cluster (slurm_pids)
#   slurm_remote_wrappers sbatch, squeue, sacct, scontrol, scancel, sinfo and
#                         srun wrappers in "$T/sshd/bin" (first on the remote
#                         PATH, see sshd.sh) that set SLURM_CONF, so commands
#                         run over the test sshd reach this cluster
#   slurm_pids            the live processes of the cluster: daemons, job
#                         steps (slurmstepd) and job processes
#   slurm_pid_alive PID   alive and not a zombie
#   slurm_at_exit CMD     run CMD when the test's subshell exits, pass or fail
#                         (sshd.sh's sshd_at_exit)
#
# Knobs, read by slurm_start: SLURM_EXTRA_CONFIG (lines appended to
# slurm.conf; a repeated key overrides, slurmctld logs "specified more than
# once, latest value used"), SLURM_CRED_EXPIRE (default 5: a requeued job
# becomes eligible cred_expire+1 s after it is back to PENDING; Slurm's own
# default is 120), SLURM_TRY_PORTS="CTLD SLURMD" (ports for the first try
# only, to test the retry).
#
# Two clusters may run at once (each test has its own $T): each gets its own
# ports, munge socket, directories, a unique ClusterName and a unique
# NodeName (slurmd -N NAME, NodeHostname=localhost NodeAddr=127.0.0.1;
# measured: two slurmd both named "localhost" did not conflict either), and
# a random FirstJobId so their job ids differ too.
#
# The cluster is set up for the tests: MinJobAge=3600 (finished jobs stay in
# squeue -t all and scontrol), sched_interval=1 with a 1 s backfill,
# JobRequeue=1, KillWait=2 (SIGTERM to SIGKILL on scancel/requeue),
# jobcomp/filetxt (so `sacct -c` works) and no accounting storage (plain
# `sacct` fails), no kill_invalid_depend (a dependency that can never be met
# stays PENDING with reason DependencyNeverSatisfied).  The node has 4 CPUs
# whatever the machine has (SlurmdParameters=config_overrides), so a few
# one-CPU jobs run side by side.
#
# Job processes do not stay below slurmd (slurmstepd is re-parented to
# init), so slurm_pids also finds them without the process tree: every job
# process's environment carries SLURM_CLUSTER_NAME=<this cluster's unique
# name> whatever --export says; the daemons run with WK_SLURM_TAG=<unique>
# (not exported to the test's shell); slurmstepd overwrites its environment
# with its process title but keeps $SLURM_DIR/slurmd.log open, so any
# process holding a file under $SLURM_DIR open counts as the cluster's (the
# calling shell and its ancestors excepted).  A job process that both
# clears its environment and detaches from slurmstepd escapes.
# slurm_start registers slurm_stop with slurm_at_exit; the daemons' pids
# also go to $T/.pids for lib.sh's cleanup.

SLURM_TOOLS="munged mungekey slurmctld slurmd sbatch squeue sacct scontrol scancel sinfo"

slurm_available() {
	local b missing=""
	for b in $SLURM_TOOLS; do
		command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || missing="$missing $b"
	done
	if [ -n "$missing" ]; then
		SLURM_SKIP_REASON="not installed:$missing"
		return 1
	fi
	if [ "$(id -u)" != 0 ]; then
		SLURM_SKIP_REASON="needs root (SlurmUser=root)"
		return 1
	fi
	SLURM_SKIP_REASON=""
	return 0
}

_slurm_bin() { command -v "$1" 2>/dev/null || echo "/usr/sbin/$1"; }

# The exit mechanism is sshd.sh's (sourced before this file).
slurm_at_exit() { sshd_at_exit "$1"; }

# _slurm_free_port VAR: a port this test owns (sshd.sh's picker).
_slurm_free_port() { sshd_free_port "$1"; }

_slurm_write_config() {
	local d=$1 cport=$2 dport=$3
	cat >"$d/slurm.conf" <<EOF
# written by tests/e2e/slurm.sh
ClusterName=$SLURM_CLUSTER
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$cport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/munge.socket,cred_expire=${SLURM_CRED_EXPIRE:-5}
MailProg=/bin/true
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$d/jobcomp.txt
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1,sched_min_interval=0
MinJobAge=3600
FirstJobId=$SLURM_FIRST_JOB_ID
JobRequeue=1
KillWait=2
InactiveLimit=0
ReturnToService=2
SlurmdParameters=config_overrides
NodeName=$SLURM_NODE NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=debug Nodes=$SLURM_NODE Default=YES MaxTime=INFINITE State=UP
${SLURM_EXTRA_CONFIG:-}
EOF
}

_slurm_alive() { [ -n "${1:-}" ] && slurm_pid_alive "$1"; }
_slurm_bind_failed() { grep -qiE 'Address already in use|Unable to bind|bind.*fail' "$@" 2>/dev/null; }
_slurm_node_idle() { [ "$(timeout 5 sinfo -h -n "$SLURM_NODE" -o %T 2>/dev/null)" = idle ]; }
# One of the daemons died, or the node is up (idle).  A client blocks for
# seconds on a controller that does not listen (yet), so sinfo only runs
# once slurmctld itself listens on its port (not whoever took it).
_slurm_settled() {
	if ! _slurm_alive "$SLURM_CTLD_PID" || ! _slurm_alive "$SLURM_SLURMD_PID"; then
		return 0
	fi
	ss -ltnpH "sport = :$_SLURM_CPORT" 2>/dev/null | grep -q "pid=$SLURM_CTLD_PID," || return 1
	_slurm_node_idle
}

_slurm_munge_start() {
	local m="$SLURM_DIR/munge"
	mkdir -p "$m"
	chmod 700 "$m"
	"$(_slurm_bin mungekey)" -c -k "$m/munge.key" || { fail "mungekey failed"; return 1; }
	chmod 400 "$m/munge.key"
	WK_SLURM_TAG=$_SLURM_TAG "$(_slurm_bin munged)" -F -f --socket="$m/munge.socket" \
		--key-file="$m/munge.key" --pid-file="$m/munged.pid" --log-file="$m/munged.log" \
		--seed-file="$m/munged.seed" >>"$m/munged.out" 2>&1 &
	SLURM_MUNGED_PID=$!
	disown "$SLURM_MUNGED_PID"
	echo "$SLURM_MUNGED_PID" >>"$T/.pids"
	wait_for 10 test -S "$m/munge.socket" || { fail "munged did not start:"; cat "$m/munged.log" "$m/munged.out" >&2; return 1; }
}

_slurm_dead() { ! slurm_pid_alive "$1"; }
_slurm_wait_dead() { wait_for 5 _slurm_dead "$1" 2>/dev/null || true; }

_slurm_stop_daemons() {
	local p
	for p in ${SLURM_SLURMD_PID:-} ${SLURM_CTLD_PID:-}; do
		kill -9 "$p" 2>/dev/null || true
		_slurm_wait_dead "$p"
	done
	SLURM_SLURMD_PID=""
	SLURM_CTLD_PID=""
}

slurm_start() {
	local d="$T/slurm" cport dport try ok=0
	SLURM_DIR=$d
	SLURM_CONF="$d/slurm.conf"
	# Unique per cluster: names (job environments carry SLURM_CLUSTER_NAME), tag, first job id.
	SLURM_CLUSTER="wk${BASHPID}x$RANDOM"
	SLURM_NODE="wkn${BASHPID}x$RANDOM"
	_SLURM_TAG="wk-slurm-$BASHPID-$RANDOM$RANDOM"
	SLURM_FIRST_JOB_ID=$((1000 + RANDOM * 20))
	SLURM_CTLD_PID=""
	SLURM_SLURMD_PID=""
	SLURM_MUNGED_PID=""
	export SLURM_CONF SLURM_DIR SLURM_CLUSTER SLURM_NODE
	mkdir -p "$d/state" "$d/spool" "$d/out"
	slurm_at_exit slurm_stop
	_slurm_munge_start || return 1
	for try in $(seq 1 5); do
		set -- ${SLURM_TRY_PORTS:-}
		if [ "$try" = 1 ] && [ $# = 2 ]; then
			cport=$1
			dport=$2
		else
			_slurm_free_port cport || { fail "no free port"; return 1; }
			_slurm_free_port dport || { fail "no free port"; return 1; }
		fi
		_SLURM_CPORT=$cport
		_slurm_write_config "$d" "$cport" "$dport"
		rm -rf "$d/state" "$d/spool"
		mkdir -p "$d/state" "$d/spool"
		: >"$d/slurmctld.log"
		: >"$d/slurmd.log"
		WK_SLURM_TAG=$_SLURM_TAG "$(_slurm_bin slurmctld)" -D -i -f "$SLURM_CONF" >>"$d/slurmctld.out" 2>&1 &
		SLURM_CTLD_PID=$!
		disown "$SLURM_CTLD_PID"
		echo "$SLURM_CTLD_PID" >>"$T/.pids"
		WK_SLURM_TAG=$_SLURM_TAG "$(_slurm_bin slurmd)" -D -f "$SLURM_CONF" -N "$SLURM_NODE" >>"$d/slurmd.out" 2>&1 &
		SLURM_SLURMD_PID=$!
		disown "$SLURM_SLURMD_PID"
		echo "$SLURM_SLURMD_PID" >>"$T/.pids"
		if wait_for 30 _slurm_settled && _slurm_alive "$SLURM_CTLD_PID" &&
			_slurm_alive "$SLURM_SLURMD_PID" && _slurm_node_idle; then
			ok=1
			break
		fi
		_slurm_stop_daemons
		_slurm_bind_failed "$d"/slurmctld.* "$d"/slurmd.* || break
		echo "slurm: port $cport or $dport taken, retrying" >&2
	done
	if [ $ok = 0 ]; then
		fail "slurm did not come up (node $SLURM_NODE not idle):"
		tail -n 20 "$d/slurmctld.log" "$d/slurmctld.out" "$d/slurmd.log" "$d/slurmd.out" >&2
		return 1
	fi
	export SLURM_CTLD_PID SLURM_SLURMD_PID SLURM_MUNGED_PID
	return 0
}

# The current shell and its ancestors: never counted as the cluster's (a
# test's own shell may hold a file of $SLURM_DIR open).
_slurm_self() {
	local p=$BASHPID line rest out=""
	while [ -n "$p" ] && [ "$p" -gt 1 ] 2>/dev/null; do
		out="$out $p"
		read -r line 2>/dev/null </proc/$p/stat || break
		rest=${line##*) }
		rest=${rest#* }
		p=${rest%% *}
	done
	echo "$out "
}

# Pids of processes of this cluster found without the process tree: the
# environment carries its tag (daemons) or its name (every job process), or
# a file under $SLURM_DIR is open (slurmstepd, which overwrites its own
# environment with its process title, keeps slurmd.log open).
slurm_tagged() {
	local p self out=""
	[ -n "${SLURM_DIR:-}" ] || return 0
	self=$(_slurm_self)
	for p in $( {
		grep -lsxzE "WK_SLURM_TAG=$_SLURM_TAG|SLURM_CLUSTER_NAME=$SLURM_CLUSTER" /proc/[0-9]*/environ
		find /proc/[0-9]*/fd -mindepth 1 -maxdepth 1 -lname "$SLURM_DIR/*"
	} 2>/dev/null | cut -d/ -f3 | sort -un); do
		case $self in *" $p "*) continue ;; esac
		out="$out $p"
	done
	echo $out
}

# Pids below $1 in the process tree: sshd.sh's walk (every user of this file sources it first).
_slurm_descendants() { sshd_descendants "$1"; }

# Alive and not a zombie (an exited child of init may stay a zombie a while).
slurm_pid_alive() {
	local line
	read -r line 2>/dev/null </proc/$1/stat || return 1
	line=${line##*) }
	[ "${line%% *}" != Z ]
}

# Everything of this cluster that is alive: the daemons, the tagged
# processes, and all their descendants.
slurm_pids() {
	local p all=""
	for p in ${SLURM_CTLD_PID:-} ${SLURM_SLURMD_PID:-} ${SLURM_MUNGED_PID:-} $(slurm_tagged); do
		slurm_pid_alive "$p" || continue
		all="$all $p $(_slurm_descendants "$p")"
	done
	for p in $all; do
		slurm_pid_alive "$p" && echo "$p"
	done | sort -un | tr '\n' ' '
}

slurm_stop() {
	local i p pids
	[ -n "${SLURM_DIR:-}" ] || return 0
	if [ -n "${SLURM_CTLD_PID:-}" ] && slurm_pid_alive "$SLURM_CTLD_PID"; then
		timeout 5 scancel -u root >/dev/null 2>&1 || true
	fi
	# Frozen, the daemons start nothing while the processes are collected.
	for p in ${SLURM_CTLD_PID:-} ${SLURM_SLURMD_PID:-}; do
		kill -STOP "$p" 2>/dev/null || true
	done
	for i in 1 2 3 4 5; do
		pids=$(slurm_pids)
		[ -n "$pids" ] || break
		kill -9 $pids 2>/dev/null || true
		sleep 0.05
	done
	for p in ${SLURM_CTLD_PID:-} ${SLURM_SLURMD_PID:-} ${SLURM_MUNGED_PID:-}; do
		_slurm_wait_dead "$p"
	done
	SLURM_CTLD_PID=""
	SLURM_SLURMD_PID=""
	SLURM_MUNGED_PID=""
	return 0
}

# Wrappers in "$T/sshd/bin" so that remote commands (run with sshd's
# environment, no SLURM_CONF) reach this cluster.
slurm_remote_wrappers() {
	local b d="$T/sshd/bin" q
	[ -d "$d" ] || { fail "no $d: call sshd_start (sshd.sh) first"; return 1; }
	q="'$(printf '%s' "$SLURM_CONF" | sed "s/'/'\\\\''/g")'"
	for b in sbatch squeue sacct scontrol scancel sinfo srun; do
		printf '#!/bin/sh\nSLURM_CONF=%s\nexport SLURM_CONF\nexec %s "$@"\n' "$q" "$(command -v "$b")" >"$d/$b"
		chmod +x "$d/$b"
	done
}
