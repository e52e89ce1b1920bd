# A throwaway sshd on 127.0.0.1 for the end-to-end tests; sourced after lib.sh
# (which gives $T, wait_for, fail).  Runs as root and touches neither
# /etc/ssh nor ~/.ssh: everything lives in "$T/sshd/".
#
#   sshd_start            host key, client key, config, start, wait until it
#                         accepts; exports SSHD_PORT, SSHD_PID, SSH_CFG
#                         ($T/sshd/ssh_config, Host alias `box`), SSHD_CLIENT_KEY
#   sshd_stop             stop sshd and everything it started, by pid
#   sshd_accepted_count   "Accepted publickey" lines in its log (connections)
#   sshd_at_exit CMD      run CMD when the test's subshell exits, pass or fail
#
# SSHD_EXTRA_CONFIG, when set, is appended to sshd_config (e.g.
# "ForceCommand internal-sftp" for a box that allows only SFTP).
# SSHD_CLIENT_KEY_TYPE (default ed25519; also rsa, ecdsa) is the type of the
# client key, $T/sshd/id_<type>, that authorized_keys and ssh_config name.
#
# Remote commands outlive a client that gave up (a timed-out `sleep 100`
# keeps running, re-parented to init), so sshd_stop does not rely on the
# process tree alone: every session gets WK_SSHD_TAG=<unique> through
# SetEnv, and sshd_stop kills, by pid, the listener's descendants and every
# process whose environment carries the tag.  sshd_start registers sshd_stop
# with sshd_at_exit, so a failing assertion still stops it; the listener's pid
# also goes to $T/.pids for lib.sh's cleanup.
#
# Remote PATH starts with $T/sshd/bin so a test can drop a fake nvidia-smi
# there; SSHD_PATH, when set, replaces the whole remote PATH (a box without
# tmux: tests/e2e/test_deploy.sh).  TMUX_TMPDIR is the test's (lib.sh's t):
# the box's tmux server is the test's own, so two tests' sessions named
# wk-t1 never meet.  SHLVL=1 keeps bash from running root's slow .bashrc for every
# remote command (it does so for `bash -c` started by sshd at SHLVL < 2).

SSHD_BIN=${SSHD_BIN:-/usr/sbin/sshd}
_SSHD_EXIT_CMDS=()

sshd_at_exit() {
	_SSHD_EXIT_CMDS+=("$1")
	trap _sshd_run_exit EXIT
}
_sshd_run_exit() {
	local c
	for c in "${_SSHD_EXIT_CMDS[@]}"; do
		eval "$c" >/dev/null 2>&1 || true
	done
}

# sshd_free_port VAR: a port this test owns, for a server to bind (lib.sh's
# port_take hold): never another test's, and refused after the server stops.
sshd_free_port() { port_take hold "$1"; }

sshd_port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

# Up (pid file written) or failed to bind (it daemonizes before binding, so its exit status cannot say).
_sshd_settled() { [ -s "$1/sshd.pid" ] || grep -qE 'Cannot bind|Bind to port .* failed' "$1/sshd.log" 2>/dev/null; }

_sshd_write_config() {
	local d=$1 port=$2
	cat >"$d/sshd_config" <<EOF
# written by tests/e2e/sshd.sh
ListenAddress 127.0.0.1:$port
HostKey $d/host_ed25519
PidFile $d/sshd.pid
AuthorizedKeysFile $d/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
UseDNS no
MaxStartups 200:30:400
Subsystem sftp internal-sftp
SetEnv PATH=${SSHD_PATH:-$d/bin:/usr/local/bin:/usr/bin:/bin} SHLVL=1 WK_SSHD_TAG=$SSHD_TAG TMUX_TMPDIR=${TMUX_TMPDIR:-$T/tmux}
${SSHD_EXTRA_CONFIG:-}
EOF
}

