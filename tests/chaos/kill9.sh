#!/usr/bin/env bash
# Chaos: random `kill -9`s of onbox during a 3-stage chain, each followed by
# a restart (`onbox run` in the background, or `onbox start` with nohup).
#
#   tests/chaos/kill9.sh [KILLS]        (default 100; BUILD as for tests/e2e)
#
# Each stage sleeps a random 0.2-2 s and appends "start <stage> <pid> <time>"
# and "end <stage> <pid>" to a ledger under flock.  Before its start line a
# stage looks for an earlier start of the same stage without an end whose
# process still runs, and writes "overlap ..." if there is one: two runs of
# one stage at once are caught while they happen, not guessed afterwards.
# After every kill: no overlap, no FAILED marker, no marker without its
# stage's end line.  When a chain completes it is checked whole (each stage
# started exactly once, in chain order, every marker a whole JSON document)
# and a new chain starts in a new workdir.  After the last kill the current
# chain is run to its end; then no process of any chain may be left.
#
# A second test checks that `onbox start` names the onbox it started (the pid
# an agent would signal), after a kill -9 as well.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib_chaos.sh"

KILLS=${1:-100}
# Under valgrind every start costs seconds: a handful of kills says enough.
[ "$CHAOS_SLOW" = 1 ] && [ "$KILLS" -gt 4 ] && KILLS=4

# The stage: chaos_stage.sh NAME SECONDS LEDGER
k9_stage() {
	mkdir -p "$T/bin"
	cat >"$T/bin/chaos_stage.sh" <<'SH'
#!/bin/sh
st=$1 secs=$2 L=$3 me=$$
exec 9>>"$L.lock"
flock 9
awk -v s="$st" '$1 == "start" && $2 == s { open[$3] = 1 } $1 == "end" && $2 == s { delete open[$3] }
    END { for (p in open) print p }' "$L" 2>/dev/null | while read -r p; do
	if grep -q chaos_stage "/proc/$p/cmdline" 2>/dev/null; then
		echo "overlap $st $me $p" >>"$L"
	fi
done
echo "start $st $me $(date +%s.%N)" >>"$L"
flock -u 9
echo "stage $st running $secs s"
sleep "$secs"
flock 9
echo "end $st $me" >>"$L"
flock -u 9
echo "$st completed"
SH
	chmod +x "$T/bin/chaos_stage.sh"
}

# k9_chain N: chain N's config in $T/wk.json, workdir $T/c<N>, ledger $T/ledger.<N>.
k9_chain() {
	local n=$1 i d chain="" sep=""
	for i in 1 2 3; do
		rnd_s d 200 2000
		chain="$chain$sep{\"stage\": \"s$i\", \"run\": \"$T/bin/chaos_stage.sh s$i $d $T/ledger.$n\", \"done_when\": \"s$i completed\"}"
		sep=", "
	done
	mkdir -p "$T/c$n"
	: >"$T/ledger.$n"
	cat >"$T/wk.json" <<JSON
{ "run": "k9", "workdir": "$T/c$n", "detach": "nohup", "heartbeat_s": 1,
  "chain": [$chain] }
JSON
}

# k9_check LEDGER WORKDIR final|snap: the invariants; prints the number of stage starts.
k9_check() {
	python3 - "$@" <<'PY'
import json, os, sys
ledger, wd, mode = sys.argv[1:4]
stages = ["s1", "s2", "s3"]
lines = [l.split() for l in open(ledger) if l.strip()]
errs = []
starts = {s: [] for s in stages}
ends = {s: [] for s in stages}
for i, w in enumerate(lines):
    if w[0] == "overlap":
        errs.append("stage %s ran twice at once: pid %s started while pid %s still ran" % (w[1], w[2], w[3]))
    elif w[0] == "start":
        starts[w[1]].append((i, w[2]))
    elif w[0] == "end":
        ends[w[1]].append((i, w[2]))
mdir = os.path.join(wd, ".watchkeeper", "markers")
have = set(os.listdir(mdir)) if os.path.isdir(mdir) else set()
for f in sorted(have):
    if f.endswith(".FAILED"):
        errs.append("FAILED marker %s: %s" % (f, open(os.path.join(mdir, f)).read()[:400]))
for k, s in enumerate(stages):
    m = "S%d_DONE" % (k + 1)
    if len(starts[s]) > 1:
        errs.append("stage %s launched %d times (pids %s)" % (s, len(starts[s]), [p for _, p in starts[s]]))
    if m in have:
        if not ends[s]:
            errs.append("marker %s without an end line of %s" % (m, s))
        try:
            d = json.load(open(os.path.join(mdir, m)))
            if d.get("exit_code") != 0:
                errs.append("marker %s has exit_code %r" % (m, d.get("exit_code")))
        except Exception as e:
            errs.append("marker %s is not whole JSON: %s" % (m, e))
    if k > 0 and starts[s] and (not ends[stages[k - 1]] or starts[s][0][0] < ends[stages[k - 1]][0][0]):
        errs.append("stage %s started before %s ended" % (s, stages[k - 1]))
    if mode == "final":
        if m not in have:
            errs.append("chain finished without marker %s" % m)
        if len(starts[s]) != len(ends[s]):
            errs.append("stage %s: %d starts, %d ends" % (s, len(starts[s]), len(ends[s])))
for e in errs:
    print(ledger + ": " + e, file=sys.stderr)
print(sum(len(v) for v in starts.values()))
sys.exit(1 if errs else 0)
PY
}

