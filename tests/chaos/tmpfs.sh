#!/usr/bin/env bash
# Chaos: the box's disk fills up in the middle of a run.
#
#   tests/chaos/tmpfs.sh [ROUNDS]       (default 10; BUILD as for tests/e2e)
#
# Each round mounts a small tmpfs (2-4 MB, at random) as the workdir.  The
# middle stage of three waits a random moment, fills the disk (dd until
# ENOSPC), keeps printing for a random while (onbox's heartbeats, events,
# logs and outbox writes all fail meanwhile: the notify sink points at a
# receiver that is down, so the outbox grows) and fails, or in half the
# rounds prints its done line and exits 0 as a program ignoring its write
# errors would.  Then:
#   - every JSON file under .watchkeeper (state.json, stages/*, attempts/*,
#     markers/*, outbox/*) and every line of events.jsonl is whole, and no
#     temp file is left behind;
#   - onbox said which file it could not write and why (ENOSPC);
#   - a failed stage has no marker, nor has the one after it; a stage onbox
#     calls DONE (its output, a stage_done event) has its marker;
#   - the deliverer's retries keep their backoff (no busy loop);
#   - two different events never share an id.
# The space is freed, the receiver comes up, onbox runs again: the chain
# completes, and every event id in events.jsonl reaches the receiver exactly
# once.  The tmpfs is unmounted at exit, pass or fail (lazily if a process
# still holds it).
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/sshd.sh"
. "$(dirname "$0")/lib_chaos.sh"

ROUNDS=${1:-10}
[ "$CHAOS_SLOW" = 1 ] && [ "$ROUNDS" -gt 2 ] && ROUNDS=2

# mount_small DIR MB: a tmpfs of MB megabytes at DIR, unmounted at exit
# (after the processes the run recorded there are stopped, by pid; lazily if
# something still holds it).  Only ever a DIR that is a mount point.
mount_small() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=${2}m" tmpfs "$1"
	sshd_at_exit "unmount_small '$1'"
}
unmount_small() {
	chaos_kill_recorded "$1/work"
	mountpoint -q "$1" || return 0
	umount "$1" 2>/dev/null || umount -l "$1"
}

# The chain: s1 quick; s2 fills the disk, then fails, or (half the rounds, at
# random: ENDS) says it is done anyway; s3 quick.  Once $T/fixed exists s2 just succeeds.
tmpfs_conf() {
	local wd=$1 mnt=$2 before during ends=fail coin
	rnd_s before 0 1000
	rnd_s during 1000 2500
	rnd coin 0 1
	[ "$coin" = 0 ] || ends=ok
	ENDS=$ends
	mkdir -p "$T/bin" "$wd"
	cat >"$T/bin/fill.sh" <<SH
#!/bin/sh
if [ -e "$T/fixed" ]; then echo "fill: nothing to fill"; echo "fill completed"; exit 0; fi
sleep $before
dd if=/dev/zero of="$mnt/filler" bs=64k 2>&1
rc=\$?
i=0
while [ \$i -lt 20 ]; do echo "still writing \$i"; i=\$((i+1)); sleep \$(echo "$during" | awk '{ print \$1 / 20 }'); done
# Half the rounds, a program that ignores its write errors and says it is done.
if [ "$ends" = ok ]; then echo "fill completed"; exit 0; fi
exit \$rc
SH
	chmod +x "$T/bin/fill.sh"
	cat >"$T/wk.json" <<JSON
{ "run": "fill", "workdir": "$wd", "detach": "nohup", "heartbeat_s": 1,
  "notify": [{"type": "generic", "url": "http://127.0.0.1:$PORT/hook"}],
  "outbox": {"retry_base_ms": 100, "retry_max_s": 1, "timeout_s": 1, "connect_timeout_s": 1},
  "chain": [
    {"stage": "s1", "run": "echo s1 ok"},
    {"stage": "s2", "run": "$T/bin/fill.sh", "done_when": "fill completed"},
    {"stage": "s3", "run": "echo s3 ok"}] }
JSON
}

# Checks that do not stop the round: each failure is counted in VIOL and
# said in $VIOLS, which is shown last (after the round's context).
soft() { "$@" 2>>"$VIOLS" || VIOL=$((VIOL + 1)); }
violation() { echo "assertion failed: $*" >>"$VIOLS"; VIOL=$((VIOL + 1)); }

# The deliverer's retries keep their pace while the disk is full: at most one
# round per retry_base_ms (100 ms) and a few more, not a busy loop.
paced() {
	local n elapsed_ms
	n=$(grep -c 'kept in the outbox' "$1" || true)
	elapsed_ms=$2
	[ "$n" -le $((20 + elapsed_ms / 100)) ] ||
		fail "$n delivery attempts in ${elapsed_ms} ms while the disk was full (retry_base_ms 100): the backoff was lost"
}

