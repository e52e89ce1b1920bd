#!/usr/bin/env bash
# End-to-end tests of the notification secrets that reach the box: `patrol
# deploy` and a patrol resume send the values of the config's url_env /
# token_env variables from the owner's environment (patrol's) to
# <workdir>/.watchkeeper/secrets on the box, and onbox there delivers with
# them.  The box is this machine through the suite's sshd, whose sessions do
# NOT inherit the test's environment (sshd builds a fresh one), so a value
# only in patrol's environment reaches onbox only through the file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
PATROL="$TOP/$BUILD/patrol"

patrol() { $ONBOX_WRAP "$PATROL" -c "$T/wk.json" "$@"; }
SEC() { echo "$T/work/.watchkeeper/secrets"; }

# A tmux of the test's own (its server under $T/tmux) for the box's sessions:
# the remote PATH starts with $T/sshd/bin.  lib.sh's cleanup ends its server.
own_tmux() {
	export TMUX_TMPDIR="$T/tmux"
	mkdir -p "$TMUX_TMPDIR"
	printf '#!/bin/sh\nTMUX_TMPDIR=%s exec %s "$@"\n' "$T/tmux" "$(command -v tmux)" >"$T/sshd/bin/tmux"
	chmod +x "$T/sshd/bin/tmux"
}

# A stage that records its pid, then waits for $T/go.
pid_stage() {
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
echo \$\$ >"$T/stage.pid"
"$AWAIT" 30 "$T/go" || :
echo "Training completed"
SH
	chmod +x "$T/bin/train.sh"
}

# sampler_start: note every /proc/*/cmdline holding $CANARY (from the
# environment, so never on the sampler's own command line) until $T/sampler.stop.
sampler_start() {
	CANARY="$CANARY" python3 - "$T/sampler.stop" "$T/sampler.hits" "$T/sampler.n" <<'PY' &
import os, sys
stop, hits, count = sys.argv[1:4]
canary = os.environ.pop("CANARY").encode()
me = str(os.getpid())
n = 0
found = []
for _ in range(200000):		# bounded; about 5 ms a round
    if os.path.exists(stop):
        break
    for p in os.listdir("/proc"):
        if not p.isdigit() or p == me:
            continue
        try:
            with open("/proc/%s/cmdline" % p, "rb") as f:
                c = f.read()
        except OSError:
            continue
        if canary in c:
            found.append("%s %s" % (p, c.replace(b"\0", b" ").decode("utf-8", "replace")[:200].replace(canary.decode(), "<CANARY>")))
    n += 1
with open(hits, "w") as f:
    f.write("\n".join(found))
with open(count, "w") as f:
    f.write(str(n))
PY
	SAMPLER=$!
	echo "$SAMPLER" >>"$T/.pids"
}
sampler_stop() {
	touch "$T/sampler.stop"
	wait "$SAMPLER" 2>/dev/null || true
	[ -s "$T/sampler.n" ] || fail "the cmdline sampler did not finish"
	[ "$(<"$T/sampler.n")" -ge 2 ] || fail "the cmdline sampler ran $(<"$T/sampler.n") rounds"
	[ ! -s "$T/sampler.hits" ] || { fail "the secret was on a command line:"; cat "$T/sampler.hits" >&2; return 1; }
}

# holds FILE...: 0 when one of the files holds $CANARY.  The canary goes
# through the environment: a grep with it in its argv would be a command
# line holding the secret, which is what the sampler looks for.
holds() { CANARY="$CANARY" python3 -c 'import os, sys; c = os.environ["CANARY"].encode(); sys.exit(0 if any(c in open(f, "rb").read() for f in sys.argv[1:]) else 1)' "$@"; }

