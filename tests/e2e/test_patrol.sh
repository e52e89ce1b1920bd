#!/usr/bin/env bash
# End-to-end tests of patrol (layer 2): the real binary against the suite's
# own sshd on 127.0.0.1, with real onbox processes on the "box" (this
# machine, reached over ssh).  A fake crontab stands in for the user's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
PATROL="$TOP/$BUILD/patrol"

patrol() { $ONBOX_WRAP "$PATROL" -c "$T/wk.json" "$@"; }

waiting_stage() {
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
echo x >>"$T/launch.train"
i=1; while [ \$i -le 3 ]; do echo "step \$i/10"; i=\$((i+1)); done
"$AWAIT" 30 "$T/go" || :
echo "Training completed"
SH
	chmod +x "$T/bin/train.sh"
}
launches() { [ -f "$T/launch.train" ] && wc -l <"$T/launch.train" | tr -d ' ' || echo 0; }

test_ok_one_connection() {
	box
	waiting_stage
	pconf '"progress": {"pattern": "step (\\d+)/(\\d+)", "max": 10},' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"Training completed\"}]"
	bg_onbox run
	wait_for 10 grep -q '~3/10' "$W/state.json"
	before=$(sshd_accepted_count)
	rc=0; patrol --once >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 0
	line_ok OK "$T/p1"
	assert_grep 'train attempt 1 ~3/10' "$T/p1"
	assert_eq "$(( $(sshd_accepted_count) - before ))" 1 "connections in one tick"
	# The report log has the same line; a second tick reports again even though nothing changed.
	patrol >"$T/p2" 2>&1
	line_ok OK "$T/p2"
	assert_grep '\(\+0 since last tick\)' "$T/p2"
	assert_eq "$(wc -l <"$T/state/watchkeeper/t1/report.log")" 2
	# The last probe is kept as it came, framed, ending in @end.
	assert_eq "$(tail -n 1 "$T/state/watchkeeper/t1/last_probe.txt")" "@end"
	assert_eq "$(stat -c %a "$T/state/watchkeeper/t1/last_probe.txt")" 600
	# A third tick without progress (stall_ticks 2) is STALLED; --json gives the tick as one object.
	rc=0; patrol --json >"$T/p3.json" || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(json "$T/p3.json" 'd["verdict"]')" STALLED
	assert_eq "$(json "$T/p3.json" 'd["progress"]')" 3
	assert_eq "$(json "$T/p3.json" 'd["exit"]')" 1
	touch "$T/go"
	wait "$LAST_PID"
}

test_done_prints_results_and_removes_cron() {
	box
	mkdir -p "$T/work"
	pconf '"results": "metrics.csv",' "[{\"stage\": \"train\", \"run\": \"printf 'metric,value\\\\nacc,0.812\\\\n' > metrics.csv\"}]"
	patrol --install-cron >"$T/cron.out"
	assert_grep 'watchkeeper:t1$' "$T/crontab.txt"
	assert_grep '^3,33 \* \* \* \* ' "$T/crontab.txt"
	patrol --install-cron >/dev/null	# idempotent: still one line
	assert_eq "$(grep -c 'watchkeeper:t1' "$T/crontab.txt")" 1
	onbox run >/dev/null 2>&1
	rc=0; patrol >"$T/p" 2>&1 || rc=$?
	assert_eq "$rc" 0
	line_ok DONE "$T/p"
	assert_grep '^acc,0.812$' "$T/p"
	assert_eq "$(grep -c 'watchkeeper:t1' "$T/crontab.txt")" 0
}

test_needs_resume_then_auto_resume_once() {
	box
	waiting_stage
	pconf '' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	rc=0; patrol >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	line_ok NEEDS_RESUME "$T/p1"
	assert_eq "$(launches)" 0 "no action without auto_resume"
	# With auto_resume: resumed once, and the next tick sees it alive (no second launch).
	sed -i 's/"box":/"patrol": {"auto_resume": true}, "box":/' "$T/wk.json"
	rc=0; patrol >"$T/p2" 2>&1 || rc=$?
	assert_eq "$rc" 1
	line_ok RESUMED "$T/p2"
	wait_for 10 test -f "$T/launch.train"
	pid=$(json "$W/state.json" 'd["onbox_pid"]')
	echo "$pid" >>"$T/.pids"
	rc=0; patrol >"$T/p3" 2>&1 || rc=$?
	line_ok OK "$T/p3"	# first: a wrong verdict is printed whole
	assert_eq "$rc" 0
	assert_eq "$(launches)" 1
	touch "$T/go"
	wait_for 10 test -f "$W/markers/TRAIN_DONE"
}

