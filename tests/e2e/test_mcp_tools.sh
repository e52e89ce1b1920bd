#!/usr/bin/env bash
# End-to-end tests of the MCP tools that act (patrol/mcp-act.c): status,
# resume and stop, called through the real `patrol mcp` on its stdio pipe by a
# small JSON-RPC driver (python3, no extra modules), against the suite's sshd
# and real onbox runs on the "box" (this machine).
#   - status is `patrol --once --json`: the same keys and verdict, a report line;
#   - resume and stop without confirm change nothing (patrol.json, report.log,
#     the box), with confirm act like patrol (NEEDS_RESUME -> RESUMED, the marker
#     lands; the stage's process gone, STOPPED), and a second call changes nothing;
#   - an unreachable box is a normal SSH_DOWN result; a busy lock and a changed
#     host key are isError results naming the run;
#   - `patrol resume [--dry-run]` runs the resume tool's code from the command line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
PATROL="$TOP/$BUILD/patrol"

patrol() { $ONBOX_WRAP "$PATROL" -c "$T/wk.json" "$@"; }
launches() { [ -f "$T/launch.train" ] && wc -l <"$T/launch.train" | tr -d ' ' || echo 0; }
SD() { echo "$T/state/watchkeeper/t1"; }

# mcp OUT METHOD PARAMS_JSON: one request to a fresh `patrol mcp -c wk.json`
# after initialize; its "result" (or the whole answer when it has none) goes
# to OUT.  Every line the server writes must be JSON-RPC (nothing else on
# stdout); every wait is bounded.
mcp() {
	python3 - "$1" "$2" "$3" $ONBOX_WRAP "$PATROL" mcp -c "$T/wk.json" <<'PY'
import json, os, select, subprocess, sys, time
out, method, params, cmd = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4:]
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
buf = b""
def send(o):
    p.stdin.write((json.dumps(o) + "\n").encode()); p.stdin.flush()
def answer(rid, limit=300):
    global buf
    end = time.time() + limit
    while True:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            m = json.loads(line)            # nothing but JSON on stdout
            assert m.get("jsonrpc") == "2.0", m
            if m.get("id") == rid:
                return m
        left = end - time.time()
        if left <= 0 or not select.select([p.stdout], [], [], left)[0]:
            raise SystemExit("no answer to request %d within %ds" % (rid, limit))
        chunk = os.read(p.stdout.fileno(), 1 << 16)
        if not chunk:
            raise SystemExit("patrol mcp closed its stdout before answering %d" % rid)
        buf += chunk
try:
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
          "capabilities": {}, "clientInfo": {"name": "test_mcp_tools", "version": "1"}}})
    answer(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": method, "params": params})
    m = answer(2)
    json.dump(m.get("result", m), open(out, "w"))
finally:
    p.stdin.close()
    try:
        p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill(); p.wait()
PY
}
# call OUT TOOL ARGS_JSON: tools/call.
call() { mcp "$1" tools/call "{\"name\": \"$2\", \"arguments\": $3}"; }
# r OUT EXPR: a value of a tools/call result (d: the result, s: its structuredContent).
# (jsonq first: lib.sh's jsonq_s; python3 for the rest)
r() {
	local rc=0
	jsonq_s "$1" '["structuredContent"]' "$2" || rc=$?
	[ $rc = 2 ] || return $rc
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d.get("structuredContent",{}); v=eval(sys.argv[2]); print(v if not isinstance(v,bool) else str(v).lower())' "$1" "$2"
}

