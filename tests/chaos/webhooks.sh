#!/usr/bin/env bash
# Chaos: the webhook receiver down, slow, failing, wrong, up, in a random
# sequence across a chain of N stages.
#
#   tests/chaos/webhooks.sh [STAGES]    (default 20; BUILD as for tests/e2e)
#
# Two sinks on one receiver (tests/e2e/receiver.py): a generic one that takes
# every event, and a slack one subscribed to stage_done and chain_done only.
# Before each stage ends, the receiver takes the next behaviour of the
# sequence (every one of down, slow beyond the timeout, 500, 404, up once per
# round of five, in a random order), and the test waits until a delivery was
# tried under it.  Each time: `onbox status` never calls a sink disabled, the
# events are kept (pending > 0 unless the receiver is up), and a 404 is shown
# as a permanent failure that needs the config fixed, events kept.  At the
# end the receiver is up: every event id of events.jsonl a sink subscribes to
# reached it exactly once (answered 200), in the order of events.jsonl, and
# no other id did.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib_chaos.sh"

STAGES=${1:-20}
[ "$CHAOS_SLOW" = 1 ] && [ "$STAGES" -gt 5 ] && STAGES=5
BEHAVIOURS=(down slow 500 404 up)

# The receiver's state: RUNNING 1 or 0.
recv_down() { [ "${RUNNING:-0}" = 0 ] || stop_receiver; RUNNING=0; }
recv_up() {
	echo "$1" >"$T/recv.mode"
	[ "${RUNNING:-0}" = 1 ] || { start_receiver "$PORT"; RUNNING=1; }
}

# A delivery to the generic sink was tried under behaviour $1 since $2 was touched.
tried_under() {
	local want st="$W/outbox/0-generic/status.json"
	[ -n "$(find "$st" -newer "$2" 2>/dev/null)" ] || return 1
	case $1 in
	down) want='connection refused' ;;
	slow) want='no answer within 1 s' ;;
	500) want='HTTP 500: the receiver is failing' ;;
	404) want='HTTP 404: the URL is wrong' ;;
	up) want='"last_ok"' ;;
	esac
	grep -q "$want" "$st" 2>/dev/null
}
pending() { find "$W/outbox/$1" -name '0*.json' 2>/dev/null | wc -l; }

# wh_ids SINKPATH: the ids the receiver acknowledged (200) at a path, in arrival order.
wh_ids() { recv_json "'\n'.join(x['headers'].get('X-Watchkeeper-Event-Id', '?') for x in r if x['status'] == 200 and x['path'] == '$1')"; }
# wh_want EVENTS: the ids of events.jsonl, all or those whose type is in EVENTS (space-separated).
wh_want() {
	python3 -c 'import json,sys
want = sys.argv[2].split()
for l in open(sys.argv[1]):
    e = json.loads(l)
    if not want or e["event"] in want:
        print(e["id"])' "$W/events.jsonl" "$1"
}