test_crashed_with_class() {
	box
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB" >&2\nexit 1\n' >"$T/bin/t.sh"
	chmod +x "$T/bin/t.sh"
	pconf '"patrol": {"auto_resume": true},' "[{\"stage\": \"train\", \"run\": \"$T/bin/t.sh\"}]"
	onbox run >/dev/null 2>&1 || true
	rc=0; patrol >"$T/p" 2>&1 || rc=$?
	assert_eq "$rc" 1
	line_ok CRASHED "$T/p"
	assert_grep 'train \(cuda_oom\) attempt 1' "$T/p"
	# cuda_oom is not retryable: never resumed, even with auto_resume.
	assert_grep 'not resumed \(never_retry\): cuda_oom is not retried automatically' "$T/p"
}

test_ssh_down_and_hostkey_changed() {
	box
	pconf '' '[{"stage": "train", "run": "true"}]'
	# A changed host key: refused, known_hosts untouched.
	cp "$T/sshd/known_hosts" "$T/kh.orig"
	ssh-keygen -q -t ed25519 -N '' -f "$T/other" >/dev/null
	echo "[127.0.0.1]:$SSHD_PORT $(cut -d' ' -f1,2 "$T/other.pub")" >"$T/sshd/known_hosts"
	cp "$T/sshd/known_hosts" "$T/kh.changed"
	rc=0; patrol >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 2
	line_ok HOSTKEY_MISMATCH "$T/p1"
	cmp "$T/sshd/known_hosts" "$T/kh.changed"
	cp "$T/kh.orig" "$T/sshd/known_hosts"
	# sshd stopped: SSH_DOWN, quickly, and no action.
	sshd_stop
	start=$(date +%s)
	rc=0; patrol >"$T/p2" 2>&1 || rc=$?
	assert_eq "$rc" 2
	line_ok SSH_DOWN "$T/p2"
	[ $(( $(date +%s) - start )) -le 5 ] || fail "SSH_DOWN took too long"
}

test_two_patrols_act_once() {
	box
	waiting_stage
	pconf '"patrol": {"auto_resume": true},' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	patrol >"$T/a" 2>&1 &
	a=$!
	patrol >"$T/b" 2>&1 &
	b=$!
	ra=0; wait $a || ra=$?
	rb=0; wait $b || rb=$?
	wait_for 10 test -f "$T/launch.train"
	sleep 0.5
	assert_eq "$(launches)" 1 "two patrols launched twice"
	pid=$(json "$W/state.json" 'd["onbox_pid"]')
	echo "$pid" >>"$T/.pids"
	# Either the lock turned one away (75), or the second saw the run alive.
	case "$ra:$rb" in *75*|1:0|0:1) ;; *) fail "exit codes $ra and $rb" ;; esac
	touch "$T/go"
}

test_hostile_values_reach_the_box_as_data() {
	box
	W2="$T/w \$(touch $T/PWNED) \`touch $T/PWNED2\` ; touch $T/PWNED3 | it's
touch $T/PWNED6"
	mkdir -p "$W2"
	jw=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$W2")
	cat >"$T/wk.json" <<JSON
{ "run": "t1", "workdir": $jw, "detach": "nohup", "session": "s",
  "box": {"host": "box", "ssh_config": "$SSH_CFG", "config": "$T/wk.json"},
  "results": "r\$(touch $T/PWNED4).csv",
  "chain": [{"stage": "a", "run": "true", "log": "l;touch $T/PWNED5", "marker": "A_DONE"}] }
JSON
	rc=0; patrol >"$T/p" 2>&1 || rc=$?
	line_ok NEEDS_RESUME "$T/p"
	for f in PWNED PWNED2 PWNED3 PWNED4 PWNED5 PWNED6; do assert_no_file "$T/$f"; done
	# And the values arrived as data: the probe saw that very workdir (its marker dir is listed empty).
	assert_grep 'A_DONE is missing' "$T/p"
}

