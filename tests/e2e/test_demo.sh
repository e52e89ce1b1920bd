#!/usr/bin/env bash
# End-to-end tests of `make demo` (examples/demo/demo.sh): the whole system
# in one command.  The demo runs as a user runs it, with its workspace under
# the test's $T (TMPDIR), and is held to what it claims: exit 0, both
# markers, the NCCL crash triaged and relaunched from the newest COMPLETE
# checkpoint, the sentinel's exit 0, every webhook event delivered exactly
# once although the receiver was down at first, HANDBOOK.md and LOGBOOK.md,
# no secret in any file, and nothing left behind: no process, no workspace
# (also when interrupted with Ctrl-C).
. "$(dirname "$0")/lib.sh"
DEMO="$TOP/examples/demo/demo.sh"

# The demo's workspace, as its first section prints it.
workspace() { sed -n 's/^   workspace: //p' "$1" | head -n 1; }

# Pids (but this one's own) whose command line, environment or working
# directory mentions $1: what the demo started and did not stop.
leftovers() {
	python3 - "$1" <<'PY'
import os, sys
d = sys.argv[1].encode()
me = os.getpid()
for p in os.listdir("/proc"):
    if not p.isdigit() or int(p) == me:
        continue
    try:
        seen = [open("/proc/%s/%s" % (p, f), "rb").read() for f in ("cmdline", "environ")]
        seen.append(os.readlink("/proc/%s/cwd" % p).encode())
    except OSError:
        continue
    if any(d in x for x in seen):
        print(p, open("/proc/%s/cmdline" % p, "rb").read().replace(b"\0", b" ").decode(errors="replace"))
PY
}

assert_no_leftovers() {
	local l
	l=$(leftovers "$1")
	[ -z "$l" ] || fail "processes the demo left behind: $l"
}

# The whole story, workspace kept so that its files can be checked.
demo_end_to_end() {
	local rc=0 D W S
	TMPDIR=$T DEMO_KEEP=1 bash "$DEMO" "$BUILD" >"$T/demo.out" 2>&1 || rc=$?
	cat "$T/demo.out"
	D=$(workspace "$T/demo.out")
	[ -n "$D" ] || fail "no workspace line in the demo's output"
	assert_eq "$rc" 0 "the demo's exit status"
	W=$D/box/demo-run
	S=$D/state/watchkeeper/demo-run
	assert_grep "^kept the workspace: $D " "$T/demo.out"
	assert_no_leftovers "$D"
	! ss -ltnH 2>/dev/null | grep -qF "127.0.0.1:$(sed -n 's/^\tPort //p' "$D/sshd/ssh_config") " ||
		fail "the demo's sshd still listens"

	# Layer 1: both markers, no FAILED marker (a restarted failure leaves none).
	assert_file "$W/.watchkeeper/markers/TRAIN_DONE"
	assert_file "$W/.watchkeeper/markers/EVAL_DONE"
	[ -z "$(find "$W/.watchkeeper/markers" -name '*.FAILED')" ] || fail "a FAILED marker was left"
	assert_eq "$(<"$W/results/metrics.csv")" "$(printf 'metric,value\nacc,0.812\nf1,0.790')"
	# The crash: attempt 1 nccl_timeout, retried by the policy; attempt 2 from
	# ckpt/step_20, the newest COMPLETE one (step_30 had no metadata.json).
	h="$W/.watchkeeper/stages/train.json"
	assert_eq "$(json "$h" 'len(d["attempts"])')" 2
	assert_eq "$(json "$h" 'd["attempts"][0]["class"]')" nccl_timeout
	assert_eq "$(json "$h" 'd["attempts"][0]["policy"]["rule"]')" retry
	assert_eq "$(json "$h" 'd["attempts"][1]["checkpoint"]')" "$W/ckpt/step_20"
	assert_eq "$(json "$h" 'd["attempts"][1]["result"]')" "done"
	# ... and the output says so: the crash line, the restart, the resume.
	assert_grep ' demo-run OK train attempt 1 ~' "$T/demo.out"
	assert_grep '^   [0-9TZ:-]+ demo-run train FAILED \(nccl_timeout, exit 1\) attempt 1$' "$T/demo.out"
	assert_grep '^      restarting: attempt 1 failed with nccl_timeout .*restart 1 of restart.max 3' "$T/demo.out"
	assert_grep "stage train attempt 2 resumes from checkpoint $W/ckpt/step_20 \(step 20\)" "$T/demo.out"
	assert_grep "relaunch train \(attempt 2\): sh fake-train.sh 60 0.25 --resume '$W/ckpt/step_20'" "$T/demo.out"
	assert_grep ' demo-run OK train attempt 2 ~' "$T/demo.out"
	assert_grep ' demo-run DONE every marker present' "$T/demo.out"
	assert_grep '^     acc,0.812$' "$T/demo.out"
	# Layer 3: the sentinel found EVAL_DONE and exited 0.
	assert_grep '^   sentinel: EVAL_DONE found \(tick [0-9]+, [0-9]+s\)$' "$T/demo.out"
	assert_grep '^   \(the sentinel exited 0\)$' "$T/demo.out"
	# Layer 4: the files exist where the demo says, with the crash and the relaunch.
	assert_grep "^   HANDBOOK.md: $S/HANDBOOK.md$" "$T/demo.out"
	assert_grep "^   LOGBOOK.md:  $S/LOGBOOK.md$" "$T/demo.out"
	assert_grep '^- Last verdict: `DONE`' "$S/HANDBOOK.md"
	assert_grep '· train FAILED \(attempt 1\): nccl_timeout$' "$S/LOGBOOK.md"
	assert_grep "^sh fake-train.sh 60 0.25 --resume '$W/ckpt/step_20' >> train.log 2>&1$" "$S/LOGBOOK.md"

	# Webhooks: the receiver was down (onbox and patrol were refused), then
	# got every event of the box and every verdict change of patrol, each once.
	assert_grep 'connection refused: the receiver is down' "$W/.watchkeeper/onbox.out"
	assert_grep 'patrol: warning: notify 0-generic: connection refused' "$T/demo.out"
	python3 - "$D/recv.jsonl" "$W/.watchkeeper/events.jsonl" "$S/LOGBOOK.md" <<'PY' || fail "webhook deliveries"
import collections, json, re, sys
got = []
for l in open(sys.argv[1]):
    x = json.loads(l)
    assert x["status"] == 200, x["status"]
    h = {k.lower(): v for k, v in x["headers"].items()}
    got.append((h["x-watchkeeper-event-id"], json.loads(x["body"]), x["t"]))
n = collections.Counter(i for i, _, _ in got)
assert all(c == 1 for c in n.values()), [i for i, c in n.items() if c > 1]
box = [json.loads(l) for l in open(sys.argv[2])]
boxids = {e["id"] for e in box}
assert len(boxids) == len(box), "an id repeats in events.jsonl"
recv_box = {i for i, e, _ in got if e["event"] != "verdict_changed"}
assert recv_box == boxids, (sorted(boxids - recv_box), sorted(recv_box - boxids))
verdicts = re.findall(r"^### \S+ · verdict (\S+)$", open(sys.argv[3]).read(), re.M)
pv = [e["verdict"] for _, e, _ in got if e["event"] == "verdict_changed"]
# OK first, DONE last (a loaded machine may add one between), each change pushed once.
assert pv == verdicts and pv[0] == "OK" and pv[-1] == "DONE", (pv, verdicts)
# Raised while the receiver was down, delivered after it came up: the failure among them.
first = min(t for _, _, t in got)
early = [e["event"] for _, e, _ in got if e["time_unix"] < first]
assert "stage_failed" in early, early
ev = {e["event"] for e in box}
assert {"stage_started", "stage_failed", "health_alert", "stage_done", "chain_done"} <= ev, ev
PY
	assert_eq "$(find "$W/.watchkeeper/outbox" "$S/outbox" -name '[0-9]*.json' | wc -l)" 0 "events left in an outbox"

	# The webhook URL is a secret: only in the demo's own environment, sent by
	# patrol deploy to the box's 0600 secrets file, never in the box's environment.
	assert_no_grep 'HOOK_URL' "$D/sshd/sshd_config"
	assert_eq "$(stat -c %a "$W/.watchkeeper/secrets")" 600 "the secrets file's mode"
	secret=$(json "$W/.watchkeeper/secrets" 'd["HOOK_URL"]' | sed -n 's|^http://[^ ]*/hook/\(demo-[0-9a-f]*\)$|\1|p')
	[ -n "$secret" ] || fail "no HOOK_URL in the box's secrets file"
	assert_no_grep "$secret" "$T/demo.out"
	leaks=$(grep -rlF --exclude-dir=sshd --exclude='recv.*' -- "$secret" "$D" | grep -vxF "$W/.watchkeeper/secrets" || true)
	[ -z "$leaks" ] || fail "the webhook URL is in $leaks"
	# Nothing of the demo escaped its workspace: the state dir and crontab stand-in are its own.
	assert_no_file "$D/crontab.txt"
	# Under ASan the box's onbox reports into its own log.
	assert_no_grep 'AddressSanitizer|LeakSanitizer|runtime error' "$W/.watchkeeper/onbox.out"
}

