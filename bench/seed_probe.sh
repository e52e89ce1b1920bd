#!/usr/bin/env bash
# The seed's way of looking at a box, for make bench to measure beside one
# patrol tick: one short `ssh` connection per check, each check one command,
# exactly as the seed's architecture document (002, "Quick health probes
# (one round-trip each)" §2, the short-connection template of §1, the marker
# check of the L3 sentinels and the crash scan of §6) writes them:
#
#   1. alive      tmux ls; squeue -u $USER; pgrep -af 'train' | head -3   (§2)
#   2. markers    ls of the marker directory (the `*_DONE` markers, L2/L3)
#   3. progress   grep -nE 'Epoch [0-9]+|Training completed|…' LOG | tail -6  (§2)
#   4. crash scan grep -B2 -A20 'Traceback' LOG | head -50                 (§6)
#   5. resources  nvidia-smi --query-gpu=… ; cgroup memory.current/max   (§2)
#   6. disk       df -h MOUNT; df -i MOUNT                                (§2)
#
# every one with the §1 options (ConnectTimeout=15, ServerAliveInterval=10,
# ServerAliveCountMax=3).  The answers go to stdout, as the seed's agent
# would read them.  Exit 0 when every ssh reached the box (a check that
# finds nothing is still an answer), 1 when one of them could not (ssh's own
# status 255), so a bench never times a refused connection as a fast tick;
# 64 on a usage error.
#
# Usage: bench/seed_probe.sh SSH_CONFIG HOST RUN_LOG MARKER_DIR DATA_MOUNT
# SEED_PROBES_COUNT=1 prints the number of checks (connections) a tick makes.
set -u
if [ "${SEED_PROBES_COUNT:-}" = 1 ]; then
	echo 6
	exit 0
fi
if [ $# -ne 5 ]; then
	echo "usage: seed_probe.sh SSH_CONFIG HOST RUN_LOG MARKER_DIR DATA_MOUNT" >&2
	exit 64
fi
cfg=$1 host=$2 log=$3 markers=$4 mount=$5

# q STRING: STRING as one single-quoted word for the remote shell.
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

rc=0
# check NAME REMOTE_COMMAND: one connection, one command.
check() {
	local st=0
	echo "== $1"
	ssh -F "$cfg" -o ConnectTimeout=15 -o ServerAliveInterval=10 -o ServerAliveCountMax=3 \
		"$host" "$2" </dev/null || st=$?
	if [ $st -eq 255 ]; then
		echo "seed_probe: $1: ssh could not reach $host" >&2
		rc=1
	fi
}

check alive "tmux ls 2>/dev/null || true; squeue -u \$USER 2>/dev/null || true; pgrep -af 'train' | grep -v grep | head -3"
check markers "ls -1 $(q "$markers")"
check progress "grep -nE 'Epoch [0-9]+|Training completed|Early stopping|FINISHED|QUEUE DONE' $(q "$log") | tail -6"
check crash "grep -B2 -A20 'Traceback' $(q "$log") | head -50"
check resources "nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader; [ -f /sys/fs/cgroup/memory.current ] && numfmt --to=iec \$(cat /sys/fs/cgroup/memory.current)/\$(cat /sys/fs/cgroup/memory.max) 2>/dev/null"
check disk "df -h $(q "$mount"); df -i $(q "$mount")"
exit $rc
