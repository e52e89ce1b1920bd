#!/usr/bin/env bash
# End-to-end tests of `patrol top` (patrol/top*.c), driven in a tmux server
# of the test's own (-S $T/top.sock, killed at the end): send-keys,
# capture-pane.  Three runs on two throwaway sshds (a, b on the suite's
# sshd, c on a second one on its own port): the rows; a stop with its y/n
# (n does nothing, y stops the onbox on the box), and a resume likewise;
# c's box frozen (slow), killed (SSH_DOWN) and started again while a and b
# keep refreshing; a run's page; its log followed; the terminal as it was
# after q, Ctrl-C, SIGTERM, and top gone after its terminal is (SIGHUP).
# A sweep of eight runs on two boxes: one schedule entry, one patrol --all
# (one connection a box), one screen of eight rows.
# TOP_WRAP, when set, runs patrol top under it (e.g. valgrind -q
# --leak-check=full --errors-for-leak-kinds=definite,indirect
# --error-exitcode=99 --child-silent-after-fork=yes: top's exit is checked).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
PATROL="$TOP/$BUILD/patrol"
# tests/run.sh --valgrind (make memcheck) sets ONBOX_WRAP: top runs under it too, its
# children (forked, not exec'd) left to their own tests.
TOP_WRAP=${TOP_WRAP:-${ONBOX_WRAP:+$ONBOX_WRAP --child-silent-after-fork=yes}}

# fconf NAME HOST: the run NAME's config in $T/NAME.json; its stage prints
# step 3/10 with a loss, waits for $T/NAME.next, prints step 5/10, waits for
# $T/NAME.end.  patrol.stall_ticks stays at its default (2): top refreshes
# every second here, and its looks must count no tick.
fconf() {
	mkdir -p "$T/w-$1" "$T/bin"
	cat >"$T/bin/$1.sh" <<SH
#!/bin/sh
echo "step 3/10 loss 2.5"
"$AWAIT" 300 "$T/$1.next" || :
echo "step 5/10 loss 1.5"
"$AWAIT" 300 "$T/$1.end" || :
SH
	chmod +x "$T/bin/$1.sh"
	cat >"$T/$1.json" <<JSON
{ "run": "$1", "workdir": "$T/w-$1", "detach": "nohup", "heartbeat_s": 1, "stop_grace_s": 3,
  "box": {"host": "$2", "ssh_config": "$SSH_CFG", "config": "$T/$1.json", "connect_timeout_s": 8},
  "progress": {"pattern": "step (\\\\d+)/(\\\\d+)"},
  "loss": {"pattern": "loss ([0-9.]+)"},
  "chain": [{"stage": "train", "run": "$T/bin/$1.sh"}] }
JSON
}

# box2: a second sshd (same keys, its own port and pid file), Host alias box2.
box2() {
	local d="$T/sshd2"
	mkdir -p "$d"
	sshd_free_port BOX2_PORT
	sed -e "s|^ListenAddress .*|ListenAddress 127.0.0.1:$BOX2_PORT|" \
		-e "s|^PidFile .*|PidFile $d/sshd.pid|" "$T/sshd/sshd_config" >"$d/sshd_config"
	echo "[127.0.0.1]:$BOX2_PORT $(cut -d' ' -f1,2 "$T/sshd/host_ed25519.pub")" >>"$T/sshd/known_hosts"
	printf 'Host box2\n\tHostName 127.0.0.1\n\tPort %s\n\tUser root\n\tIdentityFile %s\n\tIdentitiesOnly yes\n\tUserKnownHostsFile %s\n\tStrictHostKeyChecking yes\n\tBatchMode yes\n' \
		"$BOX2_PORT" "$SSHD_CLIENT_KEY" "$T/sshd/known_hosts" >>"$SSH_CFG"
	box2_start
}
box2_start() {
	rm -f "$T/sshd2/sshd.pid"
	"$SSHD_BIN" -f "$T/sshd2/sshd_config" -E "$T/sshd2/sshd.log" || { fail "sshd2 did not start"; return 1; }
	wait_for 10 test -s "$T/sshd2/sshd.pid"
	BOX2_PID=$(<"$T/sshd2/sshd.pid")
	echo "$BOX2_PID" >>"$T/.pids"
	wait_for 10 sshd_port_open "$BOX2_PORT"
}

