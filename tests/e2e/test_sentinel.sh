#!/usr/bin/env bash
# End-to-end tests of sentinel (layer 3): the real binary against the suite's
# own sshd on 127.0.0.1, with real onbox processes on the "box" (this
# machine, reached over ssh).  Reaction speed is bench/sentinel_bench.sh's
# business: here "within one interval" is a tick count, and "within a second"
# is a --follow wait that only inotify can end within the test's bound
# (interval 600 s, poll_ms ten minutes, a follow window longer than the bound).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
SENTINEL="$TOP/$BUILD/sentinel"

# sconf EXTRA CHAIN: the run's config, box part included (TRANSPORT: libssh2 | openssh).
sconf() {
	conf "\"box\": {\"host\": \"box\", \"ssh_config\": \"$SSH_CFG\", \"connect_timeout_s\": 3, \"transport\": \"${TRANSPORT:-libssh2}\"}, $1" "$2"
}

sentinel() { $ONBOX_WRAP "$SENTINEL" -c "$T/wk.json" "$@"; }

# bg_sentinel NAME ARGS...: in the background, output in $T/NAME.out and .err; SPID.
bg_sentinel() {
	local name=$1
	shift
	$ONBOX_WRAP "$SENTINEL" -c "$T/wk.json" "$@" >"$T/$name.out" 2>"$T/$name.err" &
	SPID=$!
	echo "$SPID" >>"$T/.pids"
}

# exited PID: the process is gone or a zombie waiting for us.
exited() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -z "$st" ] || [ "$st" = Z ]
}

# A stage that prints, then waits for $T/go (bounded), then says it is done.
waiting_stage() {
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
echo "step 1/10"
"$AWAIT" 60 "$T/go" || :
echo "Training completed"
SH
	chmod +x "$T/bin/train.sh"
}
train_chain() { echo "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"Training completed\", \"marker\": \"TRAIN_DONE\"}]"; }

# The number of "not yet" tick lines in FILE.
not_yet() { grep -c 'not yet' "$1" || true; }

# ---- tests ----

# The marker lands while the sentinel waits: found on the tick after the one in flight.
found_mid_wait() {
	box
	waiting_stage
	sconf '' "$(train_chain)"
	bg_onbox run
	wait_for 10 test -f "$W/attempts/train.1.json"
	bg_sentinel s --marker TRAIN_DONE --interval 1 --max-ticks 1000
	wait_for 20 grep -q 'tick 2/1000: TRAIN_DONE not yet (stage train attempt 1 running)' "$T/s.err"
	touch "$T/go"
	wait_for 10 test -f "$W/markers/TRAIN_DONE"
	n=$(not_yet "$T/s.err")
	wait_for 20 exited "$SPID"
	rc=0; wait "$SPID" || rc=$?
	assert_eq "$rc" 0
	assert_grep '^sentinel: TRAIN_DONE found \(tick [0-9]+, [0-9]+s\)$' "$T/s.out"
	f=$(sed -n 's/.*found (tick \([0-9]*\),.*/\1/p' "$T/s.out")
	# n ticks had said "not yet" once it had landed; tick n+1 may have looked just before.
	[ "$f" -le $((n + 2)) ] || fail "found at tick $f, the marker was there after tick $n: more than one interval"
	assert_eq "$(not_yet "$T/s.err")" $((f - 1)) "every tick before the last said not yet"
	# One connection per tick.
	assert_eq "$(sshd_accepted_count)" "$f"
}

found_mid_wait_openssh() {
	TRANSPORT=openssh found_mid_wait
	! pgrep -f "ControlPath=$T/state|-S $T/state" >/dev/null || fail "an ssh master outlived the sentinel"
}

