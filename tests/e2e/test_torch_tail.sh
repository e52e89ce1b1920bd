#!/usr/bin/env bash
# End-to-end tests of the readable last lines (core/tail.c): the real PyTorch
# training's tqdm bar collapsed to one line between log lines, its KeyError
# traceback whole in the FAILED marker, the stage_failed event and the
# webhook; a traceback longer than 30 lines kept whole; and the same lines
# after a re-attached onbox (scan.json).
. "$(dirname "$0")/lib.sh"

# check_tail FAILED LOG EXC: the traceback in LOG (from its header to the line
# starting with EXC) stands whole and contiguous in FAILED's last_lines.
# Prints the number of traceback lines.
check_tail() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
lines = doc["last_lines"]
raw = re.split(r"\r\n|\n|\r", open(sys.argv[2], "rb").read().decode("utf-8", "replace"))
exc = sys.argv[3]
H = "Traceback (most recent call last):"
starts = [i for i, l in enumerate(raw) if H in l]
assert starts, "no traceback in the log"
i = starts[-1]
j = next(k for k in range(i, len(raw)) if raw[k].startswith(exc))
want = [raw[i][raw[i].index(H):]] + raw[i + 1:j + 1]
heads = [k for k, l in enumerate(lines) if l == H]
assert heads, "no traceback header in last_lines: %r" % lines
got = lines[heads[-1]:heads[-1] + len(want)]
assert got == want, "traceback not whole:\nwant %r\ngot  %r" % (want, got)
print(len(want))
PY
}

tail_conf() {
	local extra=$1 run=$2
	conf "\"restart\": {\"max\": 0}, $extra" "[{\"stage\": \"train\", \"run\": \"$run\",
	  \"log\": \"train.log\", \"done_when\": \"Training completed\", \"marker\": \"TRAIN_DONE\"}]"
}

# The real training with its bar, a KeyError at step 15 of 20 after many redraws.
test_keyerror_with_bar() {
	local f="$W/markers/TRAIN_DONE.FAILED" n
	start_receiver
	tail_conf "\"notify\": [{\"type\": \"slack\", \"url\": \"http://127.0.0.1:$RPORT/slack\"}]," \
	    "$TORCH_PY $TORCH_TRAIN --out . --steps 20 --step-sleep 0.02 --fail keyerror --fail-at 15 >> train.log 2>&1"
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1 "onbox exit"
	assert_file "$f"
	# The log really has redraws in a row between its log lines (tqdm.write: redraw, clear, line, redraw).
	python3 - "$T/work/train.log" <<'PY'
import re, sys
raw = re.split(r"\r\n|\n|\r", open(sys.argv[1], "rb").read().decode("utf-8", "replace"))
bar = re.compile(r"Epoch 0:.*it/s")
run, most, total = 0, 0, 0
for l in raw:
    if bar.search(l):
        run += 1; total += 1; most = max(most, run)
    elif l.startswith("step "):
        run = 0
assert most >= 2 and total >= 20, (most, total)
PY
	n=$(check_tail "$f" "$T/work/train.log" "KeyError: 'warmup_steps'")
	[ "$n" -ge 8 ] || fail "a traceback of $n lines"
	# At most one bar line between two log lines, and the bar is there.
	python3 - "$f" <<'PY'
import json, re, sys
lines = json.load(open(sys.argv[1]))["last_lines"]
bar = re.compile(r"Epoch 0:.*it/s")
run, runs, bars = 0, [], 0
for l in lines:
    if bar.search(l):
        run += 1; bars += 1
    else:
        runs.append(run); run = 0
runs.append(run)
assert max(runs) <= 1, "bar redraws in a row: %r\n%s" % (runs, "\n".join(lines))
assert bars >= 1, "no bar state kept"
assert sum(1 for l in lines if l.startswith("step ")) >= 5, "the log lines went missing"
assert len(lines) <= 60, len(lines)
PY
	# The event carries the same lines; the webhook text the traceback's last line.
	python3 - "$W/events.jsonl" "$f" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if '"stage_failed"' in l][-1]
assert ev["last_lines"] == json.load(open(sys.argv[2]))["last_lines"]
PY
	wait_for 10 sh -c "grep -q 'warmup_steps' '$T/recv.jsonl'"
	recv_json "[json.loads(x['body'])['text'] for x in r if x['path']=='/slack' and 'FAILED' in json.loads(x['body'])['text']][0]" >"$T/slack.txt"
	assert_grep "KeyError: 'warmup_steps'" "$T/slack.txt"
}

# A Python program (no torch needed) that prints log lines, then dies 40 distinct user frames deep.
mk_recursion() {
	local i
	{
		echo 'import sys'
		for i in $(seq 0 39); do
			printf 'def f%d(cfg):\n    return f%d(cfg)\n' "$i" $((i + 1))
		done
		printf 'def f40(cfg):\n    return cfg["warmup_steps"]\n'
		echo 'for i in range(1, 61):'
		echo '    print("step %d/100 loss=0.5" % i, flush=True)'
		echo 'f0({})'
	} >"$T/rec.py"
	mkdir -p "$T/work"
}

test_long_traceback_whole() {
	local f="$W/markers/TRAIN_DONE.FAILED" n
	mk_recursion
	tail_conf "" "python3 $T/rec.py >> train.log 2>&1"
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1 "onbox exit"
	n=$(check_tail "$f" "$T/work/train.log" "KeyError: 'warmup_steps'")
	[ "$n" -gt 80 ] || fail "a traceback of $n lines"
	# Longer than the ring: the traceback alone, none of the 60 log lines before it.
	assert_eq "$(json "$f" 'len(d["last_lines"])')" "$n"
	assert_eq "$(json "$f" 'd["last_lines"][-1]')" "KeyError: 'warmup_steps'"
}

# The traceback is read by one onbox, the failure judged by the next: same lines.
test_reattach_keeps_traceback() {
	local f="$W/markers/TRAIN_DONE.FAILED" n
	mk_recursion
	cat >"$T/rec.sh" <<SH
#!/bin/sh
python3 $T/rec.py
rc=\$?
"$AWAIT" 30 "$T/go" || :
echo "wrapper exits \$rc"
exit \$rc
SH
	chmod +x "$T/rec.sh"
	tail_conf "" "$T/rec.sh >> train.log 2>&1"
	bg_onbox run
	first=$LAST_PID
	wait_for 20 sh -c "grep -q 'warmup_steps' '$W/scan.json'"
	kill -9 "$first"
	wait "$first" 2>/dev/null || true
	bg_onbox run
	second=$LAST_PID
	wait_for 10 grep -q 're-attaching to attempt 1' "$T/onbox.out"
	wait_for 10 grep -q 'log continues at byte [1-9]' "$W/onbox.log"
	touch "$T/go"
	wait_for 20 test -f "$f"
	wait "$second" || true
	n=$(check_tail "$f" "$T/work/train.log" "KeyError: 'warmup_steps'")
	[ "$n" -gt 80 ] || fail "a traceback of $n lines"
	assert_eq "$(json "$f" 'd["last_lines"][-1]')" "wrapper exits 1"
}

tt keyerror_with_bar test_keyerror_with_bar
t long_traceback_whole test_long_traceback_whole
t reattach_keeps_traceback test_reattach_keeps_traceback