# The tmux server of this test: a shell in a 200x30 pane, with the test's environment.
TM() { tmux -S "$T/top.sock" "$@"; }
tmux_start() {
	TM -f /dev/null new-session -d -s top -x 200 -y 30 \
		"env -i HOME=$HOME PATH=$PATH XDG_STATE_HOME=$XDG_STATE_HOME TERM=screen LANG=C.UTF-8 \
		ASAN_OPTIONS=$ASAN_OPTIONS UBSAN_OPTIONS=$UBSAN_OPTIONS PS1='ready\$ ' bash --norc --noprofile -i"
	sshd_at_exit "tmux -S '$T/top.sock' kill-server"
	wait_for 10 pane_has '^ready\$'
}
pane() { TM capture-pane -p -t top >"$T/pane" 2>/dev/null; }
pane_has() { pane && grep -qE -- "$1" "$T/pane"; }
pane_lacks() { pane && ! grep -qE -- "$1" "$T/pane"; }
alt_on() { [ "$(TM display -p -t top '#{alternate_on}')" = "$1" ]; }
# top_start [ARGS]: patrol top in the pane (its pid in $T/top.pid, its exit in $T/top.rc).
top_start() {
	rm -f "$T/top.pid" "$T/top.rc"
	TM send-keys -t top "clear; stty -g >$T/stty.before; sh -c 'echo \$\$ >$T/top.pid; exec ${TOP_WRAP:-} $PATROL top $*'; echo \$? >$T/top.rc; stty -g >$T/stty.after" Enter
	wait_for 10 test -s "$T/top.pid"
	TOP_PID=$(<"$T/top.pid")
	wait_for 20 alt_on 1
}
# The terminal as it was: the same modes, the alternate screen left, a shell that answers.
restored() {
	wait_for 20 test -s "$T/top.rc"
	assert_eq "$(<"$T/top.rc")" 0 "top's exit"
	wait_for 10 test -s "$T/stty.after"
	assert_eq "$(<"$T/stty.after")" "$(<"$T/stty.before")" "stty -g before and after"
	alt_on 0 || fail "the alternate screen is still on"
	TM send-keys -t top "echo alive-\$((6 * 7))" Enter
	wait_for 10 pane_has '^alive-42$'
}

