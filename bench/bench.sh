#!/usr/bin/env bash
# make bench: Watchkeeper's speed and memory targets, measured side by side in
# one run, printed as a table and written to bench/results.json.
#
#   1. done_when -> next stage: a `wait` stage sees the done line appended to
#      the training log; the time until the next stage's command starts.
#      Beside it: the seed's `until grep -q …; do sleep 150; done && next`
#      chain, run with the sleep scaled down by BENCH_SCALE and scaled back up.
#   2. onbox idle: CPU time and peak RSS while waiting BENCH_IDLE_S seconds
#      (default 60) on a quiet log.
#   3. notifications: a stage's marker -> the webhook received by a receiver
#      on loopback; `onbox notify --flush` of a 1,000-event backlog.
#   4. patrol: a full tick (connect, auth, probe, decide, report) against the
#      bare `ssh -F cfg box true` on the same throwaway sshd, and the tick's
#      round trips, measured through a proxy that delays each way.
#   5. sentinel: marker landed -> sentinel exited, polling and --follow.
#   6. logs: a full read with the health checks (MB/s), then 1 KiB appended
#      to logs of 10 MB, 100 MB and 1 GB, read from the kept position: the
#      per-tick cost stays flat (bench/scan_bench.sh); health_line's own cost.
# Knobs: BENCH_N (samples, default 20), BENCH_IDLE_S, BENCH_SCALE (default 100).
set -euo pipefail
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
onbox="$top/$build/onbox"
N=${BENCH_N:-20}
IDLE=${BENCH_IDLE_S:-60}
SCALE=${BENCH_SCALE:-100}
d=$(mktemp -d /tmp/wk-bench.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]:-}"; do [ -n "$p" ] && kill -9 "$p" 2>/dev/null; done; rm -rf "$d"; }
trap cleanup EXIT

now_ns() { date +%s%N; }

# --- 1a. onbox: done line -> next stage starts ---
onbox_latency() {
	local i w
	for i in $(seq 1 "$N"); do
		w="$d/lat$i"
		mkdir -p "$w"
		: >"$w/train.log"
		cat >"$w/wk.json" <<JSON
{ "run": "bench", "workdir": "$w", "detach": "nohup", "poll_ms": 600000,
  "chain": [
    { "stage": "train", "wait": { "log": "train.log", "pattern": "Training completed", "timeout_s": 600 } },
    { "stage": "eval", "run": "date +%s%N > t1" } ] }
JSON
		"$onbox" -c "$w/wk.json" run >"$w/out" 2>&1 &
		pids+=($!)
		local p=$! n=0
		while ! grep -q stage_started "$w/.watchkeeper/events.jsonl" 2>/dev/null && [ $n -lt 500 ]; do sleep 0.01; n=$((n+1)); done
		sleep 0.05
		now_ns >"$w/t0"
		echo "Training completed" >>"$w/train.log"
		wait "$p"
		echo $(( ($(cat "$w/t1") - $(cat "$w/t0")) / 1000 ))	# microseconds
	done
}

# --- 1b. the seed's sleep-poll chain, scaled ---
seed_latency() {
	local i w sl offs
	sl=$(python3 -c "print(150/$SCALE)")
	# Where in the poll cycle each line lands: uniform, as in real life; drawn up front.
	offs=($(python3 -c "import random; print(' '.join(str(random.uniform(0, $sl)) for _ in range($N)))"))
	for i in $(seq 1 "$N"); do
		w="$d/seed$i"
		mkdir -p "$w"
		: >"$w/train.log"
		( cd "$w" && until grep -q 'Training completed' train.log; do sleep "$sl"; done && date +%s%N >t1 ) &
		local p=$!
		pids+=($p)
		sleep "${offs[$((i - 1))]}"
		now_ns >"$w/t0"
		echo "Training completed" >>"$w/train.log"
		wait "$p"
		echo $(( ($(cat "$w/t1") - $(cat "$w/t0")) * SCALE / 1000 ))	# microseconds, scaled back
	done
}