# The stage fails while the sentinel waits: exit 3 with the class and the last lines.
failed_twin() {
	box
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "step 3/10"\necho "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB" >&2\nexit 1\n' >"$T/bin/t.sh"
	chmod +x "$T/bin/t.sh"
	sconf '' "[{\"stage\": \"train\", \"run\": \"$T/bin/t.sh\", \"marker\": \"TRAIN_DONE\"}]"
	bg_sentinel s --marker TRAIN_DONE --interval 1 --max-ticks 1000
	wait_for 20 grep -q 'tick 1/1000: TRAIN_DONE not yet (nothing running on the box: the marker cannot appear until the run is resumed (stage train not started))' "$T/s.err"
	rc=0; onbox run >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 1
	wait_for 20 exited "$SPID"
	rc=0; wait "$SPID" || rc=$?
	assert_eq "$rc" 3
	assert_grep '^sentinel: TRAIN_DONE FAILED \(tick [0-9]+, [0-9]+s\): class cuda_oom .*stage train attempt 1$' "$T/s.out"
	assert_grep '^  remediation: ' "$T/s.out"
	assert_grep '^  last lines:$' "$T/s.out"
	assert_grep '^    torch.OutOfMemoryError: CUDA out of memory' "$T/s.out"
}

failed_twin_openssh() { TRANSPORT=openssh failed_twin; }

# No marker: exit 1 after exactly N ticks, one connection each, the last thing seen said.
gave_up_after_n() {
	box
	sconf '"sentinel": {"interval_s": 1, "max_ticks": 3},' '[{"stage": "train", "run": "true", "marker": "TRAIN_DONE"}]'
	rc=0; sentinel --marker TRAIN_DONE >"$T/s.out" 2>"$T/s.err" || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(not_yet "$T/s.err")" 3
	assert_grep '^sentinel: tick 3/3: TRAIN_DONE not yet' "$T/s.err"
	assert_grep '^sentinel: gave up after 3 ticks \([0-9]+s\): TRAIN_DONE never appeared; last seen: nothing running on the box' "$T/s.out"
	assert_eq "$(sshd_accepted_count)" 3
	# --max-ticks wins over the config; --json gives the outcome as one object.
	rc=0; sentinel --marker TRAIN_DONE --max-ticks 1 --json >"$T/j.out" 2>"$T/j.err" || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(json "$T/j.out" 'd["outcome"], d["marker"], d["ticks"], d["max_ticks"], d["exit"], d["markers"]')" "('gave_up', None, 1, 1, 1, ['TRAIN_DONE'])"
	assert_grep 'nothing running on the box' "$T/j.out"
	assert_eq "$(json "$T/j.out" 'sorted(d)')" "['elapsed_s', 'exit', 'last_seen', 'marker', 'markers', 'max_ticks', 'outcome', 'run', 'ticks']"
}

# The box is down: every tick says so on stderr, and the sentinel still gives up in time.
box_down_retried() {
	box
	sconf '' '[{"stage": "train", "run": "true", "marker": "TRAIN_DONE"}]'
	sshd_stop
	rc=0; sentinel --marker TRAIN_DONE --interval 1 --max-ticks 2 >"$T/s.out" 2>"$T/s.err" || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(grep -c 'TRAIN_DONE not yet (box unreachable: ' "$T/s.err")" 2
	assert_grep 'gave up after 2 ticks .*last seen: box unreachable' "$T/s.out"
}

# A refused key and a changed host key: exit 2 at once, no retry, known_hosts untouched.
refused_auth_and_hostkey() {
	box
	sconf '' '[{"stage": "train", "run": "true", "marker": "TRAIN_DONE"}]'
	ssh-keygen -q -t ed25519 -N '' -f "$T/stranger" >/dev/null
	sed -i "s|\"box\": {|\"box\": {\"identity\": \"$T/stranger\", |" "$T/wk.json"
	rc=0; sentinel --marker TRAIN_DONE --interval 600 --max-ticks 100 --json >"$T/a.out" 2>"$T/a.err" || rc=$?
	assert_eq "$rc" 2
	assert_grep 'refused the connection \(auth' "$T/a.err"
	assert_eq "$(not_yet "$T/a.err")" 0
	assert_eq "$(json "$T/a.out" 'd["outcome"], d["exit"], d["ticks"]')" "('refused', 2, 1)"
	sed -i "s|\"identity\": \"$T/stranger\", ||" "$T/wk.json"
	ssh-keygen -q -t ed25519 -N '' -f "$T/other" >/dev/null
	echo "[127.0.0.1]:$SSHD_PORT $(cut -d' ' -f1,2 "$T/other.pub")" >"$T/sshd/known_hosts"
	cp "$T/sshd/known_hosts" "$T/kh.changed"
	for tr in libssh2 openssh; do
		sed -i "s/\"transport\": \"[a-z0-9]*\"/\"transport\": \"$tr\"/" "$T/wk.json"
		rc=0; sentinel --marker TRAIN_DONE --interval 600 --max-ticks 100 >"$T/h.out" 2>"$T/h.err" || rc=$?
		assert_eq "$rc" 2 "$tr"
		assert_grep 'refused the connection \(hostkey_mismatch' "$T/h.err"
		assert_eq "$(not_yet "$T/h.err")" 0
		cmp "$T/sshd/known_hosts" "$T/kh.changed"
	done
}