test_monitor_stale_when_onbox_dies() {
	box
	waiting_stage
	pconf '' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	bg_onbox run
	wait_for 10 test -f "$W/attempts/train.1.json"
	wait_for 10 grep -q '"stage_pid":[[:space:]]*[1-9]' "$W/state.json"
	kill -9 "$LAST_PID"
	wait "$LAST_PID" 2>/dev/null || true
	rc=0; patrol >"$T/p" 2>&1 || rc=$?
	assert_eq "$rc" 1
	line_ok MONITOR_STALE "$T/p"
	assert_grep 'onbox is not running while the run lives' "$T/p"
	assert_eq "$(launches)" 1
	touch "$T/go"
}

test_disk_low() {
	box
	pconf '"patrol": {"disk_warn_pct": 1},' '[{"stage": "train", "run": "sleep 30"}]'
	bg_onbox run
	wait_for 10 test -f "$W/attempts/train.1.json"
	rc=0; patrol >"$T/p" 2>&1 || rc=$?
	assert_eq "$rc" 1
	line_ok DISK_LOW "$T/p"
	assert_grep 'warn at 1%' "$T/p"
}

test_transfer_incomplete_then_resumed() {
	box
	mkdir -p "$T/src/sub" "$T/work/data"
	echo a >"$T/src/a"; echo bb >"$T/src/sub/b"; echo ccc >"$T/src/c"
	cp "$T/src/a" "$T/work/data/"
	# An empty directory of the right name is not a transfer: counts decide.
	pconf "\"transfer\": {\"local\": \"$T/src\", \"remote\": \"data\", \"resume\": \"cp -r $T/src/. $T/work/data/\"}," '[{"stage": "train", "run": "sleep 30"}]'
	bg_onbox run
	wait_for 10 test -f "$W/attempts/train.1.json"
	rc=0; patrol >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	line_ok TRANSFER_INCOMPLETE "$T/p1"
	assert_grep 'box has 1 of 3 files' "$T/p1"
	sed -i 's/"resume":/"auto": true, "resume":/' "$T/wk.json"
	rc=0; patrol >"$T/p2" 2>&1 || rc=$?
	line_ok TRANSFER_RESUMED "$T/p2"
	wait_for 10 test -f "$T/work/data/sub/b"
	rc=0; patrol >"$T/p3" 2>&1 || rc=$?
	line_ok OK "$T/p3"
}

test_auth_refused_and_blackhole_bounded() {
	box
	pconf '' '[{"stage": "train", "run": "true"}]'
	# Another client key: the server refuses it.
	ssh-keygen -q -t ed25519 -N '' -f "$T/stranger" >/dev/null
	sed -i "s|\"box\": {|\"box\": {\"identity\": \"$T/stranger\", |" "$T/wk.json"
	rc=0; patrol >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 2
	line_ok SSH_DOWN "$T/p1"
	assert_grep 'auth' "$T/p1"
	if ! command -v iptables >/dev/null 2>&1; then echo "SKIP blackhole: no iptables"; return 0; fi
	sed -i "s|\"identity\": \"$T/stranger\", ||" "$T/wk.json"
	iptables -I INPUT -p tcp -s 127.0.0.1 --dport "$SSHD_PORT" -j DROP
	start=$(date +%s)
	rc=0; patrol >"$T/p2" 2>&1 || rc=$?
	iptables -D INPUT -p tcp -s 127.0.0.1 --dport "$SSHD_PORT" -j DROP
	assert_eq "$rc" 2
	line_ok SSH_DOWN "$T/p2"
	# connect_timeout_s is 3: the verdict comes within it plus a small bound.
	[ $(( $(date +%s) - start )) -le 6 ] || fail "blackholed port took $(( $(date +%s) - start )) s"
}