# A stage that prints progress, traps SIGTERM (writes $T/term), and waits
# for $T/go; from its second launch on it completes at once.
stage() {
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
echo x >>"$T/launch.train"
if [ "\$(wc -l <"$T/launch.train")" -gt 1 ]; then echo "Training completed"; exit 0; fi
trap 'echo TERM >>"$T/term"; exit 0' TERM
echo \$\$ >"$T/leader"
i=1; while [ \$i -le 3 ]; do echo "step \$i/10"; i=\$((i+1)); done
"$AWAIT" 30 "$T/go" || :
echo "Training completed"
SH
	chmod +x "$T/bin/train.sh"
}
setup() {
	box
	stage
	pconf "\"stop_grace_s\": 5, \"progress\": {\"pattern\": \"step (\\\\d+)/(\\\\d+)\", \"max\": 10}, $1" \
		"[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"Training completed\", \"marker\": \"TRAIN_DONE\"}]"
}
# A snapshot of what must not change: the local state and the box's records.
snap() {
	rm -rf "$T/snap.$1"; mkdir -p "$T/snap.$1"
	cp "$(SD)/patrol.json" "$(SD)/report.log" "$T/snap.$1/"
	[ ! -f "$W/stopped" ] || cp "$W/stopped" "$T/snap.$1/"
	echo "$(launches)" >"$T/snap.$1/launches"
}
unchanged() {
	cmp "$(SD)/patrol.json" "$T/snap.$1/patrol.json"
	cmp "$(SD)/report.log" "$T/snap.$1/report.log"
	if [ -f "$T/snap.$1/stopped" ]; then cmp "$W/stopped" "$T/snap.$1/stopped"; else assert_no_file "$W/stopped"; fi
	assert_eq "$(launches)" "$(<"$T/snap.$1/launches")" "launches"
}

