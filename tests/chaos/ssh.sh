#!/usr/bin/env bash
# Chaos: SSH faults against patrol and sentinel, over N random trials.
#
#   tests/chaos/ssh.sh [TRIALS]         (default 50; BUILD as for tests/e2e)
#
# The box is the suite's sshd (tests/e2e/sshd.sh) with a finished one-stage
# run on it, so a patrol that sees the box says DONE (exit 0) and a sentinel
# for A_DONE finds it (exit 0): every other outcome is the fault's doing.
# Each trial picks a fault (every kind once per round of six, in a random
# order) and runs patrol --once and then sentinel --max-ticks 1 under it, one
# over libssh2 and the other over the system ssh (when there is one), the
# other way round in the next round:
#
#   sshd_killed  sshd and its sessions killed while the probe runs (a `date`
#                planted first in the remote PATH holds the probe mid-way)
#   cut          the sshd processes serving the connection killed mid-probe
#   blackhole    iptables DROP on the port (left out without iptables)
#   mute         a listener that accepts and never says a word
#   auth         a key the server does not know: the server's authorized_keys
#                swapped for a stranger's, or (libssh2) box.identity set to
#                the stranger's key (the openssh transport would also offer
#                the ssh_config's IdentityFile, which the server accepts)
#   hostkey      known_hosts holds another key for the box
#
# Every run is guarded by `timeout` (30 s: ten times connect_timeout_s, the
# bound on connect + authentication) and must end by itself with the
# documented answer: patrol exits 2 with SSH_DOWN (HOSTKEY_MISMATCH for a
# changed key); sentinel exits 1 (an unreachable box is retried until the
# ticks run out) or 2 when the box refuses (auth, host key).  After each
# trial the fault is undone and both tools must see the box again (0).
# iptables rules and listeners are removed at exit, pass or fail.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/sshd.sh"
. "$(dirname "$0")/lib_chaos.sh"
PATROL="$TOP/$BUILD/patrol"
SENTINEL="$TOP/$BUILD/sentinel"

TRIALS=${1:-50}
[ "$CHAOS_SLOW" = 1 ] && [ "$TRIALS" -gt 6 ] && TRIALS=6
GUARD=30
[ "$CHAOS_SLOW" = 1 ] && GUARD=180
FAULTS=(sshd_killed cut blackhole mute auth hostkey)
HAVE_IPTABLES=0
command -v iptables >/dev/null 2>&1 && iptables -S INPUT >/dev/null 2>&1 && HAVE_IPTABLES=1
# Without iptables there is no blackhole (a listener that never answers, `mute`, stays).
[ "$HAVE_IPTABLES" = 1 ] || FAULTS=(sshd_killed cut mute auth hostkey)
TRANSPORTS=(libssh2)
command -v ssh >/dev/null 2>&1 && TRANSPORTS+=(openssh)

# The box's config: EXTRA goes into "box" (a port, an identity).
ssh_conf() {
	conf "\"box\": {\"host\": \"box\", \"ssh_config\": \"$SSH_CFG\", \"config\": \"$T/wk.json\", \"connect_timeout_s\": 3, \"transport\": \"$1\"${2:+, $2}}," \
		'[{"stage": "a", "run": "echo a done"}]'
}

# sshd again on its port after it was killed (same keys, same config).
sshd_restart() {
	local d="$T/sshd"
	rm -f "$d/sshd.pid"
	"$SSHD_BIN" -f "$d/sshd_config" -E "$d/sshd.log" || { fail "sshd would not start again"; return 1; }
	wait_for 10 _sshd_settled "$d"
	[ -s "$d/sshd.pid" ] || { fail "sshd did not start again:"; tail -n 5 "$d/sshd.log" >&2; return 1; }
	SSHD_PID=$(<"$d/sshd.pid")
	echo "$SSHD_PID" >>"$T/.pids"
	wait_for 10 sshd_port_open "$SSHD_PORT"
}

# The sshd processes below the listener: the ones serving connections.
sshd_sessions() {
	local p out=""
	for p in $(sshd_descendants "$SSHD_PID"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = sshd ] && out="$out $p"
	done
	echo $out
}

# The remote `date` waits while $T/slow.on exists (bounded), after saying so.
plant_slow_date() {
	cat >"$T/sshd/bin/date" <<SH
#!/bin/sh
if [ -e "$T/slow.on" ]; then
	: >"$T/slow.started"
	n=0
	while [ -e "$T/slow.on" ] && [ \$n -lt 400 ]; do sleep 0.05; n=\$((n+1)); done
fi
exec /bin/date "\$@"
SH
	chmod +x "$T/sshd/bin/date"
}