test_deploy_uploads_and_starts_once() {
	box
	rm -f "$T/sshd/bin/onbox"	# a box without onbox
	waiting_stage
	pconf '"profile": "generic",' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	sed -i 's|"config": "[^"]*", ||' "$T/wk.json"
	# No onbox on the box and no portable build here: refused, nothing sent.
	rc=0; WATCHKEEPER_ONBOX_DIR="$T/none" patrol deploy >"$T/d0" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep 'no onbox on the box and no portable onbox for x86_64' "$T/d0"
	assert_grep 'Nothing was uploaded' "$T/d0"
	assert_no_file "$T/work/.watchkeeper/watchkeeper.json"
	assert_eq "$(launches)" 0
	patrol deploy --onbox "$ONBOX" >"$T/d1" 2>&1
	assert_file "$T/work/.watchkeeper/watchkeeper.json"
	assert_file "$T/work/.watchkeeper/profiles/generic.json"
	assert_file "$T/work/.watchkeeper/bin/onbox"
	assert_eq "$(stat -c %a "$T/work/.watchkeeper/watchkeeper.json")" 600
	cmp "$T/wk.json" "$T/work/.watchkeeper/watchkeeper.json"
	assert_grep 'started run t1' "$T/d1"
	wait_for 10 test -f "$T/launch.train"
	echo "$(json "$W/state.json" 'd["onbox_pid"]')" >>"$T/.pids"
	# Alive: a second deploy refuses, never launches twice.
	rc=0; patrol deploy --onbox "$ONBOX" >"$T/d2" 2>&1 || rc=$?
	assert_eq "$rc" 75
	assert_grep 'alive on the box' "$T/d2"
	assert_eq "$(launches)" 1
	touch "$T/go"
	wait_for 10 test -f "$W/markers/TRAIN_DONE"
}

test_verdict_changes_pushed_blips_not() {
	box
	start_receiver
	pconf "\"notify\": [{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$RPORT/hook\"}]," '[{"stage": "train", "run": "sleep 30"}]'
	bg_onbox run
	wait_for 10 test -f "$W/attempts/train.1.json"
	# onbox on the box reads the same config: count only patrol's verdict events.
	vc() { [ -f "$T/recv.jsonl" ] && recv_json "[json.loads(x['body']).get('$1') for x in r if json.loads(x['body'])['event'] == 'verdict_changed']" || echo "[]"; }
	patrol >/dev/null 2>&1
	# The first verdict is news (the run is watched).
	wait_for 5 sh -c "grep -q verdict_changed '$T/recv.jsonl'"
	assert_eq "$(vc verdict)" "['OK']"
	patrol >/dev/null 2>&1
	assert_eq "$(vc verdict)" "['OK']" "an unchanged verdict is not pushed again"
	# One unseen tick is a blip: reported, not pushed.  Two are news.
	sshd_stop
	rc=0; patrol >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 2
	line_ok SSH_DOWN "$T/p1"
	assert_eq "$(vc verdict)" "['OK']"
	rc=0; patrol >/dev/null 2>&1 || rc=$?
	assert_eq "$(vc verdict)" "['OK', 'SSH_DOWN']"
	assert_eq "$(vc previous)" "[None, 'OK']"
}

# A DONE webhook that failed is retried by the next ticks, and the cron
# entry (what runs those ticks) stays until it is delivered.
test_done_webhook_retried_until_delivered() {
	box
	start_receiver
	echo 500 >"$T/recv.mode"
	pconf "\"outbox\": {\"retry_base_ms\": 10}, \"notify\": [{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$RPORT/hook\", \"events\": [\"verdict_changed\"]}]," '[{"stage": "train", "run": "true"}]'
	onbox run >/dev/null 2>&1
	patrol --install-cron >/dev/null
	rc=0; patrol >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 0
	line_ok DONE "$T/p1"
	assert_grep 'cron entry stays until the DONE notification is delivered' "$T/p1"
	assert_grep 'watchkeeper:t1$' "$T/crontab.txt"
	assert_eq "$(recv_count)" 0
	echo 200 >"$T/recv.mode"
	sleep 0.1	# past the 10 ms retry delay
	patrol >"$T/p2" 2>&1
	assert_eq "$(recv_json "[json.loads(x['body'])['verdict'] for x in r if x['status'] == 200]")" "['DONE']"
	patrol >"$T/p3" 2>&1
	assert_grep 'cron entry is removed' "$T/p3"
	assert_eq "$(grep -c 'watchkeeper:t1' "$T/crontab.txt")" 0
	assert_eq "$(recv_count)" 1 "delivered once"
}