# A second sentinel for the same marker supersedes the first: one waiter remains, and it finds the marker.
supersede() {
	box
	waiting_stage
	sconf '' "$(train_chain)"
	bg_onbox run
	wait_for 10 test -f "$W/attempts/train.1.json"
	bg_sentinel s1 --marker TRAIN_DONE --interval 1 --max-ticks 1000
	s1=$SPID
	wait_for 20 grep -q 'tick 1/1000' "$T/s1.err"
	assert_eq "$(cut -d' ' -f1 "$T/state/watchkeeper/t1/sentinel.TRAIN_DONE.lock")" "$s1"
	bg_sentinel s2 --marker TRAIN_DONE --interval 1 --max-ticks 1000 --json
	s2=$SPID
	wait_for 15 exited "$s1"
	rc=0; wait "$s1" || rc=$?
	assert_eq "$rc" 75
	assert_grep "^sentinel: superseded by a newer sentinel \\(pid $s2\\) for TRAIN_DONE; exiting\$" "$T/s1.err"
	# One waiter: the second, and the lock says so.
	wait_for 20 grep -q 'tick 1/1000' "$T/s2.err"
	! exited "$s2" || fail "the second sentinel is gone"
	assert_eq "$(cut -d' ' -f1 "$T/state/watchkeeper/t1/sentinel.TRAIN_DONE.lock")" "$s2"
	touch "$T/go"
	wait_for 20 exited "$s2"
	rc=0; wait "$s2" || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(json "$T/s2.out" 'd["outcome"], d["marker"], d["attempt"]')" "('found', 'TRAIN_DONE', 1)"
}

# Superseded in the middle of a --follow window over openssh: out at once, nothing left behind
# (no ssh master, no onbox wait on the box), though the window is a minute and the interval ten.
supersede_mid_follow_openssh() {
	TRANSPORT=openssh
	box
	waiting_stage
	sconf '"poll_ms": 600000, "sentinel": {"follow_s": 60},' "$(train_chain)"
	bg_onbox run
	wait_for 10 test -f "$W/attempts/train.1.json"
	bg_sentinel s1 --marker TRAIN_DONE --interval 600 --max-ticks 1000 --follow
	s1=$SPID
	wait_for 20 pgrep -f "[w]ait --workdir $T/work" >/dev/null
	bg_sentinel s2 --any TRAIN_DONE,OTHER_DONE --interval 600 --max-ticks 1000
	s2=$SPID
	wait_for 10 exited "$s1"
	rc=0; wait "$s1" || rc=$?
	assert_eq "$rc" 75
	assert_grep "superseded by a newer sentinel \\(pid $s2\\) for TRAIN_DONE; exiting" "$T/s1.err"
	wait_for 10 sh -c "! pgrep -f '[w]ait --workdir $T/work' >/dev/null"
	wait_for 20 grep -q 'tick 1/1000' "$T/s2.err"
	! pgrep -f "ControlPath=$T/state|-S $T/state/watchkeeper/t1/cm-$s1-" >/dev/null || fail "an ssh process of the superseded sentinel is left"
	kill -TERM "$s2"
	wait_for 10 exited "$s2"
	rc=0; wait "$s2" || rc=$?
	assert_eq "$rc" 143
	assert_grep 'stopped by signal' "$T/s2.err"
}

