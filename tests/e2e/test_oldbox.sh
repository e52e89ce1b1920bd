#!/usr/bin/env bash
# End-to-end tests against an older box (tests/e2e/oldbox.sh): a Debian 11
# minbase root (glibc 2.31, dash, python3, tmux, curl; no compiler, no cJSON)
# made once a machine with debootstrap (scripts/oldbox-root.sh, run by
# scripts/install-deps.sh) and cached under /var/cache/watchkeeper/oldbox/, a box of its own
# per test with its own sshd started chrooted on 127.0.0.1 and a non-root
# login user.
#
# oldbox_*: the harness itself (ssh with both clients, what the box has and
# lacks, a workdir with a space, the box's own PATH, cleanup), and the bug the
# portable onbox exists for: the ordinary dynamic onbox does not run there.
#
# old_*: what step 8 is done by, against the contracts C1-C4: `patrol deploy`
# with no flags runs a two-stage chain to DONE; the box delivers its own
# webhook to a URL that exists only in the owner's environment, and the
# secret is in no file but <workdir>/.watchkeeper/secrets (0600) and on no
# command line; a box without tmux falls back to nohup and says so;
# `patrol stop` stops a run for good.  Each checks for the capability it
# needs (the portable onbox, a patrol that picks it, secrets, stop) and says
# "SKIP name: what is missing" when it is not there: never a pass.
#
# Without root, debootstrap or Debian's mirror (first run only) every test
# says SKIP with the reason.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/oldbox.sh"
PATROL="$TOP/$BUILD/patrol"
SSHTOOL=${SSHTOOL:-$TOP/$BUILD/sshtool}
ARCH=$(uname -m)
[ "$ARCH" = arm64 ] && ARCH=aarch64
# The portable onbox patrol finds (README: patrol deploy): $WATCHKEEPER_ONBOX_DIR's, else the one
# next to patrol; an ASan build tree uses the plain tree's through
# WATCHKEEPER_ONBOX_DIR.
PORTABLE="${WATCHKEEPER_ONBOX_DIR:-$TOP/$BUILD/portable}/onbox-$ARCH-linux"
if [ -z "${WATCHKEEPER_ONBOX_DIR:-}" ] && [ ! -e "$PORTABLE" ] && [ -e "$TOP/build/portable/onbox-$ARCH-linux" ]; then
	PORTABLE="$TOP/build/portable/onbox-$ARCH-linux"
	export WATCHKEEPER_ONBOX_DIR="$TOP/build/portable"
fi
WD="/home/box/my runs/r1"	# the run's workdir on the box, as the login user sees it

patrol() { $ONBOX_WRAP "$PATROL" -c "$T/wk.json" "$@"; }
# Box-side path of a workdir file, seen from here.
bw() { echo "$OLDBOX_FS$WD/.watchkeeper/$1"; }

# ---- the harness ----

test_oldbox_ssh_both_clients() {
	oldbox_start
	oldbox_sh 'id -un; id -u; echo "$HOME"; pwd' >"$T/o"
	assert_eq "$(sed -n 1p "$T/o")" box
	[ "$(sed -n 2p "$T/o")" != 0 ] || fail "the login user is root"
	assert_eq "$(sed -n 3p "$T/o")" /home/box
	assert_eq "$(sed -n 4p "$T/o")" /home/box
	# The project's own client (libssh2) with the same key and known_hosts.
	[ -x "$SSHTOOL" ] || { fail "$SSHTOOL not built (make unit)"; return 1; }
	"$SSHTOOL" --host 127.0.0.1 --port "$OLDBOX_PORT" --user box --alias oldbox \
		--identity "$OLDBOX_KEY" --known-hosts "$OLDBOX_KNOWN_HOSTS" --identities-only \
		'id -un; echo "$HOME"' >"$T/r.json"
	assert_eq "$(json "$T/r.json" 'd["ok"]')" true
	assert_eq "$(json "$T/r.json" 'd["exit_status"]')" 0
	assert_eq "$(json "$T/r.json" 'd["out"]')" "box
/home/box"
	# A changed host key is refused (the known_hosts line is the box's own).
	sed -i 's/ssh-ed25519 .*/ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBd3aYZ0j9cYx0ij1j1Qj0V1Lq5f0+UQZQ4Qnq1bq3qs/' "$OLDBOX_KNOWN_HOSTS"
	! oldbox_sh true 2>"$T/e" || fail "ssh accepted a wrong host key"
	assert_grep 'HOST IDENTIFICATION HAS CHANGED|verification failed' "$T/e"
}