# A plain run removes its workspace and leaves no process.
demo_cleans_up_after_itself() {
	local rc=0 D
	TMPDIR=$T bash "$DEMO" "$BUILD" >"$T/demo.out" 2>&1 || rc=$?
	D=$(workspace "$T/demo.out")
	[ -n "$D" ] || fail "no workspace line in the demo's output"
	assert_eq "$rc" 0 "the demo's exit status"
	assert_grep '^   \(all of it is removed on exit: DEMO_KEEP=1 keeps the workspace\)$' "$T/demo.out"
	assert_no_file "$D"
	assert_eq "$(find "$T" -maxdepth 1 -name 'wk-demo.*' | wc -l)" 0 "workspaces left"
	assert_no_leftovers "$D"
}

# Ctrl-C while the run is under way: sshd, onbox and its stage, the
# sentinel, all stopped; the workspace removed; exit 130.
demo_interrupted_cleans_up() {
	local rc=0 D pid
	# An asynchronous command ignores SIGINT: restore it, as a terminal's Ctrl-C finds it.
	TMPDIR=$T python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
		bash "$DEMO" "$BUILD" >"$T/demo.out" 2>&1 &
	pid=$!
	echo "$pid" >>"$T/.pids"
	wait_for 60 grep -q ' demo-run OK train attempt 1 ' "$T/demo.out"
	D=$(workspace "$T/demo.out")
	[ -n "$D" ] || fail "no workspace line in the demo's output"
	# Something to stop: onbox and the stage run on the box.
	[ -n "$(leftovers "$D")" ] || fail "nothing of the demo runs"
	kill -INT "$pid"
	wait_for 30 sh -c "! kill -0 $pid 2>/dev/null"
	wait "$pid" || rc=$?
	assert_eq "$rc" 130 "exit status after SIGINT"
	assert_no_file "$D"
	assert_no_leftovers "$D"
	assert_no_grep ' DONE ' "$T/demo.out"
}

t demo_end_to_end demo_end_to_end
t demo_cleans_up_after_itself demo_cleans_up_after_itself
t demo_interrupted_cleans_up demo_interrupted_cleans_up
