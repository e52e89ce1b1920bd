#!/usr/bin/env bash
# make demo: the four layers together on this machine, with no account
# anywhere.
#
#   bash examples/demo/demo.sh [BUILD_DIR]   (relative to the repo top, or absolute)
#
# A throwaway sshd on 127.0.0.1 (its own host and client keys, its own
# known_hosts and ssh_config) plays the rented box.  `patrol deploy` puts the
# sample run on it (examples/demo/watchkeeper.json, adapted: box, workdir,
# pacing); onbox runs a fake training (progress, checkpoints, a W&B link)
# that hits one NCCL timeout and is relaunched from the newest complete
# checkpoint, then eval, then the results CSV; patrol ticks print their
# one-line reports; a sentinel waits for EVAL_DONE; every event goes to a
# local webhook receiver (tests/e2e/receiver.py) that is down until after the
# crash, and gets everything exactly once.  HANDBOOK.md and LOGBOOK.md end up
# in the run's state directory, under the demo's own XDG_STATE_HOME.
#
# Nothing outside the workspace is touched: not ~/.ssh, not /etc/ssh, not the
# crontab (a stand-in crontab is first on PATH), not ~/.local/state.
# Everything started is stopped by pid on exit, Ctrl-C included; the
# workspace is removed unless DEMO_KEEP=1.  Exit 0 when every step held.
#
# Environment: the workspace is made in $TMPDIR (default /tmp); DEMO_KEEP=1
# keeps it; DEMO_TICK_S (default 2) is the time between patrol ticks.
set -eu
build=${1:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
case $build in /*) bin=$build ;; *) bin=$top/$build ;; esac
here=$top/examples/demo
tick_s=${DEMO_TICK_S:-2}
SSHD_BIN=${SSHD_BIN:-/usr/sbin/sshd}

if [ -t 1 ]; then
	say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
	say() { printf '\n== %s\n' "$*"; }
fi
note() { printf '   %s\n' "$*"; }
# A failed step: say it, with the end of onbox's log on the box when there is one.
die() {
	printf 'demo: %s\n' "$*" >&2
	if [ -n "${W:-}" ] && [ -f "$W/.watchkeeper/onbox.out" ]; then
		echo "demo: the end of $W/.watchkeeper/onbox.out:" >&2
		tail -n 15 "$W/.watchkeeper/onbox.out" | sed 's/^/  | /' >&2
	fi
	exit 1
}

for b in onbox patrol sentinel handbook; do
	[ -x "$bin/$b" ] || die "$bin/$b is not built (make all BUILD=$build)"
done
[ -x "$bin/porthold" ] || die "$bin/porthold is not built (make $build/porthold)"
for c in "$SSHD_BIN" ssh-keygen ssh python3 ss; do
	command -v "$c" >/dev/null 2>&1 || die "$c is missing (scripts/install-deps.sh installs it)"
done

D=$(mktemp -d "${TMPDIR:-/tmp}/wk-demo.XXXXXX")
SSHD_PID=""
RECV_PID=""
SENT_PID=""
HOLD_PID=""
TAG="wk-demo-$$-$RANDOM$RANDOM"
W=$D/box/demo-run		# the run's workdir on "the box"
S=$D/state/watchkeeper/demo-run	# patrol's state directory for the run
CFG=$D/watchkeeper.json

# ---- the box: a throwaway sshd ----

# wait_until SECONDS COMMAND...: poll every 50 ms, bounded.
wait_until() {
	local n=$(($1 * 20))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}

# A TCP port on 127.0.0.1 with no listener right now.
free_port() {
	local p
	for _ in $(seq 1 50); do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
		if [ -z "$(ss -ltnH "sport = :$p" 2>/dev/null)" ]; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }
sshd_settled() { [ -s "$D/sshd/sshd.pid" ] || grep -qE 'Cannot bind|Bind to port .* failed' "$D/sshd/sshd.log"; }

# sshd_config: every session gets the tag (cleanup finds what it started,
# even re-parented to init).  HOOK_URL, the webhook's address, is NOT in the
# box's environment: it is only in ours, and `patrol deploy` sends it to the
# box's 0600 secrets file, as it does for a real box.
box_start() {
	local d=$D/sshd port=""
	mkdir -p "$d/bin"
	[ "$(id -u)" != 0 ] || mkdir -p /run/sshd
	ssh-keygen -q -N '' -t ed25519 -C wk-demo-host -f "$d/host_ed25519"
	ssh-keygen -q -N '' -t ed25519 -C wk-demo-client -f "$d/id_ed25519"
	cp "$d/id_ed25519.pub" "$d/authorized_keys"
	for _ in 1 2 3 4 5; do
		port=$(free_port) || break
		cat >"$d/sshd_config" <<EOF
# written by examples/demo/demo.sh
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
Subsystem sftp internal-sftp
SetEnv PATH=$d/bin:/usr/local/bin:/usr/bin:/bin SHLVL=1 WK_DEMO_TAG=$TAG
EOF
		rm -f "$d/sshd.pid"
		: >"$d/sshd.log"
		"$SSHD_BIN" -f "$d/sshd_config" -E "$d/sshd.log" || continue
		wait_until 10 sshd_settled || break
		if [ -s "$d/sshd.pid" ]; then
			SSHD_PID=$(cat "$d/sshd.pid")
			break
		fi
	done
	[ -n "$SSHD_PID" ] || { cat "$d/sshd.log" >&2; die "sshd did not start"; }
	wait_until 10 port_open "$port" || die "sshd on port $port does not accept connections"
	echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$d/host_ed25519.pub")" >"$d/known_hosts"
	cat >"$d/ssh_config" <<EOF
Host box
	HostName 127.0.0.1
	Port $port
	User $(id -un)
	IdentityFile $d/id_ed25519
	IdentitiesOnly yes
	UserKnownHostsFile $d/known_hosts
	StrictHostKeyChecking yes
	BatchMode yes
EOF
	BOX_PORT=$port
}

# Pids whose environment carries this demo's session tag.
tagged() {
	local p out=""
	for p in /proc/[0-9]*; do
		grep -qxzF "WK_DEMO_TAG=$TAG" "$p/environ" 2>/dev/null && out="$out ${p#/proc/}"
	done
	echo $out
}

# Pids below $1 in the process tree.
descendants() {
	local f line rest pid ppid queue out=""
	local -A kids=()
	for f in /proc/[0-9]*/stat; do
		read -r line 2>/dev/null <"$f" || continue
		pid=${line%% *}
		rest=${line##*) }
		ppid=${rest#* }
		ppid=${ppid%% *}
		kids[$ppid]+=" $pid"
	done
	queue=$1
	while [ -n "$queue" ]; do
		set -- $queue
		pid=$1
		shift
		queue="$* ${kids[$pid]:-}"
		queue=${queue# }
		out="$out $pid"
	done
	echo $out
}

cleanup() {
	local rc=$? pids
	trap - EXIT INT TERM
	set +e
	for pids in "$SENT_PID" "$RECV_PID" "$HOLD_PID"; do
		[ -n "$pids" ] && kill "$pids" 2>/dev/null && wait "$pids" 2>/dev/null
	done
	# onbox on "the box" by the pid its heartbeat holds, sshd and what is
	# still below it, then whatever an ssh session started and init adopted
	# (a stage, a detached onbox): every process carrying the demo's tag.
	if [ -f "$W/.watchkeeper/state.json" ]; then
		pids=$(sed -n 's/.*"onbox_pid":[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$W/.watchkeeper/state.json")
		[ -n "$pids" ] && [ "$pids" != 0 ] && kill -9 "$pids" 2>/dev/null
	fi
	if [ -n "$SSHD_PID" ] && kill -0 "$SSHD_PID" 2>/dev/null; then
		kill -STOP "$SSHD_PID" 2>/dev/null
		# shellcheck disable=SC2046
		kill -9 $(descendants "$SSHD_PID") 2>/dev/null
	fi
	for _ in 1 2 3 4 5; do
		pids=$(tagged)
		[ -n "$pids" ] || break
		kill -9 $pids 2>/dev/null
		sleep 0.1
	done
	if [ "${DEMO_KEEP:-0}" = 1 ]; then
		printf '\nkept the workspace: %s (remove with: rm -rf %s)\n' "$D" "$D"
	else
		rm -rf "$D"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- 1. the box and the (not yet running) webhook receiver ----

say "1. the box: a throwaway sshd on 127.0.0.1 (own host key, own client key)"
# The receiver's port, taken now and held until the receiver binds it
# ($bin/porthold hold, tests/unit/porthold.c): bound with SO_REUSEADDR and never listening, so
# a webhook sent meanwhile is refused, and no other process (an outgoing
# connection's port, another bind) can take it in the half minute before the
# receiver, which binds with SO_REUSEADDR too, takes it over.
"$bin/porthold" hold "$D/recv.hold" >"$D/hold.out" 2>&1 &
HOLD_PID=$!
wait_until 10 test -s "$D/recv.hold" || die "no port for the receiver: $(cat "$D/hold.out")"
RECV_PORT=$(cat "$D/recv.hold")
HOOK_URL="http://127.0.0.1:$RECV_PORT/hook/demo-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
export HOOK_URL
box_start
note "workspace: $D"
note "sshd pid $SSHD_PID on 127.0.0.1:$BOX_PORT; ssh_config $D/sshd/ssh_config (Host box)"
note "webhook receiver: 127.0.0.1:$RECV_PORT, DOWN for now (nothing listens there yet)"

# patrol, sentinel and handbook run here, "the owner's machine": their state
# under the workspace, a stand-in crontab first on PATH, no ssh agent.
mkdir -p "$D/fakebin" "$D/state"
cat >"$D/fakebin/crontab" <<SH
#!/bin/sh
case "\$1" in
-l) [ -f "$D/crontab.txt" ] || { echo "no crontab for \$(id -un)" >&2; exit 1; }; cat "$D/crontab.txt" ;;
-) cat >"$D/crontab.txt" ;;
esac
SH
chmod +x "$D/fakebin/crontab"
export XDG_STATE_HOME=$D/state PATH=$D/fakebin:$PATH
unset SSH_AUTH_SOCK WATCHKEEPER_CONFIG

# ---- 2. the run's config ----

say "2. the run: examples/demo/watchkeeper.json, adapted for this box"
sed -e "s|\"box\": { \"host\": \"gpu1\" },|\"box\": { \"host\": \"box\", \"ssh_config\": \"$D/sshd/ssh_config\", \"connect_timeout_s\": 5 },|" \
	-e "s|\"workdir\": \"/root/runs/demo-run\",|\"workdir\": \"$W\",|" \
	-e "s|\"heartbeat_s\": 5,|\"heartbeat_s\": 1, \"outbox\": { \"retry_base_ms\": 250, \"retry_max_s\": 1 },|" \
	"$here/watchkeeper.json" >"$CFG"
for want in "\"host\": \"box\"" "\"workdir\": \"$W\"" '"retry_max_s": 1'; do
	grep -qF "$want" "$CFG" || die "could not adapt $here/watchkeeper.json ($want)"
done
diff "$here/watchkeeper.json" "$CFG" | sed -n 's/^> /   changed: /p' || true
grep -E '"(stage|checkpoints|restart|notify|patrol)"' "$CFG" | sed 's/^ */   /'
# The code is on the box already (on a real box: your clone).  The demo's
# fault: one NCCL timeout at step 30, while ckpt/step_30 is half written.
mkdir -p "$W"
cp "$here/fake-train.sh" "$here/fake-eval.sh" "$W/"
echo 30 >"$W/crash-once-at"
note "on the box: $W holds fake-train.sh, fake-eval.sh and crash-once-at (one NCCL timeout at step 30)"

# ---- 3. deploy ----

# No flags: patrol asks the box `uname -m` and uploads the portable onbox for
# it (make onbox-portable; this build's own, else the plain build's: an ASan
# patrol has none beside it).  Without one, the demo says so and gives this
# build's onbox with --onbox, which runs here because the box is this machine.
arch=$(uname -m)
[ "$arch" != arm64 ] || arch=aarch64
deploy_flags=()
if [ ! -x "$bin/portable/onbox-$arch-linux" ]; then
	if [ -x "$top/build/portable/onbox-$arch-linux" ]; then
		export WATCHKEEPER_ONBOX_DIR=$top/build/portable
	else
		note "no portable onbox for $arch ($(cat "$top/build/portable/onbox-$arch-linux.skip" 2>/dev/null ||
			echo 'make onbox-portable')): deploying this build's onbox with --onbox"
		deploy_flags=(--onbox "$bin/onbox")
	fi
fi
say "3. patrol deploy (no flags): the portable onbox + config + secrets to the box over ssh, then onbox start (nohup)"
"$bin/patrol" -c "$CFG" deploy "${deploy_flags[@]}" 2>&1 | sed 's/^/   /'
[ "${PIPESTATUS[0]}" = 0 ] || die "patrol deploy failed"

# ---- 4. the sentinel ----

say "4. sentinel --marker EVAL_DONE --follow, in the background"
"$bin/sentinel" -c "$CFG" --marker EVAL_DONE --follow --max-ticks 30 >"$D/sentinel.out" 2>"$D/sentinel.err" &
SENT_PID=$!
note "pid $SENT_PID: onbox on the box waits with inotify; it says when EVAL_DONE lands"

# ---- 5. patrol ticks ----

# The crash as onbox told it on the box (its log, read over ssh), and the
# command of the relaunch as LOGBOOK.md has it.
show_crash() {
	ssh -F "$D/sshd/ssh_config" box "tail -n 200 $W/.watchkeeper/onbox.out" >"$D/onbox.tail" 2>&1 || true
	python3 - "$D/onbox.tail" "$S/LOGBOOK.md" <<'PY'
import re, sys
cut = lambda s, n=150: s if len(s) <= n else s[:n - 3] + "..."
for l in open(sys.argv[1], errors="replace"):
    l = l.rstrip("\n")
    if re.search(r" train FAILED \(", l):
        parts = l.split(" · ")
        print("   " + parts[0])
        for p in parts[1:]:
            print("      " + cut(p))
    elif "resumes from checkpoint" in l:
        print("   " + l)
for e in re.split(r"\n(?=### )", open(sys.argv[2]).read()):
    if e.startswith("### ") and "relaunch train" in e.splitlines()[0]:
        cmd = [x for x in e.splitlines()[1:] if x.strip() and not x.startswith("```")]
        print("   LOGBOOK.md: " + e.splitlines()[0].split(" · ", 1)[1] + ": " + cmd[-1])
PY
	note "(ckpt/step_30 was half written, without metadata.json: not complete, not used)"
}

# Say the sentinel's outcome once it has exited.
sent_rc=""
sentinel_check() {
	[ -n "$SENT_PID" ] || return 0
	kill -0 "$SENT_PID" 2>/dev/null && return 0
	sent_rc=0
	wait "$SENT_PID" || sent_rc=$?
	SENT_PID=""
	sed 's/^/   /' "$D/sentinel.out"
	note "(the sentinel exited $sent_rc)"
}

say "5. patrol --once every ${tick_s}s: one ssh connection, one probe, one line"
crash_shown=0 done_seen=0 recv_up=0
for n in $(seq 1 60); do
	rc=0
	"$bin/patrol" -c "$CFG" --once >"$D/tick.out" 2>"$D/tick.err" || rc=$?
	sed 's/^/   /' "$D/tick.out" "$D/tick.err"
	if [ "$crash_shown" = 0 ] && grep -q ' attempt [2-9]' "$D/tick.out"; then
		crash_shown=1
		say "   the crash: triaged on the box, relaunched at once from the newest complete checkpoint"
		show_crash
		say "   the webhook receiver comes up now"
		python3 "$top/tests/e2e/receiver.py" --port "$RECV_PORT" --port-file "$D/recv.port" \
			--log "$D/recv.jsonl" --mode-file "$D/recv.mode" >"$D/recv.out" 2>&1 &
		RECV_PID=$!
		wait_until 10 test -s "$D/recv.port" || die "the receiver did not start: $(cat "$D/recv.out")"
		recv_up=$(date +%s)
		note "pid $RECV_PID on 127.0.0.1:$RECV_PORT; onbox and patrol retry what they kept"
	fi
	sentinel_check
	if [ "$rc" = 0 ] && grep -q ' demo-run DONE ' "$D/tick.out"; then
		done_seen=1
		break
	fi
	sleep "$tick_s"
done
[ "$done_seen" = 1 ] || die "the run did not finish in time"
[ "$crash_shown" = 1 ] || die "no relaunch was seen"
wait_until 20 sh -c "! kill -0 $SENT_PID 2>/dev/null" || die "the sentinel did not see EVAL_DONE"
sentinel_check
[ "$sent_rc" = 0 ] || die "the sentinel exited $sent_rc"

# ---- 6. webhooks ----

say "6. webhooks: the receiver was down until after the crash; was anything lost?"
# Queued events: files <seq>.json in each sink's directory of an outbox.
pending() { find "$@" -name '[0-9]*.json' 2>/dev/null | wc -l; }
# onbox delivers from the box while it runs, patrol from here on its ticks:
# anything still queued is flushed by hand, as one would after an outage.
if ! wait_until 10 test "$(pending "$W/.watchkeeper/outbox")" = 0; then
	note "the box's outbox still holds events: onbox notify --flush (over ssh)"
	ssh -F "$D/sshd/ssh_config" box "cd $W && .watchkeeper/bin/onbox -c .watchkeeper/watchkeeper.json notify --flush" | sed 's/^/   /'
fi
python3 - "$D/recv.jsonl" "$W/.watchkeeper/events.jsonl" "$S/LOGBOOK.md" "$recv_up" "$(pending "$W/.watchkeeper/outbox" "$S/outbox")" <<'PY' || die "webhook deliveries do not add up"
import collections, json, re, sys
recv, events, logbook, up, left = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
got = []
for l in open(recv):
    x = json.loads(l)
    if x["status"] in (200, 204):
        h = {k.lower(): v for k, v in x["headers"].items()}
        got.append((h.get("x-watchkeeper-event-id"), json.loads(x["body"])))
count = collections.Counter(i for i, _ in got)
box = [json.loads(l) for l in open(events)]
verdicts = re.findall(r"^### \S+ · verdict (\S+)$", open(logbook).read(), re.M)
def name(e):
    s = e["event"]
    if e["event"] == "verdict_changed":
        return s + " " + e["verdict"]
    if "stage" in e:
        s += " %s#%d" % (e["stage"], e["attempt"])
    if "class" in e:
        s += " (%s)" % e["class"]
    if "kind" in e:
        s += " (%s)" % e["kind"]
    return s
from_box = [e for _, e in got if e["event"] != "verdict_changed"]
from_patrol = [e for _, e in got if e["event"] == "verdict_changed"]
early = sum(1 for _, e in got if e.get("time_unix", 0) < up)
print("   received %d events, %d of them raised while it was down:" % (len(got), early))
line = "     onbox: "
for i, e in enumerate(from_box):
    item = name(e) + (", " if i + 1 < len(from_box) else "")
    if len(line) + len(item) > 100:
        print(line.rstrip())
        line = "            "
    line += item
print(line)
print("     patrol: " + ", ".join(name(e) for e in from_patrol))
dups = [i for i, n in count.items() if n > 1]
missing = [e["id"] for e in box if e["id"] not in count]
ok = not dups and not missing and len(from_patrol) == len(verdicts) and left == 0
print("   each exactly once (by X-Watchkeeper-Event-Id): %s; every event of the box's events.jsonl "
      "(%d of %d) and every verdict change (%d of %d); %d left in the outboxes"
      % ("yes" if not dups else "NO, twice: " + ", ".join(dups), len(box) - len(missing), len(box),
         len(from_patrol), len(verdicts), left))
sys.exit(0 if ok else 1)
PY

# ---- 7. the owner's files ----

say "7. for whoever takes over: HANDBOOK.md and LOGBOOK.md in $S"
rc=0
"$bin/handbook" -c "$CFG" --check >"$D/check.out" 2>&1 || rc=$?
note "handbook --check: exit $rc ($(tail -n 1 "$D/check.out"))"
[ "$rc" = 0 ] || die "handbook --check found drift: $(cat "$D/check.out")"
note "HANDBOOK.md, first command on reconnect and current status:"
sed -n '/^## First command on reconnect/,/^Then/p' "$S/HANDBOOK.md" | grep -F -- '--once' | sed 's/^/     /'
sed -n '/^## Current status/,/^## The chain/p' "$S/HANDBOOK.md" |
	grep -E '^- (Last verdict|Attempts|W&B|Newest complete checkpoint):' | sed 's/^/     /'
note "LOGBOOK.md, its entries (append-only, each with its evidence):"
sed -n 's/^### /     /p' "$S/LOGBOOK.md"
note "the box's own view, onbox status over ssh:"
ssh -F "$D/sshd/ssh_config" box "cd $W && .watchkeeper/bin/onbox -c .watchkeeper/watchkeeper.json status" |
	sed -n '/^events/q; /^\(onbox\|checkpoints\|notify\|  \)/s/^/     /p'
# The webhook's address (a secret) is in no file, report or log the run wrote,
# but the box's own 0600 secrets file, where deploy put it.
secret=${HOOK_URL##*/}
leaks=$(grep -rlF --exclude-dir=sshd --exclude="recv.*" -- "$secret" "$D" 2>/dev/null |
	grep -vxF "$W/.watchkeeper/secrets" || true)
[ -z "$leaks" ] || die "the webhook URL leaked into: $leaks"
[ "$(stat -c %a "$W/.watchkeeper/secrets")" = 600 ] || die "the box's secrets file is not mode 0600"
note "the webhook URL is in none of the $(find "$D/state" "$W" "$D"/*.out -type f | wc -l) files written but the box's 0600 secrets file"

# ---- 8. the end ----

say "8. done in ${SECONDS}s"
note "HANDBOOK.md: $S/HANDBOOK.md"
note "LOGBOOK.md:  $S/LOGBOOK.md"
note "results ($W/results/metrics.csv):"
sed 's/^/     /' "$W/results/metrics.csv"
[ "${DEMO_KEEP:-0}" = 1 ] || note "(all of it is removed on exit: DEMO_KEEP=1 keeps the workspace)"
