#!/usr/bin/env bash
# End-to-end tests of webhooks through the box's curl command (core/curlcmd.c):
# the way the static portable onbox, or a box without libcurl.so.4, reaches
# HTTP(S).  Real curl, the real receiver (HTTP and HTTPS with a throwaway CA
# made by the openssl CLI), real onbox processes and the durable outbox.
# WATCHKEEPER_HTTP forces a path in this dynamic build.
. "$(dirname "$0")/lib.sh"

REAL_CURL=$(command -v curl || true)

# tc NAME FUNCTION [COMMAND...]: t, or SKIP when curl or a needed command is missing.
tc() {
	local name=$1 fn=$2 c
	shift 2
	for c in curl "$@"; do
		command -v "$c" >/dev/null || { echo "SKIP $name: no $c command on this machine"; return 0; }
	done
	t "$name" "$fn"
}

pending() { find "$W/outbox" -name '0*.json' 2>/dev/null | wc -l; }
event_ids() { python3 -c 'import json,sys; print("\n".join(json.loads(l)["id"] for l in open(sys.argv[1])))' "$W/events.jsonl"; }
# The ids delivered (200) to a path, oldest first; test events (notify --test) left out.
ok_ids() { recv_json "'\n'.join(b['id'] for x in r if x['status'] == 200 and x['path'] == '$1' for b in [json.loads(x['body'])] if b['event'] != 'test')"; }

# A chain of one quick stage.
one_stage_conf() {
	local notify=$1 extra=${2:-}
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "step 1/1"\n' >"$T/bin/s.sh"
	chmod +x "$T/bin/s.sh"
	conf "\"notify\": $notify, $extra" "[{\"stage\": \"s1\", \"run\": \"$T/bin/s.sh\"}]"
}

# make_ca: a throwaway CA and a server certificate for 127.0.0.1 in $T/tls.
make_ca() {
	mkdir -p "$T/tls"
	(
		cd "$T/tls"
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
			-keyout ca.key -out ca.crt -days 2 -subj "/CN=watchkeeper test CA" 2>/dev/null
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
			-keyout srv.key -out srv.csr -subj "/CN=127.0.0.1" 2>/dev/null
		printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n' >ext
		openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
			-out srv.crt -days 2 -extfile ext 2>/dev/null
	)
	[ -s "$T/tls/srv.crt" ] || fail "openssl could not make the test certificates"
}

# start_tls_receiver: the receiver speaking HTTPS with $T/tls/srv.crt; sets RPORT, RPID.
start_tls_receiver() {
	rm -f "$T/recv.port"
	python3 "$TOP/tests/e2e/receiver.py" --port 0 --port-file "$T/recv.port" \
		--log "$T/recv.jsonl" --mode-file "$T/recv.mode" \
		--tls-cert "$T/tls/srv.crt" --tls-key "$T/tls/srv.key" >>"$T/recv.out" 2>&1 &
	RPID=$!
	echo "$RPID" >>"$T/.pids"
	wait_for 10 test -s "$T/recv.port"
	RPORT=$(<"$T/recv.port")
}

# Every event exactly once, with the body the libcurl path sends (the event itself).
assert_each_event_once() {
	local path=$1
	ok_ids "$path" | sort >"$T/got"
	event_ids | sort >"$T/want"
	diff "$T/want" "$T/got" || fail "events not delivered exactly once to $path"
	python3 - "$W/events.jsonl" "$T/recv.jsonl" "$path" <<'PY' || fail "bodies differ from the events"
import json, sys
evs = {json.loads(l)["id"]: json.loads(l) for l in open(sys.argv[1])}
for l in open(sys.argv[2]):
    x = json.loads(l)
    if x["path"] != sys.argv[3] or x["status"] != 200:
        continue
    b = json.loads(x["body"])
    if b["event"] == "test":
        continue
    assert b == evs[b["id"]], (b, evs[b["id"]])
    h = x["headers"]
    assert h["Content-Type"] == "application/json", h
    assert h["User-Agent"].startswith("watchkeeper/"), h
    assert h["X-Watchkeeper-Event-Id"] == b["id"], h
    assert "Expect" not in h, h
PY
}

