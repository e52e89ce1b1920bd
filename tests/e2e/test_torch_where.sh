#!/usr/bin/env bash
# End-to-end tests of "where" (core/traceback.c) on the real PyTorch training
# (tests/e2e/fixtures/torch/train.py): the FAILED marker, the stage_failed
# event, the webhook text, onbox status, and patrol's CRASHED line, --json and
# handbook, and sentinel name the user's line, never torch's.  Line numbers come from the
# script (grep -n), never written here.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
PATROL="$TOP/$BUILD/patrol"

patrol() { $ONBOX_WRAP "$PATROL" -c "$T/wk.json" "$@"; }

# lineof TEXT: the line number of the first line of train.py holding TEXT.
lineof() { grep -nF -- "$1" "$TORCH_TRAIN" | head -n 1 | cut -d: -f1; }

# train_chain FAIL_ARGS: a train stage failing as asked, then an eval stage.
train_chain() {
	echo "[{\"stage\": \"train\", \"run\": \"$TORCH_PY $TORCH_TRAIN --out . --steps 8 --ckpt-every 4 --step-sleep 0.01 $1 >> train.log 2>&1\", \"log\": \"train.log\", \"done_when\": \"Training completed\", \"marker\": \"TRAIN_DONE\"}, {\"stage\": \"eval\", \"run\": \"true\", \"marker\": \"EVAL_DONE\"}]"
}
PROGRESS='"progress": {"pattern": "step (\\d+)/(\\d+)"}, "loss": {"pattern": "loss=([-+\\w.]+)"},'

test_keyerror_where() {
	local line fm ev
	line=$(lineof 'warm = cfg["warmup_steps"]')
	[ -n "$line" ] || fail "no warmup_steps line in $TORCH_TRAIN"
	start_receiver
	conf "$PROGRESS \"notify\": [{\"type\": \"generic\", \"url\": \"http://127.0.0.1:$RPORT/generic\"},
	 {\"type\": \"slack\", \"url\": \"http://127.0.0.1:$RPORT/slack\"}]," \
		"$(train_chain '--fail keyerror --fail-at 5')"
	onbox run >"$T/out" 2>&1 || true
	fm="$W/markers/TRAIN_DONE.FAILED"
	assert_file "$fm"
	assert_eq "$(json "$fm" 'd["class"]')" code_error
	assert_eq "$(json "$fm" 'd["evidence"]')" "KeyError: 'warmup_steps'"
	assert_eq "$(json "$fm" 'd["where"]["file"].endswith("/train.py")')" true
	assert_eq "$(json "$fm" 'd["where"]["line"]')" "$line"
	assert_eq "$(json "$fm" 'd["where"]["function"]')" lr_at
	# The event says the same; the webhook's text says it beside the evidence.
	ev=$(grep '"stage_failed"' "$W/events.jsonl")
	assert_eq "$(echo "$ev" | python3 -c 'import json,sys; w=json.load(sys.stdin)["where"]; print(w["line"], w["function"])')" "$line lr_at"
	wait_for 20 sh -c "grep -q stage_failed '$T/recv.jsonl' && [ \$(grep -c '/slack' '$T/recv.jsonl') -ge 2 ]"
	recv_json "[json.loads(x['body'])['text'] for x in r if x['path']=='/slack' and 'FAILED' in json.loads(x['body'])['text']][0]" >"$T/slack.txt"
	assert_grep "train FAILED \(code_error\) attempt 1 · last: KeyError: 'warmup_steps' at train\.py:$line in lr_at" "$T/slack.txt"
	assert_eq "$(recv_json "[json.loads(x['body']) for x in r if x['path']=='/generic' and json.loads(x['body'])['event']=='stage_failed'][0]['where']['line']")" "$line"
	# onbox status names it too.
	onbox status >"$T/status.out" || true
	assert_grep "where: .*/train\.py:$line in lr_at" "$T/status.out"
}

test_shape_error_names_the_users_line() {
	local line fm
	line=$(lineof 'model(torch.randn(8, 17))')
	[ -n "$line" ] || fail "no shape line in $TORCH_TRAIN"
	conf "$PROGRESS" "$(train_chain '--fail shape --fail-at 2')"
	onbox run >"$T/out" 2>&1 || true
	fm="$W/markers/TRAIN_DONE.FAILED"
	assert_file "$fm"
	# The RuntimeError is raised in torch's linear.py; the marker names train.py's call.
	assert_eq "$(json "$fm" 'any("torch/nn/modules/linear.py" in l for l in d["last_lines"])')" true
	assert_eq "$(json "$fm" 'd["where"]["file"].endswith("/train.py")')" true
	assert_eq "$(json "$fm" 'd["where"]["line"]')" "$line"
	assert_eq "$(json "$fm" 'd["where"]["function"]')" main
}

# A script in the workdir: "where" is relative to it; patrol says it.
test_patrol_crashed_says_where() {
	local line
	box
	mkdir -p "$T/work"
	cp "$TORCH_TRAIN" "$T/work/train.py"
	line=$(grep -nF 'warm = cfg["warmup_steps"]' "$T/work/train.py" | head -n 1 | cut -d: -f1)
	pconf "$PROGRESS" "[{\"stage\": \"train\", \"run\": \"$TORCH_PY train.py --out . --steps 8 --step-sleep 0.01 --no-bar --fail keyerror --fail-at 3\", \"done_when\": \"Training completed\", \"marker\": \"TRAIN_DONE\"}]"
	onbox run >"$T/out" 2>&1 || true
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["where"]["file"]')" train.py
	rc=0; patrol >"$T/p" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep " t1 CRASHED train \(code_error\) attempt 1: .* · last: KeyError: 'warmup_steps' at train\.py:$line in lr_at" "$T/p"
	rc=0; patrol --json >"$T/p.json" || rc=$?
	assert_eq "$(json "$T/p.json" 'd["verdict"]')" CRASHED
	assert_eq "$(json "$T/p.json" 'd["where"]')" "{'file': 'train.py', 'line': $line, 'function': 'lr_at'}"
	hb="$T/state/watchkeeper/t1/HANDBOOK.md"
	assert_grep "TRAIN_DONE.FAILED\`: class \`code_error\`.*, failed \`at train\.py:$line in lr_at\`" "$hb"
	# sentinel's failed output, text and --json
	rc=0; timeout 60 "$TOP/$BUILD/sentinel" -c "$T/wk.json" --marker TRAIN_DONE --interval 1 \
		--max-ticks 3 >"$T/s.out" 2>"$T/s.err" || rc=$?
	assert_eq "$rc" 3
	assert_grep "^  where: at train\.py:$line in lr_at$" "$T/s.out"
	rc=0; timeout 60 "$TOP/$BUILD/sentinel" -c "$T/wk.json" --marker TRAIN_DONE --interval 1 \
		--max-ticks 3 --json >"$T/s.json" 2>"$T/s.err" || rc=$?
	assert_eq "$(json "$T/s.json" 'd["where"]["line"]')" "$line"
}

tt keyerror_where test_keyerror_where
tt shape_error_names_the_users_line test_shape_error_names_the_users_line
tt patrol_crashed_says_where test_patrol_crashed_says_where