test_digest_and_history() {
	box
	start_receiver
	pconf "\"patrol\": {\"digest_s\": 3600}, \"notify\": [{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$RPORT/hook\", \"events\": [\"digest\"]}], \"progress\": {\"pattern\": \"step (\\\\d+)/(\\\\d+)\"}," '[{"stage": "train", "run": "echo step 5/9; sleep 30"}]'
	bg_onbox run
	wait_for 10 grep -q '~5/9' "$W/state.json"
	patrol >/dev/null 2>&1
	wait_for 5 test -s "$T/recv.jsonl"
	assert_eq "$(recv_json "[json.loads(x['body'])['event'] for x in r]")" "['digest']"
	assert_grep 't1 OK train attempt 1 ~5/9' "$T/recv.jsonl"
	# Not again within digest_s (an hour)...
	patrol >/dev/null 2>&1
	assert_eq "$(recv_count)" 1
	# ...and again once it has passed (the last digest moved an hour back; no sleeping).
	python3 - "$T/state/watchkeeper/t1/patrol.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["last_digest"] -= 3600
json.dump(d, open(sys.argv[1], "w"))
PY
	patrol >/dev/null 2>&1 || true
	wait_for 5 sh -c "[ \$(wc -l <'$T/recv.jsonl') -eq 2 ]"
	# The progress history grows one entry per seen tick.
	assert_eq "$(json "$T/state/watchkeeper/t1/patrol.json" 'len(d["history"])')" 3
	assert_eq "$(json "$T/state/watchkeeper/t1/patrol.json" 'd["history"][-1]["progress"]')" 5
}

test_transports_agree() {
	box
	waiting_stage
	pconf '"progress": {"pattern": "step (\\d+)/(\\d+)", "max": 10},' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	# Dead run: both say NEEDS_RESUME with the same details.
	rc1=0; patrol >"$T/a1" 2>&1 || rc1=$?
	sed -i 's/"box": {/"box": {"transport": "openssh", /' "$T/wk.json"
	rc2=0; patrol >"$T/a2" 2>&1 || rc2=$?
	assert_eq "$rc1:$rc2" "1:1"
	assert_eq "$(cut -d' ' -f2- "$T/a1")" "$(cut -d' ' -f2- "$T/a2")"
	line_ok NEEDS_RESUME "$T/a2"
	# Alive: both see the same progress in one connection each.
	bg_onbox run
	wait_for 10 grep -q '~3/10' "$W/state.json"
	before=$(sshd_accepted_count)
	rc2=0; patrol --json >"$T/b2" || rc2=$?
	assert_eq "$(( $(sshd_accepted_count) - before ))" 1
	sed -i 's/"transport": "openssh", //' "$T/wk.json"
	rc1=0; patrol --json >"$T/b1" || rc1=$?
	assert_eq "$(json "$T/b1" 'd["verdict"], d["progress"], d["progress_max"]')" "$(json "$T/b2" 'd["verdict"], d["progress"], d["progress_max"]')"
	# No ssh master is left behind by the openssh transport.
	! pgrep -f "ControlPath=$T/state" >/dev/null || fail "an ssh master outlived the tick"
	touch "$T/go"
}

