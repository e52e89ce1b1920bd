#!/usr/bin/env bash
# Part of make bench: `patrol top` over 100 runs (BENCH_TOP_RUNS).
#
# 100 state directories, each with a patrol.json of the shape and size a
# tick writes (a day of progress history, the loss ring, attempts, a failed
# stage with its `where`, the checkpoint summary) and a top.json (a look's:
# top-look.c's keys of it), then `patrol top --bench-frames N`
# (patrol/top.c): no terminal and no refreshes (those are
# looks in children: the tick's probe, measured by patrol's bench), only what
# the screen's process does each refresh: read the state, format 100 rows,
# draw them (ncurses, into /dev/null, a 200x110 screen).  Three kinds of
# frame: every state changed since the last (both files of each run parsed
# again: the worst case), every run's top.json changed (what a refresh of
# every run leaves), and none changed (stat only).  CPU from getrusage, peak
# RSS from ru_maxrss.  Prints top's one JSON line:
#   {"runs": 100, "frames": N, "cpu_ms_per_frame_all_changed": ...,
#    "cpu_ms_per_frame_all_looked": ..., "cpu_ms_per_frame_unchanged": ...,
#    "maxrss_kb": ...}
# Usage: bench/top_bench.sh BUILD_DIR [FRAMES]
# BENCH_WRAP, when set, runs patrol under it (valgrind: the draw path's leaks).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build="$top/$build" ;; esac
frames=${2:-50}
runs=${BENCH_TOP_RUNS:-100}
T=$(mktemp -d /tmp/wk-bench-top.XXXXXX)
trap 'rm -rf "$T"' EXIT
python3 - "$T/state/watchkeeper" "$runs" <<'PY'
import json, os, sys, time
base, runs = sys.argv[1], int(sys.argv[2])
for i in range(runs):
    name = f"sweep-{i:03d}"
    d = os.path.join(base, name)
    os.makedirs(d)
    doc = {
        "run": name, "instance": "b3f1c2d4e5", "config": f"/srv/sweep/{name}.json",
        "last_tick": "2026-11-28T16:03:00Z", "seen_at": "2026-11-28T16:03:00Z", "ticks": 412,
        "verdict": ["OK", "STALLED", "SSH_DOWN", "DONE", "CRASHED"][i % 5],
        "details": f"stage train#2 ~{1000 + i}/5155, eta 2h10m, loss 2.31 (trend 2.35)",
        "stage": "train", "attempt": 2, "attempts": {"train": 2, "eval": 1},
        "progress": 1000 + i, "progress_max": 5155, "eta_s": 7800, "heartbeat_age_s": 12,
        "still_ticks": 0, "unseen_ticks": 0, "notified": "OK",
        "markers": ["PREP_DONE"], "transport": "libssh2",
        "last_event": {"event": "stage_started", "stage": "train", "attempt": 2,
                       "time": "2026-11-28T14:01:00Z"},
        "failed": {"TRAIN_DONE": {"class": "oom", "attempt": 1, "last_line":
                   "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
                   "where": {"file": "train.py", "line": 212, "function": "training_step"}}},
        "checkpoint": {"newest_step": 1000, "newest_complete_step": 1000, "count": 7,
                       "complete": 6, "bytes": 9876543210, "age_s": 600},
        "wandb": f"https://wandb.ai/team/sweep/runs/{name}",
        "history": [{"time": f"2026-11-27T{h // 2:02d}:{3 + 30 * (h % 2):02d}:00Z",
                     "progress": 20 * h + i} for h in range(48)],
        "loss_recent": [[950 + k, 2.3 + ((k * 7) % 11) / 50] for k in range(32)],
        "events_offset": 123456, "logbook_git": {"pushed": True},
    }
    with open(os.path.join(d, "patrol.json"), "w") as f:
        json.dump(doc, f, indent=2)
    # and what top's last look saw (top.json, newer): a changed run is two files to parse
    keep = ("run config last_tick seen_at verdict details stage attempt attempts progress "
            "progress_max eta_s heartbeat_age_s last_event loss_recent failed checkpoint wandb "
            "caveats_text seal markers").split()	# top-look.c's top_look_keys
    look = {k: doc[k] for k in keep if k in doc}
    look.update({"last_tick": "2026-11-28T16:03:10Z", "looked_by": "patrol top"})
    with open(os.path.join(d, "top.json"), "w") as f:
        json.dump(look, f, indent=2)
    # written a minute ago: top parses a file again while it is under a second old
    for name in ("patrol.json", "top.json"):
        os.utime(os.path.join(d, name), (time.time() - 60, time.time() - 60))
PY
XDG_STATE_HOME="$T/state" TERM=xterm-256color LINES=$((runs + 10)) COLUMNS=200 LANG=C.UTF-8 \
	${BENCH_WRAP:-} "$build/patrol" top --bench-frames "$frames"