# Two different events never share an id: a repeated id is the same event again.
ids_unique() {
	python3 - "$1" <<'PY'
import json, sys
seen, bad = {}, []
for l in open(sys.argv[1]):
    e = json.loads(l)
    core = {k: v for k, v in e.items() if k not in ("time", "time_unix")}
    if e["id"] in seen and seen[e["id"]] != core:
        bad.append("%s: %s vs %s" % (e["id"], json.dumps(seen[e["id"]])[:300], json.dumps(core)[:300]))
    seen.setdefault(e["id"], core)
for b in bad:
    print("two different events share the id " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# done_means_marker W OUT: a stage said DONE (events.jsonl, onbox's output) has its marker.
done_means_marker() {
	python3 - "$1" "$2" <<'PY'
import json, os, re, sys
w, out = sys.argv[1:3]
bad = []
for l in open(os.path.join(w, "events.jsonl"), "rb"):
    try:
        e = json.loads(l)
    except ValueError:
        continue
    if e.get("event") == "stage_done" and not os.path.exists(os.path.join(w, "markers", e.get("marker", ""))):
        bad.append("events.jsonl: stage_done for %s, but no marker %s" % (e.get("stage"), e.get("marker")))
for l in open(out, errors="replace"):
    m = re.search(r" (\S+) DONE \(attempt .*-> (\S+)$", l)
    if m and not os.path.exists(os.path.join(w, "markers", m.group(2))):
        bad.append("onbox said %r, but there is no marker %s" % (l.strip()[:200], m.group(2)))
for b in bad:
    print("assertion failed: " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# Every id of events.jsonl reached the receiver, none twice.
all_delivered() {
	python3 -c 'import json,sys; print("\n".join(json.loads(l)["id"] for l in open(sys.argv[1])))' "$1" | sort -u >"$T/want"
	recv_json "'\n'.join(x['headers'].get('X-Watchkeeper-Event-Id', '?') for x in r if x['status'] == 200)" | sort >"$T/got"
	[ -z "$(uniq -d "$T/got")" ] || fail "delivered twice: $(uniq -d "$T/got" | paste -sd' ')"
	comm -23 "$T/want" "$T/got" >"$T/lost"
	[ ! -s "$T/lost" ] || { fail "events of events.jsonl never delivered: $(paste -sd' ' "$T/lost")"; return 1; }
}

test_disk_fills() {
	local r mb mnt wd rc n t0 before checked=0 errs=0 delivered=0
	VIOL=0
	start_receiver
	PORT=$RPORT
	stop_receiver
	for r in $(seq 1 "$ROUNDS"); do
		rnd mb 2 4
		mnt="$T/mnt$r"
		wd="$mnt/work"
		W="$wd/.watchkeeper"
		mount_small "$mnt" "$mb"
		rm -f "$T/fixed"
		tmpfs_conf "$wd" "$mnt"
		echo "round $r: ${mb} MB, the filling stage ends: $ENDS"
		VIOLS="$T/violations.$r"
		: >"$VIOLS"
		before=$VIOL
		t0=$(date +%s%3N)
		rc=0
		guarded rc 120 $ONBOX_WRAP "$ONBOX" -c "$T/wk.json" run >"$T/run1.$r" 2>&1
		if crashed "$rc" "$T/run1.$r"; then
			violation "onbox crashed on a full disk (exit $rc)"
		fi
		n=$(json_whole "$W" 2>>"$VIOLS") || { VIOL=$((VIOL + 1)); n=0; }
		checked=$((checked + n))
		soft assert_file "$W/markers/S1_DONE"
		if [ "$ENDS" = ok ]; then
			# It said it was done: a marker only if it could be written, DONE only with one.
			soft done_means_marker "$W" "$T/run1.$r"
		else
			soft assert_eq "$rc" 1 "onbox with the disk full"
			soft assert_no_file "$W/markers/S2_DONE"
		fi
		[ -e "$W/markers/S2_DONE" ] || soft assert_no_file "$W/markers/S3_DONE"
		# Said clearly: which file, and that the disk is full.
		grep -E "cannot .*(/[^ ]+|events\.jsonl): No space left on device" "$T/run1.$r" >"$T/enospc.$r" ||
			violation "onbox did not say which write failed with ENOSPC"
		errs=$((errs + $(wc -l <"$T/enospc.$r")))
		soft paced "$T/run1.$r" $(( $(date +%s%3N) - t0 ))
		# Space again, the receiver up: the run completes and nothing is lost.
		rm -f "$mnt/filler"
		touch "$T/fixed"
		start_receiver "$PORT"
		rc=0
		guarded rc 120 $ONBOX_WRAP "$ONBOX" -c "$T/wk.json" run >"$T/run2.$r" 2>&1
		soft assert_eq "$rc" 0 "onbox after the space was freed: $(tail -n 5 "$T/run2.$r")"
		for n in S1_DONE S2_DONE S3_DONE; do soft assert_file "$W/markers/$n"; done
		for n in $(seq 1 10); do
			[ -z "$(find "$W/outbox/0-generic" -name '0*.json')" ] && break
			$ONBOX_WRAP "$ONBOX" -c "$T/wk.json" notify --flush >>"$T/flush.$r" 2>&1 || true
		done
		n=$(json_whole "$W" 2>>"$VIOLS") || { VIOL=$((VIOL + 1)); n=0; }
		checked=$((checked + n))
		soft ids_unique "$W/events.jsonl"
		soft all_delivered "$W/events.jsonl"
		delivered=$((delivered + $(wc -l <"$T/got")))
		if [ -s "$VIOLS" ] || [ "$VIOL" -gt "$before" ]; then
			sed 's/^/run1| /' "$T/run1.$r" | uniq -c | tail -n 30
			sed 's/^/run2| /' "$T/run2.$r" | tail -n 30
			cut -c1-200 "$W/events.jsonl" | sed 's/^/events| /'
		fi
		stop_receiver
		rm -f "$T/recv.jsonl"
		unmount_small "$mnt" || fail "cannot unmount $mnt"
	done
	if [ "$VIOL" -gt 0 ]; then
		for r in $(seq 1 "$ROUNDS"); do sed "s/^/round $r: /" "$T/violations.$r" | cut -c1-600 >&2; done
		fail "$VIOL invariant(s) broken in $ROUNDS rounds"
	fi
	summary "$ROUNDS full disks, $checked JSON files whole, $errs ENOSPC errors named, $delivered events delivered after"
}

chaos_banner tmpfs "$ROUNDS rounds"
ct chaos_tmpfs test_disk_fills