# LOGBOOK.md: launches with command and git state, failures with class,
# relaunches, verdict changes, results; appended only, never twice, no secret.
test_logbook_records_and_only_grows() {
	box
	mkdir -p "$T/work"
	secret="http://127.0.0.1:9/hook/SECRET-LB-$RANDOM"
	printf '#!/bin/sh\necho "torch.OutOfMemoryError: CUDA out of memory" >&2\nexit 1\n' >"$T/work/train.sh"
	(cd "$T/work" && git init -q && git add train.sh &&
		git -c user.email=t@t -c user.name=t commit -qm one) || fail "git setup"
	sha=$(git -C "$T/work" rev-parse HEAD)
	pconf "\"results\": \"metrics.csv\", \"notify\": [{\"type\": \"generic\", \"url\": \"$secret\"}]," \
		"[{\"stage\": \"train\", \"run\": \"sh train.sh # $secret\"}]"
	onbox run >/dev/null 2>&1 || true
	patrol >"$T/p1" 2>&1 || true
	line_ok CRASHED "$T/p1"
	lb="$T/state/watchkeeper/t1/LOGBOOK.md"
	assert_grep '^# Logbook: t1$' "$lb"
	assert_grep "· launch train \(attempt 1\)$" "$lb"
	assert_grep "git $sha \(clean\)" "$lb"
	assert_grep '· train FAILED \(attempt 1\): cuda_oom$' "$lb"
	assert_grep 'CUDA out of memory' "$lb"
	assert_grep '· verdict CRASHED$' "$lb"
	# Every tick rewrites the handbook beside it with what it saw.
	hb="$T/state/watchkeeper/t1/HANDBOOK.md"
	assert_grep '^- Last verdict: `CRASHED`' "$hb"
	assert_grep 'train FAILED \(attempt 1\): cuda_oom' "$hb"
	cp "$lb" "$T/lb1"
	# Fixed and dirty now: the relaunch records both; the run finishes with results.
	printf '#!/bin/sh\nprintf "metric,value\\nacc,0.9\\n" >metrics.csv\n' >"$T/work/train.sh"
	sed -i 's/"heartbeat_s": 1,/"heartbeat_s": 2,/; s/# http/--fixed # http/' "$T/wk.json"
	onbox run >/dev/null 2>&1
	rc=0; patrol >"$T/p2" 2>&1 || rc=$?
	assert_eq "$rc" 0
	line_ok DONE "$T/p2"
	assert_grep "· relaunch train \(attempt 2\)$" "$lb"
	assert_grep "git $sha \+ uncommitted changes" "$lb"
	assert_grep '· train done \(attempt 2\)$' "$lb"
	assert_grep '· run finished on the box$' "$lb"
	assert_grep '· verdict DONE$' "$lb"
	assert_grep '^acc,0.9$' "$lb"
	# The relaunch ran a different config: said loudly, with what changed.
	assert_grep '· CONFIG DRIFT: train attempt 2 runs a different config than attempt 1$' "$lb"
	assert_grep '^heartbeat_s: 1 -> 2$' "$lb"
	assert_grep '^chain\[0\]\.run: "sh train.sh # \*\*\*" -> "sh train.sh --fixed # \*\*\*"$' "$lb"
	assert_grep '^- Last verdict: `DONE`' "$hb"
	# Only appended: the first version is a prefix of the second.
	cmp -s "$T/lb1" <(head -c "$(stat -c %s "$T/lb1")" "$lb") || fail "the logbook was rewritten"
	# Another tick (a new patrol process) logs nothing twice.
	cp "$lb" "$T/lb2"
	patrol >/dev/null 2>&1 || true
	cmp -s "$T/lb2" "$lb" || fail "a quiet tick changed the logbook: $(diff "$T/lb2" "$lb")"
	assert_eq "$(grep -c 'launch train (attempt 1)' "$lb")" 1
	! grep -q "SECRET-LB" "$lb" || fail "the secret reached the logbook"
	assert_grep 'sh train.sh #' "$lb"
}

# kill_run: the box loses onbox and the stage at once (a reboot, a dead container).
kill_run() {
	local w s
	w=$(json "$W/attempts/train.$1.json" 'd["wrapper_pid"]')
	s=$(json "$W/attempts/train.$1.json" 'd["pid"]')
	kill -9 "$(json "$W/state.json" 'd["onbox_pid"]')" "$w" 2>/dev/null || true
	kill -9 -- "-$s" 2>/dev/null || true
	wait_for 10 sh -c "! kill -0 $w 2>/dev/null && ! kill -0 $s 2>/dev/null"
}

