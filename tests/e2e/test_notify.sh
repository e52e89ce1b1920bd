#!/usr/bin/env bash
# End-to-end tests of notifications: a real HTTP receiver on 127.0.0.1, real
# onbox processes, the durable outbox.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"	# sshd_at_exit

# A chain of N quick stages (s1..sN); stage K waits for $T/go.K when K is in WAIT.
chain_conf() {
	local n=$1 notify=$2 extra=${3:-} i chain="" sep=""
	mkdir -p "$T/bin"
	for i in $(seq 1 "$n"); do
		cat >"$T/bin/s$i.sh" <<SH
#!/bin/sh
echo "step $i/$n"
case " \${WAIT:-} " in *" $i "*) "$AWAIT" 30 "$T/go.$i" || : ;; esac
echo "s$i ok"
SH
		chmod +x "$T/bin/s$i.sh"
		chain="$chain$sep{\"stage\": \"s$i\", \"run\": \"$T/bin/s$i.sh\"}"
		sep=", "
	done
	conf "\"notify\": $notify, $extra" "[$chain]"
}

event_ids_in_order() { python3 -c 'import json,sys; print("\n".join(json.loads(l)["id"] for l in open(sys.argv[1])))' "$W/events.jsonl"; }
received_ids() { recv_json "'\n'.join(json.loads(x['body'])['id'] for x in r if x['status'] == 200 and x['path'] == '$1')"; }