# --any: the first of several markers decides; --json says which.
any_first_of_several() {
	box
	waiting_stage
	sconf '' "$(train_chain)"
	bg_onbox run
	wait_for 10 test -f "$W/attempts/train.1.json"
	bg_sentinel s --any TRAIN_DONE,HANDOFF --interval 1 --max-ticks 1000 --json
	wait_for 20 grep -q 'tick 1/1000: HANDOFF or TRAIN_DONE not yet (stage train attempt 1 running)' "$T/s.err"
	assert_file "$T/state/watchkeeper/t1/sentinel.HANDOFF.lock"
	assert_file "$T/state/watchkeeper/t1/sentinel.TRAIN_DONE.lock"
	touch "$W/markers/HANDOFF"	# a bare marker: the user's own script touches it
	wait_for 20 exited "$SPID"
	rc=0; wait "$SPID" || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(json "$T/s.out" 'd["outcome"], d["marker"], d["markers"], d["exit"]')" "('found', 'HANDOFF', ['HANDOFF', 'TRAIN_DONE'], 0)"
	assert_eq "$(json "$T/s.out" '"attempt" in d, "class" in d, d["ticks"] >= 2')" "(False, False, True)"
	touch "$T/go"
}

# --json on a failure: class, remediation, the last lines.
json_failed() {
	box
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "RuntimeError: NCCL communicator was aborted: Watchdog caught collective operation timeout" >&2\nexit 1\n' >"$T/bin/t.sh"
	chmod +x "$T/bin/t.sh"
	# restart.max 0: the retryable class is not restarted, so attempt 1 leaves the FAILED twin.
	sconf '"restart": {"max": 0},' "[{\"stage\": \"train\", \"run\": \"$T/bin/t.sh\", \"marker\": \"TRAIN_DONE\"}]"
	onbox run >/dev/null 2>&1 || true
	rc=0; sentinel --marker TRAIN_DONE --interval 1 --max-ticks 5 --json >"$T/s.out" 2>"$T/s.err" || rc=$?
	assert_eq "$rc" 3
	assert_eq "$(json "$T/s.out" 'd["outcome"], d["marker"], d["class"], d["attempt"], d["exit"], d["ticks"]')" "('failed', 'TRAIN_DONE', 'nccl_timeout', 1, 3, 1)"
	assert_eq "$(json "$T/s.out" 'any("NCCL communicator" in l for l in d["last_lines"]), len(d["remediation"]) > 0')" "(True, True)"
	assert_eq "$(wc -l <"$T/s.out")" 1
}

# A FAILED twin of an older attempt is stale; a relaunch is noticed and the wait goes on.
stale_failed_and_relaunch() {
	box
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
if [ ! -e "$T/failed-once" ]; then touch "$T/failed-once"; echo "KeyError: boom" >&2; exit 1; fi
echo "step 1/10"
"$AWAIT" 60 "$T/go" || :
echo "Training completed"
SH
	chmod +x "$T/bin/train.sh"
	sconf '' "$(train_chain)"
	# Attempt 1 fails for real; attempt 2 runs.
	rc=0; onbox run >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 1
	cp "$W/markers/TRAIN_DONE.FAILED" "$T/stale.json"
	assert_eq "$(json "$T/stale.json" 'd["attempt"]')" 1
	bg_onbox run
	wait_for 10 test -f "$W/attempts/train.2.json"
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	# A leftover FAILED twin of attempt 1 while attempt 2 runs: not a failure of this attempt.
	cp "$T/stale.json" "$W/markers/TRAIN_DONE.FAILED"
	bg_sentinel s --marker TRAIN_DONE --interval 1 --max-ticks 1000 --json
	wait_for 20 grep -q 'tick 1/1000: TRAIN_DONE not yet (stage train attempt 2 running)' "$T/s.err"
	! exited "$SPID" || fail "the sentinel took a stale FAILED twin for a failure"
	# Attempt 2 is lost (onbox and the stage killed); a new onbox starts attempt 3.
	kill -9 "$LAST_PID"
	wait "$LAST_PID" 2>/dev/null || true
	p=$(json "$W/attempts/train.2.json" 'd["pid"]')
	wp=$(json "$W/attempts/train.2.json" 'd["wrapper_pid"]')
	kill -9 -- "-$p" "$wp" 2>/dev/null || true
	wait_for 10 sh -c "! kill -0 $wp 2>/dev/null"
	bg_onbox run
	wait_for 20 grep -q '^sentinel: stage train was relaunched: attempt 3 (was 2); waiting for TRAIN_DONE from attempt 3$' "$T/s.err"
	! exited "$SPID" || fail "the sentinel left after the relaunch"
	touch "$T/go"
	wait_for 20 exited "$SPID"
	rc=0; wait "$SPID" || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(json "$T/s.out" 'd["outcome"], d["attempt"], d["relaunched"]')" "('found', 3, [{'stage': 'train', 'from': 2, 'to': 3}])"
}