test_top_fleet() {
	box
	box2
	local r
	for r in a b; do fconf $r box; done
	fconf c box2
	for r in a b c; do
		"$ONBOX" -c "$T/$r.json" run >>"$T/onbox-$r.out" 2>&1 &
		echo $! >>"$T/.pids"
		printf -v "PID_$r" %s $!
	done
	for r in a b c; do
		wait_for 20 grep -q '~3/10' "$T/w-$r/.watchkeeper/state.json"
		$ONBOX_WRAP "$PATROL" -c "$T/$r.json" --once >/dev/null 2>&1 || :
	done
	local ticks_b reports_b
	ticks_b=$(json "$T/state/watchkeeper/b/patrol.json" 'd["ticks"]')
	reports_b=$(wc -l <"$T/state/watchkeeper/b/report.log")
	tmux_start
	top_start --interval 1 --slow 2
	# The rows: each run OK at ~3/10, the header, the keys.
	wait_for 30 pane_has '^a +OK +train#1 .* ~3/10 '
	wait_for 30 pane_has '^b +OK +train#1 .* ~3/10 '
	wait_for 30 pane_has '^c +OK +train#1 .* ~3/10 '
	assert_grep '^RUN +VERDICT +STAGE +PROGRESS +~CUR/MAX +ETA +LOSS +HB +SEEN +LOOK +LAST EVENT' "$T/pane"
	assert_grep 'q quit' "$T/pane"
	# The loss ring the ticks keep, and the one top's looks keep.
	json_ge "$T/state/watchkeeper/a/patrol.json" 'len(d["loss_recent"])' 1 || fail "no loss ring in a's patrol.json"
	wait_for 10 json_ge "$T/state/watchkeeper/b/top.json" 'len(d["loss_recent"])' 1
	# Stop a: n does nothing ...
	TM send-keys -t top s
	wait_for 10 pane_has 'stop run a\? y/n'
	TM send-keys -t top n
	wait_for 10 pane_has 'a not stopped'
	live "$PID_a" || fail "onbox a ended after n"
	# ... y stops it: the onbox on the box ends, the row says STOPPED.
	TM send-keys -t top s
	wait_for 10 pane_has 'stop run a\? y/n'
	TM send-keys -t top y
	wait_for 30 pane_has 'stop a: exit 0'
	wait_for 30 gone "$PID_a"
	wait_for 30 pane_has '^a +STOPPED '
	live "$PID_b" || fail "onbox b ended with a's stop"
	# Resume a, after its y/n too: patrol resume's code starts onbox there again.
	TM send-keys -t top r
	wait_for 10 pane_has 'resume run a\? y/n'
	TM send-keys -t top n
	wait_for 10 pane_has 'a not resumed'
	TM send-keys -t top r
	wait_for 10 pane_has 'resume run a\? y/n'
	TM send-keys -t top y
	wait_for 60 pane_has 'resume a: exit'
	# (STALLED is what the next tick would say: ~3/10 again, the resume's tick counted as one.)
	wait_for 60 pane_has '^a +(OK|RESUMED|STALLED) +train#2 '
	# c's box freezes (takes the connection, never answers): c is slow, b still moves.
	# The whole box: its sshd and every connection's (top's held one too, warm.h).
	local frozen
	frozen="$BOX2_PID $(sshd_descendants "$BOX2_PID")"
	kill -STOP $frozen
	wait_for 30 pane_has '^c .* slow [0-9]+s'
	touch "$T/b.next"
	wait_for 30 pane_has '^b +OK +train#1 .* ~5/10 '
	wait_for 30 pane_has '^c .* slow [0-9]+s'
	# c's box goes down: SSH_DOWN; b still moves (its end).
	kill -KILL $frozen $(sshd_descendants "$BOX2_PID") 2>/dev/null
	wait_for 60 pane_has '^c +SSH_DOWN '
	touch "$T/b.end"
	wait_for 30 pane_has '^b +DONE '
	# ... and comes back.
	box2_start
	touch "$T/c.next"
	wait_for 60 pane_has '^c +OK +train#1 .* ~5/10 '
	# b was only looked at: no tick counted, no report line, never STALLED (stall_ticks 2).
	assert_eq "$(json "$T/state/watchkeeper/b/patrol.json" 'd["ticks"]')" "$ticks_b" "b's ticks"
	assert_eq "$(wc -l <"$T/state/watchkeeper/b/report.log")" "$reports_b" "b's report lines"
	assert_eq "$(json "$T/state/watchkeeper/b/top.json" 'd["looked_by"]')" "patrol top"
	# Enter opens c: what the state knows and the box's last lines.
	TM send-keys -t top j j Enter
	wait_for 30 pane_has 'run c'
	wait_for 30 pane_has 'step 5/10 loss 1.5'
	TM send-keys -t top q
	wait_for 10 pane_has 'q quit  up/down'
	# q: the terminal as it was.
	TM send-keys -t top q
	restored
	touch "$T/c.end"
}

