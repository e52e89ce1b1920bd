#!/usr/bin/env bash
# End-to-end tests of the handbook (layer 4): the real binary after real
# patrol ticks against the suite's own sshd on 127.0.0.1, with real onbox
# processes on the "box" (this machine, reached over ssh).  A fake crontab
# stands in for the user's.  What the handbook says is run, not just read:
# its first command is executed as written, and --check compares its claims
# with the box and the crontab.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
PATROL="$TOP/$BUILD/patrol"
HANDBOOK="$TOP/$BUILD/handbook"
[ -x "$HANDBOOK" ] || { echo "FAIL setup: $HANDBOOK not built"; exit 1; }
# A test's own output goes to its log; SKIP notes go to fd 3, the script's stdout.
exec 3>&1

ENV_SECRET="http://127.0.0.1:9/ENV-SECRET-c0ffee42"
LIT_SECRET="http://127.0.0.1:9/LITERAL-SECRET-beef77"

patrol() { $ONBOX_WRAP "$PATROL" -c "$T/wk.json" "$@"; }
handbook() { $ONBOX_WRAP "$HANDBOOK" -c "$T/wk.json" "$@"; }
HB() { echo "$T/state/watchkeeper/t1/HANDBOOK.md"; }
PS() { echo "$T/state/watchkeeper/t1/patrol.json"; }

waiting_stage() {
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
i=1; while [ \$i -le 3 ]; do echo "step \$i/10"; i=\$((i+1)); done
"$AWAIT" 30 "$T/go" || :
echo "Training completed"
SH
	chmod +x "$T/bin/train.sh"
}


# The first ```sh block after the "## First command on reconnect" heading.
first_cmd() {
	awk '/^## First command on reconnect$/ { s = 1; next }
	    s && !f && /^```+sh$/ { f = 1; next }
	    f && /^```+$/ { exit }
	    f { print }' "$1"
}

# The verdict column of the handbook's decision table, and patrol --help's list.
hb_verdicts() { awk '/^## Decision table$/ { s = 1; next } /^## / { s = 0 } s && /^\| [A-Z_]+ \| [0-9]+ \|/ { print $2 }' "$1"; }
help_verdicts() { awk '/^verdicts, highest priority first:$/ { s = 1; next } s && /^$/ { exit } s { print $1 }'; }

# The headings, in the order the contract gives.
SECTIONS="Run contract|First command on reconnect|Current status|The chain|Marker paths|Resume|Decision table|Cron|Sentinel|Triage table|Logbook|Run record"
sections_ok() {
	local got want
	got=$(grep -E '^## ' "$1" | sed 's/^## //' | paste -sd'|')
	want=$SECTIONS
	assert_eq "$got" "$want" "sections of $1"
	head -n 1 "$1" | grep -qx '# Handbook: t1' || fail "no title in $1"
	tail -n 1 "$1" | grep -qE '^<!-- watchkeeper:claims \{.*\} -->$' || fail "the last line of $1 is not the claims line"
}

no_secret() {
	! grep -qE 'ENV-SECRET|LITERAL-SECRET' "$1" || fail "a secret in $1: $(grep -nE 'ENV-SECRET|LITERAL-SECRET' "$1")"
}

# patrol.json as a tick that saw the box would leave it (for drift cases that must not wait on a tick).
seen_state() {
	mkdir -p "$T/state/watchkeeper/t1"
	python3 - "$(PS)" "$1" "$2" <<'PY'
import json, sys
d = {"run": "t1", "verdict": "OK", "details": "hand-made", "last_tick": "2026-11-21T03:33:00Z",
     "ticks": 1, "markers": json.loads(sys.argv[2]), "failed": json.loads(sys.argv[3])}
json.dump(d, open(sys.argv[1], "w"))
PY
}

