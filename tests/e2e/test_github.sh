#!/usr/bin/env bash
# End-to-end tests of the run record on GitHub (patrol/github.c): a notify[]
# entry of type github, delivered by the real patrol (never the box) to a
# local stand-in of GitHub's REST API on loopback (fixtures/fake-github:
# the request shapes and headers checked, answers as GitHub gives them,
# 401, 403 rate limits with retry-after and x-ratelimit-reset, 422).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
PATROL="$TOP/$BUILD/patrol"

patrol() { $ONBOX_WRAP "$PATROL" -c "$T/wk.json" "$@"; }
PS() { echo "$T/state/watchkeeper/t1/patrol.json"; }

# start_github: the stand-in for owner/proj, token tok-123; sets GPORT.
start_github() {
	python3 "$TOP/tests/e2e/fixtures/fake-github" --port-file "$T/gh.port" --log "$T/gh.jsonl" \
		--mode-file "$T/gh.mode" --token tok-123 --repo owner/proj >>"$T/gh.out" 2>&1 &
	echo $! >>"$T/.pids"
	wait_for 10 test -s "$T/gh.port"
	GPORT=$(<"$T/gh.port")
}
gh() { python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; v=eval(sys.argv[2]); print(v if not isinstance(v,bool) else str(v).lower())' "$T/gh.jsonl" "$1"; }
ghn() { [ -f "$T/gh.jsonl" ] && wc -l <"$T/gh.jsonl" | tr -d ' ' || echo 0; }
pending() { json "$(PS)" 'len(d["github"]["pending"])'; }
# nothing is sent for the hour the rate limit asked (next_try an hour ahead).
held_an_hour() {
	python3 -c 'import json,sys,time; sys.exit(not json.load(open(sys.argv[1]))["github"]["next_try"] - time.time() > 3500)' "$(PS)" ||
		fail "next_try is not an hour ahead: $(json "$(PS)" 'd["github"]')"
}
# The rate limit's wait, over: next_try moved into the past (no test waits an hour).
past_next_try() {
	python3 - "$(PS)" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p)); d["github"]["next_try"] = 0; json.dump(d, open(p, "w"))
PY
}

# gconf EXTRA: a run whose record goes to owner/proj on the stand-in.
gconf() {
	pconf "\"notify\": [{\"type\": \"github\", \"repo\": \"owner/proj\", \"token_env\": \"GH_TEST_TOKEN\", \"api\": \"http://127.0.0.1:$GPORT\"$1}]," \
		'[{"stage": "train", "run": "echo step 1"}]'
}

test_issue_created_and_commented() {
	box
	start_github
	gconf ''
	onbox run >/dev/null 2>&1
	GH_TEST_TOKEN=tok-123 patrol --once >"$T/p1" 2>&1
	assert_grep 'github: created issue #1 for run t1: https://github.com/owner/proj/issues/1' "$T/p1"
	# The issue: POST /repos/owner/proj/issues, title and body, GitHub's headers.
	assert_eq "$(gh 'r[0]["path"]')" /repos/owner/proj/issues
	assert_eq "$(gh 'json.loads(r[0]["body"])["title"]')" t1
	assert_eq "$(gh 'r[0]["headers"]["accept"]')" application/vnd.github+json
	assert_eq "$(gh 'r[0]["headers"]["x-github-api-version"]')" 2022-11-28
	assert_eq "$(gh 'r[0]["headers"]["authorization"]')" "Bearer tok-123"
	assert_eq "$(gh 'r[0]["headers"]["user-agent"].startswith("watchkeeper/")')" true
	# Then a comment per significant entry, each 201, each prefixed 🤖, in order.
	assert_eq "$(gh 'all(x["path"] == "/repos/owner/proj/issues/1/comments" and x["status"] == 201 for x in r[1:])')" true
	assert_eq "$(gh 'all(json.loads(x["body"])["body"].startswith("🤖 **") for x in r[1:])')" true
	gh '[json.loads(x["body"])["body"] for x in r[1:]]' >"$T/bodies"
	assert_grep 'launch train \(attempt 1\)' "$T/bodies"
	assert_grep 'verdict DONE' "$T/bodies"
	assert_eq "$(pending)" 0
	assert_eq "$(json "$(PS)" 'd["github"]["issue"]')" 1
	# The logbook links the issue.
	assert_grep 'GitHub issue' "$T/state/watchkeeper/t1/LOGBOOK.md"
	assert_grep 'https://github.com/owner/proj/issues/1' "$T/state/watchkeeper/t1/LOGBOOK.md"
	# The token never reaches the box.
	# (deploy sends the secrets file even with no sink needing one: it must not hold it)
	GH_TEST_TOKEN=tok-123 patrol deploy --no-start >"$T/d1" 2>&1
	if [ -f "$T/work/.watchkeeper/secrets" ]; then
		assert_no_grep 'tok-123|GH_TEST_TOKEN' "$T/work/.watchkeeper/secrets"
	fi
}