# A listener that accepts and never answers; MUTE_PORT.
start_mute() {
	python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(64)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
s.settimeout(1)
end = time.time() + 3600
while time.time() < end:
    try:
        held.append(s.accept()[0])
    except socket.timeout:
        pass' "$T/mute.port" &
	echo $! >>"$T/.pids"
	sshd_at_exit "kill $!"
	wait_for 10 test -s "$T/mute.port"
	MUTE_PORT=$(<"$T/mute.port")
}

ipt_rule() { echo "INPUT -p tcp -s 127.0.0.1 --dport $SSHD_PORT -j DROP"; }

# tool_argv TOOL: ARGV = patrol --once, or sentinel for A_DONE with one tick.
tool_argv() {
	case $1 in
	patrol) ARGV=("$PATROL" -c "$T/wk.json" --once) ;;
	sentinel) ARGV=("$SENTINEL" -c "$T/wk.json" --marker A_DONE --interval 1 --max-ticks 1) ;;
	esac
}
# run_tool TOOL NAME: TOOL under the guard, output in $T/NAME.out and .err; RC.
run_tool() {
	RC=0
	tool_argv "$1"
	timeout -k 5 "$GUARD" $ONBOX_WRAP "${ARGV[@]}" >"$T/$2.out" 2>"$T/$2.err" || RC=$?
	case $RC in 124|137) fail "the guard (${GUARD}s) had to stop $1 ($2): $(tail -c 300 "$T/$2.err")"; return 1 ;; esac
	return 0
}
# inflight TOOL NAME: the same in the background; ends with $T/NAME.rc.
inflight() {
	local tool=$1 name=$2
	rm -f "$T/$name.rc"
	tool_argv "$tool"
	( rc=0; timeout -k 5 "$GUARD" $ONBOX_WRAP "${ARGV[@]}" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
	  echo "$rc" >"$T/$name.rc" ) &
	INFLIGHT=$!
	echo "$INFLIGHT" >>"$T/.pids"
}
landed() {
	wait "$INFLIGHT" 2>/dev/null || true
	RC=$(<"$T/$1.rc")
	case $RC in 124|137) fail "the guard (${GUARD}s) had to stop $1"; return 1 ;; esac
	return 0
}

# expect TOOL FAULT NAME: RC and the output are the documented answer to FAULT.
expect() {
	local tool=$1 fault=$2 name=$3 want word
	if crashed "$RC" "$T/$name.err"; then
		fail "$tool crashed under $fault (exit $RC):"
		cat "$T/$name.err" >&2
		return 1
	fi
	case $tool:$fault in
	patrol:hostkey) want=2; word='HOSTKEY_MISMATCH' ;;
	patrol:*) want=2; word='SSH_DOWN' ;;
	sentinel:auth) want=2; word='refused the connection \(auth' ;;
	sentinel:hostkey) want=2; word='refused the connection \(hostkey_mismatch' ;;
	sentinel:*) want=1; word='A_DONE not yet \(box unreachable: ' ;;
	esac
	[ "$RC" = "$want" ] || { fail "$tool under $fault exited $RC, not $want:"; cat "$T/$name.out" "$T/$name.err" >&2; return 1; }
	if [ "$tool" = patrol ]; then
		grep -qE "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z t1 $word( |$)" "$T/$name.out" ||
			{ fail "patrol under $fault: no $word line:"; cat "$T/$name.out" >&2; return 1; }
	else
		grep -qE "$word" "$T/$name.err" ||
			{ fail "sentinel under $fault: no /$word/:"; cat "$T/$name.err" >&2; return 1; }
	fi
}