test_after_a_real_tick() {
	box
	waiting_stage
	export WK_HOOK="$ENV_SECRET"
	pconf "\"dri\": \"ana\", \"progress\": {\"pattern\": \"step (\\\\d+)/(\\\\d+)\", \"max\": 10}, \"notify\": [{\"type\": \"generic\", \"url_env\": \"WK_HOOK\"}, {\"type\": \"generic\", \"url\": \"$LIT_SECRET\"}]," \
		"[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"Training completed\"}, {\"stage\": \"eval\", \"run\": \"echo 'a | b \`x\`'\", \"marker\": \"EVAL_DONE\"}]"
	bg_onbox run
	wait_for 10 grep -q '~3/10' "$W/state.json"
	rc=0; patrol --once >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 0
	line_ok OK "$T/p1"
	# The tick wrote it already; the handbook binary writes it again.
	assert_grep ' by patrol ' "$(HB)"
	handbook >"$T/h.out"
	assert_grep ' by handbook ' "$(HB)"
	assert_eq "$(<"$T/h.out")" "$(HB)"
	assert_file "$(HB)"
	assert_eq "$(stat -c %a "$(HB)")" 600
	sections_ok "$(HB)"
	no_secret "$(HB)"
	assert_grep 'environment variable `WK_HOOK`' "$(HB)"
	assert_grep 'URL: \(set in the config; not shown\)' "$(HB)"
	# The status is the tick's, every marker path is there.
	assert_grep '^- Last verdict: `OK`' "$(HB)"
	assert_grep '^- Progress: ~3/10$' "$(HB)"
	assert_grep '^- DRI: `ana`$' "$(HB)"
	assert_grep "\`$T/work/.watchkeeper/markers/TRAIN_DONE\`" "$(HB)"
	assert_grep "\`$T/work/.watchkeeper/markers/EVAL_DONE\`" "$(HB)"
	assert_grep "\`$T/work/.watchkeeper/markers/EVAL_DONE.FAILED\`" "$(HB)"
	# The decision table is the code's: the same verdicts, in order, as patrol --help prints.
	"$PATROL" --help | help_verdicts >"$T/v.help"
	hb_verdicts "$(HB)" >"$T/v.hb"
	[ "$(wc -l <"$T/v.help")" -eq 14 ] || fail "patrol --help lists $(wc -l <"$T/v.help") verdicts"
	cmp "$T/v.help" "$T/v.hb" || fail "decision tables differ: $(diff "$T/v.help" "$T/v.hb")"
	# The first command, run exactly as written: a patrol verdict code and a report line.
	first_cmd "$(HB)" >"$T/first.sh"
	assert_eq "$(wc -l <"$T/first.sh")" 1 "the first command is one line"
	assert_grep "patrol' -c '$T/wk.json' --once$" "$T/first.sh"
	rc=0; bash "$T/first.sh" >"$T/first.out" 2>&1 || rc=$?
	case $rc in 0|1|2) ;; *) fail "the first command exited $rc: $(<"$T/first.out")" ;; esac
	line_ok '[A-Z_]+' "$T/first.out"
	# -o - and -o FILE give the same document (but for the time it was made).
	handbook -o - >"$T/stdout.md"
	sections_ok "$T/stdout.md"
	no_secret "$T/stdout.md"
	handbook -o "$T/copy.md" >"$T/o.out"
	assert_eq "$(<"$T/o.out")" "$T/copy.md"
	sections_ok "$T/copy.md"
	no_secret "$T/copy.md"
	assert_eq "$(grep -vE 'Generated at|watchkeeper:claims' "$T/copy.md" | md5sum)" "$(grep -vE 'Generated at|watchkeeper:claims' "$T/stdout.md" | md5sum)"
	# Nothing changed: --check finds no drift (one connection).
	handbook >/dev/null
	before=$(sshd_accepted_count)
	rc=0; handbook --check >"$T/c0" 2>&1 || rc=$?
	assert_eq "$rc" 0 "check: $(<"$T/c0")"
	assert_grep '^ok    cron not installed$' "$T/c0"
	if grep -q '"markers"' "$(PS)"; then
		assert_eq "$(( $(sshd_accepted_count) - before ))" 1 "connections in one check"
		assert_grep '^ok    marker TRAIN_DONE absent$' "$T/c0"
		assert_grep '^no drift: ' "$T/c0"
		rc=0; handbook --check -o "$T/copy.md" >"$T/c1" 2>&1 || rc=$?
		assert_eq "$rc" 0 "check of -o FILE: $(<"$T/c1")"
	else
		echo >&3 "SKIP markers claims after a real tick: patrol.json has no \"markers\" (patrol/tick.c)"
	fi
	touch "$T/go"
	wait_for 20 test -f "$W/markers/EVAL_DONE"
}

