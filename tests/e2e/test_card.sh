#!/usr/bin/env bash
# End-to-end tests of the live card (core/card.c): one message per run,
# edited in place, plus a message that pings only when a human is needed,
# against local stand-ins of the Slack Web API, the Telegram Bot API and a
# Discord webhook that check the documented request shapes
# (tests/e2e/fixtures/fake-chat), with real onbox processes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"	# sshd_at_exit

export WK_SLACK_BOT="xoxb-test-token" WK_TG="123456:TESTTOKEN"
HEALTH='"progress": {"pattern": "step (\\d+)/(\\d+)"}, "loss": {"pattern": "loss=(\\S+)"},'

start_chat() {
	rm -f "$T/chat.port"
	python3 "$TOP/tests/e2e/fixtures/fake-chat" --port-file "$T/chat.port" --log "$T/chat.jsonl" \
		>>"$T/chat.out" 2>&1 &
	echo $! >>"$T/.pids"
	wait_for 10 test -s "$T/chat.port"
	CP=$(<"$T/chat.port")
	touch "$T/chat.jsonl"
}

# The three card sinks (card is on by default), or the ones named.
sinks() {
	local u="http://127.0.0.1:$CP" extra=${1:-} s=() k
	for k in ${2:-slack tg discord}; do
		case $k in
		slack) s+=("{\"type\": \"slack\", \"channel\": \"#runs\", \"token_env\": \"WK_SLACK_BOT\", \"url\": \"$u/slack/api\", \"card_every_s\": 1$extra}") ;;
		tg) s+=("{\"type\": \"telegram\", \"url\": \"$u/tg\", \"token_env\": \"WK_TG\", \"chat_id\": 4242, \"card_every_s\": 1$extra}") ;;
		discord) s+=("{\"type\": \"discord\", \"url\": \"$u/discord/webhooks/123/tok-abc\", \"card_every_s\": 1$extra}") ;;
		esac
	done
	local IFS=,
	echo "[${s[*]}]"
}