test_oldbox_is_old() {
	oldbox_start
	oldbox_sh 'ldd --version 2>/dev/null | head -n 1; ls /lib/*-linux-gnu/libc-*.so 2>/dev/null' >"$T/libc"
	assert_grep '2\.31' "$T/libc"
	oldbox_sh 'readlink -f /bin/sh' >"$T/sh"
	assert_grep '/dash$' "$T/sh"
	# No compiler, no cJSON, no systemd.
	oldbox_sh 'for c in cc gcc clang tcc make systemctl; do command -v $c; done; ls /usr/lib/*/libcjson* /lib/*/libcjson* 2>/dev/null; /sbin/ldconfig -p | grep -i cjson; [ -d /run/systemd/system ] && echo systemd; true' >"$T/none"
	assert_eq "$(<"$T/none")" "" "present on the box"
	oldbox_sh 'python3 --version; curl --version | head -n 1; tmux -V; ls /etc/ssl/certs/ca-certificates.crt' >"$T/has" 2>&1
	assert_grep '^Python 3\.9' "$T/has"
	assert_grep '^curl 7\.74' "$T/has"
	assert_grep '^tmux 3\.1' "$T/has"
	assert_grep 'ca-certificates.crt' "$T/has"
	# tmux works there (it needs the box's own ptys).
	oldbox_sh 'tmux new-session -d -s probe "sleep 60" && tmux ls' >"$T/tmux.ls" 2>&1
	assert_grep '^probe: 1 windows' "$T/tmux.ls"
	oldbox_sh 'tmux kill-server'
}

test_oldbox_workdir_with_space_and_box_path() {
	oldbox_start
	oldbox_sh 'mkdir -p "$HOME/my runs/r1" && cd "$HOME/my runs/r1" && echo written >f && cat f && stat -c %U f' >"$T/o"
	assert_eq "$(<"$T/o")" "written
box"
	assert_eq "$(stat -c %u "$OLDBOX_FS/home/box/my runs/r1/f")" "$(stat -c %u "$OLDBOX_FS/home/box")"
	# The session's PATH is the box's own, not this machine's (nor sshd.sh's bin dir).
	mkdir -p "$T/hostbin"
	PATH="$T/hostbin:$PATH" oldbox_sh 'echo "$PATH"; echo "${ASAN_OPTIONS:-no asan}"; command -v python3' >"$T/env"
	assert_eq "$(sed -n 1p "$T/env")" /usr/local/bin:/usr/bin:/bin:/usr/games
	assert_eq "$(sed -n 2p "$T/env")" "no asan"
	assert_eq "$(sed -n 3p "$T/env")" /usr/bin/python3
	# What the box runs is the box's: its python3 is 3.9, this machine's is not.
	oldbox_sh 'python3 -c "import sys; print(sys.version_info[:2])"' >"$T/py"
	assert_eq "$(<"$T/py")" "(3, 9)"
}

test_oldbox_no_tmux() {
	oldbox_start --no-tmux --user trainer
	oldbox_sh 'id -un; command -v tmux || echo "no tmux"; command -v nohup' >"$T/o"
	assert_eq "$(<"$T/o")" "trainer
no tmux
/usr/bin/nohup"
	# The cached root still has it.
	assert_file "$(oldbox_root)/usr/bin/tmux"
}

