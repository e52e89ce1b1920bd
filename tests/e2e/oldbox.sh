# An older box for the end-to-end tests; sourced after lib.sh and sshd.sh
# (which give $T, wait_for, fail, sshd_free_port, sshd_at_exit,
# sshd_descendants).  What rented GPU images look like: Debian 11 bullseye
# (glibc 2.31), /bin/sh is dash, python3, tmux and curl, no compiler, no
# cJSON, no systemd, a non-root login user.  Needs root (chroot, mounts).
#
#   oldbox_available      0, or prints why not (not root, debootstrap missing,
#                         mirror unreachable, debootstrap failed) so the
#                         caller prints "SKIP name: reason"; builds the
#                         cached root when it is not there yet
#   oldbox_root           the cached root's path (scripts/oldbox-root.sh:
#                         a --variant=minbase debootstrap of Debian 11,
#                         built once a machine under $OLDBOX_CACHE,
#                         /var/cache/watchkeeper/oldbox, by
#                         scripts/install-deps.sh or the first test that
#                         needs it)
#   oldbox_start [--no-tmux] [--user NAME]
#                         a box of its own under $T/oldbox/: an overlay with
#                         the cached root as its lower layer (a copy when
#                         overlay mounts fail), /proc, a minimal /dev with
#                         its own devpts, /sys read-only (this machine's,
#                         without submounts), /tmp and /run/sshd inside, a login
#                         user (default `box`, home /home/NAME, login shell
#                         $OLDBOX_SHELL, default /bin/bash) whose
#                         authorized_keys has $T/oldbox/id_ed25519.pub, and
#                         the root's own /usr/sbin/sshd started chrooted on
#                         127.0.0.1 with its own host key.  --no-tmux hides
#                         tmux from this box (whiteout in the upper layer).
#                         Exports OLDBOX_PORT, OLDBOX_PID, OLDBOX_CFG
#                         ($T/oldbox/ssh_config, Host alias `oldbox`),
#                         OLDBOX_KEY, OLDBOX_KNOWN_HOSTS, OLDBOX_FS (the
#                         box's / seen from here), OLDBOX_USER, OLDBOX_HOME
#   oldbox_stop           stop every process of the box by pid, unmount
#   oldbox_sh CMD         run CMD as the login user through the system ssh
#
# scripts/oldbox-root.sh builds the cache aside and renames it when
# debootstrap has finished, under a lock (flock on $OLDBOX_CACHE/.lock), so a
# half-finished or concurrent build is never used.  The chroot shares the
# host's network namespace: the box reaches a receiver on 127.0.0.1.
#
# Sessions get the box's own PATH (sshd's compiled default, sshd is started
# with an empty environment) and WK_OLDBOX_TAG=<unique> through SetEnv.
# oldbox_stop kills, by pid, the listener's descendants, every process whose
# environment carries the tag and every process whose root directory is the
# box (tmux servers, nohup'd onbox and its stages), then unmounts in reverse
# order, lazily only when a plain umount still fails after that.
# oldbox_start registers oldbox_stop with sshd_at_exit before it mounts
# anything, so a failing assertion still cleans up.

OLDBOX_CACHE=${OLDBOX_CACHE:-/var/cache/watchkeeper/oldbox}
OLDBOX_SHELL=${OLDBOX_SHELL:-/bin/bash}
_OLDBOX_MOUNTS=()

oldbox_available() {
	local c url
	[ "$(id -u)" = 0 ] || { echo "needs root (chroot and mounts)"; return 1; }
	for c in chroot mount umount flock ssh-keygen ssh; do
		command -v "$c" >/dev/null 2>&1 || { echo "no $c command"; return 1; }
	done
	_oldbox_root --check >/dev/null && return 0
	command -v debootstrap >/dev/null 2>&1 ||
		{ echo "debootstrap not installed (scripts/install-deps.sh installs it)"; return 1; }
	url=$(_oldbox_root --release-url)
	timeout 30 python3 -c 'import sys,urllib.request; urllib.request.urlopen(sys.argv[1], timeout=20).read(1)' \
		"$url" >/dev/null 2>&1 || { echo "${url%/dists/*} unreachable (no ${url#*/dists/})"; return 1; }
	oldbox_root >/dev/null 2>&1 ||
		{ echo "debootstrap failed: $(tail -n 1 "$OLDBOX_CACHE/debootstrap.log" 2>/dev/null)"; return 1; }
	return 0
}

# scripts/oldbox-root.sh with this file's cache (and suite, mirror, packages when set).
_oldbox_root() { OLDBOX_CACHE=$OLDBOX_CACHE "$TOP/scripts/oldbox-root.sh" "$@"; }

# The root's path; built first (once a machine, scripts/install-deps.sh does it) when missing.
oldbox_root() { _oldbox_root; }