test_each_sink_kind() {
	start_receiver
	local u="http://127.0.0.1:$RPORT"
	export WK_SLACK_URL="$u/slack" WK_TG_TOKEN="123456:ABCDEF-telegram-token"
	chain_conf 1 "[
	 {\"type\": \"generic\", \"url\": \"$u/generic\"},
	 {\"type\": \"slack\", \"url_env\": \"WK_SLACK_URL\"},
	 {\"type\": \"discord\", \"url\": \"$u/discord\", \"card\": false},
	 {\"type\": \"telegram\", \"url\": \"$u/tg\", \"token_env\": \"WK_TG_TOKEN\", \"chat_id\": 4242, \"card\": false},
	 {\"type\": \"ntfy\", \"url\": \"$u/ntfy/mytopic\"},
	 {\"type\": \"feishu\", \"url\": \"$u/feishu\"},
	 {\"type\": \"lark\", \"url\": \"$u/lark\"},
	 {\"type\": \"dingtalk\", \"url\": \"$u/dingtalk\"},
	 {\"type\": \"wecom\", \"url\": \"$u/wecom\"},
	 {\"type\": \"command\", \"command\": \"cat >> $T/cmd.jsonl\"}]"
	onbox run >"$T/out" 2>&1
	# 3 events (started, done, chain done) to each of 9 HTTP sinks.
	wait_for 10 sh -c "[ \$(wc -l <'$T/recv.jsonl') -ge 27 ]"
	assert_eq "$(recv_json "all(x['method'] == 'POST' for x in r)")" true
	assert_eq "$(recv_json "all(x['headers'].get('X-Watchkeeper-Event-Id') for x in r)")" true
	# generic: the whole event as JSON.
	assert_eq "$(recv_json "[json.loads(x['body'])['event'] for x in r if x['path']=='/generic']")" "['stage_started', 'stage_done', 'chain_done']"
	assert_eq "$(recv_json "r[[x['path'] for x in r].index('/generic')]['headers']['Content-Type']")" application/json
	# slack: {"text": one line}.
	recv_json "[json.loads(x['body'])['text'] for x in r if x['path']=='/slack'][1]" >"$T/slack.txt"
	assert_grep '^\[t1\] s1 DONE' "$T/slack.txt"
	assert_eq "$(recv_json "'content' in json.loads([x for x in r if x['path']=='/discord'][0]['body'])")" true
	# telegram: the bot token in the path, chat_id and text in the body.
	assert_eq "$(recv_json "[x['path'] for x in r if x['path'].startswith('/tg')][0]")" "/tg/bot123456:ABCDEF-telegram-token/sendMessage"
	assert_eq "$(recv_json "str(json.loads([x for x in r if x['path'].startswith('/tg')][0]['body'])['chat_id'])")" 4242
	# ntfy: plain text body, a Title header.
	assert_eq "$(recv_json "[x for x in r if x['path']=='/ntfy/mytopic'][0]['headers']['Content-Type'].split(';')[0]")" text/plain
	assert_eq "$(recv_json "bool([x for x in r if x['path']=='/ntfy/mytopic'][0]['headers'].get('Title'))")" true
	# feishu / lark / dingtalk / wecom shapes.
	assert_eq "$(recv_json "json.loads([x for x in r if x['path']=='/feishu'][0]['body'])['msg_type']")" text
	assert_eq "$(recv_json "'text' in json.loads([x for x in r if x['path']=='/lark'][0]['body'])['content']")" true
	assert_eq "$(recv_json "json.loads([x for x in r if x['path']=='/dingtalk'][0]['body'])['msgtype']")" text
	assert_eq "$(recv_json "'content' in json.loads([x for x in r if x['path']=='/wecom'][0]['body'])['text']")" true
	# command: the event JSON on stdin, one line each.
	wait_for 5 sh -c "[ \$(wc -l <'$T/cmd.jsonl') -ge 3 ]"
	assert_eq "$(python3 -c 'import json,sys; print([json.loads(l)["event"] for l in open(sys.argv[1])])' "$T/cmd.jsonl")" "['stage_started', 'stage_done', 'chain_done']"
	# Nothing left behind.
	assert_eq "$(find "$W/outbox" -name '0*.json' | wc -l)" 0
}

test_receiver_down_then_up_nothing_lost_in_order() {
	start_receiver
	port=$RPORT
	stop_receiver
	chain_conf 3 "[{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$port/hook\"}]" \
		'"outbox": {"retry_base_ms": 100, "retry_max_s": 1, "timeout_s": 2},'
	WAIT="2" bg_onbox run
	wait_for 10 grep -q '"stage_started".*"s2"' "$W/events.jsonl"
	# Down: events wait in the outbox, the failure is visible.
	wait_for 10 grep -q 'refused\|down' "$W/outbox/0-generic/status.json"
	onbox status >"$T/status.out"
	assert_grep 'notify 0-generic: [0-9]+ pending, FAILING' "$T/status.out"
	start_receiver "$port"
	touch "$T/go.2"
	wait "$LAST_PID"
	wait_for 10 sh -c "[ \$(find '$W/outbox' -name '0*.json' | wc -l) -eq 0 ]"
	# Every event, in order, none lost; repeats (if any) carry the same id.
	received_ids /hook | awk '!seen[$0]++' >"$T/got"
	event_ids_in_order >"$T/want"
	diff "$T/want" "$T/got"
}

test_receiver_hangs_bounded_then_retried() {
	start_receiver
	echo "hang:30" >"$T/recv.mode"
	chain_conf 1 "[{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$RPORT/hook\"}]" \
		'"outbox": {"timeout_s": 1, "connect_timeout_s": 1},'
	start=$(date +%s)
	onbox run >"$T/out" 2>&1
	end=$(date +%s)
	# The chain is not held up by the receiver beyond its bounds.
	[ $((end - start)) -lt 20 ] || fail "onbox took $((end - start)) s with a hanging receiver"
	assert_grep 'not delivered yet' "$T/out"
	assert_grep 'no answer within 1 s' "$W/outbox/0-generic/status.json"
	n=$(find "$W/outbox" -name '0*.json' | wc -l)
	[ "$n" -ge 1 ] || fail "events were lost"
	echo 200 >"$T/recv.mode"
	onbox notify --flush >"$T/flush.out"
	assert_eq "$(find "$W/outbox" -name '0*.json' | wc -l)" 0
	received_ids /hook | awk '!seen[$0]++' >"$T/got"
	event_ids_in_order >"$T/want"
	diff "$T/want" "$T/got"
}

test_kill9_with_events_in_outbox() {
	start_receiver
	port=$RPORT
	stop_receiver
	chain_conf 2 "[{\"type\": \"slack\", \"url\": \"http://127.0.0.1:$port/slack\"}]" \
		'"outbox": {"retry_base_ms": 60000, "timeout_s": 2},'
	WAIT="2" bg_onbox run
	first=$LAST_PID
	wait_for 10 grep -q '"stage_started".*"s2"' "$W/events.jsonl"
	wait_for 10 test -f "$W/outbox/0-slack/status.json"
	kill -9 "$first"
	wait "$first" 2>/dev/null || true
	before=$(find "$W/outbox" -name '0*.json' | wc -l)
	[ "$before" -ge 3 ] || fail "expected queued events, found $before"
	start_receiver "$port"
	touch "$T/go.2"
	WAIT="2" onbox run >"$T/out2" 2>&1
	wait_for 10 sh -c "[ \$(find '$W/outbox' -name '0*.json' | wc -l) -eq 0 ]"
	# The events queued by the killed onbox arrived, then the new ones.
	assert_eq "$(recv_json "[json.loads(x['body'])['text'].split(' ')[1:3] for x in r][:2]")" "[['s1', 'started'], ['s1', 'DONE']]"
	assert_eq "$(recv_json "sum(1 for x in r if x['status']==200)")" "$(wc -l <"$W/events.jsonl")"
}

test_wrong_url_reported_never_disabled() {
	start_receiver
	echo 404 >"$T/recv.mode"
	chain_conf 1 "[{\"type\": \"slack\", \"url\": \"http://127.0.0.1:$RPORT/wrong\"}]" \
		'"outbox": {"retry_base_ms": 50, "retry_max_s": 1},'
	onbox run >"$T/out" 2>&1
	onbox status >"$T/status.out"
	assert_grep 'the URL is wrong' "$T/status.out"
	onbox notify --test >"$T/test.out" 2>&1 || true
	assert_grep '0-slack +FAILED: HTTP 404: the URL is wrong' "$T/test.out"
	# Still trying, still keeping everything.
	n=$(find "$W/outbox" -name '0*.json' | wc -l)
	assert_eq "$n" 3
	echo 200 >"$T/recv.mode"
	onbox notify --flush >/dev/null
	assert_eq "$(find "$W/outbox" -name '0*.json' | wc -l)" 0
	onbox status >"$T/status2.out"
	assert_grep 'notify 0-slack: 0 pending, last delivered' "$T/status2.out"
}

test_feishu_200_with_error_code_is_not_delivered() {
	start_receiver
	echo 'json:200:{"code":19021,"msg":"sign match fail or timestamp is not within one hour from current time"}' >"$T/recv.mode"
	chain_conf 1 "[{\"type\": \"feishu\", \"url\": \"http://127.0.0.1:$RPORT/feishu\"}]"
	onbox run >/dev/null 2>&1
	assert_eq "$(find "$W/outbox" -name '0*.json' | wc -l)" 3
	assert_grep '19021' "$W/outbox/0-feishu/status.json"
}

test_notify_test_reports_each_sink() {
	start_receiver
	chain_conf 1 "[{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$RPORT/ok\"},
	 {\"type\": \"slack\", \"url_env\": \"WK_UNSET_VAR_XYZ\"},
	 {\"type\": \"command\", \"command\": \"exit 3\"}]"
	rc=0; onbox notify --test >"$T/test.out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep '0-generic +delivered' "$T/test.out"
	assert_grep '1-slack +FAILED: .*WK_UNSET_VAR_XYZ' "$T/test.out"
	assert_grep '2-command +FAILED: .*3' "$T/test.out"
	assert_eq "$(recv_json "json.loads(r[0]['body'])['event']")" test
}

test_no_secret_anywhere() {
	start_receiver
	secret_url="http://127.0.0.1:$RPORT/hooks/T0SECRETPATH9f8e7d6c5b4a"
	export WK_SECRET_URL="$secret_url"
	export WK_TG_SECRET="987654:SECRET-TOKEN-abcdef123"
	echo 404 >"$T/recv.mode"
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "Traceback (most recent call last):" >&2\necho "KeyError: lr" >&2\nexit 1\n' >"$T/bin/f.sh"
	chmod +x "$T/bin/f.sh"
	conf "\"notify\": [{\"type\": \"slack\", \"url_env\": \"WK_SECRET_URL\"},
	  {\"type\": \"generic\", \"url\": \"http://127.0.0.1:$RPORT/cfg/ANOTHERSECRETxyz123\"},
	  {\"type\": \"telegram\", \"url\": \"http://127.0.0.1:$RPORT/tg\", \"token_env\": \"WK_TG_SECRET\", \"chat_id\": \"1\", \"card\": false}]," \
		"[{\"stage\": \"f\", \"run\": \"$T/bin/f.sh\"}]"
	onbox run >"$T/cap.out" 2>&1 || true
	onbox status >>"$T/cap.out" 2>&1
	onbox status --json >>"$T/cap.out" 2>&1
	onbox notify --test >>"$T/cap.out" 2>&1 || true
	onbox notify --flush >>"$T/cap.out" 2>&1 || true
	echo 200 >"$T/recv.mode"
	onbox notify --flush >>"$T/cap.out" 2>&1 || true
	# The receiver did get them (the secrets are real and used)...
	[ "$(recv_count)" -ge 1 ] || fail "nothing was delivered"
	# ...but no file we wrote and no output we printed contains one.
	for s in T0SECRETPATH9f8e7d6c5b4a ANOTHERSECRETxyz123 SECRET-TOKEN-abcdef123; do
		! grep -rF "$s" "$W" "$T/cap.out" || fail "secret $s leaked"
	done
}

test_outbox_cap_keeps_failures_and_done() {
	start_receiver
	port=$RPORT
	stop_receiver
	chain_conf 12 "[{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$port/hook\"}]" \
		'"outbox": {"max_pending": 10, "retry_base_ms": 600000, "timeout_s": 1},'
	onbox run >/dev/null 2>&1
	# 12 started + 12 done + chain done = 25 events; the cap (10) drops started ones only.
	assert_eq "$(grep -l '"stage_done"\|"chain_done"' "$W"/outbox/0-generic/0*.json | wc -l)" 13
	assert_eq "$(grep -l '"stage_started"' "$W"/outbox/0-generic/0*.json | wc -l)" 0
	onbox status >"$T/status.out"
	assert_grep 'dropped \(outbox full\)' "$T/status.out"
	start_receiver "$port"
	onbox notify --flush >/dev/null
	assert_eq "$(recv_json "len([1 for x in r if json.loads(x['body'])['event'] == 'stage_done'])")" 12
}

# The outbox's disk fills up and stays full until onbox exits (a 512 KiB
# tmpfs mounted as the outbox, so events.jsonl still takes every event): the
# events the outbox could not take are held in memory, and at exit onbox
# gives up the outbox's reserve (made at start) to queue them; once there is
# space and a receiver, every event of events.jsonl is delivered.  Needs root.
test_disk_full_to_the_end_reserve_queues_held() {
	local ob
	[ "$(id -u)" = 0 ] || { echo "SKIP disk_full_to_the_end_reserve_queues_held: needs root (tmpfs)"; return 0; }
	start_receiver
	port=$RPORT
	stop_receiver
	chain_conf 2 "[{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$port/hook\"}]" \
		'"outbox": {"retry_base_ms": 100, "retry_max_s": 1, "timeout_s": 2},'
	ob="$W/outbox"
	mkdir -p "$ob"
	mount -t tmpfs -o size=512k wk-notify-outbox "$ob"
	sshd_at_exit "umount '$ob' || umount -l '$ob'"
	WAIT="1" bg_onbox run
	wait_for 10 grep -q '"stage_started".*"s1"' "$W/events.jsonl"
	assert_eq "$(stat -c %s "$ob/.reserve")" $((128 * 1024))
	dd if=/dev/zero of="$ob/filler" bs=4k 2>/dev/null || true
	touch "$T/go.1"
	rc=0; wait "$LAST_PID" || rc=$?
	assert_eq "$rc" 0 "onbox with the outbox's disk full: $(tail -n 3 "$T/onbox.out")"
	assert_grep 'cannot queue a notification in .*: No space left on device' "$T/onbox.out"
	assert_grep "the disk is full: gave up the outbox's reserve \(128 KiB\)" "$T/onbox.out"
	assert_no_grep 'could never be queued' "$T/onbox.out"
	assert_no_file "$ob/.reserve"
	rm -f "$ob/filler"
	start_receiver "$port"
	for _ in 1 2 3 4 5; do
		[ -z "$(find "$ob" -name '0*.json')" ] && break
		onbox notify --flush >>"$T/flush.out" 2>&1 || true
	done
	event_ids_in_order | sort -u >"$T/want"
	received_ids /hook | sort -u >"$T/got"
	assert_grep 'chain_done' "$T/want"
	comm -23 "$T/want" "$T/got" >"$T/lost"
	[ ! -s "$T/lost" ] || fail "never delivered: $(paste -sd' ' "$T/lost")"
	# The next onbox makes the reserve again.
	onbox run >"$T/run2.out" 2>&1 || fail "onbox run again: $(<"$T/run2.out")"
	assert_eq "$(stat -c %s "$ob/.reserve")" $((128 * 1024))
}

t each_sink_kind test_each_sink_kind
t receiver_down_then_up_nothing_lost_in_order test_receiver_down_then_up_nothing_lost_in_order
t receiver_hangs_bounded_then_retried test_receiver_hangs_bounded_then_retried
t kill9_with_events_in_outbox test_kill9_with_events_in_outbox
t wrong_url_reported_never_disabled test_wrong_url_reported_never_disabled
t feishu_200_with_error_code_is_not_delivered test_feishu_200_with_error_code_is_not_delivered
t notify_test_reports_each_sink test_notify_test_reports_each_sink
t no_secret_anywhere test_no_secret_anywhere
t outbox_cap_keeps_failures_and_done test_outbox_cap_keeps_failures_and_done
t disk_full_to_the_end_reserve_queues_held test_disk_full_to_the_end_reserve_queues_held
