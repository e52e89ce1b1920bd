#!/usr/bin/env bash
# End-to-end tests of completion with caveats (core/caveats.h) on the real
# PyTorch training: a chain that finished after a NaN loss or a restart says
# so wherever DONE is said (the chain_done event and its line, the webhook,
# onbox status and --json, patrol's DONE line and --json through the real
# probe over the suite's sshd, the handbook's status), and a chain
# that went cleanly says exactly what it said before.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
PATROL="$TOP/$BUILD/patrol"
patrol() { $ONBOX_WRAP "$PATROL" -c "$T/wk.json" "$@"; }

# tconf TRAIN_FLAGS [EXTRA_TOP_LEVEL_JSON]: train (the real training) then eval.
tconf() {
	local flags=$1 extra=${2:-}
	conf "$extra
  \"progress\": { \"pattern\": \"step (\\\\d+)/(\\\\d+)\" },
  \"loss\": { \"pattern\": \"loss=([-+\\\\w.]+)\" },
  \"checkpoints\": { \"dir\": \"ckpt\", \"pattern\": \"^step_(\\\\d+)\$\", \"complete_file\": \"metadata.json\" }," \
	"[ { \"stage\": \"train\", \"run\": \"$TORCH_PY $TORCH_TRAIN --out . --steps 12 --ckpt-every 4 --step-sleep 0.02 --no-bar --resume {checkpoint} $flags >> train.log 2>&1\",
	     \"log\": \"train.log\", \"done_when\": \"Training completed\", \"marker\": \"TRAIN_DONE\" },
	   { \"stage\": \"eval\", \"run\": \"test -s results/metrics.json && echo eval ok\", \"marker\": \"EVAL_DONE\" } ]"
}

# chain_done FIELD: a field of the chain_done event (python3's json).
chain_done() {
	python3 -c 'import json,sys
e=[json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["event"]=="chain_done"]
assert len(e)==1, e
v=eval(sys.argv[2],{"e":e[0]})
print(v if not isinstance(v,bool) else str(v).lower())' "$W/events.jsonl" "$1"
}

# NaN loss from step 5 on (loss.on_nan alert, the default): the training
# finishes, the eval runs, and DONE names the NaN with its step and attempt.
test_nan_loss_done_with_caveat() {
	start_receiver
	local u="http://127.0.0.1:$RPORT"
	tconf "--fail nan --fail-at 5" "\"notify\": [{\"type\": \"generic\", \"url\": \"$u/generic\"}, {\"type\": \"slack\", \"url\": \"$u/slack\"}],"
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_file "$W/markers/EVAL_DONE"
	# The health checker alerted it (critical), once.
	assert_eq "$(grep -c '"event":"health_alert".*"kind":"nan_loss"' "$W/events.jsonl")" 1
	# chain_done carries the caveats, and its line says them.
	assert_eq "$(chain_done 'e["caveats_text"]')" "nan_loss at step 5 (attempt 1)"
	assert_eq "$(chain_done '[(c["kind"], c["stage"], c["attempt"], c["step"]) for c in e["caveats"]]')" \
		"[('nan_loss', 'train', 1, 5)]"
	assert_grep 'chain DONE · caveats: nan_loss at step 5 \(attempt 1\)$' "$T/out"
	assert_no_grep 'every marker present' "$T/out"
	# caveats.json, what patrol's probe reads.
	assert_eq "$(json "$W/caveats.json" 'd["text"]')" "nan_loss at step 5 (attempt 1)"
	# The webhook: the whole event, and the text.
	wait_for 20 sh -c "grep -q chain_done '$T/recv.jsonl' && [ \$(grep -c '\"/slack\"' '$T/recv.jsonl') -ge 1 ] && grep '\"/slack\"' '$T/recv.jsonl' | grep -q 'chain DONE'"
	assert_eq "$(recv_json "[json.loads(x['body'])['caveats_text'] for x in r if x['path']=='/generic' and json.loads(x['body'])['event']=='chain_done']")" \
		"['nan_loss at step 5 (attempt 1)']"
	recv_json "[json.loads(x['body'])['text'] for x in r if x['path']=='/slack' and 'chain DONE' in json.loads(x['body'])['text']][0]" >"$T/slack.txt"
	assert_grep '^\[t1\] chain DONE · caveats: nan_loss at step 5 \(attempt 1\)' "$T/slack.txt"
	# onbox status, text and --json.
	onbox status >"$T/st"
	assert_grep '^DONE · caveats: nan_loss at step 5 \(attempt 1\)$' "$T/st"
	onbox status --json >"$T/st.json"
	assert_eq "$(json "$T/st.json" 'd["done"]')" true
	assert_eq "$(json "$T/st.json" 'd["caveats_text"]')" "nan_loss at step 5 (attempt 1)"
	assert_eq "$(json "$T/st.json" '[c["kind"] for c in d["caveats"]]')" "['nan_loss']"
}

# Preempted at step 3 (SIGTERM, once), restarted from its checkpoint, finished:
# DONE says the restart and its class; no health alert, no other caveat.
test_restart_done_with_caveat() {
	tconf "--fail sigterm --fail-at 6 --fail-once $T/flag" '"restart": {"max": 2},'
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_file "$W/markers/EVAL_DONE"
	assert_eq "$(json "$W/stages/train.json" 'len(d["attempts"])')" 2
	assert_eq "$(json "$W/stages/train.json" 'd["attempts"][0]["class"]')" preempted
	assert_eq "$(chain_done 'e["caveats_text"]')" "1 restart (preempted)"
	assert_eq "$(chain_done '[(c["kind"], c["count"], c["classes"]) for c in e["caveats"]]')" \
		"[('restart', 1, ['preempted'])]"
	assert_grep 'chain DONE · caveats: 1 restart \(preempted\)$' "$T/out"
	onbox status >"$T/st"
	assert_grep '^DONE · caveats: 1 restart \(preempted\)$' "$T/st"
	assert_eq "$(onbox status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["caveats_text"])')" \
		"1 restart (preempted)"
}

# A clean chain: DONE exactly as before, no caveats anywhere, no caveats.json;
# and a chain started again after a DONE with caveats drops the old ones.
test_clean_done_no_caveats() {
	tconf "--fail nan --fail-at 5"
	onbox run >"$T/out" 2>&1
	assert_file "$W/caveats.json"
	# Run the chain again from scratch, cleanly: the old caveats go.
	rm -rf "$T/work/ckpt" "$T/work/results" "$T/work/train.log" "$W/markers"/*
	tconf ""
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_no_file "$W/caveats.json"
	assert_grep 'chain DONE: every marker present$' "$T/out"
	assert_no_grep '· caveats' "$T/out"
	python3 -c 'import json,sys
e=[json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["event"]=="chain_done"]
assert len(e)==2 and "caveats" in e[0] and "caveats" not in e[1] and "caveats_text" not in e[1], e' "$W/events.jsonl"
	onbox status >"$T/st"
	assert_grep '^DONE: every marker present$' "$T/st"
	assert_eq "$(onbox status --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(str("caveats" in d).lower())')" false
}

# patrol sees the box over ssh (one combined probe): its DONE line, --json,
# the webhook of the verdict and the handbook say the caveats; then the
# chain runs again cleanly and patrol's DONE says nothing more than before.
test_patrol_done_with_caveats() {
	box
	start_receiver
	tconf "--fail nan --fail-at 5" "\"box\": {\"host\": \"box\", \"ssh_config\": \"$SSH_CFG\", \"config\": \"$T/wk.json\", \"connect_timeout_s\": 3},
  \"notify\": [{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$RPORT/generic\"}],"
	onbox run >"$T/out" 2>&1
	rc=0; patrol --once >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep '^[0-9T:-]+Z t1 DONE every marker present · caveats: nan_loss at step 5 \(attempt 1\)$' "$T/p1"
	rc=0; patrol --once --json >"$T/p2.json" || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(json "$T/p2.json" 'd["verdict"]')" DONE
	assert_eq "$(json "$T/p2.json" 'd["caveats_text"]')" "nan_loss at step 5 (attempt 1)"
	assert_eq "$(json "$T/p2.json" '[(c["kind"], c["step"]) for c in d["caveats"]]')" "[('nan_loss', 5)]"
	# patrol's own DONE webhook carries them too.
	wait_for 20 sh -c "grep -q verdict_changed '$T/recv.jsonl'"
	assert_eq "$(recv_json "[json.loads(x['body']).get('caveats_text') for x in r if json.loads(x['body'])['event']=='verdict_changed']")" \
		"['nan_loss at step 5 (attempt 1)']"
	assert_grep '^- Caveats: .*nan_loss at step 5 \(attempt 1\)' "$T/state/watchkeeper/t1/HANDBOOK.md"
	# The chain again, cleanly: no caveats anywhere patrol looks.
	rm -rf "$T/work/ckpt" "$T/work/results" "$T/work/train.log" "$W/markers"/*
	tconf "" "\"box\": {\"host\": \"box\", \"ssh_config\": \"$SSH_CFG\", \"config\": \"$T/wk.json\", \"connect_timeout_s\": 3},"
	onbox run >"$T/out2" 2>&1
	rc=0; patrol --once >"$T/p3" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep '^[0-9T:-]+Z t1 DONE every marker present$' "$T/p3"
	assert_no_grep 'Caveats' "$T/state/watchkeeper/t1/HANDBOOK.md"
}

tt nan_loss_done_with_caveat test_nan_loss_done_with_caveat
tt restart_done_with_caveat test_restart_done_with_caveat
tt clean_done_no_caveats test_clean_done_no_caveats
tt patrol_done_with_caveats test_patrol_done_with_caveats
