#!/usr/bin/env bash
# shellcheck disable=SC2016 # same_out's code and sh -c scripts expand later
# The stand-in for Ray's job CLI (tests/e2e/fixtures/fake-ray) prints what
# today's `ray job` prints: the exact texts below come from the upstream
# source its header cites (ray-project/ray python/ray/dashboard/modules/job/
# cli.py@0718d5b0, autoscaler/_private/cli_logger.py@001dbf67, common.py,
# job_supervisor.py, pydantic_models.py, click 8.5.0; research notes in
# tests/e2e/fixtures/UPSTREAM-CLIS.md section 2).  Each test drives a fake
# cluster of its own ($T/cluster) through the CLI and the fake's test hooks.
# Record-style lines start with a time stamp: `norm` writes it as "TS ".
. "$(dirname "$0")/lib.sh"

R="$TOP/tests/e2e/fixtures/fake-ray"

fsetup() { export FAKE_JOB_DIR="$T/cluster"; unset RAY_ADDRESS RAY_API_SERVER_ADDRESS RAY_JOB_HEADERS; }
ray() { "$R" "$@"; }
# run ARGS...: ray's stdout in $T/out, stderr in $T/err, exit status in $rc.
run() { rc=0; "$R" "$@" >"$T/out" 2>"$T/err" </dev/null || rc=$?; }
# norm FILE: the record prefix's time stamp and tab as "TS ".
norm() { sed -E 's/^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2},[0-9]{3}\t/TS /' "$1"; }
# same FILE: FILE's text is the expected text on stdin (diff shown otherwise).
same() {
	cat >"$T/want"
	cmp -s "$1" "$T/want" && return 0
	diff "$T/want" "$1" >&2 || :
	fail "$1 is not as expected (diff above: - expected, + got)"
}
# same_out CODE: what the shell CODE prints is the expected text on stdin.
same_out() { eval "$1" >"$T/act" </dev/null; same "$T/act"; }
# expect_out: $T/out normalised is the text on stdin, stderr empty, exit 0.
expect_out() {
	[ "$rc" = 0 ] || { fail "exit $rc: $(cat "$T/err")"; return 1; }
	[ ! -s "$T/err" ] || { fail "stderr: $(cat "$T/err")"; return 1; }
	norm "$T/out" >"$T/out.n"
	same "$T/out.n"
}
jdir() { local f; for f in "$FAKE_JOB_DIR"/jobs/*/id; do [ "$(<"$f")" = "$1" ] && dirname "$f"; done; }
field() { local d; d=$(jdir "$1"); cat "$d/$2"; }

ADDR_R='TS INFO cli.py:42 -- Job submission server address: http://127.0.0.1:8265'
ADDR_P='Job submission server address: http://127.0.0.1:8265'

# cli.py submit (328-343): the address, the success block, "Next steps";
# record style drops newline()'s empty messages and indents nothing.
test_submit_record() {
	fsetup
	run job submit --log-style record --submission-id wk-t1-train-20260822-185453 --no-wait -- \
		sh -c 'cd "$1" && exec sh -c "$2"' sh /w "python train.py --lr 3e-4"
	expect_out <<'EOF'
TS INFO cli.py:42 -- Job submission server address: http://127.0.0.1:8265
TS SUCC cli.py:66 -- --------------------------------------------------------
TS SUCC cli.py:67 -- Job 'wk-t1-train-20260822-185453' submitted successfully
TS SUCC cli.py:68 -- --------------------------------------------------------
TS INFO cli.py:330 -- Next steps
TS INFO cli.py:331 -- Query the logs of the job:
TS INFO cli.py:333 -- ray job logs wk-t1-train-20260822-185453
TS INFO cli.py:335 -- Query the status of the job:
TS INFO cli.py:337 -- ray job status wk-t1-train-20260822-185453
TS INFO cli.py:339 -- Request the job to be stopped:
TS INFO cli.py:341 -- ray job stop wk-t1-train-20260822-185453
EOF
	# LOGGER_FORMAT: "%(asctime)s\t%(levelname)s %(filename)s:%(lineno)s -- %(message)s"
	[ "$(grep -cE $'^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2},[0-9]{3}\t(INFO|SUCC) cli\\.py:[0-9]+ -- ' "$T/out")" = 11 ]
	assert_eq "$(<"$FAKE_JOB_DIR/seq")" 1
	assert_eq "$(field wk-t1-train-20260822-185453 state)" PENDING
	assert_eq "$(field wk-t1-train-20260822-185453 argc)" 6
	assert_eq "$(field wk-t1-train-20260822-185453 arg.4)" sh
	assert_eq "$(field wk-t1-train-20260822-185453 arg.6)" "python train.py --lr 3e-4"
	same_out 'field wk-t1-train-20260822-185453 opts' <<'EOF'
--log-style
record
--submission-id
wk-t1-train-20260822-185453
--no-wait
EOF
}

# Pretty style: newline() prints empty lines, "Next steps" items indented
# 2 and the commands 4; colours (colorful, 8 colours) unless --log-color false.
test_submit_pretty() {
	fsetup
	run job submit --log-style pretty --log-color false --submission-id j --no-wait -- echo hi
	expect_out <<'EOF'
Job submission server address: http://127.0.0.1:8265

------------------------------
Job 'j' submitted successfully
------------------------------

Next steps
  Query the logs of the job:
    ray job logs j
  Query the status of the job:
    ray job status j
  Request the job to be stopped:
    ray job stop j

EOF
	run job submit --log-style PRETTY --submission-id k --no-wait -- echo hi
	printf '%b\n' \
		'\033[37mJob submission server address\033[39m: \033[1mhttp://127.0.0.1:8265\033[22m' '' \
		'\033[32m------------------------------\033[39m' \
		"\\033[32mJob 'k' submitted successfully\\033[39m" \
		'\033[32m------------------------------\033[39m' '' \
		'\033[36mNext steps\033[39m' \
		'  Query the logs of the job:' '    \033[1mray job logs k\033[22m' \
		'  Query the status of the job:' '    \033[1mray job status k\033[22m' \
		'  Request the job to be stopped:' '    \033[1mray job stop k\033[22m' '' | expect_out
	# Record style has no colours, --log-color true or not.
	run job submit --log-style record --log-color true --submission-id l --no-wait -- echo hi
	assert_no_grep $'\033' "$T/out"
	grep -q "^TS SUCC cli.py:67 -- Job 'l' submitted successfully$" <(norm "$T/out")
}

# Every submit option of today's cli.py is taken; those before the entrypoint
# reach the job verbatim (opts); the PENDING message names what it may wait for.
test_submit_options() {
	fsetup
	run job submit --address http://127.0.0.1:8265/ --job-id old -v --verify false --headers '{"a": "b"}' \
		--runtime-env-json='{"env_vars": {"A": "1"}, "pip": ["x==1"]}' --working-dir s3://b/w.zip \
		--metadata-json '{"team": "ml"}' --entrypoint-num-cpus 0 --entrypoint-num-gpus=1 \
		--entrypoint-memory 0 --entrypoint-resources '{}' --entrypoint-label-selector '{"x": "y"}' \
		--log-style record --log-color false --no-wait -- python train.py
	[ "$rc" = 0 ] || { fail "exit $rc: $(cat "$T/err")"; return 1; }
	same_out 'norm "$T/out" | head -n 3' <<'EOF'
TS WARN cli.py:263 -- --job-id option is deprecated. Please use --submission-id instead.
TS INFO cli.py:42 -- Job submission server address: http://127.0.0.1:8265
TS SUCC cli.py:66 -- --------------------------------
EOF
	grep -q "^TS SUCC cli.py:67 -- Job 'old' submitted successfully$" <(norm "$T/out")
	same_out 'field old opts' <<'EOF'
--address
http://127.0.0.1:8265/
--job-id
old
-v
--verify
false
--headers
{"a": "b"}
--runtime-env-json={"env_vars": {"A": "1"}, "pip": ["x==1"]}
--working-dir
s3://b/w.zip
--metadata-json
{"team": "ml"}
--entrypoint-num-cpus
0
--entrypoint-num-gpus=1
--entrypoint-memory
0
--entrypoint-resources
{}
--entrypoint-label-selector
{"x": "y"}
--log-style
record
--log-color
false
--no-wait
EOF
	run job status --log-style record old
	expect_out <<EOF
$ADDR_R
TS INFO cli.py:92 -- Status for job 'old': PENDING
TS INFO cli.py:94 -- Status message: Job has not started yet. It may be waiting for resources (CPUs, GPUs, memory, custom resources) to become available. It may be waiting for the runtime environment to be set up.
EOF
	run job list --log-style record
	grep -qF "metadata={'team': 'ml'}, runtime_env={'env_vars': {'A': '1'}, 'pip': ['x==1'], 'working_dir': 's3://b/w.zip'}, driver_agent_http_address=None" "$T/out"
	# Resources only / runtime env only / nothing requested.
	ray job submit --submission-id r --entrypoint-resources '{"TPU": 4}' --no-wait -- x >/dev/null
	ray job submit --submission-id e --runtime-env-json '{}' --working-dir /w --no-wait -- x >/dev/null
	ray job submit --submission-id z --entrypoint-num-cpus 0.0 --runtime-env-json '{}' --no-wait -- x >/dev/null
	assert_eq "$(field r pmsg)" "Job has not started yet. It may be waiting for resources (CPUs, GPUs, memory, custom resources) to become available."
	assert_eq "$(field e pmsg)" "Job has not started yet. It may be waiting for the runtime environment to be set up."
	assert_eq "$(field z pmsg)" "Job has not started yet."
	# No --submission-id: the server makes one (job_manager.generate_job_id).
	run job submit --no-wait -- echo hi
	id=$(sed -n "s/.* -- Job '\(.*\)' submitted successfully$/\1/p" "$T/out")
	[[ $id =~ ^raysubmit_[ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz1-9]{16}$ ]] || fail "generated id $id"
	assert_eq "$(<"$FAKE_JOB_DIR/seq")" 5
}

# status (cli.py _log_job_status 80-95), one state at a time; exit 0 for all.
test_status_states() {
	fsetup
	ray job submit --submission-id j --no-wait -- python train.py >/dev/null
	run job status --log-style record j
	expect_out <<EOF
$ADDR_R
TS INFO cli.py:92 -- Status for job 'j': PENDING
TS INFO cli.py:94 -- Status message: Job has not started yet.
EOF
	ray _set j RUNNING
	run job status --log-style record j
	expect_out <<EOF
$ADDR_R
TS INFO cli.py:92 -- Status for job 'j': RUNNING
TS INFO cli.py:94 -- Status message: Job is currently running.
EOF
	ray _set j SUCCEEDED
	run job status --log-style record j
	expect_out <<EOF
$ADDR_R
TS SUCC cli.py:66 -- -----------------
TS SUCC cli.py:67 -- Job 'j' succeeded
TS SUCC cli.py:68 -- -----------------
EOF
	ray _set j STOPPED
	run job status --log-style record j
	expect_out <<EOF
$ADDR_R
TS WARN cli.py:85 -- Job 'j' was stopped
EOF
	# FAILED: the supervisor's message, the last 10 log lines (with their
	# final newline: print() adds one more, hence the empty last line).
	for i in 01 02 03 04 05 06 07 08 09 10 11 12; do ray _log j "step $i"; done
	ray _set j FAILED
	run job status --log-style record j
	expect_out <<EOF
$ADDR_R
TS ERR cli.py:74 -- --------------
TS ERR cli.py:75 -- Job 'j' failed
TS ERR cli.py:76 -- --------------
TS INFO cli.py:89 -- Status message: Job entrypoint command failed with exit code 1, last available logs (truncated to 20,000 chars):
step 03
step 04
step 05
step 06
step 07
step 08
step 09
step 10
step 11
step 12

EOF
	run job status --log-style pretty --log-color false j
	same_out 'head -n 6 "$T/out"' <<EOF
$ADDR_P

--------------
Job 'j' failed
--------------

EOF
	# No log: "... exit code N. No logs available."
	ray job submit --submission-id k --no-wait -- false >/dev/null
	ray _set k FAILED
	echo 137 >"$(jdir k)/exit_code"
	run job status --log-style record k
	same_out 'norm "$T/out" | tail -n 1' <<'EOF'
TS INFO cli.py:89 -- Status message: Job entrypoint command failed with exit code 137. No logs available.
EOF
	# A state nobody knows: the catch-all, no message.
	ray _set k WEIRD
	run job status --log-style record k
	expect_out <<EOF
$ADDR_R
TS INFO cli.py:92 -- Status for job 'k': WEIRD
EOF
	# An unknown id: the 404 RuntimeError, exit 1, after the address line.
	run job status --log-style record nope
	[ "$rc" = 1 ] || fail "unknown id: exit $rc"
	same_out 'norm "$T/out"' <<<"$ADDR_R"
	assert_eq "$(tail -n 1 "$T/err")" "RuntimeError: Request failed with status code 404: Job nope does not exist."
	assert_eq "$(head -n 1 "$T/err")" "Traceback (most recent call last):"
}

# list: one INFO record of pprint.pformat([JobDetails(...)]), every field in
# pydantic_models.py's order, retry_policy and attempt_number last.
test_list() {
	fsetup
	run job list --log-style record
	expect_out <<EOF
$ADDR_R
TS INFO cli.py:600 -- []
EOF
	ray job submit --submission-id b-job --no-wait -- sh -c "echo it's" >/dev/null
	c1=$(field b-job created)
	run job list --log-style record
	expect_out <<EOF
$ADDR_R
TS INFO cli.py:600 -- [JobDetails(type=<JobType.SUBMISSION: 'SUBMISSION'>, job_id=None, submission_id='b-job', driver_info=None, status=<JobStatus.PENDING: 'PENDING'>, entrypoint='sh -c \'echo it\'"\'"\'s\'', message='Job has not started yet.', error_type=None, start_time=$c1, end_time=None, metadata={}, runtime_env={}, driver_agent_http_address=None, driver_node_id=None, driver_exit_code=None, retry_policy=None, attempt_number=0)]
EOF
	# A second job, started then failed: the driver's fields, error_type,
	# end_time, exit code; one JobDetails a line, ordered by id, not by time.
	ray job submit --submission-id a-job --no-wait -- python train.py >/dev/null
	ray _set a-job RUNNING
	ray _log a-job "loss nan"
	ray _set a-job FAILED
	c2=$(field a-job created) e2=$(field a-job ended)
	node=6d2e4f1a9c0b8e7d5f3a2c1b0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b
	run job list --log-style pretty --log-color false
	expect_out <<EOF
$ADDR_P
[JobDetails(type=<JobType.SUBMISSION: 'SUBMISSION'>, job_id='02000000', submission_id='a-job', driver_info=DriverInfo(id='02000000', node_ip_address='127.0.0.1', pid='4002'), status=<JobStatus.FAILED: 'FAILED'>, entrypoint='python train.py', message='Job entrypoint command failed with exit code 1, last available logs (truncated to 20,000 chars):\\nloss nan\\n', error_type='JOB_ENTRYPOINT_COMMAND_ERROR', start_time=$c2, end_time=$e2, metadata={}, runtime_env={}, driver_agent_http_address='http://127.0.0.1:52365', driver_node_id='$node', driver_exit_code=1, retry_policy=None, attempt_number=0),
 JobDetails(type=<JobType.SUBMISSION: 'SUBMISSION'>, job_id=None, submission_id='b-job', driver_info=None, status=<JobStatus.PENDING: 'PENDING'>, entrypoint='sh -c \'echo it\'"\'"\'s\'', message='Job has not started yet.', error_type=None, start_time=$c1, end_time=None, metadata={}, runtime_env={}, driver_agent_http_address=None, driver_node_id=None, driver_exit_code=None, retry_policy=None, attempt_number=0)]
EOF
	# Per-state messages and the terminal states' end_time / exit code.
	ray _set b-job RUNNING
	ray job list | grep -qF "status=<JobStatus.RUNNING: 'RUNNING'>, entrypoint='sh -c \\'echo it\\'\"\\'\"\\'s\\'', message='Job is currently running.', error_type=None, start_time=$c1, end_time=None,"
	ray _set b-job SUCCEEDED
	e1=$(field b-job ended)
	ray job list | grep -qF "message='Job finished successfully.', error_type=None, start_time=$c1, end_time=$e1,"
	ray job list | grep -qF "driver_exit_code=0, retry_policy=None, attempt_number=0)]"
	ray _set b-job STOPPED
	ray job list | grep -qF "message='Job was intentionally stopped.', error_type=None, start_time=$c1, end_time=$e1,"
	# Every JobDetails on one line, whatever its message holds.
	[ "$(ray job list --log-style record | grep -c 'JobDetails(')" = 2 ]
}

# stop (cli.py 448-466): "Attempting to stop" before the request, then the
# wait, one "not exited yet" for a job that was live, then the final status.
test_stop() {
	fsetup
	ray job submit --submission-id j --no-wait -- python train.py >/dev/null
	ray _set j RUNNING
	run job stop --log-style record j
	expect_out <<EOF
$ADDR_R
TS INFO cli.py:449 -- Attempting to stop job 'j'
TS INFO cli.py:455 -- Waiting for job 'j' to exit (disable with --no-wait):
TS INFO cli.py:465 -- Job has not exited yet. Status: RUNNING
TS WARN cli.py:85 -- Job 'j' was stopped
EOF
	assert_eq "$(field j state)" STOPPED
	# Already terminal: no "not exited yet", the status as it is.
	ray job submit --submission-id k --no-wait -- true >/dev/null
	ray _set k SUCCEEDED
	run job stop --log-style record k
	expect_out <<EOF
$ADDR_R
TS INFO cli.py:449 -- Attempting to stop job 'k'
TS INFO cli.py:455 -- Waiting for job 'k' to exit (disable with --no-wait):
TS SUCC cli.py:66 -- -----------------
TS SUCC cli.py:67 -- Job 'k' succeeded
TS SUCC cli.py:68 -- -----------------
EOF
	assert_eq "$(field k state)" SUCCEEDED
	# --no-wait returns after the request.
	ray job submit --submission-id m --no-wait -- sleep 9 >/dev/null
	run job stop --no-wait --log-style pretty --log-color false m
	expect_out <<EOF
$ADDR_P
Attempting to stop job 'm'
EOF
	assert_eq "$(field m state)" STOPPED
	# An unknown id: the attempt is announced, then the 404, exit 1.
	run job stop --log-style record nope
	[ "$rc" = 1 ] || fail "unknown id: exit $rc"
	same_out 'norm "$T/out"' <<EOF
$ADDR_R
TS INFO cli.py:449 -- Attempting to stop job 'nope'
EOF
	assert_eq "$(tail -n 1 "$T/err")" "RuntimeError: Request failed with status code 404: Job nope does not exist."
}

# logs (cli.py 569): "" before the driver starts; then the log raw (pretty)
# or as one record (record), nothing added.
test_logs() {
	fsetup
	ray job submit --submission-id j --no-wait -- python train.py >/dev/null
	run job logs --log-style pretty --log-color false j
	expect_out <<<"$ADDR_P"
	run job logs --log-style record j
	expect_out <<<"$ADDR_R"
	ray _set j RUNNING
	ray _log j "step 1/10 loss 2.5"
	ray _log j "{braces} 100% \\ done"
	run job logs --log-style pretty --log-color false j
	expect_out <<EOF
$ADDR_P
step 1/10 loss 2.5
{braces} 100% \\ done
EOF
	run job logs --log-style record j
	expect_out <<EOF
$ADDR_R
TS INFO cli.py:569 -- step 1/10 loss 2.5
{braces} 100% \\ done
EOF
	# No newline is added to a log that lacks one.
	printf 'partial' >>"$(jdir j)/log"
	run job logs --log-style pretty --log-color false j
	assert_eq "$(tail -c 7 "$T/out")" "partial"
	[ "$(tail -c 1 "$T/out")" = l ]
	# A blank log is no record at all.
	ray job submit --submission-id b --no-wait -- true >/dev/null
	ray _log b "   "
	run job logs --log-style record b
	expect_out <<<"$ADDR_R"
	# -f on a terminal job: the log, the status (cli.py _tail_logs); exit 0.
	ray _set b FAILED
	run job logs -f --log-style record b
	[ "$rc" = 0 ] || fail "logs -f: exit $rc"
	same_out 'norm "$T/out"' <<EOF
$ADDR_R
   
TS ERR cli.py:74 -- --------------
TS ERR cli.py:75 -- Job 'b' failed
TS ERR cli.py:76 -- --------------
TS INFO cli.py:89 -- Status message: Job entrypoint command failed with exit code 1, last available logs (truncated to 20,000 chars):
   

EOF
	assert_grep $'\tINFO sdk\\.py:547 -- WebSocket closed for job b with close code 1000$' "$T/err"
	# Unknown id: 404, exit 1.
	run job logs --log-style record nope
	[ "$rc" = 1 ] || fail "unknown id: exit $rc"
	assert_eq "$(tail -n 1 "$T/err")" "RuntimeError: Request failed with status code 404: Job nope does not exist."
}

# _logfile appends a big log at once (cat, not a loop a line).
test_logfile_100k() {
	fsetup
	awk 'BEGIN { for (i = 1; i <= 100000; i++) printf "%06d step %d loss 0.%06d tokens/s 123456 grad_norm 0.98765 mem 71.2GiB lr 3e-4 %s\n", i, i, i, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" }' >"$T/big.log"
	[ "$(wc -c <"$T/big.log")" -gt 17000000 ]
	ray job submit --submission-id j --no-wait -- python train.py >/dev/null
	ray _logfile j "$T/big.log"
	run job logs --log-style pretty --log-color false j
	same_out 'head -n 1 "$T/out"' <<<"$ADDR_P"
	tail -n +2 "$T/out" | cmp - "$T/big.log"
	ray _set j FAILED
	run job status --log-style record j
	assert_eq "$(grep -c 'step' "$T/out")" 10
	grep -q '^100000 step 100000 ' "$T/out"
	# A file without a final newline still ends a line.
	printf 'a\nb' >"$T/nonl"
	ray _logfile j "$T/nonl"
	assert_eq "$(tail -n 2 "$(jdir j)/log")" $'a\nb'
}

# --log-color, --log-style, -v, --verify and --headers on every subcommand.
test_common_options() {
	fsetup
	ray job submit --submission-id j --no-wait -- true >/dev/null
	ray _set j SUCCEEDED
	for c in auto false true TRUE; do
		for sub in "submit --submission-id s-$c --no-wait -- true" "status j" "list" "logs j" "stop j" "logs -f j"; do
			read -r -a w <<<"$sub"
			run job "${w[0]}" --log-color "$c" --log-style record -v --verify true --headers '{}' \
				--address http://127.0.0.1:8265 "${w[@]:1}"
			[ "$rc" = 0 ] || { fail "$sub --log-color $c: exit $rc: $(cat "$T/err")"; return 1; }
			grep -q "^$ADDR_R\$" <(norm "$T/out") || fail "$sub: no address line"
		done
	done
	assert_eq "$(field s-true argc)" 1
	ray job submit --submission-id d --no-wait -- true >/dev/null
	run job delete --log-color false --log-style record -vv d
	[ "$rc" = 1 ] || fail "delete of a live job: exit $rc"
	assert_eq "$(tail -n 3 "$T/err" | head -n 1)" "RuntimeError: Attempted to delete job 'd', but it is in a non-terminal state PENDING."
	ray _set d STOPPED
	run job delete --log-color false --log-style record d
	expect_out <<EOF
$ADDR_R
TS INFO cli.py:509 -- Job 'd' deleted successfully
EOF
	ray _jobs | grep -q '^d ' && fail "deleted job still listed"
	# RAY_ADDRESS wins over --address; a password is redacted.
	RAY_ADDRESS=https://me:secret@ray.example:8443/ run job status --log-style record --address http://x:1 j
	grep -q "^TS INFO cli.py:42 -- Job submission server address: https://me:<redacted>@ray.example:8443$" <(norm "$T/out")
}

# Click's usage errors (click 8.5.0), exit 2, on stderr.
test_usage_errors() {
	fsetup
	# expect_err ARGS...: stderr is stdin, exit 2, stdout empty.
	expect_err() {
		run "$@"
		[ "$rc" = 2 ] || { fail "$*: exit $rc"; return 1; }
		[ ! -s "$T/out" ] || { fail "$*: stdout $(cat "$T/out")"; return 1; }
		same "$T/err"
	}
	expect_err job status <<'EOF'
Usage: ray job status [OPTIONS] JOB_ID
Try 'ray job status --help' for help.

Error: Missing argument 'JOB_ID'.
EOF
	expect_err job stop a b <<'EOF'
Usage: ray job stop [OPTIONS] JOB_ID
Try 'ray job stop --help' for help.

Error: Got unexpected extra argument (b)
EOF
	expect_err job logs a b c <<'EOF'
Usage: ray job logs [OPTIONS] JOB_ID
Try 'ray job logs --help' for help.

Error: Got unexpected extra arguments (b c)
EOF
	expect_err job submit --no-wait <<'EOF'
Usage: ray job submit [OPTIONS] ENTRYPOINT...
Try 'ray job submit --help' for help.

Error: Missing argument 'ENTRYPOINT...'.
EOF
	expect_err job submit --bogus --no-wait -- x <<'EOF'
Usage: ray job submit [OPTIONS] ENTRYPOINT...
Try 'ray job submit --help' for help.

Error: No such option '--bogus'. Did you mean '--verbose'?
EOF
	expect_err job list --zzz <<'EOF'
Usage: ray job list [OPTIONS]
Try 'ray job list --help' for help.

Error: No such option '--zzz'.
EOF
	expect_err job stop --no-wiat x <<'EOF'
Usage: ray job stop [OPTIONS] JOB_ID
Try 'ray job stop --help' for help.

Error: No such option '--no-wiat'. Did you mean '--no-wait'?
EOF
	expect_err job submit --entrypoint-num-gpu 1 -- x <<'EOF'
Usage: ray job submit [OPTIONS] ENTRYPOINT...
Try 'ray job submit --help' for help.

Error: No such option '--entrypoint-num-gpu'. (Did you mean one of: '--entrypoint-memory', '--entrypoint-num-cpus', '--entrypoint-num-gpus'?)
EOF
	# An option-looking word before -- is an option (click parses
	# interspersed args): the entrypoint's own flags go after --.
	expect_err job submit python train.py --lr 3e-4 <<'EOF'
Usage: ray job submit [OPTIONS] ENTRYPOINT...
Try 'ray job submit --help' for help.

Error: No such option '--lr'. Did you mean '--help'?
EOF
	expect_err job status -x j <<'EOF'
Usage: ray job status [OPTIONS] JOB_ID
Try 'ray job status --help' for help.

Error: No such option '-x'.
EOF
	expect_err job list --log-style fancy <<'EOF'
Usage: ray job list [OPTIONS]
Try 'ray job list --help' for help.

Error: Invalid value for '--log-style': 'fancy' is not one of 'auto', 'record', 'pretty'.
EOF
	expect_err job logs --log-color maybe j <<'EOF'
Usage: ray job logs [OPTIONS] JOB_ID
Try 'ray job logs --help' for help.

Error: Invalid value for '--log-color': 'maybe' is not one of 'auto', 'false', 'true'.
EOF
	expect_err job submit --entrypoint-num-cpus two -- x <<'EOF'
Usage: ray job submit [OPTIONS] ENTRYPOINT...
Try 'ray job submit --help' for help.

Error: Invalid value for '--entrypoint-num-cpus': 'two' is not a valid float.
EOF
	expect_err job submit --entrypoint-memory 1.5 -- x <<'EOF'
Usage: ray job submit [OPTIONS] ENTRYPOINT...
Try 'ray job submit --help' for help.

Error: Invalid value for '--entrypoint-memory': '1.5' is not a valid integer.
EOF
	expect_err job list x <<'EOF'
Usage: ray job list [OPTIONS]
Try 'ray job list --help' for help.

Error: Got unexpected extra argument (x)
EOF
	# A missing value or a flag's value: the Error line alone.
	expect_err job status --address <<'EOF'
Error: Option '--address' requires an argument.
EOF
	expect_err job submit --no-wait=yes -- x <<'EOF'
Error: Option '--no-wait' does not take a value.
EOF
	expect_err job stats j <<'EOF'
Usage: ray job [OPTIONS] COMMAND [ARGS]...
Try 'ray job --help' for help.

Error: No such command 'stats'. Did you mean 'status'?
EOF
	expect_err job kill j <<'EOF'
Usage: ray job [OPTIONS] COMMAND [ARGS]...
Try 'ray job --help' for help.

Error: No such command 'kill'.
EOF
	# Nothing was submitted by any of them.
	assert_no_file "$FAKE_JOB_DIR/seq"
}

# The hooks the other tests rely on, the duplicate id and the faults.
test_hooks() {
	fsetup
	mkdir -p "$T/cluster"
	echo RUNNING >"$T/cluster/submit_state"
	ray job submit --submission-id j --no-wait -- python train.py >/dev/null
	ray _add hand PENDING python x.py
	same_out 'ray _jobs' <<'EOF'
j RUNNING
hand PENDING
EOF
	assert_eq "$(<"$FAKE_JOB_DIR/seq")" 2
	ray job list | grep -qF "submission_id='hand', driver_info=None, status=<JobStatus.PENDING: 'PENDING'>, entrypoint='python x.py'"
	ray job list | grep -qF "job_id='01000000', submission_id='j', driver_info=DriverInfo(id='01000000'"
	# The driver's job id finds the job too (utils.find_job_by_ids).
	grep -q "^TS INFO cli.py:92 -- Status for job '01000000': RUNNING$" <(ray job status --log-style record 01000000 | norm /dev/stdin)
	# A reused submission id: the head's 500 around the agent's 400, exit 1;
	# the refused submit is counted.
	run job submit --log-style record --submission-id j --no-wait -- true
	[ "$rc" = 1 ] || fail "duplicate: exit $rc"
	same_out 'norm "$T/out"' <<<"$ADDR_R"
	same_out 'tail -n 3 "$T/err"' <<'EOF'
ValueError: Job with submission_id j already exists. Please use a different submission_id.
.
.
EOF
	grep -q '^RuntimeError: Request failed with status code 500: Traceback (most recent call last):$' "$T/err"
	grep -q '^RuntimeError: Request failed with status code 400: Traceback (most recent call last):$' "$T/err"
	assert_eq "$(<"$FAKE_JOB_DIR/seq")" 3
	# Submit without --no-wait follows the log to the end: a job that is
	# already over prints its log and status; FAILED exits 1.
	echo FAILED >"$T/cluster/submit_state"
	run job submit --log-style record --submission-id f -- false
	[ "$rc" = 1 ] || fail "submit of a failing job: exit $rc"
	same_out 'norm "$T/out" | sed -n '\''12,13p'\''' <<'EOF'
TS INFO cli.py:351 -- Tailing logs until the job exits (disable with --no-wait):
TS ERR cli.py:74 -- --------------
EOF
	# The cluster unreachable: ConnectionError, exit 1, nothing on stdout.
	ray _fault fail
	run job status j
	[ "$rc" = 1 ] || fail "fault: exit $rc"
	assert_eq "$(tail -n 1 "$T/err")" "ConnectionError: Failed to connect to Ray at address: http://127.0.0.1:8265."
	[ ! -s "$T/out" ] || fail "fault: stdout"
	ray _fault none
	run job status j
	[ "$rc" = 0 ]
}

t submit_record test_submit_record
t submit_pretty test_submit_pretty
t submit_options test_submit_options
t status_states test_status_states
t list test_list
t stop test_stop
t logs test_logs
t logfile_100k test_logfile_100k
t common_options test_common_options
t usage_errors test_usage_errors
t hooks test_hooks