# No file under $T but the secrets file (and the receiver's own log) holds the canary.
no_copies() {
	local hits
	hits=$(CANARY="$CANARY" python3 - "$T" "$(SEC)" "$T/recv.jsonl" <<'PY'
import os, sys
c = os.environ["CANARY"].encode()
top, allowed = sys.argv[1], set(sys.argv[2:])
for d, dirs, files in os.walk(top):
    for f in files:
        p = os.path.join(d, f)
        if p in allowed or os.path.islink(p) or not os.path.isfile(p):
            continue
        try:
            if c in open(p, "rb").read():
                print(p)
        except OSError:
            pass
PY
)
	[ -z "$hits" ] || fail "the secret is in: $hits"
}

# The box's onbox delivers with a URL that exists only in patrol's environment.
deploy_delivers() {
	local transport=$1 pid
	box
	own_tmux
	start_receiver
	pid_stage
	CANARY="wkcanary$RANDOM$RANDOM$RANDOM"
	URL="http://127.0.0.1:$RPORT/hook/$CANARY"
	pconf "\"notify\": [{\"type\": \"generic\", \"url_env\": \"WK_TEST_URL\"}]," \
		"[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"Training completed\"}]"
	sed -i "s/\"detach\": \"nohup\"/\"detach\": \"tmux\"/; s/\"box\": {/\"box\": {\"transport\": \"$transport\", /" "$T/wk.json"
	[ -z "${WK_TEST_URL:-}" ] || fail "WK_TEST_URL is set in the test's own environment"
	sampler_start
	WK_TEST_URL="$URL" patrol deploy >"$T/d.out" 2>"$T/d.err" || { cat "$T/d.out" "$T/d.err" >&2; return 1; }
	assert_grep 'started run t1' "$T/d.out"
	# The file: 0600, ours, exactly the named variable with the owner's value.
	assert_eq "$(stat -c '%a %U' "$(SEC)")" "600 $(id -un)"
	assert_eq "$(json "$(SEC)" 'sorted(d.keys())')" "['WK_TEST_URL']"
	assert_eq "$(json "$(SEC)" 'd["WK_TEST_URL"]')" "$URL"
	# The box's onbox delivers its events to the owner's URL.
	wait_for 15 test -s "$T/stage.pid"
	pid=$(<"$T/stage.pid")
	wait_for 15 sh -c "grep -q stage_started '$T/recv.jsonl' 2>/dev/null"
	assert_eq "$(recv_json "sorted(set(x['path'] for x in r))")" "['/hook/$CANARY']"
	# Not in the stage's environment, nor onbox's, nor tmux's.
	! holds "/proc/$pid/environ" || fail "the stage's environment has the secret"
	tr '\0' '\n' <"/proc/$pid/environ" | grep -q '^WK_SSHD_TAG=' || fail "read the wrong environ"
	opid=$(json "$W/state.json" 'd["onbox_pid"]')
	echo "$opid" >>"$T/.pids"
	! holds "/proc/$opid/environ" || fail "onbox's environment has the secret"
	tmux has-session -t =wk-t1
	tmux show-environment -g >"$T/tmux.g"
	tmux show-environment -t wk-t1 >"$T/tmux.s"
	assert_grep '^PATH=' "$T/tmux.g"
	! holds "$T/tmux.g" "$T/tmux.s" || fail "tmux's environment has the secret"
	assert_no_grep 'WK_TEST_URL' "$T/tmux.g"
	touch "$T/go"
	wait_for 15 test -f "$W/markers/TRAIN_DONE"
	wait_for 15 sh -c "grep -q chain_done '$T/recv.jsonl' 2>/dev/null"
	sampler_stop
	# Nothing anywhere said it: reports, logs, state, events, outbox, handbook.
	patrol >"$T/p.out" 2>&1 || true
	no_copies
	assert_grep 'WK_TEST_URL' "$T/state/watchkeeper/t1/HANDBOOK.md"
	assert_grep "$(SEC)" "$T/state/watchkeeper/t1/HANDBOOK.md"
}
test_deploy_delivers_libssh2() { deploy_delivers libssh2; }
test_deploy_delivers_openssh() { deploy_delivers openssh; }