# --follow: onbox waits on the box with inotify; only that can end the wait within the bound
# (interval 600 s, a 60 s window, poll_ms ten minutes).  Tick 1 looks, tick 2's window sees it.
follow_within_a_second() {
	box
	waiting_stage
	sconf '"poll_ms": 600000, "sentinel": {"follow_s": 60},' "$(train_chain)"
	bg_onbox run
	wait_for 10 test -f "$W/attempts/train.1.json"
	bg_sentinel s --marker TRAIN_DONE --interval 600 --max-ticks 5 --follow
	wait_for 20 pgrep -f "[w]ait --workdir $T/work --marker TRAIN_DONE --stage-of TRAIN_DONE=train" >/dev/null
	touch "$T/go"
	wait_for 10 exited "$SPID"
	rc=0; wait "$SPID" || rc=$?
	assert_eq "$rc" 0
	# Tick 1 is the plain look; the marker landed inside tick 2's window.
	assert_grep '^sentinel: TRAIN_DONE found \(tick 2, ' "$T/s.out"
	assert_eq "$(sshd_accepted_count)" 2
	wait_for 10 sh -c "! pgrep -f '[w]ait --workdir $T/work' >/dev/null"
}

follow_within_a_second_openssh() {
	TRANSPORT=openssh follow_within_a_second
	! pgrep -f "ControlPath=$T/state|-S $T/state" >/dev/null || fail "an ssh master outlived the sentinel"
}

# --follow relaunch: a new attempt ends the window at once (the sentinel passes the attempt it knows).
follow_sees_relaunch() {
	box
	mkdir -p "$T/bin"
	printf '#!/bin/sh\n"%s" 60 "%s/go" || :\nexit 1\n' "$AWAIT" "$T" >"$T/bin/t.sh"
	chmod +x "$T/bin/t.sh"
	sconf '"poll_ms": 600000, "sentinel": {"follow_s": 60},' "[{\"stage\": \"train\", \"run\": \"$T/bin/t.sh\", \"marker\": \"TRAIN_DONE\"}]"
	bg_onbox run
	wait_for 10 grep -q '"stage_pid":[[:space:]]*[1-9]' "$W/state.json"
	bg_sentinel s --marker TRAIN_DONE --interval 600 --max-ticks 5 --follow
	wait_for 20 pgrep -f "[w]ait --workdir $T/work" >/dev/null
	# onbox and attempt 1 vanish; a new onbox runs attempt 2.
	kill -9 "$LAST_PID"
	wait "$LAST_PID" 2>/dev/null || true
	p=$(json "$W/attempts/train.1.json" 'd["pid"]')
	wp=$(json "$W/attempts/train.1.json" 'd["wrapper_pid"]')
	kill -9 -- "-$p" "$wp" 2>/dev/null || true
	bg_onbox run
	wait_for 10 grep -q 'stage train was relaunched: attempt 2 (was 1)' "$T/s.err"
	# And its failure ends the wait with 3.
	touch "$T/go"
	wait_for 10 exited "$SPID"
	rc=0; wait "$SPID" || rc=$?
	assert_eq "$rc" 3
	assert_grep 'TRAIN_DONE FAILED .*stage train attempt 2' "$T/s.out"
}