test_top_terminal() {
	box
	fconf a box
	"$ONBOX" -c "$T/a.json" run >>"$T/onbox-a.out" 2>&1 &
	echo $! >>"$T/.pids"
	wait_for 20 grep -q '~3/10' "$T/w-a/.watchkeeper/state.json"
	$ONBOX_WRAP "$PATROL" -c "$T/a.json" --once >/dev/null 2>&1 || :
	tmux_start
	# l follows the run's log: what is there, then what comes; q goes back.
	top_start --interval 1
	wait_for 30 pane_has '^a +OK '
	TM send-keys -t top l
	wait_for 30 pane_has 'log of a'
	wait_for 30 pane_has '^step 3/10 loss 2.5'
	touch "$T/a.next"
	wait_for 30 pane_has '^step 5/10 loss 1.5'
	TM send-keys -t top q
	wait_for 10 pane_has 'q quit  up/down'
	# Ctrl-C
	TM send-keys -t top C-c
	restored
	# SIGTERM
	top_start --interval 1
	wait_for 30 pane_has '^a +OK '
	kill -TERM "$TOP_PID"
	restored
	wait_for 10 gone "$TOP_PID"
	# A lost terminal: the pane goes, top ends (SIGHUP) and leaves no refresh behind.
	top_start --interval 1
	wait_for 30 pane_has '^a +OK '
	TM kill-server
	wait_for 20 gone "$TOP_PID"
	# Not a terminal: said, 64.
	rc=0; $ONBOX_WRAP "$PATROL" top </dev/null >"$T/o" 2>"$T/e" || rc=$?
	assert_eq "$rc" 64
	assert_grep 'needs a terminal' "$T/e"
	rc=0; $ONBOX_WRAP "$PATROL" top --interval 0 >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 64
	touch "$T/a.end"
}

# A sweep: eight runs on two boxes, watched with one schedule entry (the
# fleet's: each run's own goes), ticked in one `patrol --all` (one line
# each, one held connection a box), read from one screen.
test_top_sweep() {
	box
	box2
	local r runs="s1 s2 s3 s4 s5 s6 s7 s8" i=0
	for r in $runs; do
		if [ $((i++ % 2)) = 0 ]; then fconf $r box; else fconf $r box2; fi
		"$ONBOX" -c "$T/$r.json" run >>"$T/onbox-$r.out" 2>&1 &
		echo $! >>"$T/.pids"
	done
	for r in $runs; do
		wait_for 30 grep -q '~3/10' "$T/w-$r/.watchkeeper/state.json"
		# what patrol deploy's first tick does: the run is known, with its own entry
		$ONBOX_WRAP "$PATROL" -c "$T/$r.json" --once >/dev/null 2>&1 || :
		$ONBOX_WRAP "$PATROL" -c "$T/$r.json" --install-schedule --scheduler cron >/dev/null
	done
	assert_eq "$(grep -c 'watchkeeper:s[1-8]$' "$T/crontab.txt")" 8
	$ONBOX_WRAP "$PATROL" --install-schedule --all --scheduler cron >"$T/i1"
	assert_eq "$(grep -c 'watchkeeper:' "$T/crontab.txt")" 1 "one schedule entry"
	assert_grep '# watchkeeper::fleet$' "$T/crontab.txt"
	# the entry's command: one line a run, every run OK; one connection a box
	local before=$(( $(grep -c 'Accepted publickey' "$T/sshd/sshd.log") + $(grep -c 'Accepted publickey' "$T/sshd2/sshd.log") ))
	$ONBOX_WRAP "$PATROL" --all >"$T/all" 2>&1 || { cat "$T/all" >&2; fail "patrol --all"; }
	assert_eq "$(grep -cE '^[0-9T:Z-]+ s[1-8] OK train attempt 1 ~3/10 ' "$T/all")" 8 "$(cat "$T/all")"
	assert_eq "$(( $(grep -c 'Accepted publickey' "$T/sshd/sshd.log") + $(grep -c 'Accepted publickey' "$T/sshd2/sshd.log") - before ))" 2 "connections"
	# one screen: eight rows
	tmux_start
	top_start --interval 2
	wait_for 30 sh -c "tmux -S '$T/top.sock' capture-pane -p -t top | grep -cE '^s[1-8] +OK +train#1 .*~3/10' | grep -qx 8"
	TM send-keys -t top q
	restored
}

t top_fleet test_top_fleet
t top_terminal test_top_terminal
t top_sweep test_top_sweep