test_no_secrets_and_missing_variables() {
	box
	start_receiver
	pconf "\"notify\": [{\"type\": \"generic\", \"url_env\": \"WK_TEST_URL\"},
	  {\"type\": \"ntfy\", \"url_env\": \"WK_TEST_URL\", \"token_env\": \"WK_TEST_MISSING\"},
	  {\"type\": \"generic\", \"url_env\": \"WK_TEST_EMPTY\"}]," '[{"stage": "train", "run": "true"}]'
	# --no-secrets: nothing sent.
	WK_TEST_URL="http://127.0.0.1:$RPORT/a" patrol deploy --no-start --no-secrets >"$T/d1" 2>&1
	assert_no_file "$(SEC)"
	assert_no_grep 'secret' "$T/d1"
	# A missing and an empty variable: a warning naming each, the others still sent.
	unset WK_TEST_MISSING
	WK_TEST_URL="http://127.0.0.1:$RPORT/a" WK_TEST_EMPTY= patrol deploy --no-start >"$T/d2.out" 2>"$T/d2.err"
	assert_grep 'WK_TEST_MISSING is not set in this environment' "$T/d2.err"
	assert_grep 'WK_TEST_EMPTY is empty in this environment' "$T/d2.err"
	assert_eq "$(json "$(SEC)" 'sorted(d.keys())')" "['WK_TEST_URL']"
	assert_eq "$(stat -c %a "$(SEC)")" 600
	# Missing here now (a tick from cron): the box keeps the value it was sent, a new one replaces it.
	WK_TEST_MISSING=tok2 patrol deploy --no-start >"$T/d4.out" 2>"$T/d4.err"
	assert_grep 'WK_TEST_URL is not set in this environment' "$T/d4.err"
	assert_grep 'WK_TEST_URL: the box keeps the value it was sent before' "$T/d4.err"
	assert_eq "$(json "$(SEC)" 'sorted(d.items())')" "[('WK_TEST_MISSING', 'tok2'), ('WK_TEST_URL', 'http://127.0.0.1:$RPORT/a')]"
	WK_TEST_URL="http://127.0.0.1:$RPORT/c" WK_TEST_MISSING=tok3 patrol deploy --no-start >/dev/null 2>&1
	assert_eq "$(json "$(SEC)" 'sorted(d.items())')" "[('WK_TEST_MISSING', 'tok3'), ('WK_TEST_URL', 'http://127.0.0.1:$RPORT/c')]"
	# No variable named: nothing sent, nothing said; the old file stays.
	pconf "\"notify\": [{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$RPORT/b\"}]," '[{"stage": "train", "run": "true"}]'
	cp "$(SEC)" "$T/sec.before"
	WK_TEST_URL=x patrol deploy --no-start >"$T/d3" 2>&1
	assert_no_grep 'secret|WK_TEST' "$T/d3"
	cmp "$(SEC)" "$T/sec.before"
	# --no-secrets belongs to deploy.
	rc=0; patrol --no-secrets >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 64
}

# onbox on the box: the file wins over the box's own environment; an unusable file holds the events.
test_file_wins_and_bad_files_hold() {
	start_receiver
	u="http://127.0.0.1:$RPORT"
	conf "\"notify\": [{\"type\": \"generic\", \"url_env\": \"WK_TEST_URL\"}]," '[{"stage": "train", "run": "true"}]'
	mkdir -p "$W"
	( umask 077; printf '{"WK_TEST_URL": "%s/from-file"}' "$u" >"$(SEC)" )
	WK_TEST_URL="$u/from-env" onbox notify --test >"$T/n1" 2>&1
	assert_eq "$(recv_json "[x['path'] for x in r]")" "['/from-file']"
	rm "$(SEC)"
	WK_TEST_URL="$u/from-env" onbox notify --test >"$T/n2" 2>&1
	assert_eq "$(recv_json "[x['path'] for x in r]")" "['/from-file', '/from-env']"
	# Readable by others: refused, named, nothing sent; the events wait in the outbox.
	( umask 077; printf '{"WK_TEST_URL": "%s/from-file"}' "$u" >"$(SEC)" )
	chmod 644 "$(SEC)"
	rc=0; WK_TEST_URL="$u/from-env" onbox notify --test >"$T/n3" 2>&1 || rc=$?
	[ "$rc" -ne 0 ] || fail "notify --test succeeded with a refused secrets file"
	assert_grep "$(SEC): its mode is 0644" "$T/n3"
	assert_no_grep 'from-file' "$T/n3"
	# Malformed: the file and the line, never its text; a run's events stay queued.
	printf '{\n"WK_TEST_URL": "%s/from-file",\n}\n' "$u" >"$(SEC)"
	chmod 600 "$(SEC)"
	WK_TEST_URL="$u/from-env" onbox run >"$T/run.out" 2>&1 || true
	assert_grep "$(SEC): line 3: not valid JSON" "$W/onbox.log"
	assert_no_grep 'from-file' "$W/onbox.log"
	onbox status >"$T/status.out" 2>&1 || true
	assert_grep 'cannot be used' "$T/status.out"
	n=$(find "$W/outbox" -name '0*.json' | wc -l)
	[ "$n" -ge 2 ] || fail "expected the run's events in the outbox, found $n"
	assert_eq "$(recv_json "len(r)")" 2
}

# A patrol resume refreshes the file with the owner's current value.
test_resume_refreshes() {
	box
	start_receiver
	pid_stage
	pconf "\"patrol\": {\"auto_resume\": true}, \"notify\": [{\"type\": \"generic\", \"url_env\": \"WK_TEST_URL\"}]," \
		"[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"Training completed\"}]"
	WK_TEST_URL="http://127.0.0.1:$RPORT/old" patrol deploy >"$T/d.out" 2>&1
	wait_for 15 test -s "$T/stage.pid"
	wait_for 15 sh -c "grep -q stage_started '$T/recv.jsonl' 2>/dev/null"
	# The whole run dies: onbox and the stage's group.  The wrapper records
	# the SIGKILL and leaves (killing it too would race its record: a wrapper
	# killed before it writes makes the attempt lost, not killed).
	opid=$(json "$W/state.json" 'd["onbox_pid"]')
	kill -9 "$opid"
	f="$W/attempts/train.1.json"
	wpid=$(json "$f" 'd["wrapper_pid"]')
	kill -9 -- "-$(json "$f" 'd["pid"]')" 2>/dev/null || true
	wait_for 10 json_ne "$f" 'd["state"]' running
	wait_for 10 sh -c "! kill -0 $opid 2>/dev/null && ! kill -0 $(<"$T/stage.pid") 2>/dev/null && ! kill -0 $wpid 2>/dev/null"
	rm -f "$T/stage.pid"
	rc=0; WK_TEST_URL="http://127.0.0.1:$RPORT/new" patrol >"$T/p1" 2>&1 || rc=$?
	assert_grep ' t1 RESUMED ' "$T/p1"
	assert_eq "$(json "$(SEC)" 'd["WK_TEST_URL"]')" "http://127.0.0.1:$RPORT/new"
	assert_eq "$(stat -c %a "$(SEC)")" 600
	# The resumed onbox finds the killed attempt (a SIGKILL we did not send, the
	# cgroup's oom_kill counter unchanged: killed, retryable), says so and restarts
	# it, all to the new URL.
	echo "$(json "$W/state.json" 'd["onbox_pid"]')" >>"$T/.pids"
	wait_for 15 sh -c "grep -q stage_failed '$T/recv.jsonl' 2>/dev/null"
	assert_eq "$(recv_json "[x['path'] for x in r if json.loads(x['body'])['event'] == 'stage_failed']")" "['/new']"
	assert_eq "$(json "$W/stages/train.json" 'd["attempts"][0]["class"]')" killed
	wait_for 15 sh -c "[ \$(grep -c stage_started '$T/recv.jsonl') -ge 2 ]"
	assert_eq "$(recv_json "[x['path'] for x in r if json.loads(x['body'])['event'] == 'stage_started']")" "['/old', '/new']"
}

# A resume whose secrets cannot be written goes on, and says so.
test_resume_says_when_secrets_fail() {
	box
	pid_stage
	pconf "\"patrol\": {\"auto_resume\": true}, \"notify\": [{\"type\": \"generic\", \"url_env\": \"WK_TEST_URL\"}]," \
		"[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	mkdir -p "$W"
	mkdir "$(SEC)"	# a directory where the file goes: mv cannot replace it
	touch "$(SEC)/keep"
	rc=0; WK_TEST_URL="http://127.0.0.1:9/x" patrol >"$T/p1" 2>&1 || rc=$?
	assert_grep ' t1 RESUMED .*the notification secrets could not be refreshed' "$T/p1"
	assert_grep 'the notification secrets could not be refreshed' "$T/state/watchkeeper/t1/report.log"
	wait_for 15 test -s "$T/stage.pid"
	echo "$(json "$W/state.json" 'd["onbox_pid"]')" >>"$T/.pids"
	# And a deploy in the same state fails before starting.
	touch "$T/go"
	wait_for 15 test -f "$W/markers/TRAIN_DONE"
	rm -rf "$W/markers"
	wait_for 15 sh -c "! kill -0 $(json "$W/state.json" 'd["onbox_pid"]') 2>/dev/null"
	rm -f "$T/stage.pid" "$T/go"
	rc=0; WK_TEST_URL="http://127.0.0.1:9/x" patrol deploy >"$T/d.out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep 'cannot send the notification secrets to the box' "$T/d.out"
	assert_no_grep 'started run' "$T/d.out"
	assert_no_file "$T/stage.pid"
}

# onbox start never copies a variable the config names into tmux's command line.
test_start_keeps_named_variables_off_tmux_command() {
	export TMUX_TMPDIR="$T/tmux"
	mkdir -p "$TMUX_TMPDIR"
	start_receiver
	pid_stage
	CANARY="wkcanary$RANDOM$RANDOM$RANDOM"
	conf "\"notify\": [{\"type\": \"generic\", \"url_env\": \"WK_TEST_HOOK\"}]," \
		"[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"Training completed\"}]"
	sed -i 's/"detach": "nohup"/"detach": "tmux"/' "$T/wk.json"
	WK_TEST_HOOK="http://127.0.0.1:$RPORT/$CANARY" WK_E2E_PLAIN=carried onbox start >"$T/start.out" 2>&1
	tmux list-panes -t =wk-t1 -F '#{pane_start_command}' >"$T/panecmd"
	assert_grep 'WK_E2E_PLAIN=carried' "$T/panecmd"
	! holds "$T/panecmd" || fail "the secret is in tmux's command line"
	assert_no_grep 'WK_TEST_HOOK' "$T/panecmd"
	wait_for 15 test -s "$T/stage.pid"
	echo "$(json "$W/state.json" 'd["onbox_pid"]')" >>"$T/.pids"
	touch "$T/go"
	wait_for 15 test -f "$W/markers/TRAIN_DONE"
}

t deploy_delivers_libssh2 test_deploy_delivers_libssh2
t deploy_delivers_openssh test_deploy_delivers_openssh
t no_secrets_and_missing_variables test_no_secrets_and_missing_variables
t file_wins_and_bad_files_hold test_file_wins_and_bad_files_hold
t resume_refreshes test_resume_refreshes
t resume_says_when_secrets_fail test_resume_says_when_secrets_fail
t start_keeps_named_variables_off_tmux_command test_start_keeps_named_variables_off_tmux_command