test_webhooks() {
	local i b k n order=() chain="" sep="" statuses=0 perm=0
	local -A seen=()
	start_receiver
	PORT=$RPORT
	RUNNING=1
	mkdir -p "$T/bin"
	for i in $(seq 1 "$STAGES"); do
		cat >"$T/bin/s$i.sh" <<SH
#!/bin/sh
echo "step $i/$STAGES"
"$AWAIT" 60 "$T/go.$i" || :
echo "s$i ok"
SH
		chmod +x "$T/bin/s$i.sh"
		chain="$chain$sep{\"stage\": \"s$i\", \"run\": \"$T/bin/s$i.sh\"}"
		sep=", "
	done
	conf "\"notify\": [{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$PORT/hook\"},
	  {\"type\": \"slack\", \"url\": \"http://127.0.0.1:$PORT/slack\", \"events\": [\"stage_done\", \"chain_done\"]}],
	  \"outbox\": {\"retry_base_ms\": 100, \"retry_max_s\": 1, \"timeout_s\": 1, \"connect_timeout_s\": 1}," "[$chain]"
	bg_onbox run
	for i in $(seq 1 "$STAGES"); do
		k=$(( (i - 1) % ${#BEHAVIOURS[@]} ))
		if [ "$k" = 0 ]; then
			order=("${BEHAVIOURS[@]}")
			for n in 4 3 2 1; do
				rnd k 0 "$n"
				b=${order[$n]}; order[$n]=${order[$k]}; order[$k]=$b
			done
		fi
		b=${order[$(( (i - 1) % ${#BEHAVIOURS[@]} ))]}
		echo "stage $i: receiver $b"
		wait_for 20 grep -q "\"stage_started\".*\"s$i\"" "$W/events.jsonl"
		case $b in
		down) recv_down ;;
		slow) recv_up "hang:3" ;;
		up) recv_up 200 ;;
		*) recv_up "$b" ;;
		esac
		touch "$T/switch.$i"
		sleep 0.01
		touch "$T/go.$i"
		wait_for 20 grep -q "\"stage_done\".*\"s$i\"" "$W/events.jsonl"
		wait_for 30 tried_under "$b" "$T/switch.$i"
		onbox status >"$T/status.$i" 2>&1
		onbox status --json >"$T/status.$i.json"
		statuses=$((statuses + 1))
		! grep -qi 'disabled' "$T/status.$i" "$T/status.$i.json" || fail "a sink is called disabled"
		if [ "$b" != up ]; then
			[ "$(pending 0-generic)" -gt 0 ] || fail "receiver $b: no event kept for 0-generic"
			assert_grep 'notify 0-generic: [1-9][0-9]* pending, FAILING since' "$T/status.$i"
		fi
		if [ "$b" = 404 ]; then
			assert_grep 'notify 0-generic: .*HTTP 404: the URL is wrong .*\(fix the config; events are kept\)' "$T/status.$i"
			assert_eq "$(json "$T/status.$i.json" '[s["permanent"] for s in d["notify"] if s["sink"] == "0-generic"][0]')" true
			perm=$((perm + 1))
		fi
		seen[$b]=$(( ${seen[$b]:-0} + 1 ))
	done
	# The receiver is up for good: everything arrives, once, in order.
	recv_up 200
	wait_for 120 pids_dead "$LAST_PID"
	wait "$LAST_PID"
	for n in $(seq 1 10); do
		[ "$(pending 0-generic)" = 0 ] && [ "$(pending 1-slack)" = 0 ] && break
		onbox notify --flush >>"$T/flush.out" 2>&1 || true
	done
	assert_eq "$(pending 0-generic)$(pending 1-slack)" 00 "events left in the outbox"
	wh_want "" >"$T/want.generic"
	wh_want "stage_done chain_done" >"$T/want.slack"
	wh_ids /hook >"$T/got.generic"
	wh_ids /slack >"$T/got.slack"
	for k in generic slack; do
		[ "$(sort "$T/got.$k" | uniq -d | wc -l)" = 0 ] ||
			fail "$k: delivered more than once: $(sort "$T/got.$k" | uniq -d | paste -sd' ')"
		diff "$T/want.$k" "$T/got.$k" || fail "$k: what was delivered is not events.jsonl's events in order"
	done
	[ "$(wc -l <"$T/want.slack")" -lt "$(wc -l <"$T/want.generic")" ] || fail "the slack sink's filter let everything through"
	summary "$STAGES stages, receiver $(for b in "${BEHAVIOURS[@]}"; do printf '%s %sx ' "$b" "${seen[$b]:-0}"; done); $(wc -l <"$T/want.generic") + $(wc -l <"$T/want.slack") events delivered once each, $statuses status checks, $perm permanent 404s"
}

chaos_banner webhooks "$STAGES stages"
ct chaos_webhooks test_webhooks