# --- 2. onbox idle cost ---
idle_cost() {
	local w="$d/idle" tck p
	mkdir -p "$w"
	: >"$w/train.log"
	cat >"$w/wk.json" <<JSON
{ "run": "bench-idle", "workdir": "$w", "detach": "nohup",
  "chain": [ { "stage": "train", "wait": { "log": "train.log", "pattern": "Training completed", "timeout_s": 86400 } } ] }
JSON
	"$onbox" -c "$w/wk.json" run >"$w/out" 2>&1 &
	p=$!
	pids+=($p)
	sleep 1	# start-up is not idle
	local before
	before=$(awk '{print $14 + $15}' "/proc/$p/stat")
	sleep "$IDLE"
	tck=$(getconf CLK_TCK)
	local after rss
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
	pids+=($!)
	RPID=$!
	local n=0
	while [ ! -s "$dir/port" ] && [ $n -lt 500 ]; do sleep 0.01; n=$((n+1)); done
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

backlog_flush() {
	local w="$d/backlog"
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
	local t0 t1
	t0=$(now_ns)
	"$onbox" -c "$w/wk.json" notify --flush >/dev/null 2>&1 || true
	t1=$(now_ns)
	local got
	got=$(wc -l <"$w/recv.jsonl")
	kill "$RPID" 2>/dev/null || true
	echo "$(( (t1 - t0) / 1000000 )) $got"
}

echo "watchkeeper bench ($build, N=$N, idle ${IDLE}s, seed sleep 150s scaled 1/$SCALE)" >&2
onbox_lat=$(onbox_latency | tr '\n' ' ')
seed_lat=$(seed_latency | tr '\n' ' ')
read -r idle_cpu_ms idle_rss_kb < <(idle_cost)
hook_lat=$(webhook_latency | tr '\n' ' ')
read -r flush_ms flush_got < <(backlog_flush)
# In its own process: it uses the test suite's sshd harness and its traps.
patrol_res=$(bash "$top/bench/patrol_bench.sh" "$build" "$N" | tail -n 1)
export WK_BENCH_SENTINEL="$(bash "$top/bench/sentinel_bench.sh" "$build" "$N" | tail -n 1)"
# Log reading: a full read, then 1 KiB appended to logs of 10 MB .. 1 GB; health_line's cost.
export WK_BENCH_SCAN="$(bash "$top/bench/scan_bench.sh" "$build" | tail -n 1)"
export WK_BENCH_HEALTH="$(bash "$top/bench/health_bench.sh" "$build" "${BENCH_HEALTH_MB:-100}" 2>/dev/null | tail -n 1)"

python3 - "$top/bench/results.json" "$onbox_lat" "$seed_lat" "$idle_cpu_ms" "$idle_rss_kb" "$IDLE" \
	"$hook_lat" "$flush_ms" "$flush_got" "$patrol_res" <<'PY'
import json, statistics, sys
out, onbox, seed, cpu, rss, idle, hook, flush_ms, flush_got, patrol = sys.argv[1:]
p_direct, p_bare, p_delayed, p_delay, p_conns, p_expect = patrol.split("|")
p_direct = [int(x) / 1000 for x in p_direct.split()]
p_bare = [int(x) / 1000 for x in p_bare.split()]
p_delayed = [int(x) / 1000 for x in p_delayed.split()]
p_delay = int(p_delay)
rtt = 2 * p_delay
p_rt = (statistics.median(p_delayed) - statistics.median(p_direct)) / rtt
hook = [int(x) / 1000 for x in hook.split()]
onbox = [int(x) / 1000 for x in onbox.split()]
seed = [int(x) / 1000 for x in seed.split()]
rows = [
    ("done_when -> next stage, onbox (median ms)", statistics.median(onbox), "< 50 ms", statistics.median(onbox) < 50),
    ("done_when -> next stage, onbox (p90 ms)", sorted(onbox)[int(len(onbox) * 0.9) - 1], "", None),
    ("done_when -> next stage, seed sleep-150 chain (median ms)", statistics.median(seed), "(baseline)", None),
    (f"onbox CPU while idle {idle}s (ms)", int(cpu), "< 20 ms", int(cpu) < 20),
    ("onbox peak RSS while idle (KiB)", int(rss), "< 8192 KiB", int(rss) < 8192),
    ("marker -> webhook received, loopback (median ms)", statistics.median(hook), "< 100 ms", statistics.median(hook) < 100),
    (f"outbox flush of 1,000 events (ms, {flush_got} received)", int(flush_ms), "", int(flush_got) == 1000),
    ("outbox flush, per event (ms)", int(flush_ms) / 1000, "", None),
    ("patrol tick, full (median ms)", statistics.median(p_direct), "< ssh true", statistics.median(p_direct) < statistics.median(p_bare)),
    ("ssh -F cfg box true, bare (median ms)", statistics.median(p_bare), "(baseline)", None),
    (f"patrol tick round trips (at {p_delay} ms each way)", round(p_rt, 1), "", None),
    (f"patrol tick at {p_delay} ms one-way delay (median ms)", statistics.median(p_delayed), "", None),
    ("ssh connections accepted / opened (patrol ticks + ssh true)", int(p_conns), f"= {p_expect}", int(p_conns) == int(p_expect)),
]
# sentinel: marker landed -> sentinel exited (bench/sentinel_bench.sh), polling every 1 s and --follow.
import os
s_poll, s_follow = [[int(x) / 1000 for x in part.split()] for part in (os.environ.get("WK_BENCH_SENTINEL") or "|").split("|")]
if s_poll and s_follow:
    rows += [
        ("sentinel: marker -> exit, polling every 1 s (mean ms)", statistics.mean(s_poll), "", None),
        ("sentinel: marker -> exit, polling every 1 s (max ms)", max(s_poll), "< 1500 ms", max(s_poll) < 1500),
        ("sentinel: marker -> exit, --follow (mean ms)", statistics.mean(s_follow), "< 1000 ms", statistics.mean(s_follow) < 1000),
        ("sentinel: marker -> exit, --follow (max ms)", max(s_follow), "< 1000 ms", max(s_follow) < 1000),
    ]
# Log reading as the log grows: the per-tick cost must not grow with it (bench/scan_bench.sh).
scan = [part.split(":") for part in (os.environ.get("WK_BENCH_SCAN") or "").split()]
if scan:
    ticks = [float(t) for _, _, t in scan]
    for mb, mbps, tick in scan:
        rows.append((f"log {mb} MB: full read + health (MB/s)", float(mbps), "", None))
        rows.append((f"log {mb} MB: +1 KiB read from kept position (us)", float(tick), "flat", max(ticks) < 20 * min(ticks) + 50))
health = (os.environ.get("WK_BENCH_HEALTH") or "").split("|")
if len(health) == 3:
    rows.append(("health_line: lines/s (progress, loss, throughput, W&B)", float(health[0]), "", None))
    rows.append(("health_line: MB/s", float(health[1]), "", None))
print(f"{'measure':58} {'value':>12}  {'target':12} ok")
for name, v, target, ok in rows:
    print(f"{name:58} {v:12.1f}  {target:12} {'' if ok is None else ('yes' if ok else 'NO')}")
json.dump({"rows": [{"measure": n, "value": v, "target": t, "ok": o} for n, v, t, o in rows],
           "samples": {"onbox_ms": onbox, "seed_ms": seed, "webhook_ms": hook}}, open(out, "w"), indent=2)
print(f"written: {out}")
PY
