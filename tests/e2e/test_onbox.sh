#!/usr/bin/env bash
# End-to-end tests of onbox (layer 1) on real processes.
. "$(dirname "$0")/lib.sh"

# A stage script: counts its launches in $T/launch.<name>, prints progress,
# optionally waits for $T/go.<name> (bounded), then prints its done line.
mkstage() {
	local name=$1 rc=${2:-0} wait=${3:-}
	mkdir -p "$T/bin"
	cat >"$T/bin/$name.sh" <<SH
#!/bin/sh
echo x >>"$T/launch.$name"
i=1
while [ \$i -le 5 ]; do echo "step \$i/5 loss=0.5"; i=\$((i+1)); done
if [ -n "$wait" ]; then
	n=0
	"$AWAIT" 30 "$T/go.$name" || :
fi
echo "$name completed"
exit $rc
SH
	chmod +x "$T/bin/$name.sh"
}
launches() { [ -f "$T/launch.$1" ] && wc -l <"$T/launch.$1" | tr -d ' ' || echo 0; }

three_stages() {
	conf '"progress": {"pattern": "step ([0-9]+)/([0-9]+)", "max": 5},' "[
	{\"stage\": \"prep\", \"run\": \"$T/bin/prep.sh\", \"done_when\": \"prep completed\", \"marker\": \"PREP_DONE\"},
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"train completed\", \"marker\": \"TRAIN_DONE\"},
	{\"stage\": \"eval\", \"run\": \"$T/bin/eval.sh\", \"marker\": \"EVAL_DONE\"}]"
}

test_chain_success() {
	mkstage prep; mkstage train; mkstage eval
	three_stages
	onbox run >"$T/out" 2>&1
	for m in PREP_DONE TRAIN_DONE EVAL_DONE; do assert_file "$W/markers/$m"; done
	assert_eq "$(json "$W/markers/TRAIN_DONE" 'd["exit_code"]')" 0
	assert_eq "$(json "$W/markers/TRAIN_DONE" 'd["attempt"]')" 1
	assert_eq "$(json "$W/markers/TRAIN_DONE" 'd["output"]')" ".watchkeeper/logs/train.1.log"
	assert_grep 'train completed' "$W/logs/train.1.log"
	assert_eq "$(grep -c '"stage_done"' "$W/events.jsonl")" 3
	assert_eq "$(grep -c '"stage_started"' "$W/events.jsonl")" 3
	assert_eq "$(grep -c '"chain_done"' "$W/events.jsonl")" 1
	assert_eq "$(json "$W/state.json" 'd["status"]')" done
	assert_eq "$(json "$W/state.json" 'd["progress"]["text"]')" "~5/5"
	# A second run has nothing to do and says done again without new events.
	onbox run >"$T/out2" 2>&1
	assert_eq "$(grep -c '"chain_done"' "$W/events.jsonl")" 1
	assert_eq "$(launches train)" 1
}

test_gating_failed_middle() {
	mkstage prep; mkstage eval
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
echo x >>"$T/launch.train"
echo "step 1/5"
echo "Traceback (most recent call last):" >&2
echo '  File "train.py", line 88, in forward' >&2
echo "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity)" >&2
exit 1
SH
	chmod +x "$T/bin/train.sh"
	three_stages
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1 "onbox exit"
	assert_file "$W/markers/PREP_DONE"
	assert_no_file "$W/markers/TRAIN_DONE"
	assert_file "$W/markers/TRAIN_DONE.FAILED"
	assert_no_file "$W/markers/EVAL_DONE"
	assert_eq "$(launches eval)" 0 "eval must never run"
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["class"]')" cuda_oom
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["exit_code"]')" 1
	json "$W/markers/TRAIN_DONE.FAILED" '"\n".join(d["last_lines"])' | grep -q 'CUDA out of memory'
	assert_grep '"stage_failed"' "$W/events.jsonl"
	assert_grep 'train FAILED \(cuda_oom' "$T/out"
}

test_resume_after_fix_runs_only_missing() {
	mkstage prep; mkstage eval
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho x >>"%s/launch.train"\necho "KeyError: '"'"'lr'"'"'" >&2\nexit 1\n' "$T" >"$T/bin/train.sh"
	chmod +x "$T/bin/train.sh"
	three_stages
	rc=0; onbox run >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["class"]')" code_error
	mkstage train	# the fix
	onbox run >"$T/out" 2>&1
	assert_eq "$(launches prep)" 1 "prep must not rerun"
	assert_eq "$(launches train)" 2
	assert_eq "$(launches eval)" 1
	assert_file "$W/markers/TRAIN_DONE"
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	assert_eq "$(json "$W/markers/TRAIN_DONE" 'd["attempt"]')" 2
	assert_eq "$(json "$W/stages/train.json" 'len(d["attempts"])')" 2
	assert_eq "$(json "$W/stages/train.json" 'd["attempts"][0]["class"]')" code_error
}

test_done_when_required() {
	mkdir -p "$T/bin"
	printf '#!/bin/sh\necho "exited without finishing"\nexit 0\n' >"$T/bin/a.sh"
	chmod +x "$T/bin/a.sh"
	conf '' "[{\"stage\": \"a\", \"run\": \"$T/bin/a.sh\", \"done_when\": \"Training completed\"}]"
	rc=0; onbox run >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_no_file "$W/markers/A_DONE"
	assert_eq "$(json "$W/markers/A_DONE.FAILED" 'd["class"]')" no_done_line
}

test_done_line_of_earlier_attempt_does_not_count() {
	# The program's own log already says "Training completed" from an earlier
	# run; this attempt exits 0 without saying it: no marker.
	mkdir -p "$T/work" "$T/bin"
	echo "Training completed" >"$T/work/train.log"
	printf '#!/bin/sh\necho "epoch 1" >>train.log\nexit 0\n' >"$T/bin/a.sh"
	chmod +x "$T/bin/a.sh"
	conf '' "[{\"stage\": \"a\", \"run\": \"$T/bin/a.sh\", \"log\": \"train.log\", \"done_when\": \"Training completed\"}]"
	rc=0; onbox run >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(json "$W/markers/A_DONE.FAILED" 'd["class"]')" no_done_line
	# And the stage's own log, written by the program, is what done_when reads.
	printf '#!/bin/sh\necho "Training completed" >>train.log\nexit 0\n' >"$T/bin/a.sh"
	onbox run >/dev/null 2>&1
	assert_file "$W/markers/A_DONE"
}

test_kill9_reattaches_without_second_launch() {
	mkstage train 0 wait; mkstage eval
	conf '' "[
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"train completed\"},
	{\"stage\": \"eval\", \"run\": \"$T/bin/eval.sh\"}]"
	bg_onbox run
	first=$LAST_PID
	wait_for 10 test -f "$W/attempts/train.1.json"
	wait_for 10 grep -q 'step 5/5' "$W/logs/train.1.log"
	kill -9 "$first"
	wait "$first" 2>/dev/null || true
	# The stage survives its onbox.
	pid=$(json "$W/attempts/train.1.json" 'd["pid"]')
	kill -0 "$pid"
	bg_onbox run
	second=$LAST_PID
	wait_for 10 grep -q 're-attaching to attempt 1' "$T/onbox.out"
	touch "$T/go.train"
	wait_for 20 test -f "$W/markers/EVAL_DONE"
	wait "$second"
	assert_eq "$(launches train)" 1 "the stage was launched twice"
	assert_eq "$(json "$W/stages/train.json" 'len(d["attempts"])')" 1
	assert_file "$W/markers/TRAIN_DONE"
}

test_kill9_stage_ends_unwatched_then_finalized() {
	mkstage train 0 wait
	conf '' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"train completed\"}]"
	bg_onbox run
	first=$LAST_PID
	wait_for 10 test -f "$W/attempts/train.1.json"
	kill -9 "$first"
	wait "$first" 2>/dev/null || true
	touch "$T/go.train"
	wait_for 10 grep -q '"exited"' "$W/attempts/train.1.json"
	onbox run >"$T/out" 2>&1
	assert_eq "$(launches train)" 1
	assert_file "$W/markers/TRAIN_DONE"
	assert_eq "$(json "$W/markers/TRAIN_DONE" 'd["attempt"]')" 1
}

test_kill9_stage_failed_unwatched() {
	mkdir -p "$T/bin"
	cat >"$T/bin/t.sh" <<SH
#!/bin/sh
echo x >>"$T/launch.t"
"$AWAIT" 30 "$T/go" || :
echo "OSError: [Errno 28] No space left on device" >&2
exit 1
SH
	chmod +x "$T/bin/t.sh"
	conf '' "[{\"stage\": \"t\", \"run\": \"$T/bin/t.sh\"}]"
	bg_onbox run
	first=$LAST_PID
	wait_for 10 test -f "$W/attempts/t.1.json"
	kill -9 "$first"
	wait "$first" 2>/dev/null || true
	touch "$T/go"
	wait_for 10 grep -q '"exited"' "$W/attempts/t.1.json"
	rc=0; onbox run >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(launches t)" 1
	assert_eq "$(json "$W/markers/T_DONE.FAILED" 'd["class"]')" disk_full
}

test_second_concurrent_run_exits_75() {
	mkstage train 0 wait
	conf '' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	bg_onbox run
	wait_for 10 test -f "$W/attempts/train.1.json"
	rc=0; onbox run >"$T/second" 2>&1 || rc=$?
	assert_eq "$rc" 75
	assert_grep 'already running' "$T/second"
	assert_eq "$(launches train)" 1
	touch "$T/go.train"
	wait "$LAST_PID"
}

test_wait_stage_reacts_by_inotify() {
	# poll_ms is ten minutes: only inotify can see the line within the bound.
	mkstage eval
	mkdir -p "$T/work"
	: >"$T/work/train.log"
	conf '"poll_ms": 600000,' "[
	{\"stage\": \"train\", \"wait\": {\"log\": \"train.log\", \"pattern\": \"Training completed\", \"timeout_s\": 600}, \"marker\": \"TRAIN_DONE\"},
	{\"stage\": \"eval\", \"run\": \"$T/bin/eval.sh\"}]"
	bg_onbox run
	wait_for 10 grep -q '"stage_started"' "$W/events.jsonl"
	echo "step 10/10" >>"$T/work/train.log"
	sleep 0.2
	assert_no_file "$W/markers/TRAIN_DONE"
	echo "Training completed" >>"$T/work/train.log"
	wait_for 5 test -f "$W/markers/EVAL_DONE"
	wait "$LAST_PID"
}

test_wait_stage_already_finished() {
	mkdir -p "$T/work"
	printf 'step 1\nTraining completed\n' >"$T/work/train.log"
	conf '' "[{\"stage\": \"train\", \"wait\": {\"log\": \"train.log\", \"pattern\": \"Training completed\", \"timeout_s\": 60}}]"
	onbox run >/dev/null 2>&1
	assert_file "$W/markers/TRAIN_DONE"
}

test_wait_stage_crash_and_timeout() {
	mkdir -p "$T/work"
	# An old crash in the shared log does not count...
	printf 'Traceback (most recent call last):\nKeyError: old\n' >"$T/work/train.log"
	conf '"poll_ms": 600000,' "[{\"stage\": \"train\", \"wait\": {\"log\": \"train.log\", \"pattern\": \"Training completed\", \"timeout_s\": 600}}]"
	bg_onbox run
	wait_for 10 grep -q '"stage_started"' "$W/events.jsonl"
	sleep 0.2
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	# ...a new one does, at once.
	printf 'RuntimeError: NCCL communicator was aborted: Watchdog caught collective operation timeout\n' >>"$T/work/train.log"
	wait_for 5 test -f "$W/markers/TRAIN_DONE.FAILED"
	rc=0; wait "$LAST_PID" || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["class"]')" nccl_timeout
	# A wait never waits forever.
	rm -rf "$T/work/.watchkeeper"
	: >"$T/work/train.log"
	conf '' "[{\"stage\": \"train\", \"wait\": {\"log\": \"train.log\", \"pattern\": \"Training completed\", \"timeout_s\": 1}}]"
	rc=0; onbox run >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(json "$W/markers/TRAIN_DONE.FAILED" 'd["class"]')" timeout
}

test_wait_pid() {
	sleep 30 &
	sp=$!
	echo "$sp" >>"$T/.pids"
	conf '' "[{\"stage\": \"train\", \"wait\": {\"pid\": $sp}}]"
	bg_onbox run
	wait_for 10 grep -q '"stage_started"' "$W/events.jsonl"
	assert_no_file "$W/markers/TRAIN_DONE"
	kill "$sp"
	wait_for 5 test -f "$W/markers/TRAIN_DONE"
	wait "$LAST_PID"
}

test_log_truncation_and_rotation() {
	mkdir -p "$T/work"
	printf 'step 1/100\n' >"$T/work/train.log"
	conf '"poll_ms": 600000, "progress": {"pattern": "step ([0-9]+)/([0-9]+)"},' "[{\"stage\": \"train\", \"wait\": {\"log\": \"train.log\", \"pattern\": \"Training completed\", \"timeout_s\": 600}}]"
	bg_onbox run
	wait_for 10 grep -q '"stage_started"' "$W/events.jsonl"
	# copytruncate: the file shrinks in place, then grows again.
	: >"$T/work/train.log"
	printf 'step 50/100\n' >>"$T/work/train.log"
	wait_for 5 grep -q '~50/100' "$W/state.json"
	# rename rotation: the old file moves away, a new one appears.
	mv "$T/work/train.log" "$T/work/train.log.1"
	printf 'step 99/100\n' >"$T/work/train.log"
	wait_for 5 grep -q '~99/100' "$W/state.json"
	echo "Training completed" >>"$T/work/train.log"
	wait_for 5 test -f "$W/markers/TRAIN_DONE"
	wait "$LAST_PID"
}

# Triage: a stage that prints a realistic log and ends a given way.
triage_case() {
	local fixture=$1 ending=$2 want=$3
	rm -rf "$T/work/.watchkeeper"
	mkdir -p "$T/bin"
	cat >"$T/bin/s.sh" <<SH
#!/bin/sh
cat "$TOP/tests/e2e/fixtures/$fixture"
$ending
SH
	chmod +x "$T/bin/s.sh"
	conf '' "[{\"stage\": \"s\", \"run\": \"$T/bin/s.sh\"}]"
	rc=0; onbox run >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 1 "$fixture"
	assert_eq "$(json "$W/markers/S_DONE.FAILED" 'd["class"]')" "$want" "$fixture"
	json "$W/markers/S_DONE.FAILED" 'd["remediation"]' | grep -q .
}

test_triage_classes() {
	triage_case disk_full.log 'exit 1' disk_full
	triage_case cuda_oom.log 'exit 1' cuda_oom
	triage_case hbm_oom.log 'exit 1' hbm_oom
	triage_case code_error.log 'exit 1' code_error
	triage_case node_lost.log 'exit 1' node_lost
	triage_case nccl_timeout.log 'exit 1' nccl_timeout
	triage_case bad_accelerator.log 'exit 1' bad_accelerator
	triage_case nan_loss.log 'exit 1' nan_loss
	triage_case quiet.log 'kill -KILL $$' killed	# the counter readable, unchanged
	triage_case quiet.log 'exit 137' killed
	triage_case quiet.log 'kill -TERM $$' preempted
	triage_case quiet.log 'exit 3' unknown
}

test_stage_timeout_stops_process_group() {
	mkdir -p "$T/bin"
	cat >"$T/bin/s.sh" <<SH
#!/bin/sh
sleep 60 &
echo \$! >"$T/child.pid"
wait
SH
	chmod +x "$T/bin/s.sh"
	conf '' "[{\"stage\": \"s\", \"run\": \"$T/bin/s.sh\", \"timeout_s\": 1}]"
	rc=0; onbox run >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_eq "$(json "$W/markers/S_DONE.FAILED" 'd["class"]')" timeout
	cp=$(<"$T/child.pid")
	wait_for 5 sh -c "! kill -0 $cp 2>/dev/null"
}

test_start_nohup_and_refuse() {
	mkstage train 0 wait
	conf '' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	onbox start >"$T/start.out" 2>&1
	assert_grep 'started run t1 with nohup' "$T/start.out"
	# start returns once state.json names the onbox it started (no wait here)
	pid=$(json "$W/state.json" 'd["onbox_pid"]')
	echo "$pid" >>"$T/.pids"
	assert_grep "\(onbox pid $pid\)" "$T/start.out"
	rc=0; onbox start >"$T/start2.out" 2>&1 || rc=$?
	assert_eq "$rc" 75
	assert_grep 'already running' "$T/start2.out"
	onbox status >"$T/status.out"
	assert_grep 'onbox: running' "$T/status.out"
	assert_grep 'train +TRAIN_DONE +running' "$T/status.out"
	touch "$T/go.train"
	wait_for 10 test -f "$W/markers/TRAIN_DONE"
	wait_for 10 sh -c "! kill -0 $pid 2>/dev/null"
	assert_eq "$(launches train)" 1
	onbox status --json >"$T/status.json"
	assert_eq "$(json "$T/status.json" 'd["done"]')" true
	assert_eq "$(json "$T/status.json" 'd["onbox_running"]')" false
}

# A chain that ends before start looks was still started by it: start says
# so, and says "nothing to do" only when every marker was there before.
test_start_says_what_it_did() {
	conf '' '[{"stage": "s", "run": "echo step 1/1"}]'
	onbox start >"$T/start.out" 2>&1
	assert_grep '^started run t1 with nohup' "$T/start.out"
	assert_no_grep 'nothing to do' "$T/start.out"
	wait_for 10 test -f "$W/markers/S_DONE"
	wait_for 10 sh -c "! kill -0 $(json "$W/state.json" 'd["onbox_pid"]') 2>/dev/null"
	onbox start >"$T/start2.out" 2>&1
	assert_grep '^run t1: nothing to do, every marker is already present$' "$T/start2.out"
	assert_no_grep 'started' "$T/start2.out"
}

test_start_tmux() {
	export TMUX_TMPDIR="$T/tmux"
	mkdir -p "$TMUX_TMPDIR"
	mkstage train 0 wait
	conf '' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	sed -i 's/"detach": "nohup"/"detach": "tmux"/' "$T/wk.json"
	onbox start >"$T/start.out" 2>&1
	assert_grep 'with tmux' "$T/start.out"
	assert_grep 'tmux attach -t wk-t1' "$T/start.out"
	tmux has-session -t =wk-t1
	rc=0; onbox start >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 75
	touch "$T/go.train"
	wait_for 10 test -f "$W/markers/TRAIN_DONE"
	wait_for 10 sh -c '! tmux has-session -t =wk-t1 2>/dev/null'
	assert_eq "$(launches train)" 1
}

test_start_tmux_carries_callers_environment() {
	# A tmux server already running with another environment.
	export TMUX_TMPDIR="$T/tmux"
	mkdir -p "$TMUX_TMPDIR"
	WK_E2E_VAR=server tmux new-session -d -s other 'sleep 60'
	mkdir -p "$T/bin"
	printf '#!/bin/sh\nprintf "%%s|%%s|%%s" "$WK_E2E_VAR" "$WK_E2E_TOKEN" "$WK_E2E_SPACE" >env.out\n' >"$T/bin/e.sh"
	chmod +x "$T/bin/e.sh"
	conf '' "[{\"stage\": \"e\", \"run\": \"$T/bin/e.sh\"}]"
	sed -i 's/"detach": "nohup"/"detach": "tmux"/' "$T/wk.json"
	WK_E2E_VAR=caller WK_E2E_TOKEN=s3cret WK_E2E_SPACE="a b'c" onbox start >"$T/start.out" 2>&1 || true
	wait_for 10 test -f "$W/markers/E_DONE"
	# The caller's value, not the server's; a secret-looking name is not carried.
	assert_eq "$(<"$T/work/env.out")" "caller||a b'c"
}

test_rerun_invalidates_downstream_markers() {
	mkstage train; mkstage eval
	conf '' "[
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"},
	{\"stage\": \"eval\", \"run\": \"$T/bin/eval.sh\"}]"
	onbox run >/dev/null 2>&1
	assert_file "$W/markers/EVAL_DONE"
	# train is to run again (its marker removed): eval's marker came from the old chain.
	rm "$W/markers/TRAIN_DONE"
	onbox run >"$T/out" 2>&1
	assert_eq "$(launches train)" 2
	assert_eq "$(launches eval)" 2 "eval must rerun after train reran"
	assert_grep 'removed EVAL_DONE' "$T/out"
}

test_status_json_and_heartbeat() {
	mkstage train 0 wait
	conf '"progress": {"pattern": "step ([0-9]+)/([0-9]+)", "max": 5155},' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	bg_onbox run
	wait_for 10 grep -q '~5/5155' "$W/state.json"
	onbox status --json >"$T/s.json"
	assert_eq "$(json "$T/s.json" 'd["onbox_running"]')" true
	assert_eq "$(json "$T/s.json" 'd["state"]["stage"]')" train
	assert_eq "$(json "$T/s.json" 'd["state"]["attempt"]')" 1
	assert_eq "$(json "$T/s.json" 'd["stages"][0]["state"]')" running
	assert_eq "$(json "$T/s.json" 'd["state"]["last_line"]')" "step 5/5 loss=0.5"
	pid=$(json "$W/attempts/train.1.json" 'd["pid"]')
	assert_eq "$(json "$W/state.json" 'd["stage_pid"]')" "$pid"
	# The heartbeat keeps coming while the stage is quiet (heartbeat_s = 1).
	t1=$(json "$W/state.json" 'd["time_unix"]')
	wait_for 5 json_ne "$W/state.json" 'd["time_unix"]' "$t1"
	touch "$T/go.train"
	wait "$LAST_PID"
}

test_config_and_usage_errors() {
	mkdir -p "$T/work"
	cat >"$T/wk.json" <<JSON
{
  "run": "bad name!",
  "workdir": "$T/work",
  "heartbeat_s": "sixty",
  "chain": [ { "stage": "a", "run": "true", "dne_when": "x" } ]
}
JSON
	rc=0; onbox run >"$T/err" 2>&1 || rc=$?
	assert_eq "$rc" 78
	assert_grep "wk.json:2:.*run" "$T/err"
	assert_grep "wk.json:4:.*heartbeat_s" "$T/err"
	assert_grep "wk.json:5:.*dne_when" "$T/err"
	rc=0; "$ONBOX" -c "$T/missing.json" run >"$T/err" 2>&1 || rc=$?
	assert_eq "$rc" 78
	assert_grep 'missing.json' "$T/err"
	rc=0; "$ONBOX" frobnicate >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 64
	rc=0; "$ONBOX" run --bogus >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 64
	"$ONBOX" --version | grep -q '^onbox '
}

test_hostile_command_and_paths() {
	# A workdir with spaces and quotes, a command full of shell syntax: the
	# command is run as written (sh -c), nothing else is interpreted.
	T2="$T/it's a \"dir\" \$(x)"
	mkdir -p "$T2"
	cat >"$T/wk.json" <<JSON
{ "run": "t1", "workdir": "$(printf '%s' "$T2" | sed 's/"/\\"/g')", "detach": "nohup",
  "chain": [ { "stage": "a", "run": "printf '%s\\\\n' 'a|b' \"\$(echo ok)\" > out.txt && echo 'done; really'", "done_when": "done; really" } ] }
JSON
	onbox run >"$T/out" 2>&1
	assert_file "$T2/.watchkeeper/markers/A_DONE"
	assert_eq "$(head -n1 "$T2/out.txt")" "a|b"
	assert_eq "$(tail -n1 "$T2/out.txt")" "ok"
}

test_profile_defaults_and_persistent_warning() {
	# runpod's profile: nohup by default, and /workspace is the persistent disk.
	conf '"profile": "runpod",' '[{"stage": "a", "run": "echo hi"}]'
	sed -i '/"detach"/d' "$T/wk.json"
	onbox run >"$T/out" 2>&1
	assert_grep 'not under /workspace' "$T/out"
	assert_file "$W/markers/A_DONE"
	onbox status --json >"$T/s.json"
	assert_eq "$(json "$T/s.json" 'd["done"]')" true
}

test_sigterm_leaves_stage_running() {
	mkstage train 0 wait
	conf '' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	bg_onbox run
	first=$LAST_PID
	wait_for 10 test -f "$W/attempts/train.1.json"
	kill -TERM "$first"
	rc=0; wait "$first" || rc=$?
	assert_eq "$rc" 143
	assert_eq "$(json "$W/state.json" 'd["status"]')" stopped
	pid=$(json "$W/attempts/train.1.json" 'd["pid"]')
	kill -0 "$pid"
	bg_onbox run
	wait_for 10 grep -q 're-attaching' "$T/onbox.out"
	touch "$T/go.train"
	wait "$LAST_PID"
	assert_file "$W/markers/TRAIN_DONE"
	assert_eq "$(launches train)" 1
}

test_poll_fallback_without_inotify() {
	mkdir -p "$T/work"
	: >"$T/work/train.log"
	conf '"poll_ms": 100,' "[{\"stage\": \"train\", \"wait\": {\"log\": \"train.log\", \"pattern\": \"Training completed\", \"timeout_s\": 600}}]"
	WATCHKEEPER_NO_INOTIFY=1 bg_onbox run
	wait_for 10 grep -q '"stage_started"' "$W/events.jsonl"
	echo "Training completed" >>"$T/work/train.log"
	wait_for 10 test -f "$W/markers/TRAIN_DONE"
	wait "$LAST_PID"
	assert_grep 'inotify unavailable' "$T/onbox.out"
}

t chain_success test_chain_success
t gating_failed_middle test_gating_failed_middle
t resume_after_fix_runs_only_missing test_resume_after_fix_runs_only_missing
t done_when_required test_done_when_required
t done_line_of_earlier_attempt_does_not_count test_done_line_of_earlier_attempt_does_not_count
t kill9_reattaches_without_second_launch test_kill9_reattaches_without_second_launch
t kill9_stage_ends_unwatched_then_finalized test_kill9_stage_ends_unwatched_then_finalized
t kill9_stage_failed_unwatched test_kill9_stage_failed_unwatched
t second_concurrent_run_exits_75 test_second_concurrent_run_exits_75
t wait_stage_reacts_by_inotify test_wait_stage_reacts_by_inotify
t wait_stage_already_finished test_wait_stage_already_finished
t wait_stage_crash_and_timeout test_wait_stage_crash_and_timeout
t wait_pid test_wait_pid
t log_truncation_and_rotation test_log_truncation_and_rotation
t triage_classes test_triage_classes
t stage_timeout_stops_process_group test_stage_timeout_stops_process_group
t start_nohup_and_refuse test_start_nohup_and_refuse
t start_says_what_it_did test_start_says_what_it_did
t start_tmux test_start_tmux
t status_json_and_heartbeat test_status_json_and_heartbeat
t config_and_usage_errors test_config_and_usage_errors
t hostile_command_and_paths test_hostile_command_and_paths
t profile_defaults_and_persistent_warning test_profile_defaults_and_persistent_warning
t sigterm_leaves_stage_running test_sigterm_leaves_stage_running
t start_tmux_carries_callers_environment test_start_tmux_carries_callers_environment
t rerun_invalidates_downstream_markers test_rerun_invalidates_downstream_markers
t poll_fallback_without_inotify test_poll_fallback_without_inotify
