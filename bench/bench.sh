#!/usr/bin/env bash
# make bench: Watchkeeper's speed and memory targets, measured side by side in
# one run, printed as a table and written to bench/results.json.  Every row
# comes from this run: a part that fails shows as FAILED (and the bench exits
# 1); bench/results.json is removed first, so an old one never passes for new.
#
#   1. done_when -> next stage: a `wait` stage sees the done line appended to
#      the training log; the time until the next stage's command starts.
#      Beside it: the seed's `until grep -q …; do sleep 150; done && next`
#      chain, run with the sleep scaled down by BENCH_SCALE and scaled back up.
#   2. onbox idle: CPU time and peak RSS while waiting BENCH_IDLE_S seconds
#      (default 60) on a quiet log; the same for the portable (static) onbox
#      of this machine's architecture, build/portable/onbox-<arch>-linux
#      (make onbox-portable), when it could be built (else a note says why).
#   3. notifications: a stage's marker -> the webhook received by a receiver
#      on loopback; `onbox notify --flush` of a 1,000-event backlog.
#   4. looking at a box (bench/patrol_bench.sh), against a throwaway sshd and
#      a live run: a full patrol tick, the bare `ssh -F cfg box true`, and the
#      seed's separate probes (bench/seed_probe.sh, one ssh per check), with
#      the connections each opens; then the same at BENCH_DELAY_MS (50) one
#      way, added per packet by an NFQUEUE in a private network namespace
#      (bench/nfqdelay.py; netem is not in this kernel) or, where that cannot
#      be, by a delaying proxy: the round trips each one waits for; and a
#      look at a warm box (a patrol mcp status after its first look, over the
#      connection its holder keeps: bench/warm_look.py), direct and delayed.
#   5. sentinel: marker landed -> sentinel exited, polling and --follow.
#   6. logs: a full read with the health checks (MB/s), then 1 KiB appended
#      to logs of 10 MB, 100 MB and 1 GB, read from the kept position: the
#      per-tick cost stays flat (bench/scan_bench.sh); health_line's own cost.
#   7. deploy: `patrol deploy` with no flags, a first deploy beside a
#      re-deploy that finds every file unchanged (bench/deploy_bench.sh,
#      BENCH_DEPLOY_N rounds, default 5).
#   8. patrol mcp through the official MCP SDK client (bench/mcp_bench.sh): a
#      `status` call to one persistent server beside `patrol --once --json` as
#      a new process (same run); a marker landing -> the `wait` tool returning.
#      Without node or the SDK, a note says why (not failed).
#   9. the fleet (bench/fleet_bench.sh): `patrol --all` over 100 runs on 10
#      boxes (one sshd, a port per box), and the connections it opens.
#  10. patrol top over 100 runs (bench/top_bench.sh): CPU per refresh of the
#      screen (every state file changed; every run's look, top.json, changed;
#      none changed) and peak RSS.
#
# Usage: bench/bench.sh [BUILD_DIR]   (relative to the repository or absolute)
# Knobs: BENCH_N (samples, default 20), BENCH_IDLE_S (60), BENCH_SCALE (100),
# BENCH_DELAY_N (delayed samples, 5), BENCH_DELAY_MS (50), BENCH_DELAY
# (auto | nfqueue | proxy), BENCH_SCAN_MB ("10 100 1024"), BENCH_HEALTH_MB (100),
# BENCH_DEPLOY_N (deploy rounds, 5).
# About 5 minutes on 2 cores with the defaults.
set -euo pipefail
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
case $build in /*) ;; *) build="$top/$build" ;; esac
onbox="$build/onbox"
for b in onbox patrol sentinel libwatchkeeper.a; do
	[ -e "$build/$b" ] || { echo "bench: no $build/$b (make all first)" >&2; exit 64; }
done
N=${BENCH_N:-20}
IDLE=${BENCH_IDLE_S:-60}
SCALE=${BENCH_SCALE:-100}
results="$top/bench/results.json"
rm -f "$results"
d=$(mktemp -d /tmp/wk-bench.XXXXXX)
: >"$d/pids"
# Everything started here is recorded in $d/pids (parts run in subshells) and
# stopped by pid: TERM first (the helper scripts clean up after themselves on
# TERM: sshd, network namespace, iptables rules), KILL after 10 s.
stop_recorded() {
	local p i live
	for p in $(cat "$d/pids"); do kill -TERM "$p" 2>/dev/null || true; done
	for i in $(seq 1 100); do
		live=""
		for p in $(cat "$d/pids"); do kill -0 "$p" 2>/dev/null && live=1; done
		[ -z "$live" ] && break
		sleep 0.1
	done
	for p in $(cat "$d/pids"); do kill -9 "$p" 2>/dev/null || true; done
	: >"$d/pids"
}
cleanup() {
	stop_recorded
	rm -rf "$d"
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
started=$(date +%s)

now_ns() { date +%s%N; }
remember() { echo "$1" >>"$d/pids"; }
# until_ok N CMD...: poll every 10 ms, at most N times; then CMD's own status.
until_ok() {
	local n=$1 i=0
	shift
	while ! "$@" 2>/dev/null && [ $i -lt "$n" ]; do sleep 0.01; i=$((i + 1)); done
	"$@"
}

# --- 1a. onbox: done line -> next stage starts ---
onbox_latency() {
	local i w p
	for i in $(seq 1 "$N"); do
		w="$d/lat$i"
		mkdir -p "$w"
		: >"$w/train.log"
		cat >"$w/wk.json" <<JSON
{ "run": "bench", "workdir": "$w", "detach": "nohup", "poll_ms": 600000,
  "chain": [
    { "stage": "train", "wait": { "log": "train.log", "pattern": "Training completed", "timeout_s": 60 } },
    { "stage": "eval", "run": "date +%s%N > t1" } ] }
JSON
		"$onbox" -c "$w/wk.json" run >"$w/out" 2>&1 &
		p=$!
		remember "$p"
		until_ok 500 grep -q stage_started "$w/.watchkeeper/events.jsonl"
		sleep 0.05
		now_ns >"$w/t0"
		echo "Training completed" >>"$w/train.log"
		wait "$p"
		echo $(( ($(cat "$w/t1") - $(cat "$w/t0")) / 1000 ))	# microseconds
	done
}

# --- 1b. the seed's sleep-poll chain, scaled ---
seed_latency() {
	local i w sl offs p
	sl=$(python3 -c "print(150/$SCALE)")
	# Where in the poll cycle each line lands: uniform, as in real life; drawn up front.
	read -ra offs < <(python3 -c "import random; print(' '.join(str(random.uniform(0, $sl)) for _ in range($N)))")
	for i in $(seq 1 "$N"); do
		w="$d/seed$i"
		mkdir -p "$w"
		: >"$w/train.log"
		( cd "$w" && n=0 && until grep -q 'Training completed' train.log || [ $n -ge 100 ]; do
			sleep "$sl"; n=$((n + 1)); done && date +%s%N >t1 ) &
		p=$!
		remember "$p"
		sleep "${offs[$((i - 1))]}"
		now_ns >"$w/t0"
		echo "Training completed" >>"$w/train.log"
		wait "$p"
		echo $(( ($(cat "$w/t1") - $(cat "$w/t0")) * SCALE / 1000 ))	# microseconds, scaled back
	done
}

# --- 2. onbox idle cost: "CPU_MS RSS_KB" (idle_cost [ONBOX_BINARY]) ---
idle_cost() {
	local bin=${1:-$onbox} w tck p before after rss
	w="$d/idle-$(basename "$bin")"
	mkdir -p "$w"
	: >"$w/train.log"
	cat >"$w/wk.json" <<JSON
{ "run": "bench-idle", "workdir": "$w", "detach": "nohup",
  "chain": [ { "stage": "train", "wait": { "log": "train.log", "pattern": "Training completed", "timeout_s": 86400 } } ] }
JSON
	"$bin" -c "$w/wk.json" run >"$w/out" 2>&1 &
	p=$!
	remember "$p"
	sleep 1	# start-up is not idle
	before=$(awk '{print $14 + $15}' "/proc/$p/stat")
	sleep "$IDLE"
	tck=$(getconf CLK_TCK)
	after=$(awk '{print $14 + $15}' "/proc/$p/stat")
	rss=$(awk '/VmHWM/ {print $2}' "/proc/$p/status")
	kill "$p"
	wait "$p" 2>/dev/null || true
	echo "$(( (after - before) * 1000 / tck )) $rss"
}

# --- 3. marker -> webhook received (loopback) ---
start_receiver() {
	local dir=$1
	rm -f "$dir/port"
	python3 "$top/tests/e2e/receiver.py" --port-file "$dir/port" --log "$dir/recv.jsonl" \
		--mode-file "$dir/mode" >/dev/null 2>&1 &
	RPID=$!
	remember "$RPID"
	until_ok 500 test -s "$dir/port"
	RPORT=$(cat "$dir/port")
}

webhook_latency() {
	local w="$d/hook" i
	mkdir -p "$w"
	start_receiver "$w"
	for i in $(seq 1 "$N"); do
		rm -rf "$w/run"
		mkdir -p "$w/run"
		cat >"$w/wk.json" <<JSON
{ "run": "bench", "workdir": "$w/run", "detach": "nohup",
  "notify": [ { "type": "generic", "url": "http://127.0.0.1:$RPORT/hook", "events": ["stage_done"] } ],
  "chain": [ { "stage": "train", "run": "true", "marker": "TRAIN_DONE" } ] }
JSON
		: >"$w/recv.jsonl"
		"$onbox" -c "$w/wk.json" run >/dev/null 2>&1
		python3 - "$w/run/.watchkeeper/markers/TRAIN_DONE" "$w/recv.jsonl" <<'PY'
import json, os, sys
m = os.stat(sys.argv[1]).st_mtime_ns / 1e9
t = [json.loads(l)["t"] for l in open(sys.argv[2])][0]
print(int((t - m) * 1e6))
PY
	done
	kill "$RPID" 2>/dev/null || true
}

# "MS RECEIVED"
backlog_flush() {
	local w="$d/backlog" t0 t1 got
	mkdir -p "$w/run/.watchkeeper/outbox/0-generic"
	start_receiver "$w"
	cat >"$w/wk.json" <<JSON
{ "run": "bench", "workdir": "$w/run", "detach": "nohup",
  "notify": [ { "type": "generic", "url": "http://127.0.0.1:$RPORT/hook" } ],
  "chain": [ { "stage": "train", "run": "true" } ] }
JSON
	python3 - "$w/run/.watchkeeper/outbox/0-generic" <<'PY'
import json, sys, time
for i in range(1, 1001):
    ev = {"id": "bench.%d" % i, "time": "2026-01-01T00:00:00Z", "run": "bench", "event": "stage_done",
          "stage": "train", "attempt": i}
    with open("%s/%012d.json" % (sys.argv[1], i), "w") as f:
        json.dump({"seq": i, "sink": "0-generic", "event": ev, "attempts": 0,
                   "queued_ms": int(time.time() * 1000), "next_try_ms": 0}, f)
PY
	t0=$(now_ns)
	"$onbox" -c "$w/wk.json" notify --flush >/dev/null 2>&1 || true
	t1=$(now_ns)
	got=$(wc -l <"$w/recv.jsonl")
	kill "$RPID" 2>/dev/null || true
	echo "$(( (t1 - t0) / 1000000 )) $got"
}

# part NAME CMD...: run CMD with errexit in force (in the background, so no
# `if` switches it off), its stdout to $d/NAME.out; a failure is reported and
# recorded (the part's rows show FAILED, the bench exits 1), and the other
# parts still run.  A target missed is a "NO" in the table, not a failure.
part() {
	local name=$1 p t0 rc=0
	shift
	t0=$(date +%s)
	"$@" >"$d/$name.out" 2>"$d/$name.err" &
	p=$!
	remember "$p"
	wait "$p" || rc=$?
	# What the part started and left running (only after a failure): stopped now.
	stop_recorded
	if [ $rc -eq 0 ] && [ -s "$d/$name.out" ]; then
		echo "  $name: $(( $(date +%s) - t0 )) s" >&2
	else
		echo "  $name: FAILED (exit $rc):" >&2
		tail -n 5 "$d/$name.out" | sed 's/^/    out| /' >&2
		tail -n 15 "$d/$name.err" | sed 's/^/    /' >&2
		: >"$d/$name.out"
	fi
}

echo "watchkeeper bench ($build, N=$N, idle ${IDLE}s, seed sleep 150s scaled 1/$SCALE)" >&2
part onbox_latency onbox_latency
part seed_latency seed_latency
part idle idle_cost
arch=$(uname -m)
[ "$arch" = arm64 ] && arch=aarch64
portable="$top/build/portable/onbox-$arch-linux"
if [ -x "$portable" ]; then
	part idle_portable idle_cost "$portable"
else
	# Not built here (an optional package is missing): said, not failed.
	echo "portable onbox-$arch-linux not built: $(cat "$portable.skip" 2>/dev/null || echo 'make onbox-portable failed')" \
		>"$d/idle_portable.why"
fi
part webhook webhook_latency
part flush backlog_flush
part patrol bash "$top/bench/patrol_bench.sh" "$build" "$N"
part sentinel bash "$top/bench/sentinel_bench.sh" "$build" "$N"
part scan bash "$top/bench/scan_bench.sh" "$build"
part health bash "$top/bench/health_bench.sh" "$build" "${BENCH_HEALTH_MB:-100}"
part deploy bash "$top/bench/deploy_bench.sh" "$build" "${BENCH_DEPLOY_N:-5}"
part mcp bash "$top/bench/mcp_bench.sh" "$build" "$N"
part fleet bash "$top/bench/fleet_bench.sh" "$build"
part top bash "$top/bench/top_bench.sh" "$build"

git_sha=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
python3 - "$results" "$d" "$N" "$IDLE" "$SCALE" "$build" "$git_sha" "$(( $(date +%s) - started ))" <<'PY'
import json, os, statistics, sys, time

out, d, n, idle, scale, build, sha, elapsed = sys.argv[1:]


def lines(name):
    """The part's stdout, [] when it failed."""
    try:
        return open(os.path.join(d, name + ".out")).read().split("\n")
    except OSError:
        return []


def last(name):
    got = [l for l in lines(name) if l.strip()]
    return got[-1] if got else ""


def ms(values):
    return [int(x) / 1000 for x in values]


def p90(v):
    s = sorted(v)
    return s[max(0, -(-len(s) * 9 // 10) - 1)]


rows, notes, failed = [], [], []


def row(name, value, target="", ok=None):
    rows.append({"measure": name, "value": value, "target": target, "ok": ok})


def missing(part, names):
    failed.append(part)
    for name in names:
        row(name, None, "", False)


onbox = ms(x for x in lines("onbox_latency") if x.strip())
seed = ms(x for x in lines("seed_latency") if x.strip())
if onbox:
    m = statistics.median(onbox)
    row("done_when -> next stage, onbox (median ms)", m, "< 50 ms", m < 50)
    row("done_when -> next stage, onbox (p90 ms)", p90(onbox))
else:
    missing("onbox_latency", ["done_when -> next stage, onbox (median ms)"])
if seed:
    row("done_when -> next stage, seed sleep-150 chain (median ms)", statistics.median(seed), "(baseline)")
else:
    missing("seed_latency", ["done_when -> next stage, seed sleep-150 chain (median ms)"])

idle_v = last("idle").split()
if len(idle_v) == 2:
    cpu, rss = int(idle_v[0]), int(idle_v[1])
    row(f"onbox CPU while idle {idle}s (ms)", cpu, "< 20 ms", cpu < 20)
    row("onbox peak RSS while idle (KiB)", rss, "< 8192 KiB", rss < 8192)
else:
    missing("idle", [f"onbox CPU while idle {idle}s (ms)", "onbox peak RSS while idle (KiB)"])
idle_p = last("idle_portable").split()
if len(idle_p) == 2:
    cpu, rss = int(idle_p[0]), int(idle_p[1])
    row(f"portable (static) onbox CPU while idle {idle}s (ms)", cpu, "< 20 ms", cpu < 20)
    row("portable (static) onbox peak RSS while idle (KiB)", rss, "< 8192 KiB", rss < 8192)
elif os.path.exists(os.path.join(d, "idle_portable.why")):
    notes.append(open(os.path.join(d, "idle_portable.why")).read().strip())
else:
    missing("idle_portable", [f"portable (static) onbox CPU while idle {idle}s (ms)",
                              "portable (static) onbox peak RSS while idle (KiB)"])

hook = ms(x for x in lines("webhook") if x.strip())
if hook:
    m = statistics.median(hook)
    row("marker -> webhook received, loopback (median ms)", m, "< 100 ms", m < 100)
else:
    missing("webhook", ["marker -> webhook received, loopback (median ms)"])
flush = last("flush").split()
if len(flush) == 2:
    fms, got = int(flush[0]), int(flush[1])
    row(f"outbox flush of 1,000 events (ms, {got} received)", fms, "all 1000", got == 1000)
    row("outbox flush, per event (ms)", fms / 1000)
else:
    missing("flush", ["outbox flush of 1,000 events (ms)"])

# Looking at a box: patrol's tick, bare ssh, the seed's separate probes (bench/patrol_bench.sh).
try:
    pb = json.loads(last("patrol"))
except ValueError:
    pb = None
who = [("patrol", "patrol tick"), ("bare", "ssh true"), ("seed", "seed probes")]
long = {"patrol": "patrol tick, full", "bare": "ssh -F cfg box true, bare", "seed": "seed probes, one ssh per check"}
if pb:
    delay, method = pb["delay_ms"], pb["delay_method"]
    med = {k: statistics.median(ms(pb[k + "_direct_us"])) for k, _ in who}
    dmed = {k: statistics.median(ms(pb[k + "_delayed_us"])) for k, _ in who}
    for k, _ in who:
        target, ok = {"patrol": ("< ssh true", med["patrol"] < med["bare"])}.get(k, ("(baseline)", None))
        row(f"{long[k]} (median ms)", med[k], target, ok)
        row(f"{long[k]} (mean ms)", statistics.mean(ms(pb[k + "_direct_us"])))
    want = {"patrol": 1, "bare": 1, "seed": pb["seed_probes"]}
    for k, label in who:
        conns = pb[k + "_direct_conns"] + pb[k + "_delayed_conns"]
        row(f"ssh connections per look: {label}", statistics.mean(conns), f"= {want[k]}",
            all(c == want[k] for c in conns))
    where = "NFQUEUE" if method == "nfqueue" else "proxy"
    for k, label in who:
        row(f"round trips per look: {label} ({where}, {delay} ms)", round((dmed[k] - med[k]) / (2 * delay), 1))
    for k, label in who:
        row(f"{label} at {delay} ms one-way ({where}, median ms)", dmed[k])
    # A look at a warm box (patrol mcp's status after its first look) and the cold tick, in round trips.
    if "warm_direct_us" in pb:
        wmed = statistics.median(ms(pb["warm_direct_us"]))
        wdmed = statistics.median(ms(pb["warm_delayed_us"]))
        row("warm look: patrol mcp status, warm box (median ms)", wmed)
        row(f"warm look at {delay} ms one-way ({where}, median ms)", wdmed)
        wrt = round((wdmed - wmed) / (2 * delay), 1)
        row(f"round trips per look: warm box ({where}, {delay} ms)", wrt, "<= 2", wrt <= 2)
        row("ssh connections opened by warm looks", pb["warm_direct_conns"] + pb["warm_delayed_conns"],
            "= 0", pb["warm_direct_conns"] + pb["warm_delayed_conns"] == 0)
    crt = round((dmed["patrol"] - med["patrol"]) / (2 * delay), 1)
    row(f"round trips per look: cold tick ({where}, {delay} ms)", crt, "<= 10", crt <= 10)
    ndelayed = len(pb["patrol_delayed_us"])
    if method == "nfqueue":
        notes.append(f"{delay} ms one-way: every packet of the sshd's port held {delay} ms by an iptables NFQUEUE "
                     f"(bench/nfqdelay.py) in a private network namespace; tc netem is not built into this kernel. "
                     f"{ndelayed} delayed samples each.")
    else:
        notes.append(f"{delay} ms one-way: a userspace proxy delaying each chunk (bench/delayproxy.py), because "
                     f"{pb['delay_why']}; the TCP handshake and bare ACKs end at the proxy undelayed and chunks "
                     f"coalesce, so it undercounts round trips. {ndelayed} delayed samples each.")
    notes.append(f"seed probes: bench/seed_probe.sh, {pb['seed_probes']} checks as the seed's document writes them "
                 "(alive, markers, progress grep, crash scan, GPU+cgroup memory, df -h/-i), one ssh each.")
else:
    missing("patrol", ["patrol tick, full (median ms)"])

# sentinel: marker landed -> sentinel exited (bench/sentinel_bench.sh), polling every 1 s and --follow.
sp = last("sentinel").split("|")
if len(sp) == 2 and sp[0].strip() and sp[1].strip():
    s_poll, s_follow = ms(sp[0].split()), ms(sp[1].split())
    row("sentinel: marker -> exit, polling every 1 s (mean ms)", statistics.mean(s_poll))
    row("sentinel: marker -> exit, polling every 1 s (max ms)", max(s_poll), "< 1500 ms", max(s_poll) < 1500)
    row("sentinel: marker -> exit, --follow (mean ms)", statistics.mean(s_follow), "< 1000 ms", statistics.mean(s_follow) < 1000)
    row("sentinel: marker -> exit, --follow (max ms)", max(s_follow), "< 1000 ms", max(s_follow) < 1000)
else:
    missing("sentinel", ["sentinel: marker -> exit (ms)"])

# Log reading as the log grows: the per-tick cost must not grow with it (bench/scan_bench.sh).
scan = [part.split(":") for part in last("scan").split()]
if scan and all(len(s) == 3 for s in scan):
    ticks = [float(t) for _, _, t in scan]
    for mb, mbps, tick in scan:
        row(f"log {mb} MB: full read + health (MB/s)", float(mbps))
    for mb, mbps, tick in scan:
        row(f"log {mb} MB: +1 KiB read from kept position (us)", float(tick), "flat", max(ticks) < 20 * min(ticks) + 50)
else:
    missing("scan", ["log: full read and +1 KiB read"])
health = last("health").split("|")
if len(health) == 3:
    row("health_line: lines/s (progress, loss, throughput, W&B)", float(health[0]))
    row("health_line: MB/s", float(health[1]))
else:
    missing("health", ["health_line: lines/s"])
try:
    dep = json.loads(last("deploy"))
except ValueError:
    dep = None
if dep:
    f_ms, r_ms = ms(dep["first_us"]), ms(dep["redeploy_us"])
    row(f"patrol deploy, first ({dep['onbox']} onbox {dep['onbox_bytes'] // 1024} KiB sent; median ms)",
        statistics.median(f_ms))
    row("patrol deploy, again (all unchanged, nothing sent; median ms)", statistics.median(r_ms))
else:
    missing("deploy", ["patrol deploy, first (median ms)"])

# patrol mcp through the SDK client (bench/mcp_bench.sh): status per call, wait's reaction.
try:
    mb = json.loads(last("mcp"))
except ValueError:
    mb = None
if mb and "skipped" in mb:
    notes.append("patrol mcp not measured: " + mb["skipped"])
    mb = None
elif mb:
    m_st, c_st, m_w = ms(mb["mcp_status_us"]), ms(mb["cli_status_us"]), ms(mb["wait_us"])
    row("status through patrol mcp, persistent server (median ms)", statistics.median(m_st))
    row("patrol --once --json, a new process (median ms)", statistics.median(c_st), "(baseline)")
    row("marker -> MCP wait returned (mean ms)", statistics.mean(m_w), "< 1000 ms", statistics.mean(m_w) < 1000)
    row("marker -> MCP wait returned (max ms)", max(m_w), "< 1000 ms", max(m_w) < 1000)
else:
    missing("mcp", ["status through patrol mcp (median ms)", "marker -> MCP wait returned (ms)"])

# The fleet (bench/fleet_bench.sh): patrol --all over 100 runs on 10 boxes.
try:
    fb = json.loads(last("fleet"))
except ValueError:
    fb = None
if fb:
    name = f"patrol --all, {fb['runs']} runs on {fb['boxes']} boxes"
    row(name + " (median s)", statistics.median(fb["all_s"]), "< 10 s", statistics.median(fb["all_s"]) < 10)
    row(name + ": ssh connections", max(fb["connections"]), "(one per box: warm)",
        max(fb["connections"]) <= fb["boxes"])
else:
    missing("fleet", ["patrol --all, 100 runs on 10 boxes (median s)"])
# patrol top over 100 runs (bench/top_bench.sh): the screen's process per refresh.
try:
    tb = json.loads(last("top"))
except ValueError:
    tb = None
if tb:
    runs = tb["runs"]
    c = tb["cpu_ms_per_frame_all_changed"]
    row(f"patrol top, {runs} runs: CPU per refresh, every state changed (ms)", c, "< 20 ms", c < 20)
    lk = tb["cpu_ms_per_frame_all_looked"]
    row(f"patrol top, {runs} runs: CPU per refresh, every run looked at (ms)", lk, "< 20 ms", lk < 20)
    row(f"patrol top, {runs} runs: CPU per refresh, nothing changed (ms)",
        tb["cpu_ms_per_frame_unchanged"], "< 20 ms", tb["cpu_ms_per_frame_unchanged"] < 20)
    r = tb["maxrss_kb"]
    row(f"patrol top, {runs} runs: peak RSS (KiB)", r, "< 16384 KiB", r < 16384)
    notes.append("patrol top: the screen's own process (state read, rows, ncurses into /dev/null), "
                 f"{tb['frames']} frames each; its refreshes are looks in children (the tick's probe, "
                 "measured above).")
else:
    missing("top", ["patrol top: CPU per refresh (ms)", "patrol top: peak RSS (KiB)"])

width = max(len(r["measure"]) for r in rows)
print(f"{'measure':{width}} {'value':>12}  {'target':12} ok")
for r in rows:
    v = "FAILED" if r["value"] is None else f"{r['value']:12.1f}"
    ok = "" if r["ok"] is None else ("yes" if r["ok"] else "NO")
    print(f"{r['measure']:{width}} {v:>12}  {r['target']:12} {ok}")
for note in notes:
    print("note: " + note)
missed = [r["measure"] for r in rows if r["ok"] is False and r["value"] is not None]
if missed:
    print("targets missed: " + "; ".join(missed))
if failed:
    print("FAILED parts: " + " ".join(failed))
meta = {"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "git": sha, "build": build,
        "n": int(n), "idle_s": int(idle), "seed_scale": int(scale), "nproc": os.cpu_count(),
        "elapsed_s": int(elapsed), "failed": failed, "notes": notes}
samples = {"onbox_ms": onbox, "seed_chain_ms": seed, "webhook_ms": hook}
if dep:
    samples.update({"deploy_first_us": dep["first_us"], "deploy_again_us": dep["redeploy_us"]})
if len(sp) == 2 and sp[0].strip() and sp[1].strip():
    samples.update({"sentinel_poll_ms": s_poll, "sentinel_follow_ms": s_follow})
if pb:
    samples.update({k: v for k, v in pb.items() if k.endswith("_us") or k.endswith("_conns")})
if mb:
    samples.update(mb)
if tb:
    samples.update({"top": tb})
with open(out + ".tmp", "w") as f:
    json.dump({"run": meta, "rows": rows, "samples": samples}, f, indent=2)
os.rename(out + ".tmp", out)
print(f"written: {out} ({elapsed} s)")
sys.exit(1 if failed else 0)
PY