# --follow on a box without onbox: the plain check in the same connection, then the interval.
follow_falls_back_without_onbox() {
	box
	rm -f "$T/sshd/bin/onbox"
	sconf '' '[{"stage": "train", "run": "true", "marker": "TRAIN_DONE"}]'
	rc=0; sentinel --marker TRAIN_DONE --interval 1 --max-ticks 2 --follow >"$T/s.out" 2>"$T/s.err" || rc=$?
	assert_eq "$rc" 1
	assert_grep 'no `onbox wait`: --follow falls back to polling every 1 s' "$T/s.err"
	assert_eq "$(not_yet "$T/s.err")" 2
	assert_eq "$(sshd_accepted_count)" 2
	mkdir -p "$W/markers"
	echo '{}' >"$W/markers/TRAIN_DONE"
	rc=0; sentinel --marker TRAIN_DONE --interval 1 --max-ticks 2 --follow >"$T/f.out" 2>"$T/f.err" || rc=$?
	assert_eq "$rc" 0
	assert_grep 'TRAIN_DONE found \(tick 1,' "$T/f.out"
}

# onbox wait by itself: bounded by --timeout, the check as it stands; a directory that does not
# exist yet is covered by the stat-poll; bad arguments are 64.
onbox_wait_direct() {
	mkdir -p "$T/work"
	rc=0; onbox wait --workdir "$T/work" --marker TRAIN_DONE --stage-of TRAIN_DONE=train --timeout 1 >"$T/w1" || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(sed -n 5p "$T/w1")" "@marker TRAIN_DONE absent"
	assert_eq "$(tail -n 1 "$T/w1")" "@end"
	onbox wait --workdir "$T/work" --marker TRAIN_DONE --timeout 60 --poll-ms 100 >"$T/w2" &
	p=$!
	echo "$p" >>"$T/.pids"
	sleep 0.3
	mkdir -p "$W/markers"
	touch "$W/markers/TRAIN_DONE"
	wait_for 10 exited "$p"
	rc=0; wait "$p" || rc=$?
	assert_eq "$rc" 0
	assert_grep '^@marker TRAIN_DONE present$' "$T/w2"
	for bad in "--workdir work --marker A --timeout 1" "--workdir $T/work --marker A" \
	    "--workdir $T/work --marker A;B --timeout 1" "--workdir $T/work --marker A --timeout 0" \
	    "--workdir $T/work --marker A --stage-of B=x --timeout 1" "--workdir $T/work --marker A --attempt x=0 --timeout 1"; do
		rc=0; onbox wait $bad >/dev/null 2>&1 || rc=$?
		assert_eq "$rc" 64 "onbox wait $bad"
	done
}

# Usage and config errors.
usage_and_config() {
	box
	sconf '' '[{"stage": "train", "run": "true", "marker": "TRAIN_DONE"}]'
	rc=0; sentinel >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 64
	rc=0; sentinel --marker 'A;touch x' 2>"$T/e" || rc=$?
	assert_eq "$rc" 64
	assert_grep 'not a marker name' "$T/e"
	rc=0; sentinel --marker A --any B,C 2>/dev/null || rc=$?
	assert_eq "$rc" 64
	rc=0; sentinel --marker A --interval 0 2>"$T/e" || rc=$?
	assert_eq "$rc" 64
	assert_grep '--interval 0' "$T/e"
	sed -i 's/"sentinel_typo": 1, //; s/"box":/"sentinel": {"follow_s": 0}, "box":/' "$T/wk.json"
	rc=0; sentinel --marker A 2>"$T/e" || rc=$?
	assert_eq "$rc" 78
	assert_grep 'follow_s' "$T/e"
	assert_eq "$(sshd_accepted_count)" 0
}

t found_mid_wait found_mid_wait
t found_mid_wait_openssh found_mid_wait_openssh
t failed_twin failed_twin
t failed_twin_openssh failed_twin_openssh
t gave_up_after_n gave_up_after_n
t box_down_retried box_down_retried
t refused_auth_and_hostkey refused_auth_and_hostkey
t supersede supersede
t supersede_mid_follow_openssh supersede_mid_follow_openssh
t any_first_of_several any_first_of_several
t json_failed json_failed
t stale_failed_and_relaunch stale_failed_and_relaunch
t follow_within_a_second follow_within_a_second
t follow_within_a_second_openssh follow_within_a_second_openssh
t follow_sees_relaunch follow_sees_relaunch
t follow_falls_back_without_onbox follow_falls_back_without_onbox
t onbox_wait_direct onbox_wait_direct
t usage_and_config usage_and_config