sshd_start() {
	local d="$T/sshd" port="" try
	mkdir -p "$d/bin" /run/sshd "${TMUX_TMPDIR:-$T/tmux}"
	ssh-keygen -q -N '' -t ed25519 -C wk-test-host -f "$d/host_ed25519"
	SSHD_CLIENT_KEY="$d/id_${SSHD_CLIENT_KEY_TYPE:-ed25519}"
	ssh-keygen -q -N '' -t "${SSHD_CLIENT_KEY_TYPE:-ed25519}" -C wk-test-client -f "$SSHD_CLIENT_KEY"
	cp "$SSHD_CLIENT_KEY.pub" "$d/authorized_keys"
	SSHD_TAG="wk-e2e-$$-$RANDOM$RANDOM"
	SSHD_PID=""
	for try in $(seq 1 10); do
		sshd_free_port port || { fail "no free port"; return 1; }
		_sshd_write_config "$d" "$port"
		"$SSHD_BIN" -t -f "$d/sshd_config" || { fail "sshd -t rejects $d/sshd_config"; return 1; }
		rm -f "$d/sshd.pid"
		: >"$d/sshd.log"
		"$SSHD_BIN" -f "$d/sshd_config" -E "$d/sshd.log" || continue
		wait_for 10 _sshd_settled "$d" || break
		if [ -s "$d/sshd.pid" ]; then
			SSHD_PID=$(<"$d/sshd.pid")
			break
		fi
	done
	[ -n "$SSHD_PID" ] || { fail "sshd did not start:"; cat "$d/sshd.log" >&2; return 1; }
	echo "$SSHD_PID" >>"$T/.pids"
	sshd_at_exit sshd_stop
	wait_for 10 sshd_port_open "$port" || { fail "sshd on port $port does not accept"; return 1; }
	echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$d/host_ed25519.pub")" >"$d/known_hosts"
	cat >"$d/ssh_config" <<EOF
Host box
	HostName 127.0.0.1
	Port $port
	User root
	IdentityFile $SSHD_CLIENT_KEY
	IdentitiesOnly yes
	UserKnownHostsFile $d/known_hosts
	StrictHostKeyChecking yes
	BatchMode yes
EOF
	SSHD_PORT=$port
	SSH_CFG="$d/ssh_config"
	export SSHD_PORT SSHD_PID SSH_CFG SSHD_CLIENT_KEY
}

# Pids below $1 in the process tree (children first found, breadth first).
sshd_descendants() {
	local root=$1 f line rest pid ppid queue out=""
	local -A kids=()
	for f in /proc/[0-9]*/stat; do
		read -r line 2>/dev/null <"$f" || continue
		pid=${line%% *}
		rest=${line##*) }
		ppid=${rest#* }
		ppid=${ppid%% *}
		kids[$ppid]+=" $pid"
	done
	queue=$root
	while [ -n "$queue" ]; do
		set -- $queue
		pid=$1
		shift
		queue="$* ${kids[$pid]:-}"
		queue=${queue# }
		[ "$pid" = "$root" ] || out="$out $pid"
	done
	echo $out
}

# Pids whose environment carries this sshd's session tag.
# (One grep over every environ, not one per process: a fork costs here.)
sshd_tagged() {
	local f out=""
	[ -n "${SSHD_TAG:-}" ] || return 0
	while read -r f; do
		f=${f#/proc/}
		out="$out ${f%/environ}"
	done < <(grep -lxzF "WK_SSHD_TAG=$SSHD_TAG" /proc/[0-9]*/environ 2>/dev/null)
	echo $out
}

sshd_stop() {
	local pids i
	[ -n "${SSHD_PID:-}" ] || return 0
	if kill -0 "$SSHD_PID" 2>/dev/null; then
		# Frozen, it cannot fork while its tree is collected.
		kill -STOP "$SSHD_PID" 2>/dev/null || true
		pids=$(sshd_descendants "$SSHD_PID")
		kill -9 "$SSHD_PID" $pids 2>/dev/null || true
	fi
	for i in 1 2 3; do
		pids=$(sshd_tagged)
		[ -n "$pids" ] || break
		kill -9 $pids 2>/dev/null || true
		sleep 0.05
	done
	wait_for 5 sh -c "! kill -0 $SSHD_PID 2>/dev/null" || true
	SSHD_PID=""
	return 0
}

sshd_accepted_count() { grep -c 'Accepted publickey' "$T/sshd/sshd.log" || true; }

# box: the suite's sshd as "the box" (this machine): onbox first on the
# remote PATH, a fake crontab keeping its table in $T/crontab.txt, and the
# local state directory under $T.
box() {
	sshd_start
	mkdir -p "$T/sshd/bin" "$T/fakebin" "$T/state"
	ln -sf "$ONBOX" "$T/sshd/bin/onbox"
	cat >"$T/fakebin/crontab" <<SH
#!/bin/sh
case "\$1" in
-l) [ -f "$T/crontab.txt" ] || { echo "no crontab for \$(id -un)" >&2; exit 1; }; cat "$T/crontab.txt" ;;
-) cat >"$T/crontab.txt" ;;
esac
SH
	chmod +x "$T/fakebin/crontab"
	export XDG_STATE_HOME="$T/state" PATH="$T/fakebin:$PATH"
}

# pconf EXTRA CHAIN: the run's config (lib.sh's conf), the box part included.
pconf() {
	conf "\"box\": {\"host\": \"box\", \"ssh_config\": \"$SSH_CFG\", \"config\": \"$T/wk.json\", \"connect_timeout_s\": 3}, $1" "$2"
}