# gone PID: not running (no such process, or a zombie).
gone() {
	local line
	read -r line 2>/dev/null <"/proc/$1/stat" || return 0
	line=${line##*) }
	[ "${line%% *}" = Z ]
}

# Everything the box started is stopped by pid and every mount is gone.
test_oldbox_stop_cleans_up() {
	local fs pid p left
	oldbox_start
	fs=$OLDBOX_FS
	pid=$OLDBOX_PID
	oldbox_sh 'tmux new-session -d -s s1 "sleep 300"; nohup sleep 300 >/dev/null 2>&1 & echo $! >/tmp/nohup.pid'
	wait_for 10 test -s "$fs/tmp/nohup.pid"
	p=$(<"$fs/tmp/nohup.pid")
	kill -0 "$p" || fail "the box's nohup'd sleep is not running"
	[ -n "$(oldbox_pids)" ] || fail "oldbox_pids finds nothing"
	oldbox_stop
	# Killed: gone, or a zombie until its new parent reaps it.
	wait_for 5 gone "$pid" || fail "the box's sshd $pid still runs"
	wait_for 5 gone "$p" || fail "the box's nohup'd sleep $p still runs"
	left=$(awk -v p="$T/" 'index($2, p) == 1 { print $2 }' /proc/self/mounts)
	assert_eq "$left" "" "mounts left under $T"
	for p in /proc/[0-9]*; do
		[ ! "$p/root" -ef "$fs" ] || [ ! -d "$fs" ] || fail "process ${p#/proc/} still has the box as its root"
	done
	# The cached root is untouched: the box's writes went to its upper layer.
	assert_no_file "$(oldbox_root)/home/box"
	assert_no_file "$(oldbox_root)/tmp/nohup.pid"
}

# Temporary builds (.build.*) in cache $1.
builds_left() {
	local f n=0
	for f in "$1"/.build.*; do [ -e "$f" ] && n=$((n + 1)); done
	echo $n
}

# The cache: one build at a time, built aside and renamed when complete, a
# failed or killed build leaves nothing that counts as the root.  A fake
# debootstrap (first on PATH) stands in for the real one.
test_oldbox_cache_lock_and_rename() {
	local c="$T/cache" p1 p2 r1 r2 root
	# Named by the suite and the package list's checksum (a new list, a new root).
	root="$c/bullseye-$(echo openssh-server,python3,tmux,curl,ca-certificates | cksum | cut -d' ' -f1)"
	mkdir -p "$T/fakebin"
	cat >"$T/fakebin/debootstrap" <<SH
#!/bin/sh
# args: --variant=minbase --include=LIST SUITE DIR MIRROR
echo "\$*" >>"$T/debootstrap.calls"
[ -e "$T/debootstrap.fail" ] && { echo "E: Couldn't download packages: fake" >&2; exit 1; }
n=0; while [ ! -e "$T/debootstrap.go" ] && [ \$n -lt 100 ]; do sleep 0.1; n=\$((n+1)); done
mkdir -p "\$4/usr/bin" && echo built >"\$4/usr/bin/marker"
SH
	chmod +x "$T/fakebin/debootstrap"
	# A failed build: no root, the reason, nothing left behind.
	touch "$T/debootstrap.fail"
	rc=0; (PATH="$T/fakebin:$PATH" OLDBOX_CACHE=$c; oldbox_root) >"$T/r0" 2>"$T/e0" || rc=$?
	assert_eq "$rc" 1 "oldbox_root after a failed debootstrap"
	assert_grep "fake" "$T/e0"
	assert_no_file "$root"
	assert_eq "$(builds_left "$c")" 0 "temporary builds left"
	rm "$T/debootstrap.fail" "$T/debootstrap.calls"
	# A killed build's leftover is cleared by the next one.
	mkdir -p "$c/.build.killed/usr"
	# Two at once: one debootstrap, both get the root once it is complete.
	(PATH="$T/fakebin:$PATH" OLDBOX_CACHE=$c; oldbox_root) >"$T/r1" 2>&1 &
	p1=$!
	(PATH="$T/fakebin:$PATH" OLDBOX_CACHE=$c; oldbox_root) >"$T/r2" 2>&1 &
	p2=$!
	wait_for 10 test -s "$T/debootstrap.calls"
	assert_no_file "$root"
	touch "$T/debootstrap.go"
	r1=0; wait $p1 || r1=$?
	r2=0; wait $p2 || r2=$?
	assert_eq "$r1:$r2" 0:0 "both oldbox_root"
	assert_eq "$(wc -l <"$T/debootstrap.calls" | tr -d ' ')" 1 "debootstrap runs"
	assert_grep '^--variant=minbase --include=openssh-server,python3,tmux,curl,ca-certificates bullseye .* http://deb.debian.org/debian$' "$T/debootstrap.calls"
	assert_eq "$(tail -n 1 "$T/r1")" "$root"
	assert_eq "$(tail -n 1 "$T/r2")" "$root"
	assert_eq "$(<"$root/usr/bin/marker")" built
	assert_eq "$(builds_left "$c")" 0 "temporary builds left"
}

# The bug step 8 exists for: today's dynamic onbox does not run on this box.
test_oldbox_dynamic_onbox_fails_there() {
	oldbox_start
	oldbox_sh 'cat >"$HOME/onbox" && chmod +x "$HOME/onbox"' <"$ONBOX"
	rc=0; oldbox_sh '"$HOME/onbox" --version' >"$T/o" 2>"$T/e" || rc=$?
	echo "exit $rc: $(<"$T/e")"
	[ "$rc" != 0 ] || fail "the dynamic onbox ran on Debian 11: $(<"$T/o")"
	assert_grep 'libcjson\.so\.1|GLIBC_2\.3[2-9]|libasan\.so' "$T/e"
}

# ---- step 8 against the old box ----

# What a capability needs; prints what is missing.
need_portable() {
	[ -x "$PORTABLE" ] || { echo "no build/portable/onbox-$ARCH-linux (make onbox-portable)"; return 1; }
	"$PORTABLE" --version >/dev/null 2>&1 || { echo "$PORTABLE --version fails here"; return 1; }
}
need_deploy() {
	need_portable || return 1
	grep -aq WATCHKEEPER_ONBOX_DIR "$PATROL" || { echo "patrol deploy does not pick a portable onbox"; return 1; }
}
need_http() {
	need_portable || return 1
	"$PORTABLE" --version 2>/dev/null | sed -n 2p | grep -q '^http: ' ||
		{ echo "the portable onbox says nothing of its HTTP means"; return 1; }
}
need_secrets() {
	need_deploy && need_http || return 1
	"$PATROL" --help 2>&1 | grep -q -- '--no-secrets' || { echo "patrol deploy has no secrets"; return 1; }
}
need_stop() {
	need_deploy || return 1
	"$PATROL" --help 2>&1 | grep -q 'STOPPED' && "$PATROL" --help 2>&1 | grep -qE '\bstop\b' ||
		{ echo "patrol has no stop / STOPPED"; return 1; }
}

# owner: this machine as the owner's: patrol's state and a fake crontab under $T.
owner() {
	mkdir -p "$T/fakebin" "$T/state"
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

# oconf DETACH EXTRA CHAIN: the owner's config for run t1 on the old box, workdir $WD.
oconf() {
	cat >"$T/wk.json" <<JSON
{
  // written by test_oldbox.sh
  "run": "t1",
  "workdir": "$WD",
  "detach": "$1",
  "heartbeat_s": 1,
  "box": {"host": "oldbox", "ssh_config": "$OLDBOX_CFG", "connect_timeout_s": 5},
  $2
  "chain": $3
}
JSON
}

# Two stages; "a" waits (bounded) for the file "go" in the workdir.
two_stages() {
	echo '[{"stage": "a", "run": "echo a $$ >>launches; i=0; while [ ! -e go ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i+1)); done; echo a finished", "marker": "A_DONE"},
	 {"stage": "b", "run": "echo b $$ >>launches; echo b finished", "marker": "B_DONE"}]'
}
go() { touch "$OLDBOX_FS$WD/go"; }
has_marker() { [ -f "$(bw "markers/$1")" ]; }
tick() { rc=0; patrol --once >"$T/tick" 2>&1 || rc=$?; cat "$T/tick"; }

test_old_deploy_no_flags_runs_to_done() {
	oldbox_start
	owner
	oconf tmux '' "$(two_stages)"
	rc=0; patrol deploy >"$T/d" 2>&1 || rc=$?
	cat "$T/d"
	assert_eq "$rc" 0 "patrol deploy with no flags"
	# The portable onbox landed under the workdir and is what runs there.
	oldbox_sh "cd \"$WD\" && ls .watchkeeper/bin/ && ./.watchkeeper/bin/onbox --version" >"$T/v" 2>&1 ||
		fail "no working onbox in $WD/.watchkeeper/bin: $(<"$T/v")"
	assert_grep '^onbox ' "$T/v"
	cmp "$PORTABLE" "$(bw bin/onbox)"
	wait_for 30 test -s "$OLDBOX_FS$WD/launches"
	# detach tmux and the box has tmux: the stage runs in the login user's tmux server.
	oldbox_sh 'tmux ls' >"$T/tmuxls" 2>&1 || fail "no tmux session on the box while stage a runs: $(<"$T/tmuxls")"
	go
	wait_for 60 has_marker B_DONE
	has_marker A_DONE
	assert_eq "$(cut -d' ' -f1 "$OLDBOX_FS$WD/launches" | tr '\n' ' ')" "a b "
	tick
	assert_eq "$rc" 0 "patrol --once: $(<"$T/tick")"
	assert_grep ' t1 DONE' "$T/tick"
	# Stages ran as the login user.
	assert_eq "$(stat -c %u "$(bw markers/B_DONE)")" "$(stat -c %u "$OLDBOX_FS/home/box")"
	# A re-deploy re-sends nothing unchanged: the onbox on the box is the same file.
	ino=$(stat -c %i:%Y "$(bw bin/onbox)")
	rc=0; patrol deploy >"$T/d2" 2>&1 || rc=$?
	cat "$T/d2"
	assert_eq "$(stat -c %i:%Y "$(bw bin/onbox)")" "$ino" "re-deploy replaced an unchanged onbox"
}

# Every process's command line, looked at while the chain runs: each hit goes
# to $T/cmdline.hits as "pid root: command line" with the secret masked.  The
# secret is read from $T/secret.pat: it is on no command line of ours.
scan_cmdlines() {
	local i f c tok
	tok=$(<"$T/secret.pat")
	for i in $(seq 1 3000); do
		[ -e "$T/scan.stop" ] && break
		for f in $(grep -lFf "$T/secret.pat" /proc/[0-9]*/cmdline 2>/dev/null); do
			c=$(tr '\0' ' ' <"$f" 2>/dev/null) || continue
			f=${f%/cmdline}
			echo "${f#/proc/} $(readlink "$f/root"): ${c//$tok/<SECRET>}" >>"$T/cmdline.hits"
		done
		sleep 0.05
	done
}

test_old_webhook_from_owner_env_secret_contained() {
	local tok url leaks
	oldbox_start
	owner
	start_receiver
	tok="wk-secret-$RANDOM$RANDOM$RANDOM"
	printf '%s\n' "$tok" >"$T/secret.pat"
	url="http://127.0.0.1:$RPORT/hook/$tok"
	oconf tmux '"notify": [{"type": "generic", "url_env": "WK_OLD_HOOK"}],' "$(two_stages)"
	# Nowhere on the box: only in the owner's environment.
	oldbox_sh 'env; cat ~/.bashrc ~/.profile 2>/dev/null' >"$T/boxenv"
	assert_no_grep "WK_OLD_HOOK" "$T/boxenv"
	: >"$T/cmdline.hits"
	scan_cmdlines &
	echo $! >>"$T/.pids"
	scanner=$!
	rc=0; WK_OLD_HOOK=$url patrol deploy >"$T/d" 2>&1 || rc=$?
	cat "$T/d"
	assert_eq "$rc" 0 "patrol deploy"
	# Webhooks from the box go through the box's own curl command (curl 7.74 in Debian 11).
	assert_grep 'http: curl command /usr/bin/curl 7\.74' "$T/d"
	wait_for 30 test -s "$OLDBOX_FS$WD/launches"
	# The secrets file: mode 0600, the login user's, JSON with the value.
	assert_eq "$(stat -c %a "$(bw secrets)")" 600
	assert_eq "$(stat -c %u "$(bw secrets)")" "$(stat -c %u "$OLDBOX_FS/home/box")"
	assert_eq "$(json "$(bw secrets)" 'd["WK_OLD_HOOK"]')" "$url"
	go
	wait_for 60 has_marker B_DONE
	# The box's onbox delivers chain_done itself (patrol has not ticked yet).
	recv_done() { [ -f "$T/recv.jsonl" ] && [ "$(recv_json "len([x for x in r if x['path'] == '/hook/' + open('$T/secret.pat').read().strip() and json.loads(x['body']).get('event') == 'chain_done'])")" -ge 1 ]; }
	wait_for 60 recv_done
	recv_json "[x['headers'].get('User-Agent', x['headers'].get('user-agent')) for x in r]"
	touch "$T/scan.stop"
	wait "$scanner" || true
	assert_eq "$(sort -u "$T/cmdline.hits")" "" "the secret on a command line (pid root: cmdline)"
	# No file but the secrets file holds it: the box's writes (its upper layer) and ours.
	leaks=$(grep -rlF -f "$T/secret.pat" "$T/oldbox/upper" "$T" \
		--exclude=recv.jsonl --exclude=recv.out --exclude=secret.pat --exclude=cmdline.hits \
		--exclude-dir=fs --exclude-dir=proc 2>/dev/null | grep -vxF "$T/oldbox/upper$WD/.watchkeeper/secrets" | sort -u || true)
	assert_eq "$leaks" "" "files holding the secret"
	# Nor any file written on this machine since the test began, outside $T.
	leaks=$(find /tmp /var/tmp /root -xdev -type f -newer "$T/secret.pat" -size -8M ! -path "$T/*" -print0 2>/dev/null |
		xargs -0 -r grep -lFf "$T/secret.pat" 2>/dev/null || true)
	assert_eq "$leaks" "" "files outside \$T holding the secret"
	# Not in the box's tmux environment either.
	oldbox_sh 'for s in /tmp/tmux-$(id -u)/*; do tmux -S "$s" show-environment -g; tmux -S "$s" show-environment; done 2>/dev/null' >"$T/tmuxenv" || true
	! grep -qFf "$T/secret.pat" "$T/tmuxenv" || fail "the secret is in the box's tmux environment"
}

test_old_no_tmux_falls_back_to_nohup() {
	oldbox_start --no-tmux
	owner
	oconf tmux '' "$(two_stages)"
	rc=0; patrol deploy >"$T/d" 2>&1 || rc=$?
	cat "$T/d"
	assert_eq "$rc" 0 "patrol deploy without tmux on the box"
	# Said once: one line names both the missing tmux and nohup.
	assert_eq "$(grep -cE 'tmux.*nohup' "$T/d")" 1 "lines saying tmux is missing and nohup is used"
	wait_for 30 test -s "$OLDBOX_FS$WD/launches"
	go
	wait_for 60 has_marker B_DONE
	tick
	assert_eq "$rc" 0 "patrol --once: $(<"$T/tick")"
	assert_grep ' t1 DONE' "$T/tick"
}

# The job backend on the old box: the portable onbox under dash and mawk runs
# the ray profile's commands against fake-ray (a POSIX sh stand-in), copies
# the job's log and classifies its traceback, where included.
test_old_job_backend() {
	local h=/home/box
	oldbox_start
	mkdir -p "$OLDBOX_FS$h/bin" "$OLDBOX_FS$WD"
	cp "$PORTABLE" "$OLDBOX_FS$h/bin/onbox"
	cp "$TOP/tests/e2e/fixtures/fake-ray" "$OLDBOX_FS$h/bin/ray"
	cp -r "$TOP/profiles" "$OLDBOX_FS$h/profiles"
	cat >"$OLDBOX_FS$WD/wk.json" <<JSON
{"run": "t1", "profile": "ray", "workdir": "$WD", "heartbeat_s": 1, "poll_ms": 200,
 "job": {"logs_poll_ms": 0}, "restart": {"max": 0},
 "chain": [{"stage": "train", "run": "python train.py"}]}
JSON
	chown -R "$(stat -c %u:%g "$OLDBOX_FS$h")" "$OLDBOX_FS$h/bin" "$OLDBOX_FS$h/profiles" "$OLDBOX_FS$WD"
	local env="PATH=$h/bin:/usr/bin:/bin FAKE_JOB_DIR=$h/cluster WATCHKEEPER_PROFILES=$h/profiles"
	# One simple command in the background: its shell holds none of ssh's descriptors.
	oldbox_sh "cd \"$WD\" || exit 1; $env nohup onbox -c wk.json run >onbox.out 2>&1 </dev/null &" </dev/null ||
		fail "cannot start onbox on the box"
	wait_for 30 test -s "$OLDBOX_FS$h/cluster/seq" ||
		fail "nothing submitted: $(cat "$OLDBOX_FS$WD/onbox.out" 2>&1; ls -la "$OLDBOX_FS$WD" 2>&1)"
	id=$(oldbox_sh "$env ray _jobs" </dev/null | awk 'NR == 1 { print $1 }')
	[ -n "$id" ] || fail "no job submitted: $(cat "$OLDBOX_FS$WD/onbox.out")"
	cp "$TOP/tests/e2e/fixtures/code_error.log" "$OLDBOX_FS$h/tb.log"
	oldbox_sh "$env ray _set $id RUNNING && $env ray _logfile $id $h/tb.log" </dev/null
	wait_for 30 grep -qs "KeyError: 'learning_rate'" "$(bw logs/train.1.log)"
	oldbox_sh "$env ray _set $id FAILED" </dev/null
	wait_for 30 has_marker TRAIN_DONE.FAILED
	assert_eq "$(json "$(bw markers/TRAIN_DONE.FAILED)" 'd["class"]')" code_error
	assert_eq "$(json "$(bw markers/TRAIN_DONE.FAILED)" 'd["where"]["line"]')" 44
	assert_grep 'is running \(RUNNING\)' "$OLDBOX_FS$WD/onbox.out"
}

test_old_stop_for_good() {
	local pid
	oldbox_start
	owner
	oconf tmux '"patrol": {"auto_resume": true},' \
		'[{"stage": "train", "run": "echo $$ >>launches; exec sleep 600", "marker": "TRAIN_DONE"}]'
	rc=0; patrol deploy >"$T/d" 2>&1 || rc=$?
	cat "$T/d"
	assert_eq "$rc" 0 "patrol deploy"
	wait_for 30 test -s "$OLDBOX_FS$WD/launches"
	pid=$(head -n 1 "$OLDBOX_FS$WD/launches")
	kill -0 "$pid" || fail "the stage $pid does not run"
	rc=0; patrol stop >"$T/s" 2>&1 || rc=$?
	cat "$T/s"
	assert_eq "$rc" 0 "patrol stop"
	wait_for 40 gone "$pid"
	# No process of the run is left on the box but nothing: no sleep 600.
	for p in $(oldbox_pids); do
		! grep -qaF 'sleep' "/proc/$p/cmdline" 2>/dev/null || fail "stage process $p left: $(tr '\0' ' ' <"/proc/$p/cmdline")"
	done
	assert_grep '"event":"run_stopped"' "$(bw events.jsonl)"
	tick
	assert_eq "$rc" 0 "patrol --once after stop: $(<"$T/tick")"
	assert_grep ' t1 STOPPED' "$T/tick"
	# auto_resume is on: a later tick still says STOPPED and starts nothing.
	tick
	assert_eq "$rc" 0
	assert_grep ' t1 STOPPED' "$T/tick"
	assert_eq "$(wc -l <"$OLDBOX_FS$WD/launches" | tr -d ' ')" 1 "launches after two ticks"
}

# A hero run's launch gate on the old box: its facts script runs under the
# box's dash (Debian 11 minbase: no git), over ssh for `patrol deploy
# --check` and by the portable onbox for `onbox start`; code that is not in
# git is refused until --allow-dirty, which then runs the chain to DONE.
# And W&B's own files as the client leaves them, read by the portable onbox.
test_old_hero_gate() {
	oldbox_start
	owner
	oconf nohup '"hero": true, "output_root": "out", "progress": {"pattern": "step (\\d+)", "max": 1},
  "wandb": {"id": "r7a1"},' "$(two_stages)"
	rc=0; patrol deploy --check >"$T/c" 2>&1 || rc=$?
	cat "$T/c"
	assert_eq "$rc" 1
	assert_grep "^  code: +not pinned: $WD is no git work tree \(git is not installed\)" "$T/c"
	assert_grep "^  output_root: +$WD/out \(does not exist yet: it can be created\)" "$T/c"
	assert_grep '^REFUSED: the code is not pinned' "$T/c"
	rc=0; patrol deploy >"$T/d" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep 'the launch gate refuses run t1' "$T/d"
	rc=0; patrol deploy --allow-dirty >"$T/d2" 2>&1 || rc=$?
	cat "$T/d2"
	assert_eq "$rc" 0
	assert_grep 'launch gate: passed \(code not in git' "$T/d2"
	assert_eq "$(json "$(bw gate.json)" 'd["approved_diff_sha256"]')" no-git
	# The client's run directory for another id, made while stage a runs: critical.
	wait_for 30 test -s "$OLDBOX_FS$WD/launches"
	oldbox_sh "cd \"$WD\" && mkdir -p wandb/run-20261128_101500-zz99/files && : >wandb/run-20261128_101500-zz99/run-zz99.wandb && ln -s run-20261128_101500-zz99 wandb/latest-run.tmp && mv -T wandb/latest-run.tmp wandb/latest-run" >"$T/wb" 2>&1 ||
		fail "cannot make the W&B run on the box: $(<"$T/wb")"
	wait_for 30 grep -q '"kind":"wandb_identity"' "$(bw events.jsonl)"
	go
	wait_for 60 has_marker B_DONE
}

# ---- run ----

AVAIL=0
WHY=$(oldbox_available) || AVAIL=1
# tc NAME FUNCTION [NEED]: run the test, or say SKIP with what is missing.
# ONLY="name ..." runs just those.
tc() {
	local why
	[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]] || return 0
	if [ $AVAIL != 0 ]; then
		echo "SKIP $1: $WHY"
		return 0
	fi
	if [ -n "${3:-}" ] && ! why=$($3); then
		echo "SKIP $1: $why"
		return 0
	fi
	t "$1" "$2"
}

tc oldbox_ssh_both_clients test_oldbox_ssh_both_clients
tc oldbox_is_old test_oldbox_is_old
tc oldbox_workdir_with_space_and_box_path test_oldbox_workdir_with_space_and_box_path
tc oldbox_no_tmux test_oldbox_no_tmux
tc oldbox_stop_cleans_up test_oldbox_stop_cleans_up
tc oldbox_cache_lock_and_rename test_oldbox_cache_lock_and_rename
tc oldbox_dynamic_onbox_fails_there test_oldbox_dynamic_onbox_fails_there
tc old_deploy_no_flags_runs_to_done test_old_deploy_no_flags_runs_to_done need_deploy
tc old_webhook_from_owner_env_secret_contained test_old_webhook_from_owner_env_secret_contained need_secrets
tc old_no_tmux_falls_back_to_nohup test_old_no_tmux_falls_back_to_nohup need_deploy
tc old_stop_for_good test_old_stop_for_good need_stop
tc old_job_backend test_old_job_backend need_portable
tc old_hero_gate test_old_hero_gate need_deploy