# Mount, and remember it for oldbox_stop (unmounted last first).
_oldbox_mount() {
	mount "$@" || return 1
	_OLDBOX_MOUNTS+=("${!#}")
}

# A minimal /dev: the usual nodes and a devpts instance of its own (tmux needs ptys).
_oldbox_dev() {
	local dev=$1
	_oldbox_mount -t tmpfs -o mode=755,nosuid,size=1m wk-oldbox-dev "$dev" || return 1
	mknod -m 666 "$dev/null" c 1 3
	mknod -m 666 "$dev/zero" c 1 5
	mknod -m 666 "$dev/full" c 1 7
	mknod -m 666 "$dev/random" c 1 8
	mknod -m 666 "$dev/urandom" c 1 9
	mknod -m 666 "$dev/tty" c 5 0
	mkdir -p "$dev/pts" "$dev/shm"
	chmod 1777 "$dev/shm"
	ln -s /proc/self/fd "$dev/fd"
	ln -s /proc/self/fd/0 "$dev/stdin"
	ln -s /proc/self/fd/1 "$dev/stdout"
	ln -s /proc/self/fd/2 "$dev/stderr"
	_oldbox_mount -t devpts -o newinstance,ptmxmode=0666,mode=620,gid=5 wk-oldbox-pts "$dev/pts" || return 1
	ln -s pts/ptmx "$dev/ptmx"
}

_oldbox_write_config() {
	local port=$1
	cat >"$OLDBOX_FS/etc/wk-oldbox/sshd_config" <<EOF
# written by tests/e2e/oldbox.sh; paths are inside the box
ListenAddress 127.0.0.1:$port
HostKey /etc/wk-oldbox/host_ed25519
PidFile /etc/wk-oldbox/sshd.pid
AuthorizedKeysFile .ssh/authorized_keys
PermitRootLogin no
PubkeyAuthentication yes
PasswordAuthentication no
ChallengeResponseAuthentication no
UsePAM no
UseDNS no
MaxStartups 200:30:400
Subsystem sftp internal-sftp
SetEnv WK_OLDBOX_TAG=$OLDBOX_TAG
EOF
}

oldbox_start() {
	local user=box notmux=0 d="$T/oldbox" lower R port try h
	while [ $# -gt 0 ]; do
		case $1 in
		--no-tmux) notmux=1 ;;
		--user) user=$2; shift ;;
		*) fail "oldbox_start: unknown option $1"; return 1 ;;
		esac
		shift
	done
	lower=$(oldbox_root) || { fail "no cached root (oldbox_available first)"; return 1; }
	mkdir -p "$d/upper" "$d/work" "$d/fs"
	R="$d/fs"
	OLDBOX_FS=$R
	OLDBOX_TAG="wk-oldbox-$$-$RANDOM$RANDOM"
	OLDBOX_PID=""
	sshd_at_exit oldbox_stop
	if ! _oldbox_mount -t overlay wk-oldbox -o "lowerdir=$lower,upperdir=$d/upper,workdir=$d/work" "$R" 2>"$d/overlay.err"; then
		echo "oldbox: overlay mount failed ($(<"$d/overlay.err")); copying the root" >&2
		cp -a "$lower/." "$R/"
	fi
	_oldbox_mount -t proc wk-oldbox-proc "$R/proc" || { fail "cannot mount /proc in the box"; return 1; }
	_oldbox_dev "$R/dev" || { fail "cannot make the box's /dev"; return 1; }
	# /sys read-only (this mount only; not its submounts: the probe copes without cgroups).
	_oldbox_mount --bind /sys "$R/sys" && mount -o remount,bind,ro "$R/sys" ||
		{ fail "cannot bind /sys read-only in the box"; return 1; }
	mkdir -p "$R/tmp" "$R/run/sshd" "$R/etc/wk-oldbox"
	chmod 1777 "$R/tmp"
	chmod 755 "$R/run/sshd"
	[ $notmux = 1 ] && rm -f "$R/usr/bin/tmux"
	chroot "$R" /usr/sbin/useradd -m -d "/home/$user" -s "$OLDBOX_SHELL" "$user" ||
		{ fail "useradd $user in the box"; return 1; }
	# No password, but not locked: sshd without PAM refuses a locked account ("!").
	chroot "$R" /usr/sbin/usermod -p '*' "$user"
	h="$R/home/$user"
	ssh-keygen -q -N '' -t ed25519 -C wk-oldbox-host -f "$R/etc/wk-oldbox/host_ed25519"
	ssh-keygen -q -N '' -t ed25519 -C wk-oldbox-client -f "$d/id_ed25519"
	mkdir -p "$h/.ssh"
	cp "$d/id_ed25519.pub" "$h/.ssh/authorized_keys"
	chmod 700 "$h/.ssh"
	chmod 600 "$h/.ssh/authorized_keys"
	chroot "$R" /bin/chown -R "$user:$user" "/home/$user/.ssh"
	for try in $(seq 1 10); do
		sshd_free_port port || { fail "no free port"; return 1; }
		_oldbox_write_config "$port"
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot "$R" /usr/sbin/sshd -t -f /etc/wk-oldbox/sshd_config ||
			{ fail "the box's sshd -t rejects its sshd_config"; return 1; }
		rm -f "$R/etc/wk-oldbox/sshd.pid"
		: >"$R/etc/wk-oldbox/sshd.log"
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot "$R" /usr/sbin/sshd \
			-f /etc/wk-oldbox/sshd_config -E /etc/wk-oldbox/sshd.log || continue
		wait_for 10 _sshd_settled "$R/etc/wk-oldbox" || break
		if [ -s "$R/etc/wk-oldbox/sshd.pid" ]; then
			OLDBOX_PID=$(<"$R/etc/wk-oldbox/sshd.pid")
			break
		fi
	done
	[ -n "$OLDBOX_PID" ] || { fail "the box's sshd did not start:"; cat "$R/etc/wk-oldbox/sshd.log" >&2; return 1; }
	echo "$OLDBOX_PID" >>"$T/.pids"
	wait_for 10 sshd_port_open "$port" || { fail "the box's sshd on port $port does not accept"; return 1; }
	echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$R/etc/wk-oldbox/host_ed25519.pub")" >"$d/known_hosts"
	cat >"$d/ssh_config" <<EOF