test_marker_drift_after_done() {
	box
	pconf '' '[{"stage": "train", "run": "true"}, {"stage": "eval", "run": "true"}]'
	onbox run >/dev/null 2>&1
	rc=0; patrol >"$T/p" 2>&1 || rc=$?
	assert_eq "$rc" 0
	line_ok DONE "$T/p"
	if ! grep -q '"markers"' "$(PS)"; then
		echo >&3 "SKIP marker drift from patrol's own state: patrol.json has no \"markers\" (patrol/tick.c)"
		seen_state '["TRAIN_DONE", "EVAL_DONE"]' '{}'
	fi
	handbook >/dev/null
	assert_grep '"TRAIN_DONE":true' "$(HB)"
	assert_grep '"EVAL_DONE":true' "$(HB)"
	rc=0; handbook --check >"$T/c0" 2>&1 || rc=$?
	assert_eq "$rc" 0 "$(<"$T/c0")"
	assert_grep '^ok    marker EVAL_DONE present$' "$T/c0"
	assert_grep '^ok    marker EVAL_DONE.FAILED absent$' "$T/c0"
	# A marker disappears and a FAILED twin appears: drift, each named.
	rm "$W/markers/EVAL_DONE"
	touch "$W/markers/TRAIN_DONE.FAILED"
	rc=0; handbook --check >"$T/c1" 2>&1 || rc=$?
	assert_eq "$rc" 1 "$(<"$T/c1")"
	assert_grep '^DRIFT marker EVAL_DONE: the handbook says present, the box does not have it$' "$T/c1"
	assert_grep '^DRIFT marker TRAIN_DONE.FAILED: the handbook says absent, the box has it$' "$T/c1"
	assert_grep '^ok    marker TRAIN_DONE present$' "$T/c1"
	assert_grep '^drift: 2 of ' "$T/c1"
}

test_marker_appears() {
	box
	pconf '' '[{"stage": "train", "run": "true"}, {"stage": "eval", "run": "true"}]'
	mkdir -p "$W/markers"
	touch "$W/markers/TRAIN_DONE"
	seen_state '["TRAIN_DONE"]' '{}'
	handbook >/dev/null
	rc=0; handbook --check >"$T/c0" 2>&1 || rc=$?
	assert_eq "$rc" 0 "$(<"$T/c0")"
	assert_grep '^ok    marker EVAL_DONE absent$' "$T/c0"
	touch "$W/markers/EVAL_DONE"
	rc=0; handbook --check >"$T/c1" 2>&1 || rc=$?
	assert_eq "$rc" 1 "$(<"$T/c1")"
	assert_grep '^DRIFT marker EVAL_DONE: the handbook says absent, the box has it$' "$T/c1"
	# Written again, the handbook says what is true again.
	handbook >/dev/null
	seen_state '["TRAIN_DONE", "EVAL_DONE"]' '{}'
	handbook >/dev/null
	rc=0; handbook --check >"$T/c2" 2>&1 || rc=$?
	assert_eq "$rc" 0 "$(<"$T/c2")"
}

test_cron_line_and_drift() {
	box
	pconf '' '[{"stage": "train", "run": "true"}]'
	handbook >/dev/null
	assert_grep '^Installed: no\.$' "$(HB)"
	assert_grep '"cron":false' "$(HB)"
	rc=0; handbook --check >"$T/c0" 2>&1 || rc=$?
	assert_eq "$rc" 0 "$(<"$T/c0")"
	assert_grep '^ok    cron not installed$' "$T/c0"
	# patrol installs its line: the handbook is now wrong about it...
	patrol --install-cron >/dev/null
	rc=0; handbook --check >"$T/c1" 2>&1 || rc=$?
	assert_eq "$rc" 1 "$(<"$T/c1")"
	assert_grep '^DRIFT cron: the handbook says not installed, the crontab has this run.s line$' "$T/c1"
	# ...and, written again, prints byte for byte the line patrol installed.
	handbook >/dev/null
	assert_grep '^Installed: yes\.$' "$(HB)"
	awk '/The line `patrol --install-cron` installs:$/ { s = 1; next } s && /^```$/ { if (f) exit; f = 1; next } f { print }' "$(HB)" >"$T/line.hb"
	grep 'watchkeeper:t1$' "$T/crontab.txt" >"$T/line.tab"
	cmp "$T/line.hb" "$T/line.tab" || fail "cron lines differ: $(<"$T/line.hb") vs $(<"$T/line.tab")"
	rc=0; handbook --check >"$T/c2" 2>&1 || rc=$?
	assert_eq "$rc" 0 "$(<"$T/c2")"
	# The remove command the handbook gives works.
	awk '/^Remove it/ { s = 1; next } s && /^```sh$/ { f = 1; next } f && /^```$/ { exit } f { print }' "$(HB)" >"$T/rm.sh"
	assert_grep '--uninstall-schedule$' "$T/rm.sh"
	bash "$T/rm.sh" >/dev/null
	assert_no_grep 'watchkeeper:t1' "$T/crontab.txt"
	rc=0; handbook --check >"$T/c3" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep '^DRIFT cron: the handbook says installed' "$T/c3"
}