# patrol applies the same restart policy from outside: a lost attempt is
# resumed; the same loss right after that resume escalates instead.
test_resume_policy_escalates_repeat_loss() {
	box
	pconf '"patrol": {"auto_resume": true},' '[{"stage": "train", "run": "sleep 100"}]'
	bg_onbox run
	wait_for 10 test -f "$W/attempts/train.1.json"
	wait_for 10 grep -q '"pid":[[:space:]]*[1-9]' "$W/attempts/train.1.json"
	kill_run 1
	rc=0; patrol >"$T/p1" 2>&1 || rc=$?
	line_ok RESUMED "$T/p1"
	wait_for 10 test -f "$W/attempts/train.2.json"
	wait_for 10 grep -q '"pid":[[:space:]]*[1-9]' "$W/attempts/train.2.json"
	echo "$(json "$W/state.json" 'd["onbox_pid"]')" >>"$T/.pids"
	kill_run 2
	rc=0; patrol >"$T/p2" 2>&1 || rc=$?
	assert_eq "$rc" 1
	line_ok NEEDS_RESUME "$T/p2"
	assert_grep 'not resumed \(escalate\): .*lost' "$T/p2"
	assert_no_file "$W/attempts/train.3.json"
}

# Never restart what is finished: the final marker is there, an earlier one is
# gone (deleted by hand), nothing runs: patrol says so and does not resume.
test_finished_run_never_resumed() {
	box
	mkdir -p "$T/work"
	pconf '"patrol": {"auto_resume": true},' '[{"stage": "train", "run": "echo t >>../launches"}, {"stage": "eval", "run": "true"}]'
	onbox run >/dev/null 2>&1
	assert_eq "$(wc -l <"$T/launches")" 1
	rm "$W/markers/TRAIN_DONE"
	rc=0; patrol >"$T/p" 2>&1 || rc=$?
	assert_eq "$rc" 1
	line_ok NEEDS_RESUME "$T/p"
	assert_grep 'not resumed \(finished\)' "$T/p"
	assert_eq "$(wc -l <"$T/launches")" 1
}

# Checkpoints that stop advancing while the steps move: DEGRADED, before the
# rollback window closes.
test_degraded_when_checkpoints_stall() {
	box
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
for s in 100 200 300; do mkdir -p ckpt/step_\$s; echo '{}' >ckpt/step_\$s/metadata.json; done
echo "step 350/1000"
"$AWAIT" 30 "$T/go" || :
echo "step 900/1000"
"$AWAIT" 30 "$T/go2" || :
SH
	chmod +x "$T/bin/train.sh"
	pconf '"progress": {"pattern": "step (\\d+)/(\\d+)"}, "checkpoints": {"dir": "ckpt", "pattern": "^step_(\\d+)$"},' \
		"[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	bg_onbox run
	wait_for 10 grep -q '~350/1000' "$W/state.json"
	rc=0; patrol >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 0
	line_ok OK "$T/p1"
	touch "$T/go"
	wait_for 10 grep -q '~900/1000' "$W/state.json"
	rc=0; patrol >"$T/p2" 2>&1 || rc=$?
	assert_eq "$rc" 1
	line_ok DEGRADED "$T/p2"
	assert_grep 'newest complete checkpoint step 300 is 600 steps behind progress 900; they land every ~100 steps' "$T/p2"
	touch "$T/go2"
}

t ok_one_connection test_ok_one_connection
t done_prints_results_and_removes_cron test_done_prints_results_and_removes_cron
t needs_resume_then_auto_resume_once test_needs_resume_then_auto_resume_once
t crashed_with_class test_crashed_with_class
t ssh_down_and_hostkey_changed test_ssh_down_and_hostkey_changed
t two_patrols_act_once test_two_patrols_act_once
t hostile_values_reach_the_box_as_data test_hostile_values_reach_the_box_as_data
t monitor_stale_when_onbox_dies test_monitor_stale_when_onbox_dies
t disk_low test_disk_low
t transfer_incomplete_then_resumed test_transfer_incomplete_then_resumed
t auth_refused_and_blackhole_bounded test_auth_refused_and_blackhole_bounded
t deploy_uploads_and_starts_once test_deploy_uploads_and_starts_once
t verdict_changes_pushed_blips_not test_verdict_changes_pushed_blips_not
t done_webhook_retried_until_delivered test_done_webhook_retried_until_delivered
t digest_and_history test_digest_and_history
t transports_agree test_transports_agree
t logbook_records_and_only_grows test_logbook_records_and_only_grows
t resume_policy_escalates_repeat_loss test_resume_policy_escalates_repeat_loss
t finished_run_never_resumed test_finished_run_never_resumed
t degraded_when_checkpoints_stall test_degraded_when_checkpoints_stall