# 401 and 500 keep every comment; 403 rate limits hold all until retry-after /
# x-ratelimit-reset; 422 drops that comment only.
test_errors_keep_comments() {
	box
	start_github
	gconf ', "issue": 42'
	onbox run >/dev/null 2>&1
	# A wrong token: GitHub says 401, nothing is lost.
	GH_TEST_TOKEN=wrong patrol --once >"$T/p1" 2>&1
	assert_grep 'github: commenting on owner/proj#42 failed \(401\): Bad credentials' "$T/p1"
	n=$(pending)
	[ "$n" -ge 2 ] || fail "pending $n"
	# A secondary rate limit: retry-after 3; the next tick within it sends nothing.
	echo "403-secondary:3600" >"$T/gh.mode"
	GH_TEST_TOKEN=tok-123 patrol --once >"$T/p2" 2>&1
	assert_grep 'github: rate limited \(403\): You have exceeded a secondary rate limit' "$T/p2"
	assert_eq "$(pending)" "$n"
	c=$(ghn)
	GH_TEST_TOKEN=tok-123 patrol --once >"$T/p3" 2>&1
	assert_eq "$(ghn)" "$c" "nothing sent inside retry-after"
	# Held for the hour GitHub asked; then (the hour passed: next_try moved back) one
	# 422 (that comment dropped), the rest delivered.
	held_an_hour
	past_next_try
	echo 422 >"$T/gh.mode"
	GH_TEST_TOKEN=tok-123 patrol --once >"$T/p4" 2>&1
	assert_grep 'GitHub refuses a comment \(422 Validation Failed\): dropped' "$T/p4"
	assert_eq "$(pending)" 0
	assert_eq "$(gh 'sum(1 for x in r if x["status"] == 201)')" "$((n - 1))"
	# The primary limit (x-ratelimit-remaining 0, x-ratelimit-reset) and a 500: kept.
	rm -f "$W"/markers/*
	onbox run >/dev/null 2>&1
	echo "403-primary:3600" >"$T/gh.mode"
	GH_TEST_TOKEN=tok-123 patrol --once >"$T/p5" 2>&1
	assert_grep 'rate limited \(403\): API rate limit exceeded' "$T/p5"
	n=$(pending)
	[ "$n" -ge 1 ] || fail "pending $n"
	held_an_hour
	c=$(ghn)
	GH_TEST_TOKEN=tok-123 patrol --once >/dev/null 2>&1
	assert_eq "$(ghn)" "$c" "nothing sent before x-ratelimit-reset"
	past_next_try
	echo 500 >"$T/gh.mode"
	GH_TEST_TOKEN=tok-123 patrol --once >"$T/p6" 2>&1
	assert_eq "$(pending)" "$n"
	echo 410 >"$T/gh.mode"
	GH_TEST_TOKEN=tok-123 patrol --once >"$T/p6b" 2>&1
	assert_grep 'failed \(410\): Issues are disabled for this repo' "$T/p6b"
	assert_eq "$(pending)" "$n"
	GH_TEST_TOKEN=tok-123 patrol --once >"$T/p7" 2>&1
	assert_eq "$(pending)" 0
}

# The 24 h digest: the current report line, once a day.
test_digest() {
	box
	start_github
	gconf ', "issue": 42'
	onbox run >/dev/null 2>&1
	GH_TEST_TOKEN=tok-123 patrol --once >/dev/null 2>&1
	c=$(ghn)
	GH_TEST_TOKEN=tok-123 patrol --once >/dev/null 2>&1
	assert_eq "$(ghn)" "$c" "no digest within a day"
	python3 - "$(PS)" <<'PY'
import json, sys, time
p = sys.argv[1]; d = json.load(open(p))
d["github"]["last_digest"] = time.time() - 86401
json.dump(d, open(p, "w"))
PY
	GH_TEST_TOKEN=tok-123 patrol --once >/dev/null 2>&1
	assert_eq "$(ghn)" "$((c + 1))"
	gh 'json.loads(r[-1]["body"])["body"]' >"$T/last"
	assert_grep '^🤖 \*\*24 h digest\*\* — .* t1 DONE' "$T/last"
}

test_config_checked() {
	box
	GPORT=1
	pconf '"notify": [{"type": "github", "repo": "proj"}],' '[{"stage": "train", "run": "true"}]'
	rc=0; patrol --once >"$T/p" 2>&1 || rc=$?
	assert_eq "$rc" 78
	assert_grep 'type github needs "repo": "owner/name"' "$T/p"
}

t issue_created_and_commented test_issue_created_and_commented
t errors_keep_comments test_errors_keep_comments
t digest test_digest
t config_checked test_config_checked