# inject FAULT TOOL NAME TRANSPORT: run TOOL under FAULT, undo it, check the answer.
# Called as `inject ... || ...`, so set -e is off here: every step says if it failed.
inject() {
	local fault=$1 tool=$2 name=$3 tr=$4 victims i bad=0
	case $fault in
	sshd_killed|cut)
		: >"$T/slow.on"
		rm -f "$T/slow.started"
		inflight "$tool" "$name"
		wait_for 30 test -e "$T/slow.started" || bad=1
		if [ "$fault" = sshd_killed ]; then
			sshd_stop
		else
			victims=$(sshd_sessions)
			[ -n "$victims" ] || { fail "no sshd serving the probe"; bad=1; }
			kill -9 $victims
		fi
		rm -f "$T/slow.on"
		landed "$name" || bad=1
		if [ "$fault" = sshd_killed ]; then sshd_restart || return 1; fi
		;;
	blackhole)
		iptables -I $(ipt_rule)
		run_tool "$tool" "$name" || bad=1
		iptables -D $(ipt_rule)
		;;
	mute)
		ssh_conf "$tr" "\"port\": $MUTE_PORT"
		run_tool "$tool" "$name" || bad=1
		;;
	auth)
		rnd i 0 1
		if [ "$tr" = libssh2 ] && [ "$i" = 1 ]; then
			ssh_conf "$tr" "\"identity\": \"$T/stranger\""
			run_tool "$tool" "$name" || bad=1
		else
			cp "$T/stranger.pub" "$T/sshd/authorized_keys"
			run_tool "$tool" "$name" || bad=1
			cp "$T/sshd/id_ed25519.pub" "$T/sshd/authorized_keys"
		fi
		;;
	hostkey)
		cp "$T/other_known_hosts" "$T/sshd/known_hosts"
		run_tool "$tool" "$name" || bad=1
		cmp "$T/other_known_hosts" "$T/sshd/known_hosts" || { fail "known_hosts was changed"; bad=1; }
		cp "$T/known_hosts.orig" "$T/sshd/known_hosts"
		;;
	esac
	# Remote leftovers of a cut probe (the held `date`) go now, by pid.
	for i in $(sshd_tagged); do kill -9 "$i" 2>/dev/null || true; done
	ssh_conf "$tr"
	[ "$bad" = 0 ] || return 1
	expect "$tool" "$fault" "$name"
}

test_ssh_faults() {
	local i k tr fault order=() counts="" n viol=0 failed=""
	local -A seen=()
	box
	plant_slow_date
	start_mute
	[ "$HAVE_IPTABLES" = 0 ] || sshd_at_exit "for i in 1 2 3 4 5 6 7 8 9 10; do iptables -D $(ipt_rule) 2>/dev/null || break; done"
	ssh-keygen -q -t ed25519 -N '' -f "$T/stranger" >/dev/null
	ssh-keygen -q -t ed25519 -N '' -f "$T/otherhost" >/dev/null
	cp "$T/sshd/known_hosts" "$T/known_hosts.orig"
	echo "[127.0.0.1]:$SSHD_PORT $(cut -d' ' -f1,2 "$T/otherhost.pub")" >"$T/other_known_hosts"
	ssh_conf libssh2
	onbox run >/dev/null 2>&1
	assert_file "$W/markers/A_DONE"
	for i in $(seq 0 $((TRIALS - 1))); do
		if [ $((i % ${#FAULTS[@]})) = 0 ]; then
			# A new round: every fault once, in a random order.
			order=("${FAULTS[@]}")
			for k in $(seq $((${#order[@]} - 1)) -1 1); do
				rnd n 0 "$k"
				fault=${order[$k]}; order[$k]=${order[$n]}; order[$n]=$fault
			done
		fi
		fault=${order[$((i % ${#FAULTS[@]}))]}
		# Transports by round: patrol on one, sentinel on the other, swapped each round.
		n=$((i / ${#FAULTS[@]}))
		tr=${TRANSPORTS[$((n % ${#TRANSPORTS[@]}))]}
		echo "trial $i: $fault, patrol over $tr"
		ssh_conf "$tr"
		inject "$fault" patrol "p$i" "$tr" || { viol=$((viol + 1)); failed="$failed patrol/$fault/$tr"; }
		tr=${TRANSPORTS[$(((n + 1) % ${#TRANSPORTS[@]}))]}
		echo "trial $i: $fault, sentinel over $tr"
		ssh_conf "$tr"
		inject "$fault" sentinel "s$i" "$tr" || { viol=$((viol + 1)); failed="$failed sentinel/$fault/$tr"; }
		# Undone: the box is seen again, by both.
		run_tool sentinel "cs$i"
		assert_eq "$RC" 0 "sentinel after $fault was undone: $(<"$T/cs$i.err")"
		run_tool patrol "cp$i"
		assert_eq "$RC" 0 "patrol after $fault was undone: $(cat "$T/cp$i.out" "$T/cp$i.err")"
		seen[$fault]=$(( ${seen[$fault]:-0} + 1 ))
	done
	for fault in "${FAULTS[@]}"; do counts="$counts, ${seen[$fault]:-0} $fault"; done
	[ "$viol" = 0 ] || fail "$viol wrong or unbounded answers:$failed"
	summary "$TRIALS trials${counts}; patrol and sentinel right each time, over ${TRANSPORTS[*]}"
}

chaos_banner ssh "$TRIALS trials, iptables $HAVE_IPTABLES"
ct chaos_ssh test_ssh_faults