test_curl_delivers_each_event_once() {
	start_receiver
	export WATCHKEEPER_HTTP=curl WK_TG_TOKEN="123456:ABCDEF-telegram-token"
	local u="http://127.0.0.1:$RPORT"
	one_stage_conf "[{\"type\": \"generic\", \"url\": \"$u/generic\"},
	  {\"type\": \"ntfy\", \"url\": \"$u/ntfy/topic\"},
	  {\"type\": \"telegram\", \"url\": \"$u/tg\", \"token_env\": \"WK_TG_TOKEN\", \"chat_id\": 42, \"card\": false}]"
	onbox --version >"$T/version.out"
	assert_grep "^http: curl command $REAL_CURL [0-9]" "$T/version.out"
	onbox run >"$T/out" 2>&1
	wait_for 10 sh -c "[ \$(find '$W/outbox' -name '0*.json' | wc -l) -eq 0 ]"
	assert_each_event_once /generic
	assert_eq "$(recv_json "len([x for x in r if x['path']=='/ntfy/topic' and x['headers'].get('Title')])")" 3
	assert_eq "$(recv_json "[x['path'] for x in r if x['path'].startswith('/tg')][0]")" "/tg/bot123456:ABCDEF-telegram-token/sendMessage"
	assert_eq "$(recv_json "str(json.loads([x for x in r if x['path'].startswith('/tg')][0]['body'])['chat_id'])")" 42
	onbox status --json >"$T/status.json"
	assert_eq "$(json "$T/status.json" 'd["http"]["via"]')" curl
	assert_eq "$(json "$T/status.json" 'd["http"]["detail"].split(" ")[:3]')" "['curl', 'command', '$REAL_CURL']"
}

test_no_url_or_secret_on_curl_argv() {
	start_receiver
	mkdir -p "$T/fake"
	# A curl first on PATH that records its argv, then runs the real one.
	cat >"$T/fake/curl" <<SH
#!/bin/sh
printf '%s\n' "\$*" >>"$T/argv.log"
exec "$REAL_CURL" "\$@"
SH
	chmod +x "$T/fake/curl"
	export PATH="$T/fake:$PATH" WATCHKEEPER_HTTP=curl
	export WK_SECRET_URL="http://127.0.0.1:$RPORT/hooks/T0SECRETPATH9f8e7d6c5b4a"
	export WK_TG_SECRET="987654:SECRET-TOKEN-abcdef123"
	one_stage_conf "[{\"type\": \"slack\", \"url_env\": \"WK_SECRET_URL\"},
	  {\"type\": \"telegram\", \"url\": \"http://127.0.0.1:$RPORT/tg\", \"token_env\": \"WK_TG_SECRET\", \"chat_id\": \"1\", \"card\": false}]"
	onbox --version >"$T/version.out"
	assert_grep "^http: curl command $T/fake/curl " "$T/version.out"
	onbox run >"$T/cap.out" 2>&1
	onbox notify --test >>"$T/cap.out" 2>&1
	wait_for 10 sh -c "[ \$(find '$W/outbox' -name '0*.json' | wc -l) -eq 0 ]"
	# Delivered through the wrapper: 3 events + 1 test to each of 2 sinks.
	assert_eq "$(recv_count)" 8
	assert_eq "$(recv_json "sorted(set(x['path'] for x in r))")" "['/hooks/T0SECRETPATH9f8e7d6c5b4a', '/tg/bot987654:SECRET-TOKEN-abcdef123/sendMessage']"
	# Every curl run had exactly this argv (--version from the http: lines).
	sort -u "$T/argv.log" >"$T/argv.uniq"
	printf -- '--version\n-q -K -\n' >"$T/argv.want"
	diff "$T/argv.want" "$T/argv.uniq" || fail "unexpected curl argv"
	assert_eq "$(grep -c -- '-q -K -' "$T/argv.log")" 8
	! grep -F '127.0.0.1' "$T/argv.log" || fail "the URL on curl's argv"
	for s in T0SECRETPATH9f8e7d6c5b4a SECRET-TOKEN-abcdef123; do
		! grep -rF "$s" "$T/argv.log" "$W" "$T/cap.out" || fail "secret $s leaked"
	done
}

test_https_with_test_ca() {
	make_ca
	start_tls_receiver
	one_stage_conf "[{\"type\": \"generic\", \"url\": \"https://127.0.0.1:$RPORT/hook\"}]" \
		'"outbox": {"retry_base_ms": 50, "retry_max_s": 1, "timeout_s": 5},'
	unset CURL_CA_BUNDLE SSL_CERT_FILE
	# Without the test CA: a certificate failure, named, never -k; the events stay.
	for via in curl libcurl; do
		rc=0; WATCHKEEPER_HTTP=$via onbox notify --test >"$T/nota.$via" 2>&1 || rc=$?
		assert_eq "$rc" 1 "$via without the CA"
		assert_grep "0-generic +FAILED: TLS: the receiver's certificate does not verify" "$T/nota.$via"
	done
	WATCHKEEPER_HTTP=curl onbox run >"$T/out" 2>&1
	assert_eq "$(pending)" 3
	onbox status >"$T/status.out"
	assert_grep "certificate does not verify" "$T/status.out"
	assert_eq "$(recv_count)" 0
	# With it: delivered, by both paths, through either variable.
	rc=0; CURL_CA_BUNDLE="$T/tls/ca.crt" WATCHKEEPER_HTTP=curl onbox notify --test >"$T/ca.curl" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep '0-generic +delivered' "$T/ca.curl"
	rc=0; SSL_CERT_FILE="$T/tls/ca.crt" WATCHKEEPER_HTTP=libcurl onbox notify --test >"$T/ca.lib" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep '0-generic +delivered' "$T/ca.lib"
	SSL_CERT_FILE="$T/tls/ca.crt" WATCHKEEPER_HTTP=curl onbox notify --flush >"$T/flush.out"
	assert_eq "$(pending)" 0
	assert_each_event_once /hook
}

test_none_keeps_events_until_curl_is_back() {
	start_receiver
	one_stage_conf "[{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$RPORT/hook\"}]" \
		'"outbox": {"retry_base_ms": 50, "retry_max_s": 1},'
	export WATCHKEEPER_HTTP=none
	onbox --version >"$T/version.out"
	assert_grep '^http: none \(WATCHKEEPER_HTTP=none\); events stay in the outbox$' "$T/version.out"
	rc=0; onbox notify --test >"$T/test.out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep '^http: none \(WATCHKEEPER_HTTP=none\); events stay in the outbox$' "$T/test.out"
	assert_grep '0-generic +FAILED: no way to reach HTTP\(S\) on this box \(WATCHKEEPER_HTTP=none\): the event stays in the outbox' "$T/test.out"
	onbox run >"$T/out" 2>&1
	assert_eq "$(pending)" 3
	onbox status >"$T/status.out"
	assert_grep '^http: none \(WATCHKEEPER_HTTP=none\); events stay in the outbox' "$T/status.out"
	assert_grep 'notify 0-generic: 3 pending, FAILING since .*no way to reach HTTP\(S\)' "$T/status.out"
	onbox status --json >"$T/status.json"
	assert_eq "$(json "$T/status.json" 'd["http"]["via"]')" none
	# A flush with nothing to deliver through keeps everything.
	onbox notify --flush >"$T/flush0.out" 2>&1 || true
	assert_eq "$(pending)" 3
	assert_eq "$(recv_count)" 0
	# curl is back: everything arrives, once, in order.
	WATCHKEEPER_HTTP=curl onbox notify --flush >"$T/flush.out"
	assert_eq "$(pending)" 0
	ok_ids /hook >"$T/got"
	event_ids >"$T/want"
	diff "$T/want" "$T/got"
}

# A curl that cannot run (its libcurl.so missing: the loader exits 127) is no way either.
test_curl_that_does_not_run_is_none() {
	start_receiver
	mkdir -p "$T/fake"
	printf '#!/bin/sh\necho "curl: error while loading shared libraries: libcurl.so.4" >&2\nexit 127\n' >"$T/fake/curl"
	chmod +x "$T/fake/curl"
	one_stage_conf "[{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$RPORT/hook\"}]" \
		'"outbox": {"retry_base_ms": 50, "retry_max_s": 1},'
	export PATH="$T/fake:$PATH" WATCHKEEPER_HTTP=curl
	onbox --version >"$T/version.out"
	assert_grep "^http: none \(the curl command $T/fake/curl does not run \(\`curl --version\` exited 127\)" "$T/version.out"
	rc=0; onbox notify --test >"$T/test.out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep "0-generic +FAILED: no way to reach HTTP\(S\) on this box \(the curl command $T/fake/curl does not run \(exit 127\)\): the event stays in the outbox" "$T/test.out"
	onbox run >"$T/out" 2>&1
	assert_eq "$(pending)" 3
	onbox status --json >"$T/status.json"
	assert_eq "$(json "$T/status.json" 'd["http"]["via"]')" none
	assert_eq "$(recv_count)" 0
	# The box's real curl back first on PATH: delivered, once each.
	rm "$T/fake/curl"
	onbox notify --flush >"$T/flush.out"
	assert_eq "$(pending)" 0
	assert_each_event_once /hook
}

# A curl that hangs past its own --max-time is killed, by pid; the event is kept.
test_hanging_curl_is_killed() {
	start_receiver
	mkdir -p "$T/fake"
	cat >"$T/fake/curl" <<SH
#!/bin/sh
case "\$1" in --version) echo "curl 9.9.9 (fake)"; exit 0 ;; esac
echo \$\$ >>"$T/fake.pids"
cat >/dev/null
exec sleep 120
SH
	chmod +x "$T/fake/curl"
	one_stage_conf "[{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$RPORT/hook\"}]" \
		'"outbox": {"timeout_s": 1, "connect_timeout_s": 1},'
	export PATH="$T/fake:$PATH" WATCHKEEPER_HTTP=curl
	rc=0; onbox notify --test >"$T/test.out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep '0-generic +FAILED: no answer within 1 s \(timeout\); will retry' "$T/test.out"
	p=$(<"$T/fake.pids")
	! kill -0 "$p" 2>/dev/null || { kill -9 "$p"; fail "the hanging curl ($p) is still running"; }
	assert_eq "$(recv_count)" 0
}

# The same receiver answers judged with the same words and the same
# retry/permanent outcome by libcurl and by the curl command.
test_same_judgement_as_libcurl() {
	start_receiver
	local mode via
	one_stage_conf "[{\"type\": \"feishu\", \"url\": \"http://127.0.0.1:$RPORT/feishu\"}]" \
		'"outbox": {"timeout_s": 1, "connect_timeout_s": 1},'
	for mode in 200 500 404 410 429 'json:200:{"code":19021,"msg":"sign match fail"}' \
	    'json:400:{"msg":"bad \"payload\""}' hang:3; do
		echo "$mode" >"$T/recv.mode"
		for via in libcurl curl; do
			rc=0; WATCHKEEPER_HTTP=$via onbox notify --test 2>&1 | grep -v '^http:' >"$T/j.$via" || true
		done
		diff "$T/j.libcurl" "$T/j.curl" || fail "different judgement for receiver mode $mode"
	done
	assert_grep 'no answer within 1 s' "$T/j.curl"
	# Receiver down: connection refused, in the same words.
	stop_receiver
	for via in libcurl curl; do
		WATCHKEEPER_HTTP=$via onbox notify --test 2>&1 | grep -v '^http:' >"$T/d.$via" || true
	done
	diff "$T/d.libcurl" "$T/d.curl" || fail "different judgement for a receiver that is down"
	assert_grep 'connection refused' "$T/d.curl"
}

test_500_then_200_retried_like_libcurl() {
	local via
	for via in libcurl curl; do
		rm -rf "$T/work" "$T/recv.jsonl"
		start_receiver
		echo 500 >"$T/recv.mode"
		one_stage_conf "[{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$RPORT/hook\"}]" \
			'"outbox": {"retry_base_ms": 50, "retry_max_s": 1},'
		WATCHKEEPER_HTTP=$via onbox run >"$T/out.$via" 2>&1
		assert_eq "$(pending)" 3 "$via"
		json "$W/outbox/0-generic/status.json" '(d["last_error"], d.get("permanent", False))' >"$T/st.$via"
		echo 200 >"$T/recv.mode"
		WATCHKEEPER_HTTP=$via onbox notify --flush >"$T/flush.$via"
		assert_eq "$(pending)" 0 "$via"
		# Each event answered 500 at least once, then 200 exactly once.
		assert_eq "$(recv_json "sorted(set(x['status'] for x in r))")" "[200, 500]" "$via"
		assert_each_event_once /hook
		stop_receiver
	done
	diff "$T/st.libcurl" "$T/st.curl" || fail "the outbox records a different failure"
	assert_grep 'HTTP 500: the receiver is failing; will retry' "$T/st.curl"
}

tc curl_delivers_each_event_once test_curl_delivers_each_event_once
tc no_url_or_secret_on_curl_argv test_no_url_or_secret_on_curl_argv
tc https_with_test_ca test_https_with_test_ca openssl
tc none_keeps_events_until_curl_is_back test_none_keeps_events_until_curl_is_back
tc curl_that_does_not_run_is_none test_curl_that_does_not_run_is_none
tc hanging_curl_is_killed test_hanging_curl_is_killed
tc same_judgement_as_libcurl test_same_judgement_as_libcurl
tc 500_then_200_retried_like_libcurl test_500_then_200_retried_like_libcurl