test_box_down() {
	box
	pconf '' '[{"stage": "train", "run": "true"}]'
	seen_state '[]' '{}'
	handbook >/dev/null
	sshd_stop
	rc=0; handbook --check >"$T/c" 2>&1 || rc=$?
	assert_eq "$rc" 2 "$(<"$T/c")"
	assert_grep '^box not reachable: ' "$T/c"
	assert_grep '^\?     marker TRAIN_DONE: not checked' "$T/c"
	# The crontab is still checked.
	assert_grep '^ok    cron not installed$' "$T/c"
}

test_bad_input() {
	box
	pconf '' '[{"stage": "train", "run": "true"}]'
	rc=0; handbook --check >"$T/e" 2>&1 || rc=$?
	assert_eq "$rc" 74 "no handbook yet"
	assert_grep 'HANDBOOK.md' "$T/e"
	printf '# Handbook: t1\n\nno claims\n' >"$T/x.md"
	rc=0; handbook --check -o "$T/x.md" >"$T/e" 2>&1 || rc=$?
	assert_eq "$rc" 74
	assert_grep "$T/x.md: no claims line" "$T/e"
	printf '# Handbook: t1\n<!-- watchkeeper:claims {"markers":{"A":1} -->\n' >"$T/x.md"
	rc=0; handbook --check -o "$T/x.md" >"$T/e" 2>&1 || rc=$?
	assert_eq "$rc" 74
	assert_grep "$T/x.md: the claims line is garbled" "$T/e"
	rc=0; handbook extra >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 64
	rc=0; handbook --check -o - >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 64
	rc=0; handbook --bogus >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 64
	echo '{ "run": "t1", "workdir": "/w", "chain": [], "bogus": 1 }' >"$T/bad.json"
	rc=0; $ONBOX_WRAP "$HANDBOOK" -c "$T/bad.json" >"$T/e" 2>&1 || rc=$?
	assert_eq "$rc" 78
	assert_grep 'bogus' "$T/e"
	# A garbled patrol.json is ignored with a warning, never fatal.
	mkdir -p "$T/state/watchkeeper/t1"
	echo '{"verdict": ' >"$(PS)"
	rc=0; handbook >"$T/o" 2>"$T/e" || rc=$?
	assert_eq "$rc" 0
	assert_grep 'ignoring .*patrol.json' "$T/e"
	sections_ok "$(HB)"
	# An unwritable output: 74, named.
	rc=0; handbook -o "$T/nodir/x.md" >/dev/null 2>"$T/e" || rc=$?
	assert_eq "$rc" 74
	assert_grep "$T/nodir/x.md" "$T/e"
}

# A cluster-job run: the stages' jobs (adopted or ours), the CLI's dialects, the seeds' rules.
test_cluster_jobs_section() {
	mkdir -p "$T/w"
	cat >"$T/wk.json" <<JSON
{"run": "t1", "profile": "iris", "workdir": "$T/w",
 "chain": [{"stage": "train", "adopt": "/alice/held-sweep",
            "resubmit": "iris job run --no-wait --job-name held-sweep -- python x.py"},
           {"stage": "eval", "run": "python eval.py", "job": {"cpu": 4}}]}
JSON
	WATCHKEEPER_PROFILES="$TOP/profiles" handbook -o "$T/hb.md" >"$T/e" 2>&1 || fail "handbook: $(<"$T/e")"
	assert_grep '^## Cluster jobs' "$T/hb.md"
	assert_grep '^\| train \| adopts `/alice/held-sweep` \| the owner.s resubmit: `iris job run --no-wait' "$T/hb.md"
	assert_grep '^\| eval \| `wk-t1-eval` \| submitted again as its name \|' "$T/hb.md"
	assert_grep '^- `iris-describe`: `iris .*job describe --help' "$T/hb.md"
	assert_grep "records it in \`$T/w/.watchkeeper/job.json\`" "$T/hb.md"
	assert_grep 'capacity_wait' "$T/hb.md"
	assert_no_grep '^## Slurm' "$T/hb.md"
}

t after_a_real_tick test_after_a_real_tick
t marker_drift_after_done test_marker_drift_after_done
t marker_appears test_marker_appears
t cron_line_and_drift test_cron_line_and_drift
t box_down test_box_down
t bad_input test_bad_input
t cluster_jobs_section test_cluster_jobs_section