Host oldbox
	HostName 127.0.0.1
	Port $port
	User $user
	IdentityFile $d/id_ed25519
	IdentitiesOnly yes
	UserKnownHostsFile $d/known_hosts
	StrictHostKeyChecking yes
	BatchMode yes
EOF
	OLDBOX_PORT=$port
	OLDBOX_CFG="$d/ssh_config"
	OLDBOX_KEY="$d/id_ed25519"
	OLDBOX_KNOWN_HOSTS="$d/known_hosts"
	OLDBOX_USER=$user
	OLDBOX_HOME="/home/$user"
	export OLDBOX_PORT OLDBOX_PID OLDBOX_CFG OLDBOX_KEY OLDBOX_KNOWN_HOSTS OLDBOX_FS OLDBOX_USER OLDBOX_HOME OLDBOX_TAG
}

# Pids of the box: its environment carries the tag, or its root directory is the box.
# (No fork per process: one grep for the tags, the shell's -ef for the roots.)
oldbox_pids() {
	local p out="" tagged
	tagged=" $(grep -lxzF "WK_OLDBOX_TAG=$OLDBOX_TAG" /proc/[0-9]*/environ 2>/dev/null |
		sed 's#^/proc/##; s#/environ$##' | tr '\n' ' ') "
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" = "$$" ] || [ "$p" = "$BASHPID" ] && continue
		if [ "${tagged#* $p }" != "$tagged" ] || [ "/proc/$p/root" -ef "$OLDBOX_FS" ]; then
			out="$out $p"
		fi
	done
	echo $out
}

oldbox_stop() {
	local pids i m n
	[ -n "${OLDBOX_FS:-}" ] || return 0
	if [ -n "${OLDBOX_PID:-}" ] && kill -0 "$OLDBOX_PID" 2>/dev/null; then
		kill -STOP "$OLDBOX_PID" 2>/dev/null || true
		pids=$(sshd_descendants "$OLDBOX_PID")
		kill -9 "$OLDBOX_PID" $pids 2>/dev/null || true
	fi
	for i in 1 2 3 4 5; do
		pids=$(oldbox_pids)
		[ -n "$pids" ] || break
		kill -9 $pids 2>/dev/null || true
		sleep 0.05
	done
	[ -z "${OLDBOX_PID:-}" ] || wait_for 5 sh -c "! kill -0 $OLDBOX_PID 2>/dev/null" || true
	OLDBOX_PID=""
	n=${#_OLDBOX_MOUNTS[@]}
	for ((i = n - 1; i >= 0; i--)); do
		m=${_OLDBOX_MOUNTS[$i]}
		umount "$m" 2>/dev/null && continue
		# Processes just killed may still hold it for a moment.
		wait_for 5 umount "$m" 2>/dev/null && continue
		echo "oldbox: $m still busy, detaching it (umount -l)" >&2
		umount -l "$m" 2>/dev/null || true
	done
	_OLDBOX_MOUNTS=()
	OLDBOX_FS=""
	return 0
}

# oldbox_sh CMD: CMD through the system ssh as the box's login user (stdin passed on).
oldbox_sh() { ssh -F "$OLDBOX_CFG" oldbox "$1"; }