test_list_and_status_is_a_tick() {
	setup ''
	mcp "$T/list" tools/list '{}'
	for tool in status resume stop; do
		assert_eq "$(r "$T/list" "[x['inputSchema']['additionalProperties'] for x in d['tools'] if x['name']=='$tool'][0]")" false "$tool strict"
		assert_eq "$(r "$T/list" "[x['inputSchema']['required'] for x in d['tools'] if x['name']=='$tool'][0]")" "['run']"
		assert_eq "$(r "$T/list" "[x['outputSchema']['type'] for x in d['tools'] if x['name']=='$tool'][0]")" object
	done
	for tool in resume stop; do
		assert_eq "$(r "$T/list" "[x['annotations']['destructiveHint'] for x in d['tools'] if x['name']=='$tool'][0]")" true
		assert_eq "$(r "$T/list" "[x['inputSchema']['properties']['confirm']['type'] for x in d['tools'] if x['name']=='$tool'][0]")" boolean
	done
	assert_eq "$(r "$T/list" "[x['annotations'].get('readOnlyHint', False) for x in d['tools'] if x['name']=='status'][0]")" false
	bg_onbox run
	wait_for 10 grep -q '~3/10' "$W/state.json"
	rc=0; patrol --once --json >"$T/cli.json" || rc=$?
	assert_eq "$rc" 0
	call "$T/s1" status '{"run": "t1"}'
	assert_eq "$(r "$T/s1" 'd.get("isError", False)')" false
	assert_eq "$(r "$T/s1" 's["verdict"]')" "$(json "$T/cli.json" 'd["verdict"]')"
	assert_eq "$(r "$T/s1" 'sorted(s)')" "$(json "$T/cli.json" 'sorted(d)')" "same keys"
	assert_eq "$(r "$T/s1" 's["progress"]')" 3
	# It was a tick: its line is the report log's last, and the text.
	assert_eq "$(wc -l <"$(SD)/report.log")" 2
	assert_eq "$(tail -n 1 "$(SD)/report.log")" "$(r "$T/s1" 's["line"]')"
	assert_eq "$(r "$T/s1" 'd["content"][0]["text"]')" "$(r "$T/s1" 's["line"]')"
	assert_eq "$(json "$(SD)/patrol.json" 'd["ticks"]')" 2
	assert_grep 'OK' "$(SD)/HANDBOOK.md"
	# Strict arguments: an unknown one, a wrong type, an unknown run are isError naming it.
	call "$T/e1" status '{"run": "t1", "confirm": true}'
	assert_eq "$(r "$T/e1" 'd["isError"]')" true
	r "$T/e1" 'd["content"][0]["text"]' | grep -q "argument 'confirm'"
	call "$T/e2" stop '{"run": "t1", "confirm": "yes"}'
	assert_eq "$(r "$T/e2" 'd["isError"]')" true
	r "$T/e2" 'd["content"][0]["text"]' | grep -q "argument 'confirm'"
	call "$T/e3" resume '{"run": "nope"}'
	assert_eq "$(r "$T/e3" 'd["isError"]')" true
	r "$T/e3" 'd["content"][0]["text"]' | grep -q "nope"
	assert_eq "$(wc -l <"$(SD)/report.log")" 2 "no tick for a bad call"
	# Another patrol ticking (its lock held): isError, try again.
	python3 - "$(SD)/patrol.lock" "$T/locked" "$T/unlock" <<'PY' &
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.lockf(fd, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
end = time.time() + 120
while not os.path.exists(sys.argv[3]) and time.time() < end:
    time.sleep(0.02)
PY
	lpid=$!
	echo "$lpid" >>"$T/.pids"
	wait_for 10 test -f "$T/locked"
	call "$T/busy" status '{"run": "t1"}'
	touch "$T/unlock"
	wait "$lpid"
	assert_eq "$(r "$T/busy" 'd["isError"]')" true
	assert_eq "$(r "$T/busy" 'd["content"][0]["text"]')" "run t1: another patrol is ticking right now; try again in a few seconds"
	assert_eq "$(wc -l <"$(SD)/report.log")" 2
	touch "$T/go"
	wait_for 10 test -f "$W/markers/TRAIN_DONE"
}

test_resume_dry_then_confirm_once() {
	setup ''
	# Never started: NEEDS_RESUME; without auto_resume the tick does nothing.
	rc=0; patrol >"$T/p1" 2>&1 || rc=$?
	line_ok NEEDS_RESUME "$T/p1"
	snap a
	call "$T/r1" resume '{"run": "t1"}'
	call "$T/r2" resume '{"run": "t1", "confirm": false}'
	for f in r1 r2; do
		assert_eq "$(r "$T/$f" 'd.get("isError", False)')" false
		assert_eq "$(r "$T/$f" 's["verdict"]')" NEEDS_RESUME
		assert_eq "$(r "$T/$f" 's["did"]')" nothing
		assert_eq "$(r "$T/$f" 's["would"]')" resume
		assert_eq "$(r "$T/$f" 's["confirm"]')" false
	done
	r "$T/r1" 'd["content"][0]["text"]' | grep -q 'would resume train (was NEEDS_RESUME, on request)'
	r "$T/r1" 's["why"]' | grep -q 'never launched: the first launch is no restart for the policy'
	unchanged a
	assert_no_file "$W/state.json"
	# Confirmed: resumed once (no patrol.auto_resume needed), recorded like a tick.
	call "$T/r3" resume '{"run": "t1", "confirm": true}'
	assert_eq "$(r "$T/r3" 'd.get("isError", False)')" false
	assert_eq "$(r "$T/r3" 's["verdict"]')" RESUMED
	assert_eq "$(r "$T/r3" 's["did"]')" resumed
	line_ok RESUMED "$(SD)/report.log"
	assert_eq "$(json "$(SD)/patrol.json" 'd["resumes"][-1]["was"]')" NEEDS_RESUME
	assert_eq "$(json "$(SD)/patrol.json" 'd["resumes"][-1]["requested"]')" true
	assert_eq "$(json "$(SD)/patrol.json" 'd["verdict"]')" RESUMED
	assert_grep 'resumed train' "$(SD)/LOGBOOK.md"
	wait_for 10 test -f "$T/leader"
	echo "$(json "$W/state.json" 'd["onbox_pid"]')" >>"$T/.pids"
	# A second confirmed resume right after: the run is alive, nothing changes.
	call "$T/r4" resume '{"run": "t1", "confirm": true}'
	assert_eq "$(r "$T/r4" 's["did"]')" nothing
	assert_eq "$(launches)" 1
	assert_eq "$(json "$(SD)/patrol.json" 'len(d["resumes"])')" 1
	touch "$T/go"
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	call "$T/r5" resume '{"run": "t1", "confirm": true}'
	assert_eq "$(r "$T/r5" 's["verdict"]')" DONE
	assert_eq "$(r "$T/r5" 's["did"]')" nothing
}

test_policy_refuses_a_never_retry_class() {
	box
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho x >>"%s/launch.train"\necho "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB" >&2\nexit 1\n' "$T" >"$T/bin/train.sh"
	chmod +x "$T/bin/train.sh"
	pconf '' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"marker\": \"TRAIN_DONE\"}]"
	onbox run >/dev/null 2>&1 || true
	rc=0; patrol >"$T/p1" 2>&1 || rc=$?
	line_ok CRASHED "$T/p1"
	call "$T/r1" resume '{"run": "t1"}'
	assert_eq "$(r "$T/r1" 's["would"]')" refused
	r "$T/r1" 's["why"]' | grep -q 'never_retry'
	call "$T/r2" resume '{"run": "t1", "confirm": true}'
	assert_eq "$(r "$T/r2" 'd.get("isError", False)')" false
	assert_eq "$(r "$T/r2" 's["did"]')" refused
	assert_eq "$(r "$T/r2" 's["verdict"]')" CRASHED
	assert_eq "$(launches)" 1
}

test_stop_dry_confirm_twice_then_resume() {
	setup ''
	sed -i 's|"config": "[^"]*", ||' "$T/wk.json"
	patrol deploy --onbox "$ONBOX" >"$T/d1" 2>&1
	wait_for 10 test -f "$T/leader"
	echo "$(json "$W/state.json" 'd["onbox_pid"]')" >>"$T/.pids"
	leader=$(<"$T/leader")
	patrol >"$T/p1" 2>&1 || true
	line_ok OK "$T/p1"
	snap a
	call "$T/s1" stop '{"run": "t1"}'
	assert_eq "$(r "$T/s1" 'd.get("isError", False)')" false
	assert_eq "$(r "$T/s1" 's["did"]')" nothing
	assert_eq "$(r "$T/s1" 's["would"]')" stop
	# The pid said is the stage's process group (its leader's group).
	pgid=$(ps -o pgid= -p "$leader" | tr -d ' ')
	r "$T/s1" 's["why"]' | grep -q "would stop stage train attempt 1 (pid $pgid, under its onbox)"
	live "$leader"
	assert_no_file "$T/term"
	unchanged a
	# Confirmed: the stage's process is gone, the verdict STOPPED; patrol state untouched.
	call "$T/s2" stop '{"run": "t1", "confirm": true}'
	assert_eq "$(r "$T/s2" 'd.get("isError", False)')" false
	assert_eq "$(r "$T/s2" 's["did"]')" stopped
	assert_eq "$(r "$T/s2" 's["verdict"]')" STOPPED
	r "$T/s2" 's["said"]' | grep -q 'stopped run t1: stage train attempt 1'
	gone "$leader"
	assert_eq "$(<"$T/term")" TERM
	assert_file "$W/stopped"
	cmp "$(SD)/report.log" "$T/snap.a/report.log"
	snap b
	# A second stop: nothing was running, nothing changes.
	call "$T/s3" stop '{"run": "t1", "confirm": true}'
	assert_eq "$(r "$T/s3" 's["did"]')" nothing
	assert_eq "$(r "$T/s3" 's["verdict"]')" STOPPED
	unchanged b
	# A stopped run is resumed only on request: without confirm nothing, with it onbox start.
	call "$T/r1" resume '{"run": "t1"}'
	assert_eq "$(r "$T/r1" 's["would"]')" resume
	r "$T/r1" 's["why"]' | grep -q 'would resume train (was STOPPED, on request).*stopped on purpose, no failure for the policy'
	unchanged b
	call "$T/r2" resume '{"run": "t1", "confirm": true}'
	assert_eq "$(r "$T/r2" 's["did"]')" resumed
	assert_eq "$(r "$T/r2" 's["verdict"]')" RESUMED
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	assert_eq "$(launches)" 2
	assert_no_file "$W/stopped"
}

test_ssh_down_is_a_result_hostkey_an_error() {
	setup ''
	cp "$T/sshd/known_hosts" "$T/kh.orig"
	ssh-keygen -q -t ed25519 -N '' -f "$T/other" >/dev/null
	echo "[127.0.0.1]:$SSHD_PORT $(cut -d' ' -f1,2 "$T/other.pub")" >"$T/sshd/known_hosts"
	call "$T/h1" status '{"run": "t1"}'
	assert_eq "$(r "$T/h1" 'd["isError"]')" true
	assert_eq "$(r "$T/h1" 's["verdict"]')" HOSTKEY_MISMATCH
	r "$T/h1" 'd["content"][0]["text"]' | grep -q '^run t1: the box refused: HOSTKEY_MISMATCH'
	cp "$T/kh.orig" "$T/sshd/known_hosts"
	sshd_stop
	call "$T/d1" status '{"run": "t1"}'
	call "$T/d2" stop '{"run": "t1", "confirm": true}'
	call "$T/d3" resume '{"run": "t1", "confirm": true}'
	for f in d1 d2 d3; do
		assert_eq "$(r "$T/$f" 'd.get("isError", False)')" false "$f"
		assert_eq "$(r "$T/$f" 's["verdict"]')" SSH_DOWN "$f"
	done
	assert_eq "$(r "$T/d2" 's["did"]')" nothing
	assert_eq "$(r "$T/d3" 's["did"]')" nothing
	r "$T/d2" 's["why"]' | grep -q 'could not be seen'
	assert_eq "$(launches)" 0
	assert_no_file "$W/stopped"
}

# `patrol resume [--dry-run]`: the resume tool's code for people.
test_cli_resume_dry_run_then_resume() {
	setup ''
	rc=0; patrol >"$T/p1" 2>&1 || rc=$?
	line_ok NEEDS_RESUME "$T/p1"
	snap a
	rc=0; patrol resume --dry-run >"$T/c1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	line_ok NEEDS_RESUME "$T/c1"
	assert_grep '^nothing done \(a dry run\): would resume train \(was NEEDS_RESUME, on request\)' "$T/c1"
	patrol resume --dry-run --json >"$T/c2.json" 2>/dev/null || true
	assert_eq "$(json "$T/c2.json" 'd["would"]')" resume
	assert_eq "$(json "$T/c2.json" 'd["did"]')" nothing
	unchanged a
	assert_no_file "$W/state.json"
	rc=0; patrol --dry-run >"$T/c3" 2>&1 || rc=$?
	assert_eq "$rc" 64 "--dry-run without resume"
	rc=0; patrol resume >"$T/c4" 2>&1 || rc=$?
	assert_eq "$rc" 1
	line_ok RESUMED "$T/c4"
	assert_grep '^resumed train \(was NEEDS_RESUME, on request\): onbox start' "$T/c4"
	assert_eq "$(tail -n 1 "$(SD)/report.log")" "$(head -n 1 "$T/c4")"
	wait_for 10 test -f "$T/leader"
	echo "$(json "$W/state.json" 'd["onbox_pid"]')" >>"$T/.pids"
	touch "$T/go"
	wait_for 20 test -f "$W/markers/TRAIN_DONE"
	assert_eq "$(launches)" 1
}

t list_and_status_is_a_tick test_list_and_status_is_a_tick
t resume_dry_then_confirm_once test_resume_dry_then_confirm_once
t policy_refuses_a_never_retry_class test_policy_refuses_a_never_retry_class
t stop_dry_confirm_twice_then_resume test_stop_dry_confirm_twice_then_resume
t ssh_down_is_a_result_hostkey_an_error test_ssh_down_is_a_result_hostkey_an_error
t cli_resume_dry_run_then_resume test_cli_resume_dry_run_then_resume