k9_complete() { [ -f "$T/c$1/.watchkeeper/markers/S3_DONE" ]; }

test_kill9() {
	local kills=0 restarts=0 chains=0 launches=0 n=1 pid how rc d c out killed=0
	k9_stage
	k9_chain 1
	while [ "$kills" -lt "$KILLS" ]; do
		if k9_complete "$n"; then
			c=$(k9_check "$T/ledger.$n" "$T/c$n" final)
			launches=$((launches + c))
			chains=$((chains + 1))
			n=$((n + 1))
			k9_chain "$n"
		fi
		[ "$killed" = 0 ] || restarts=$((restarts + 1))
		killed=0
		rnd how 0 2
		if [ "$how" = 0 ] && [ "$CHAOS_SLOW" = 0 ]; then
			rc=0
			out=$(onbox start 2>&1) || rc=$?
			[ "$rc" = 0 ] || fail "onbox start exited $rc: $out"
			# The pid it printed, as an agent takes it: a scan of /proc for
			# processes named onbox can also catch a stage's wrapper in the
			# instant between its fork and its rename to wk-wrap.
			pid=$(printf '%s\n' "$out" | sed -n 's/.*(onbox pid \([0-9]*\)).*/\1/p')
			[ -n "$pid" ] && echo "$pid" >>"$T/.pids"
		else
			bg_onbox run
			pid=$LAST_PID
		fi
		rnd_s d 0 1500
		sleep "$d"
		if [ -n "$pid" ] && kill -9 $pid 2>/dev/null; then
			kills=$((kills + 1))
			killed=1
		fi
		[ -z "$pid" ] || wait_for 20 pids_dead $pid
		[ "$how" = 0 ] || wait "$pid" 2>/dev/null || true
		k9_check "$T/ledger.$n" "$T/c$n" snap >/dev/null
	done
	# The chain in flight is finished by one more onbox, to its end.
	[ "$killed" = 0 ] || restarts=$((restarts + 1))
	guarded rc 120 $ONBOX_WRAP "$ONBOX" -c "$T/wk.json" run >>"$T/onbox.out" 2>&1
	assert_eq "$rc" 0 "the last onbox run"
	c=$(k9_check "$T/ledger.$n" "$T/c$n" final)
	launches=$((launches + c))
	chains=$((chains + 1))
	# Nothing of any chain is left running: stages, wrappers, onbox.
	wait_for 10 pids_dead $(awk '$1 == "start" { print $3 }' "$T"/ledger.*)
	wait_for 10 test -z "$(onbox_pids "$T/wk.json")"
	for d in "$T"/c*/.watchkeeper/attempts/*.json; do
		case $d in *.config.json) continue ;; esac
		wait_for 10 pids_dead "$(json "$d" 'd.get("wrapper_pid", 0)')" "$(json "$d" 'd.get("pid", 0)')"
	done
	summary "$kills kills, $restarts restarts, $chains chains, $launches stage launches"
}

# `onbox start` says which onbox it started: the pid that runs, never 0, never the one just killed.
# The stage outlasts the 30 rounds however slow the machine (it is ended at the end): a stage
# that finished mid-way left no onbox to find (seen at a load of 12 on 2 cores).
test_start_names_its_pid() {
	local i rounds=30 said real old="" stage
	k9_stage
	conf '' "[{\"stage\": \"s1\", \"run\": \"$T/bin/chaos_stage.sh s1 600 $T/ledger.1\"}]"
	: >"$T/ledger.1"
	for i in $(seq 1 $rounds); do
		onbox start >"$T/start.$i" 2>&1
		said=$(sed -n 's/.*(onbox pid \([0-9-]*\)).*/\1/p' "$T/start.$i")
		wait_for 10 test -n "$(onbox_pids "$T/wk.json")"
		real=$(onbox_pids "$T/wk.json")
		echo "$real" >>"$T/.pids"
		assert_eq "$said" "$real" "the pid \`onbox start\` printed (round $i, killed before: ${old:-none})"
		kill -9 $real
		wait_for 10 pids_dead $real
		old=$real
	done
	assert_eq "$(grep -c '^start' "$T/ledger.1")" 1 "launches of s1"
	stage=$(awk '$1 == "start" { print $3 }' "$T/ledger.1")
	[ -z "$stage" ] || { kill $stage 2>/dev/null; wait_for 10 pids_dead $stage; }
	summary "$rounds starts"
}

chaos_banner kill9 "$KILLS kills"
ct chaos_kill9 test_kill9
[ "$CHAOS_SLOW" = 1 ] || ct chaos_start_names_its_pid test_start_names_its_pid