# chat EXPR: EXPR over r, the stand-in's requests (a list of dicts), printed.
chat() { python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; v=eval(sys.argv[2]); print(v if not isinstance(v,bool) else str(v).lower())' "$T/chat.jsonl" "$1"; }
# chat_all_show TEXT API...: each API has answered 200 to a request carrying TEXT.
chat_all_show() {
	local want=$1 a
	shift
	for a in "$@"; do
		[ "$(chat "any('$want' in $TXT and x['status'] == 200 for x in r if x.get('api') == '$a')")" = true ] || return 1
	done
}
# The text an API's request carries.
TXT='(x["body"].get("text") or x["body"].get("content") or "")'

# A training: attempt 1 fails (restarted by the policy), attempt 2 reports
# progress and loss, then waits for $T/go, then finishes; eval after it.
train_chain() {
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
if [ ! -e "$T/failed.once" ]; then
	: >"$T/failed.once"
	echo "step 1/20 loss=3.0"
	# an NCCL watchdog timeout: a class the policy restarts
	sed -n 2,3p "$TOP/tests/e2e/fixtures/nccl_timeout.log" >&2
	exit 1
fi
i=\${START:-1}
[ -e "$T/go" ] && i=11
while [ \$i -le 20 ]; do
	echo "step \$i/20 loss=\$(awk "BEGIN{print 3.0/\$i}")"
	if [ \$i -eq 10 ]; then
		: >"$T/waiting"
		"$AWAIT" 60 "$T/go" || exit 3
	fi
	i=\$((i + 1))
	"$AWAIT" 0.2 "$T/never" 2>/dev/null || :
done
SH
	chmod +x "$T/bin/train.sh"
	conf "$HEALTH \"restart\": {\"max\": 2, \"escalate_s\": 0}, \"notify\": $1," \
		"[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}, {\"stage\": \"eval\", \"run\": \"echo acc=0.9\"}]"
}

# One API's card through a whole run: one card, edited, one ping (DONE).
check_api() {
	local api=$1 post=$2 edit=$3 id
	# the card: the first post; the ping: the only other post, DONE
	assert_eq "$(chat "len([x for x in r if x.get('api')=='$api' and x['op']=='post'])")" 2 "$api posts"
	id=$(chat "[x['id'] for x in r if x.get('api')=='$api' and x['op']=='post'][0]")
	chat "[$TXT for x in r if x.get('api')=='$api' and x['op']=='post'][1]" >"$T/$api.ping"
	assert_grep '^\[t1\] chain DONE' "$T/$api.ping"
	# every edit is of that one card, all answered, through the documented method;
	# the new onbox found the card again: it edited it after the restart
	assert_eq "$(chat "len([x for x in r if x.get('api')=='$api' and x['op']=='edit' and x['t'] > $T_KILL]) >= 1")" true "$api edits after the restart"
	assert_eq "$(chat "sorted(set(str(x['id']) for x in r if x.get('api')=='$api' and x['op']=='edit'))")" "['$id']"
	assert_eq "$(chat "[x['path'].rsplit('/', 1)[-1] if '$api' != 'discord' else x['method'] for x in r if x.get('api')=='$api' and x['op']=='edit'][0]")" "$edit"
	assert_eq "$(chat "all(x['status'] == 200 or (x['status'] == 400 and 'tg' == '$api') for x in r if x.get('api')=='$api' and x['op']=='edit')")" true
	# what the card went through: the restart, progress with a loss line, DONE last
	chat "[$TXT for x in r if x.get('api')=='$api' and x['op']=='edit' and x['status']==200][-1]" >"$T/$api.card"
	assert_grep '^\[t1\] DONE' "$T/$api.card"
	assert_grep '^loss ' "$T/$api.card"
	assert_grep '^updated 20' "$T/$api.card"
	# the restart stays on the card (DONE's caveats); the progress moved on it
	assert_grep '1 restart \(nccl_timeout\)' "$T/$api.card"
	assert_eq "$(chat "any('~10/20' in $TXT for x in r if x.get('api')=='$api' and x['op'] in ('post', 'edit'))")" true "$api progress on the card"
	# the card was posted through the documented method (discord: ?wait=true, for its id)
	assert_eq "$(chat "[x['path'].rsplit('/', 1)[-1] if '$api' != 'discord' else x['query'] for x in r if x.get('api')=='$api' and x['op']=='post'][0]")" "$post"
}

test_card_through_a_run() {
	start_chat
	train_chain "$(sinks)"
	bg_onbox run
	wait_for 30 test -e "$T/waiting"
	# every card shows the progress before the crash
	wait_for 20 chat_all_show '~10/20' slack tg discord
	# onbox dies (kill -9): the training's wrapper lives on; a new onbox re-attaches
	kill -9 "$LAST_PID"
	wait_for 10 gone "$LAST_PID"
	local n_before
	n_before=$(chat "len([x for x in r if x['op']=='post'])")
	T_KILL=$(date +%s.%N)
	bg_onbox run
	wait_for 20 grep -q 're-attaching' "$T/onbox.out"
	touch "$T/go"
	wait_for 60 test -e "$W/markers/EVAL_DONE"
	wait_for 30 sh -c "[ \$(grep -c 'chain DONE' '$T/chat.jsonl') -ge 3 ]"
	# no new card after the restart: only the three DONE pings were posted
	assert_eq "$(chat "len([x for x in r if x['op']=='post'])")" "$((n_before + 3))" "posts after the restart"
	check_api slack chat.postMessage chat.update
	check_api tg sendMessage editMessageText
	check_api discord wait=true PATCH
	# the shapes: slack's update names the channel's id and ts; telegram's the chat and message
	assert_eq "$(chat "all(x['body']['channel']=='C0CARDS01' and x['body']['ts'] for x in r if x.get('api')=='slack' and x['op']=='edit')")" true
	assert_eq "$(chat "all(str(x['body']['chat_id'])=='4242' and isinstance(x['body']['message_id'], int) for x in r if x.get('api')=='tg' and x['op']=='edit')")" true
	assert_eq "$(chat "[x['query'] for x in r if x.get('api')=='discord' and x['op']=='post']")" "['wait=true', '']"
	# the card's id is the run's state, on the box
	assert_eq "$(json "$W/outbox/2-discord/card.json" 'd["message_id"]')" \
		"$(chat "[x['id'] for x in r if x.get('api')=='discord' and x['op']=='post'][0]")"
	onbox status >"$T/status.out" 2>&1 || :
	assert_grep "^notify 2-discord: 0 pending, last delivered .*; live card $(chat "[x['id'] for x in r if x.get('api')=='discord' and x['op']=='post'][0]"), updated " "$T/status.out"
	# the failure that was restarted pinged nobody
	assert_eq "$(chat "any($TXT.startswith('[t1] train FAILED') for x in r if x['op']=='post')")" false
}

# An edit that fails for good (the card was deleted) falls back to a new
# card; one that fails for now (503) is retried on the same card; nothing
# is lost on the way.
test_card_edit_fails() {
	start_chat
	train_chain "$(sinks "" "slack tg")"
	: >"$T/failed.once"
	bg_onbox run
	wait_for 30 test -e "$T/waiting"
	wait_for 20 chat_all_show '~10/20' slack tg
	local old_slack old_tg
	old_slack=$(chat "[x['id'] for x in r if x.get('api')=='slack' and x['op']=='post'][0]")
	old_tg=$(chat "[x['id'] for x in r if x.get('api')=='tg' and x['op']=='post'][0]")
	# someone deletes the cards in the chat; telegram fails for a while
	curl -s -X POST -d '{}' "http://127.0.0.1:$CP/control/forget" >/dev/null
	curl -s -X POST -d '{}' "http://127.0.0.1:$CP/control/fail/tg/2" >/dev/null
	touch "$T/go"
	wait_for 60 gone "$LAST_PID"
	# what is still due waits for its retry time: the documented flush sends it now
	# (a 503 left for it stops that flush: again, a bounded number of times)
	local i
	for i in 1 2 3 4; do
		onbox notify --flush >>"$T/flush.out" 2>&1 || :
		[ "$(ls "$W/outbox/1-telegram" | grep -cE '^[0-9]+\.json$')" = 0 ] && break
	done
	# slack: message_not_found -> a new card, then edits of the new one
	assert_eq "$(chat "len([x for x in r if x.get('api')=='slack' and x['op']=='post'])")" 3 "slack: card, new card, DONE"
	local new_slack
	new_slack=$(chat "[x['id'] for x in r if x.get('api')=='slack' and x['op']=='post'][1]")
	[ "$new_slack" != "$old_slack" ] || fail "slack: no new card"
	assert_eq "$(chat "[x['body']['ts'] for x in r if x.get('api')=='slack' and x['op']=='edit' and x['status']==200][-1]")" "$new_slack"
	assert_eq "$(json "$W/outbox/0-slack/card.json" 'd["message_id"]')" "$new_slack"
	# telegram: two 503s, retried, then the deleted card -> a new card too
	assert_eq "$(chat "len([x for x in r if x.get('api')=='tg' and x['op']=='failed'])")" 2
	assert_eq "$(chat "len([x for x in r if x.get('api')=='tg' and x['op']=='post'])")" 3 "tg: card, new card, DONE"
	[ "$(chat "[x['id'] for x in r if x.get('api')=='tg' and x['op']=='post'][1]")" != "$old_tg" ] || fail "tg: no new card"
	# nothing lost: the last card says DONE, the outbox is empty
	assert_eq "$(chat "len([x for x in r if x.get('api')=='tg' and x['op']=='post' and $TXT.startswith('[t1] chain DONE')])")" 1 "tg: one DONE ping"
	assert_eq "$(chat "[$TXT for x in r if x.get('api')=='tg' and x['op'] in ('edit', 'post') and x['status']==200 and $TXT.startswith('[t1] ') and not $TXT.startswith('[t1] chain')][-1].split(chr(10))[0]")" "[t1] DONE · eval attempt 1"
	assert_eq "$(ls "$W/outbox/1-telegram" | grep -cE '^[0-9]+\.json$')" 0
	grep -q 'posting a new card' "$T/onbox.out" "$W/onbox.log" 2>/dev/null || fail "no word of the new card in the logs"
}

# "card": false keeps one message per event; the curl command path edits too.
test_card_off_and_curl() {
	start_chat
	conf "\"notify\": $(sinks ', "card": false' tg)," '[{"stage": "s1", "run": "echo step 1/1"}]'
	onbox run >"$T/out" 2>&1
	wait_for 10 sh -c "[ \$(grep -c '\"op\": \"post\"' '$T/chat.jsonl') -ge 3 ]"
	assert_eq "$(chat "[x['op'] for x in r]")" "['post', 'post', 'post']"
	# the same run with cards, HTTP through the curl command: a PATCH edits the card
	rm -rf "$T/work" "$T/chat.jsonl"
	: >"$T/chat.jsonl"
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "step 1/2"\n"%s" 60 "%s/go" || :\necho "step 2/2"\n' "$AWAIT" "$T" >"$T/bin/s1.sh"
	chmod +x "$T/bin/s1.sh"
	conf "\"notify\": $(sinks '' discord)," "[{\"stage\": \"s1\", \"run\": \"$T/bin/s1.sh\"}, {\"stage\": \"s2\", \"run\": \"echo ok\"}]"
	WATCHKEEPER_HTTP=curl bg_onbox run
	wait_for 20 grep -q '"op": "post"' "$T/chat.jsonl"
	touch "$T/go"
	wait_for 30 grep -q '\[t1\] chain DONE' "$T/chat.jsonl"
	wait_for 30 gone "$LAST_PID"
	assert_eq "$(chat "[p['query'] for p in r if p['op']=='post']")" "['wait=true', '']"
	assert_eq "$(chat "len([x for x in r if x['method']=='PATCH' and x['status']==200]) >= 1")" true
	assert_eq "$(chat "[$TXT for x in r if x['method']=='PATCH'][-1].split(chr(10))[0]")" "[t1] DONE · s2 attempt 1"
}

# What only patrol can see (the box's onbox and stage are gone): patrol's
# ping, and the same card edited to say it, from the card the box's
# heartbeat listed.
test_card_patrol_crash() {
	box
	start_chat
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "step 3/10 loss=1.5"\n"%s" 120 "%s/go" || :\n' "$AWAIT" "$T" >"$T/bin/slow.sh"
	chmod +x "$T/bin/slow.sh"
	pconf "$HEALTH \"notify\": $(sinks "" tg)," "[{\"stage\": \"train\", \"run\": \"$T/bin/slow.sh\"}]"
	bg_onbox run
	local ob=$LAST_PID id n p f
	wait_for 20 grep -q '~3/10' "$T/chat.jsonl"
	id=$(chat "[x['id'] for x in r if x['op']=='post'][0]")
	# patrol sees it running: OK needs nobody, nothing is sent
	"$TOP/$BUILD/patrol" -c "$T/wk.json" --once >"$T/p1" 2>&1 || :
	assert_grep ' t1 OK ' "$T/p1"
	n=$(chat "len([x for x in r if x['op']=='post'])")
	assert_eq "$n" 1
	# the box loses onbox and the training at once
	kill -9 "$ob"
	local gone_too=""
	for f in "$W"/attempts/*.json; do
		p=$(json "$f" 'd.get("pid",0)'); [ "$p" != 0 ] && kill -9 -- "-$p" 2>/dev/null && gone_too="$gone_too $p"
		p=$(json "$f" 'd.get("wrapper_pid",0)'); [ "$p" != 0 ] && kill -9 "$p" 2>/dev/null && gone_too="$gone_too $p"
	done
	for p in $ob $gone_too; do wait_for 10 gone "$p"; done
	"$TOP/$BUILD/patrol" -c "$T/wk.json" --once >"$T/p2" 2>&1 || :
	v=$(awk '{print $3}' "$T/p2" | head -1)
	case $v in CRASHED | NEEDS_RESUME) ;; *) fail "verdict $v: $(cat "$T/p2")" ;; esac
	# the card (the box's message) says it, then the ping
	wait_for 10 grep -q "\] $v" "$T/chat.jsonl"
	assert_eq "$(chat "[x['id'] for x in r if x['op']=='edit'][-1]")" "$id"
	assert_eq "$(chat "[$TXT for x in r if x['op']=='edit'][-1].split(chr(10))[0]")" "[t1] $v · train attempt 1"
	assert_eq "$(chat "'~3/10' in [$TXT for x in r if x['op']=='edit'][-1]")" true
	assert_eq "$(chat "len([x for x in r if x['op']=='post'])")" 2
	assert_eq "$(chat "'$v' in [$TXT for x in r if x['op']=='post'][-1]")" true
}

# `onbox stop` (its own process, on the box): the card says STOPPED, and the stop pings.
test_card_stop() {
	start_chat
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "step 3/10 loss=1.5"\n"%s" 120 "%s/go" || :\n' "$AWAIT" "$T" >"$T/bin/slow.sh"
	chmod +x "$T/bin/slow.sh"
	conf "$HEALTH \"notify\": $(sinks "" discord)," "[{\"stage\": \"train\", \"run\": \"$T/bin/slow.sh\"}]"
	bg_onbox run
	wait_for 20 grep -q '~3/10' "$T/chat.jsonl"
	onbox stop >"$T/stop.out" 2>&1 || { cat "$T/stop.out" >&2; fail "onbox stop"; }
	wait_for 20 grep -q 'STOPPED on purpose' "$T/chat.jsonl"
	wait_for 10 sh -c "[ \$(grep -c '\"op\": \"post\"' '$T/chat.jsonl') -ge 2 ]"
	assert_eq "$(chat "len([x for x in r if x['op']=='post'])")" 2 "card and the STOPPED ping"
	assert_eq "$(chat "[$TXT for x in r if x['op']=='post'][1].startswith('[t1] train attempt 1 STOPPED on purpose')")" true
	assert_eq "$(chat "[$TXT for x in r if x['op']=='edit' and x['status']==200][-1].split(chr(10))[0]")" "[t1] STOPPED · train attempt 1"
}

t card_through_a_run test_card_through_a_run
t card_edit_fails test_card_edit_fails
t card_off_and_curl test_card_off_and_curl
t card_patrol_crash test_card_patrol_crash
t card_stop test_card_stop
