#!/usr/bin/env bash
# The Iris stand-in (tests/e2e/fixtures/fake-iris) against what the real
# `iris` CLI prints at the three generations it fakes (FAKE_IRIS_GEN old,
# mid, new: marin 6b9e9109, aa0dd132, 2dfb0794).  The expected texts are
# literal: taken from upstream's source (cli/job.py, cli/logs.py, cli/main.py
# at those commits) and from click 8.3.1 / tabulate 0.9.0 run on the real
# option definitions (tests/e2e/fixtures/UPSTREAM-CLIS.md).  Each test has a
# fake cluster of its own ($T/cluster) and `iris` first on PATH.
. "$(dirname "$0")/lib.sh"

FAKE="$TOP/tests/e2e/fixtures/fake-iris"

# isetup: `iris` on PATH, an empty cluster, the default generation, user wk.
isetup() {
	mkdir -p "$T/bin" "$T/cluster"
	ln -sf "$FAKE" "$T/bin/iris"
	export PATH="$T/bin:$PATH" FAKE_JOB_DIR="$T/cluster" LOGNAME=wk
	unset FAKE_IRIS_GEN IRIS_USER
}
# ir GEN ARGS...: iris at GEN (- for the default), stdout in $T/out, stderr
# in $T/err, the exit status in $rc.
ir() {
	local g=$1
	shift
	rc=0
	if [ "$g" = - ]; then
		iris "$@" >"$T/out" 2>"$T/err" || rc=$?
	else
		FAKE_IRIS_GEN=$g iris "$@" >"$T/out" 2>"$T/err" || rc=$?
	fi
}
out() { cat "$T/out"; }
err() { cat "$T/err"; }
# dir_of ID: the job's directory in the fake cluster.
dir_of() { local f; for f in "$T"/cluster/jobs/*/id; do [ "$(<"$f")" = "$1" ] && { dirname "$f"; return 0; }; done; return 1; }
# at ID MS: the job was submitted at MS (epoch ms): deterministic SUBMITTED.
at() { echo "$2" >"$(dir_of "$1")/created"; }
# msgs: the messages of stderr's log lines (rigging's "I<date> <time> <thread> <logger> ").
msgs() { sed -E 's/^[IWE][0-9]{8} [0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]+ [a-z._]+ //' "$T/err"; }
# click_usage PATH USAGE MSG: what a click.UsageError prints.
click_usage() { printf 'Usage: %s %s\nTry '\''%s --help'\'' for help.\n\nError: %s' "$1" "$2" "$1" "$3"; }

# The profile's generation probes, and --help for every command a generation has.
test_help_probes() {
	isetup
	local g c
	for g in old mid new; do
		ir $g job describe --help
		assert_eq "$rc" "$([ $g = new ] && echo 0 || echo 2)" "describe --help at $g"
		ir $g job summary --help
		assert_eq "$rc" "$([ $g = new ] && echo 2 || echo 0)" "summary --help at $g"
		ir $g job list --help
		assert_eq "$rc" 0
		if [ $g = old ]; then assert_grep '^  --json  ' "$T/out"; else assert_no_grep -- '--json' "$T/out"; fi
	done
	for c in run stop kill kick list summary logs bug-report; do ir old job $c --help; assert_eq "$rc" 0 "old $c --help"; done
	for c in run stop kill kick list summary wait logs; do ir mid job $c --help; assert_eq "$rc" 0 "mid $c --help"; done
	for c in run cancel complete list describe wait logs; do ir new job $c --help; assert_eq "$rc" 0 "new $c --help"; done
	for c in stop kill kick summary bug-report; do
		ir new job $c --help
		assert_eq "$rc" 2 "new $c"
		assert_eq "$(err)" "$(click_usage 'iris job' '[OPTIONS] COMMAND [ARGS]...' "No such command '$c'.")"
		assert_eq "$(out)" ""
	done
	for c in cancel complete describe wait; do ir old job $c --help; assert_eq "$rc" 2 "old $c"; done
	for c in cancel complete describe bug-report; do ir mid job $c --help; assert_eq "$rc" 2 "mid $c"; done
	# click's layout: Usage, blank, description, blank, Options:, one line an option, --help last.
	ir new job describe --help
	assert_eq "$(out)" "Usage: iris job describe [OPTIONS] JOB_ID

  Describe a running or completed Job and its Tasks.

Options:
  --help  Show this message and exit."
	ir old job list --help
	assert_eq "$(out)" "Usage: iris job list [OPTIONS]

  List jobs with optional filtering.

Options:
  --state TEXT   Filter by state (e.g., running, pending, failed)
  --prefix TEXT  Anchored prefix match against the wire-form job_id (e.g.
                 '/alice/exp-').
  --json         Output as JSON
  --help         Show this message and exit."
	ir mid job stop --help
	assert_eq "$(head -n 1 "$T/out")" "Usage: iris job stop [OPTIONS] [JOB_ID]..."
	assert_grep '^  --prefix / --exact  Match each job ID as a prefix instead of exactly$' "$T/out"
	ir new job logs --help
	assert_grep '^  --substring TEXT                Only return lines containing this text\.$' "$T/out"
	ir old job logs --help
	assert_no_grep 'substring' "$T/out"
	assert_grep '^  --tail / --no-tail              Return the most recent lines instead of the$' "$T/out"
	# run: every real option of the generation, and only those.
	ir old job run --help
	assert_grep '^  --processes-per-task INTEGER ' "$T/out"
	assert_grep '^  --terminate-on-exit / --no-terminate-on-exit$' "$T/out"
	assert_no_grep -- '--target-cluster|--exclude|--cancel-on-exit' "$T/out"
	ir new job run --help
	assert_no_grep -- '--processes-per-task|--terminate-on-exit' "$T/out"
	for o in -e,\ --env-vars --tpu --gpu --enable-extra-resources --cpu --memory --disk --no-wait --job-name --user \
	    --replicas --max-retries --timeout --region --zone --target-cluster --extra --sync-package --no-sync \
	    --reserve --priority --preemptible --task-image --container-profile --cancel-on-exit --exclude --help; do
		grep -qF -- "  $o" "$T/out" || fail "new run --help lacks $o"
	done
	assert_eq "$(tail -n 1 "$T/out")" "  --help                          Show this message and exit."
	# --help is eager: it wins over a bad value and a missing argument, not over an unknown option.
	ir new job logs --max-lines abc --help
	assert_eq "$rc" 0
	ir new job logs --bogus --help
	assert_eq "$rc" 2
	ir new job
	assert_eq "$rc" 2
	assert_grep '^Usage: iris job \[OPTIONS\] COMMAND \[ARGS\]\.\.\.$' "$T/err"
}

# click's usage errors: exit 2, the texts click 8.3.1 prints.
test_usage_errors() {
	isetup
	ir new --config "$T/nope.yaml" job list
	assert_eq "$rc" 2
	assert_eq "$(err)" "$(click_usage iris '[OPTIONS] COMMAND [ARGS]...' "Invalid value for '--config': Path '$T/nope.yaml' does not exist.")"
	ir new --config
	assert_eq "$rc" 2
	assert_eq "$(err)" "Error: Option '--config' requires an argument."
	: >"$T/cfg.yaml"
	ir old --config "$T/cfg.yaml" --controller-url http://x:1 job list
	assert_eq "$rc" 2
	assert_eq "$(err)" "$(click_usage iris '[OPTIONS] COMMAND [ARGS]...' "Cannot specify both --controller-url and --config")"
	ir new --bogus job list
	assert_eq "$(err)" "$(click_usage iris '[OPTIONS] COMMAND [ARGS]...' "No such option: --bogus Did you mean --verbose?")"
	ir mid job list --json
	assert_eq "$rc" 2
	assert_eq "$(err)" "$(click_usage 'iris job list' '[OPTIONS]' "No such option: --json")"
	ir new job list --limit 0
	assert_eq "$rc" 2
	assert_eq "$(err)" "$(click_usage 'iris job list' '[OPTIONS]' "Invalid value for '--limit': 0 is not in the range x>=1.")"
	ir new job list --limit x
	assert_eq "$(err)" "$(click_usage 'iris job list' '[OPTIONS]' "Invalid value for '--limit': 'x' is not a valid integer range.")"
	ir new job list --prefix
	assert_eq "$rc" 2
	assert_eq "$(err)" "Error: Option '--prefix' requires an argument."
	ir new job list --pre x
	assert_eq "$(err)" "$(click_usage 'iris job list' '[OPTIONS]' "No such option: --pre Did you mean --prefix?")"
	ir new job logs --tial /wk/a
	assert_eq "$(err)" "$(click_usage 'iris job logs' '[OPTIONS] JOB_ID' "No such option: --tial (Possible options: --no-tail, --tail)")"
	ir old job list --state bogus
	assert_eq "$(err)" "$(click_usage 'iris job list' '[OPTIONS]' "Unknown state 'bogus'. Valid states: building, failed, killed, pending, running, succeeded, unschedulable, worker_failed")"
	ir new job list --state bogus
	assert_eq "$(err)" "$(click_usage 'iris job list' '[OPTIONS]' "Unknown state 'bogus'. Valid states: pending, building, running, succeeded, failed, killed, worker_failed, unschedulable")"
	ir new job list extra
	assert_eq "$(err)" "$(click_usage 'iris job list' '[OPTIONS]' "Got unexpected extra argument (extra)")"
	ir new job logs
	assert_eq "$(err)" "$(click_usage 'iris job logs' '[OPTIONS] JOB_ID' "Missing argument 'JOB_ID'.")"
	ir new job logs --level loud /wk/a
	assert_eq "$(err)" "$(click_usage 'iris job logs' '[OPTIONS] JOB_ID' "Invalid value for '--level': 'loud' is not one of 'debug', 'info', 'warning', 'error', 'critical'.")"
	ir new job logs --max-lines abc /wk/a
	assert_eq "$(err)" "$(click_usage 'iris job logs' '[OPTIONS] JOB_ID' "Invalid value for '--max-lines': 'abc' is not a valid integer.")"
	ir old job logs --since-ms 1 --since-seconds 2 /wk/a
	assert_eq "$(err)" "$(click_usage 'iris job logs' '[OPTIONS] JOB_ID' "Specify only one of --since-ms or --since-seconds.")"
	ir new job run
	assert_eq "$rc" 2
	assert_eq "$(err)" "$(click_usage 'iris job run' '[OPTIONS] CMD...' "Missing argument 'CMD...'.")"
	ir new job run --no-wait --bogus -- true
	assert_eq "$rc" 2
	assert_eq "$(err)" "$(click_usage 'iris job run' '[OPTIONS] CMD...' "Unknown option '--bogus'. Iris options must come before '--'. Did you mean a different flag?")"
	ir new job run --no-wait -- -x
	assert_eq "$(err)" "$(click_usage 'iris job run' '[OPTIONS] CMD...' "Unknown option '-x'. Iris options must come before '--'. Did you mean a different flag?")"
	ir new job run --no-wait=1 -- true
	assert_eq "$(err)" "Error: Option '--no-wait' does not take a value."
	ir new job run -e KEY
	assert_eq "$(err)" "Error: Option '-e' requires 2 arguments."
	ir new job run --cpu lots -- true
	assert_eq "$(err)" "$(click_usage 'iris job run' '[OPTIONS] CMD...' "Invalid value for '--cpu': 'lots' is not a valid float.")"
	ir old job stop
	assert_eq "$(err)" "$(click_usage 'iris job stop' '[OPTIONS] JOB_ID...' "Missing argument 'JOB_ID...'.")"
	ir mid job stop
	assert_eq "$(err)" "$(click_usage 'iris job stop' '[OPTIONS] [JOB_ID]...' "No jobs given. Pass job ids, or --stdin (or '-') to read them from stdin.")"
	ir new job cancel
	assert_eq "$rc" 2
	assert_eq "$(err)" "$(click_usage 'iris job cancel' '[OPTIONS] [JOB_IDS]...' "No Jobs given. Pass IDs or use --stdin.")"
	assert_eq "$(ls "$T/cluster/jobs")" "" "no usage error submitted anything"
}

# job run: stdout exactly the id, stderr rigging's log lines in run_iris_job's order.
test_run_output() {
	isetup
	local g
	for g in old mid new; do
		ir $g job run --no-wait --job-name "r-$g" -- sh -c 'python train.py --steps 10'
		assert_eq "$rc" 0
		assert_eq "$(out)" "/wk/r-$g"
		assert_grep '^I[0-9]{8} [0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]+ iris\.cli\.job Submitting job: r-'"$g"'$' "$T/err"
		assert_eq "$(msgs)" "Executor heuristic: auto-tagging job as non-preemptible
Submitting job: r-$g
Command: sh -c python train.py --steps 10
Resources: cpu=0.1, memory=1GB, disk=5GB
Using controller: http://127.0.0.1:10000
Job submitted: /wk/r-$g"
	done
	local d
	d=$(dir_of /wk/r-new)
	assert_eq "$(<"$d/argc")" 3
	assert_eq "$(<"$d/arg.1")" "sh"
	assert_eq "$(<"$d/arg.2")" "-c"
	assert_eq "$(<"$d/arg.3")" "python train.py --steps 10"
	assert_eq "$(<"$d/state")" pending
	assert_eq "$(<"$T/cluster/seq")" 3
	# The options before --, one word a line, verbatim; the tunnel with --config.
	: >"$T/cfg.yaml"
	ir new --config "$T/cfg.yaml" job run --no-wait --tpu=v5p-8 --enable-extra-resources --memory 64GB \
	    --region us-central1 --region us-east5 --priority BATCH --preemptible --target-cluster peer \
	    --job-name big -- python train.py
	assert_eq "$rc" 0 "$(err)"
	assert_eq "$(out)" /wk/big
	assert_eq "$(<"$(dir_of /wk/big)/opts")" "--no-wait
--tpu=v5p-8
--enable-extra-resources
--memory
64GB
--region
us-central1
--region
us-east5
--priority
BATCH
--preemptible
--target-cluster
peer
--job-name
big"
	assert_eq "$(msgs)" "Establishing tunnel to controller...
Submitting job: big
Command: python train.py
Resources: cpu=0.1, memory=64GB, disk=5GB
TPU: v5p-8
Region constraint: us-central1, us-east5
Preemptible constraint: True
Federating to peer cluster: peer
Using controller: http://127.0.0.1:10000
Priority band: batch
Job submitted: /wk/big"
	# A multinode TPU and a GPU gang; --controller-url is the controller.
	ir new --controller-url http://ctl:10000 job run --no-wait --tpu v5p-16 --enable-extra-resources --job-name mn -- x
	assert_eq "$(msgs)" "Multinode TPU 'v5p-16' detected (vm_count=2). Auto-setting replicas=2 and coscheduling by tpu-name.
Submitting job: mn
Command: x
Resources: cpu=0.1, memory=1GB, disk=5GB
TPU: v5p-16
Replicas: 2
Coscheduling: group_by=tpu-name
Using controller: http://ctl:10000
Job submitted: /wk/mn"
	ir old job run --no-wait --gpu H100x8 --replicas 2 --enable-extra-resources --job-name gg -- x
	assert_eq "$(msgs | sed -n 4,6p)" "GPU: 8x H100
Replicas: 2
Coscheduling: group_by=leafgroup"
	# validate_extra_resources
	ir new job run --no-wait --tpu v5p-8 -- x
	assert_eq "$rc" 2
	assert_eq "$(err)" "$(click_usage 'iris job run' '[OPTIONS] CMD...' "--tpu requires --enable-extra-resources.
The top-level entrypoint (coordinator) job only needs CPU to schedule and dispatch work; accelerators are attached to worker tasks spawned by the job. If you truly need an accelerator on this entrypoint, pass --enable-extra-resources.")"
	ir new job run --no-wait --memory 64GB -- x
	assert_eq "$rc" 2
	assert_grep '^Error: --memory 64GB \(>= 4 GB\) requires --enable-extra-resources\.$' "$T/err"
	# Options a generation lacks land in CMD and are refused.
	ir old job run --no-wait --target-cluster peer -- x
	assert_eq "$rc" 2
	assert_grep "^Error: Unknown option '--target-cluster'\. " "$T/err"
	ir new job run --no-wait --processes-per-task 2 -- x
	assert_grep "^Error: Unknown option '--processes-per-task'\. " "$T/err"
	ir new job run --no-wait --terminate-on-exit -- x
	assert_grep "^Error: Unknown option '--terminate-on-exit'\. " "$T/err"
	ir old job run --no-wait --processes-per-task 2 --no-terminate-on-exit --job-name p -- x
	assert_eq "$rc" 0
	ir mid job run --no-wait --exclude '^docs/' --job-name q -- x
	assert_eq "$rc" 0
	# The generated name: iris-run-<the first *.py's stem>-<UTC time>.
	ir new job run --no-wait -- python scripts/train.py
	[[ $(out) =~ ^/wk/iris-run-train-[0-9]{8}-[0-9]{6}$ ]] || fail "generated name: $(out)"
	ir new job run --no-wait -- sh -c true
	[[ $(out) =~ ^/wk/iris-run-job-[0-9]{8}-[0-9]{6}$ ]] || fail "generated name: $(out)"
	# Without --no-wait the fake refuses (it cannot stream) and submits nothing.
	local n
	n=$(<"$T/cluster/seq")
	ir new job run --job-name w -- x
	assert_eq "$rc" 2
	assert_grep 'fake-iris only submits with --no-wait' "$T/err"
	assert_eq "$(<"$T/cluster/seq")" "$n"
}

# resolve_job_user: --user, $IRIS_USER (mid, new), getpass's LOGNAME/USER/...
test_run_user() {
	isetup
	ir new job run --no-wait --user bob --job-name a -- x
	assert_eq "$(out)" /bob/a
	IRIS_USER=carol ir new job run --no-wait --job-name a -- x
	assert_eq "$(out)" /carol/a
	IRIS_USER=carol ir mid job run --no-wait --job-name b -- x
	assert_eq "$(out)" /carol/b
	IRIS_USER=carol ir old job run --no-wait --job-name a -- x
	assert_eq "$(out)" /wk/a "old has no IRIS_USER"
	LOGNAME='' USER=erin ir new job run --no-wait --job-name a -- x
	assert_eq "$(out)" /erin/a
	IRIS_USER=' ' ir new job run --no-wait --job-name c -- x
	assert_eq "$rc" 1
	assert_eq "$(tail -n 1 "$T/err")" "ValueError: IRIS_USER must not be empty"
	ir new job run --no-wait --user a/b --job-name c -- x
	assert_eq "$(tail -n 1 "$T/err")" "ValueError: Job user must not contain '/': 'a/b'"
	ir old job run --no-wait --user a/b --job-name c -- x
	assert_eq "$(tail -n 1 "$T/err")" "ValueError: JobName component cannot contain '/': a/b"
	ir new job run --no-wait --job-name a/b -- x
	assert_eq "$rc" 1
	assert_eq "$(tail -n 1 "$T/err")" "ValueError: Job name cannot contain '/'"
}

# A fixed name: a live job's is refused (JobAlreadyExists), a finished one is replaced.
test_run_duplicate() {
	isetup
	local g
	for g in old mid new; do
		ir $g job run --no-wait --job-name "d$g" -- x
		iris _set "/wk/d$g" JOB_STATE_RUNNING
		ir $g job run --no-wait --job-name "d$g" -- y
		assert_eq "$rc" 1
		assert_eq "$(out)" ""
		head -n 1 "$T/err" >"$T/first"
		assert_grep '^I[0-9]{8} [0-9:]{8} [0-9]+ iris\.cli\.job ' "$T/first"	# the log lines come first
		assert_grep '^Traceback \(most recent call last\):$' "$T/err"
		assert_eq "$(tail -n 1 "$T/err")" "iris.client.client.JobAlreadyExists: Job /wk/d$g already exists and is still running"
		iris _set "/wk/d$g" failed
		ir $g job run --no-wait --job-name "d$g" -- y
		assert_eq "$rc" 0
		assert_eq "$(out)" "/wk/d$g"
		assert_eq "$(iris _jobs | grep -c "^/wk/d$g ")" 1 "replaced, not added"
		assert_eq "$(iris _jobs | grep "^/wk/d$g ")" "/wk/d$g pending"
		assert_eq "$(<"$(dir_of "/wk/d$g")/arg.1")" y
	done
	assert_eq "$(<"$T/cluster/seq")" 6 "every submit counted"
}

# job list: the table, newest first; --limit 50 and its notice; --prefix a string prefix.
test_list_table() {
	isetup
	local i
	for i in $(seq 1 60); do iris _add "/wk/job-$i" running; done
	for i in $(seq 1 60); do at "/wk/job-$i" $((1787424000000 + i * 1000)); done
	at /wk/job-60 1787424060123
	ir new job list
	assert_eq "$rc" 0
	assert_eq "$(wc -l <"$T/out")" 51 "a header and 50 rows"
	assert_eq "$(sed -n 1,3p "$T/out")" "JOB ID      STATE    SUBMITTED
/wk/job-60  running  2026-08-22T18:41:00.123000+00:00
/wk/job-59  running  2026-08-22T18:40:59+00:00"
	assert_eq "$(tail -n 1 "$T/out")" "/wk/job-11  running  2026-08-22T18:40:11+00:00"
	assert_eq "$(err)" "
Showing the 50 most recent jobs. Raise --limit or narrow with --state/--prefix to see more."
	ir mid job list --limit 60
	assert_eq "$(wc -l <"$T/out")" 61
	assert_eq "$(err)" "
Showing the 60 most recent jobs. Raise --limit or narrow with --state/--prefix to see more."
	ir new job list --limit 61
	assert_eq "$(wc -l <"$T/out")" 61
	assert_eq "$(err)" "" "fewer than the limit: no notice"
	ir old job list
	assert_eq "$(wc -l <"$T/out")" 61 "old has no limit"
	assert_eq "$(err)" ""
	# --prefix: an anchored string prefix (ASCII-case-insensitive, as SQLite's LIKE).
	ir new job list --prefix /wk/job-1
	assert_eq "$(cut -d' ' -f1 "$T/out" | tr '\n' ' ')" "JOB /wk/job-19 /wk/job-18 /wk/job-17 /wk/job-16 /wk/job-15 /wk/job-14 /wk/job-13 /wk/job-12 /wk/job-11 /wk/job-10 /wk/job-1 "
	ir new job list --prefix /WK/JOB-6
	assert_eq "$(out)" "JOB ID      STATE    SUBMITTED
/wk/job-60  running  2026-08-22T18:41:00.123000+00:00
/wk/job-6   running  2026-08-22T18:40:06+00:00"
	iris _add /wk/job-6/child succeeded
	at /wk/job-6/child 1787424100000
	ir new job list --prefix /wk/job-6
	assert_eq "$(sed -n 2p "$T/out" | cut -d' ' -f1)" /wk/job-6/child
	ir new job list --prefix /wk/nothing
	assert_eq "$(out)" "No jobs found."
	assert_eq "$(err)" ""
	ir new job list --state succeeded
	assert_eq "$(out)" "JOB ID           STATE      SUBMITTED
/wk/job-6/child  succeeded  2026-08-22T18:41:40+00:00"
}

# The REASON column: error, else pending_reason, cut to 60 + "..." past 63.
test_list_reason() {
	isetup
	iris _add /wk/a pending
	iris _add /wk/bb running
	iris _set /wk/bb JOB_STATE_FAILED
	iris _add /wk/c running
	iris _add /wk/d running
	iris _set /wk/d killed "$(printf 'x%.0s' $(seq 1 70))"
	at /wk/a 1787424893000
	at /wk/bb 1787424894000
	at /wk/c 1787424895000
	at /wk/d 1787424896000
	ir mid job list
	assert_eq "$(out)" "JOB ID    STATE    SUBMITTED                  REASON
/wk/d     killed   2026-08-22T18:54:56+00:00  xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...
/wk/c     running  2026-08-22T18:54:55+00:00
/wk/bb    failed   2026-08-22T18:54:54+00:00  Exit code: 1
/wk/a     pending  2026-08-22T18:54:53+00:00  Pending scheduler feedback"
	ir new job cancel /wk/c
	ir new job list --prefix /wk/c
	assert_eq "$(out)" "JOB ID    STATE    SUBMITTED                  REASON
/wk/c     killed   2026-08-22T18:54:55+00:00  Terminated by user"
	ir new job list --prefix /wk/nope
	assert_eq "$(out)" "No jobs found."
}

# old --json: json.dumps(MessageToDict(...), indent=2) of what ListJobs sets.
test_list_json_old() {
	isetup
	ir old job list --json
	assert_eq "$(out)" "[]"
	iris _add /wk/run pending
	iris _set /wk/run running
	iris _add /wk/run/kid pending
	iris _add /wk/bad running
	iris _set /wk/bad failed
	local d
	d=$(dir_of /wk/run)
	echo 1787424893123 >"$d/created"
	echo 1787424900000 >"$d/started"
	d=$(dir_of /wk/bad)
	echo 1787424800000 >"$d/created"
	echo 1787424801000 >"$d/started"
	echo 1787424802000 >"$d/finished"
	echo 1787424950000 >"$(dir_of /wk/run/kid)/created"
	ir old job list --json
	assert_eq "$rc" 0
	assert_eq "$(out)" '[
  {
    "job_id": "/wk/run/kid",
    "state": "JOB_STATE_PENDING",
    "exit_code": 0,
    "error": "",
    "failure_count": 0,
    "preemption_count": 0,
    "name": "/wk/run/kid",
    "submitted_at": {
      "epoch_ms": "1787424950000"
    },
    "task_state_counts": {
      "pending": 1
    },
    "task_count": 1,
    "completed_count": 0,
    "pending_reason": "Pending scheduler feedback",
    "has_children": false,
    "backend_id": ""
  },
  {
    "job_id": "/wk/run",
    "state": "JOB_STATE_RUNNING",
    "exit_code": 0,
    "error": "",
    "started_at": {
      "epoch_ms": "1787424900000"
    },
    "failure_count": 0,
    "preemption_count": 0,
    "name": "/wk/run",
    "submitted_at": {
      "epoch_ms": "1787424893123"
    },
    "task_state_counts": {
      "running": 1
    },
    "task_count": 1,
    "completed_count": 0,
    "pending_reason": "",
    "has_children": true,
    "backend_id": ""
  },
  {
    "job_id": "/wk/bad",
    "state": "JOB_STATE_FAILED",
    "exit_code": 1,
    "error": "Exit code: 1",
    "started_at": {
      "epoch_ms": "1787424801000"
    },
    "finished_at": {
      "epoch_ms": "1787424802000"
    },
    "failure_count": 1,
    "preemption_count": 0,
    "name": "/wk/bad",
    "submitted_at": {
      "epoch_ms": "1787424800000"
    },
    "task_state_counts": {
      "failed": 1
    },
    "task_count": 1,
    "completed_count": 0,
    "pending_reason": "Exit code: 1",
    "has_children": false,
    "backend_id": ""
  }
]'
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/out" || fail "not JSON"
	# --prefix narrows it; the profile's awk reads the 4-space "job_id"/"state".
	ir old job list --json --prefix /wk/run
	assert_eq "$(grep -c '^    "job_id": ' "$T/out")" 2
	iris _set /wk/bad JOB_STATE_WEIRD
	ir old job list --json --prefix /wk/bad
	assert_grep '^    "state": "JOB_STATE_WEIRD",$' "$T/out"
	ir new job list --json
	assert_eq "$rc" 2
}

# job summary (old, mid) / describe (new): the layout, line 2, an unknown id.
test_describe_summary() {
	isetup
	iris _add /wk/x pending
	iris _set /wk/x running
	iris _set /wk/x failed
	local d
	d=$(dir_of /wk/x)
	echo 1787424800000 >"$d/started"
	echo 1787424863500 >"$d/finished"
	ir old job summary /wk/x
	assert_eq "$rc" 0
	assert_eq "$(out)" "Job: /wk/x (/wk/x)
State: failed  exit=1  failures=1  preemptions=0
Tasks: 0/1 completed  failed=1
Error: Exit code: 1

  TASK  STATE      EXIT  DURATION                  PEAK MEM    CUR MEM    ERROR
     0  failed        1  1 minute and 3.5 seconds  -           -          Exit code: 1"
	ir mid job summary /wk/x
	assert_eq "$(sed -n 2p "$T/out")" "State: failed  exit=1  failures=1  preemptions=0"
	assert_eq "$(sed -n 6p "$T/out")" "  TASK  STATE      EXIT  DURATION                  PEAK MEM    CUR MEM    DIAGNOSTIC"
	ir new job describe /wk/x
	assert_eq "$(sed -n 1,2p "$T/out")" "Job: /wk/x (/wk/x)
State: failed  exit=1  failures=1  preemptions=0"
	iris _add /wk/p JOB_STATE_PENDING
	ir new job describe /wk/p
	assert_eq "$(out)" "Job: /wk/p (/wk/p)
State: pending  exit=0  failures=0  preemptions=0
Tasks: 0/1 completed  pending=1

  TASK  STATE    EXIT    DURATION    PEAK MEM    CUR MEM    DIAGNOSTIC
     0  pending  -       -           -           -"
	iris _set /wk/p succeeded
	ir new job describe /wk/p
	assert_eq "$(sed -n 2,3p "$T/out")" "State: succeeded  exit=0  failures=0  preemptions=0
Tasks: 1/1 completed  succeeded=1"
	iris _set /wk/p weird
	ir mid job summary /wk/p
	assert_eq "$(sed -n 2p "$T/out")" "State: weird  exit=0  failures=0  preemptions=0"
	ir old job summary --json /wk/x
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["state"] == "failed" and d["tasks"][0]["duration_ms"] == 63500, d' "$T/out" ||
		fail "summary --json: $(out)"
	local g c
	for g in old mid new; do
		c=$([ $g = new ] && echo describe || echo summary)
		ir $g job $c /wk/nope
		assert_eq "$rc" 1
		assert_eq "$(head -n 1 "$T/err")" "Traceback (most recent call last):"
		assert_eq "$(tail -n 1 "$T/err")" "connectrpc.errors.ConnectError: Job /wk/nope not found"
		ir $g job $c nope
		assert_eq "$rc" 1
		assert_eq "$(tail -n 1 "$T/err")" "ValueError: Job name must use canonical '/<user>/<job>[...]' format: nope"
	done
	# wait: the terminal state, exit 0 only for succeeded.
	ir new job wait /wk/x
	assert_eq "$rc:$(out)" "1:failed"
	iris _set /wk/x succeeded
	ir mid job wait /wk/x
	assert_eq "$rc:$(out)" "0:succeeded"
	ir new job wait /wk/nope
	assert_eq "$rc:$(err)" "1:Error: Job /wk/nope not found"
}

# cancel (new) and stop (old, mid): what each matches, prints and exits with.
test_cancel_stop() {
	isetup
	local r
	reset() {
		rm -rf "$T/cluster"
		iris _add /wk/a running
		iris _add /wk/ab running
		iris _add /wk/a/child running
		iris _add /wk/done succeeded
	}
	reset
	ir new job cancel /wk/a
	assert_eq "$rc:$(out)" "0:Cancelled jobs:
  /wk/a"
	assert_eq "$(iris _jobs)" "/wk/a killed
/wk/ab running
/wk/a/child killed
/wk/done succeeded"
	ir new job cancel /wk/done
	assert_eq "$rc:$(out)" "0:Cancelled jobs:
  /wk/done"
	assert_eq "$(iris _jobs | tail -n 1)" "/wk/done succeeded" "a terminal job stays as it is"
	ir new job cancel /wk/x
	assert_eq "$rc:$(out)" "1:"
	assert_eq "$(err)" "Error: No job named '/wk/x'."
	ir new job cancel /wk/a2
	assert_eq "$(err)" "Error: No job named '/wk/a2'."
	ir new job cancel /wk
	assert_eq "$rc" 1
	assert_eq "$(tail -n 1 "$T/err")" "ValueError: Job name must use canonical '/<user>/<job>[...]' format: /wk"
	ir new job stop /wk/ab
	assert_eq "$rc" 2
	assert_eq "$(err)" "$(click_usage 'iris job' '[OPTIONS] COMMAND [ARGS]...' "No such command 'stop'.")"
	ir new job cancel --prefix /wk/a
	assert_eq "$rc:$(out)" "0:Cancelled jobs:
  /wk/ab"
	ir new job cancel --prefix /wk/zz
	assert_eq "$(out)" "No running jobs matched."
	# mid: stop is exact by default; an unknown id suggests the id's prefix matches.
	reset
	ir mid job stop /wk/a
	assert_eq "$rc:$(out)" "0:Terminated jobs:
  /wk/a"
	assert_eq "$(iris _jobs | sed -n 2p)" "/wk/ab running"
	ir mid job stop /wk/nope
	assert_eq "$rc:$(err)" "1:Error: No job named '/wk/nope'."
	iris _add /wk/nope2 running
	ir mid job kill /wk/nope
	assert_eq "$rc:$(err)" "1:Error: No job named '/wk/nope'. Did you mean: /wk/nope2?"
	ir mid job stop --dry-run --prefix /wk/a
	assert_eq "$(out)" "[dry-run] would terminate 1 job(s):
  /wk/ab"
	printf '/wk/ab,x\njob_id\n' | ir mid job stop --stdin
	assert_eq "$(out)" "Terminated jobs:
  /wk/ab"
	# old: a string prefix, children included, exit 0 whatever matched.
	reset
	ir old job stop /wk/a
	assert_eq "$rc:$(out)" "0:Terminated jobs:
  /wk/a/child
  /wk/ab
  /wk/a"
	assert_eq "$(iris _jobs | cut -d' ' -f2 | tr '\n' ' ')" "killed killed killed succeeded "
	ir old job stop /wk/a
	assert_eq "$rc:$(out)" "0:No running jobs matched."
	ir old job stop /wk/nope
	assert_eq "$rc:$(out)" "0:No running jobs matched."
	ir old job kill /wk/done
	assert_eq "$rc:$(out)" "0:No running jobs matched."
	reset
	ir old job stop --no-include-children /wk/a
	assert_eq "$(out)" "Terminated jobs:
  /wk/a"
	assert_eq "$(iris _jobs | sed -n 2,3p)" "/wk/ab running
/wk/a/child killed"
	ir old job stop --no-include-children /wk/nope
	assert_eq "$rc" 1
	assert_eq "$(tail -n 1 "$T/err")" "connectrpc.errors.ConnectError: Job /wk/nope not found"
	# complete (new): the job and its live descendants succeed.
	reset
	ir new job complete /wk/a
	assert_eq "$rc:$(out)" "0:Completed job: /wk/a"
	assert_eq "$(iris _jobs | cut -d' ' -f2 | tr '\n' ' ')" "succeeded running succeeded succeeded "
}

# job logs: the line format per generation, children included, no existence check.
test_logs_format() {
	isetup
	iris _add /wk/j running
	iris _log /wk/j "hello world"
	iris _add /wk/j/kid running
	iris _log /wk/j/kid "from the child"
	local ms1 ms2 t1 t2
	read -r ms1 _ <"$(dir_of /wk/j)/log"
	read -r ms2 _ <"$(dir_of /wk/j/kid)/log"
	t1=$(date -u -d "@$((ms1 / 1000))" +%H:%M:%S)
	t2=$(date -u -d "@$((ms2 / 1000))" +%H:%M:%S)
	ir old job logs /wk/j
	assert_eq "$rc:$(out)" "0:[$t1] task=/wk/j/0 | hello world
[$t2] task=/wk/j/kid/0 | from the child"
	ir mid job logs --tail --max-lines 2000 /wk/j
	assert_eq "$(out)" "[$t1] task=/wk/j/0 | hello world
[$t2] task=/wk/j/kid/0 | from the child"
	ir new job logs /wk/j
	assert_eq "$(out)" "[$t1] task=/wk/j/0 attempt=0 | hello world
[$t2] task=/wk/j/kid/0 attempt=0 | from the child"
	ir new job logs /wk/j/kid
	assert_eq "$(out)" "[$t2] task=/wk/j/kid/0 attempt=0 | from the child"
	ir new job logs /wk/nope
	assert_eq "$rc:$(out):$(err)" "0::"
	ir old job logs wk-j
	assert_eq "$rc" 1
	assert_eq "$(tail -n 1 "$T/err")" "ValueError: Job name must use canonical '/<user>/<job>[...]' format: wk-j"
	ir new job logs -f /wk/j
	assert_eq "$rc" 2
	assert_grep 'fake-iris' "$T/err"
	# The entry's own UTC time, a line an entry; --level and --substring.
	printf '%s\n' '1787424893000 one' '1787424894999 two' '1787424895000 W20260822 18:54:55 1 x warned' \
	    '1787424896000 E20260822 18:54:56 1 x failed' >"$(dir_of /wk/j)/log"
	: >"$(dir_of /wk/j/kid)/log"
	ir new job logs --level warning /wk/j
	assert_eq "$(out)" "[18:54:55] task=/wk/j/0 attempt=0 | W20260822 18:54:55 1 x warned
[18:54:56] task=/wk/j/0 attempt=0 | E20260822 18:54:56 1 x failed"
	ir new job logs --substring tw /wk/j
	assert_eq "$(out)" "[18:54:54] task=/wk/j/0 attempt=0 | two"
	ir mid job logs --substring tw /wk/j
	assert_eq "$rc" 2
	# A TEXT of two lines is one entry: click.echo prints its second line bare.
	iris _log /wk/j "$(printf 'a\nb')"
	ir new job logs --max-lines 2 /wk/j
	assert_eq "$(cut -d'|' -f2 "$T/out")" " E20260822 18:54:56 1 x failed
 a
b"
}

# --since-ms keeps entries strictly after it; --since-seconds counts back from now.
test_logs_since() {
	isetup
	iris _add /wk/j running
	# (2020-09-13T12:26:40Z on: long before --since-seconds' now)
	printf '%s\n' '1600000000000 a' '1600000001000 b' '1600000001001 c' '1600000002000 d' >"$(dir_of /wk/j)/log"
	local g
	for g in old mid new; do
		ir $g job logs --since-ms 1600000001000 /wk/j
		assert_eq "$(cut -d'|' -f2 "$T/out" | tr -d ' \n')" cd "--since-ms at $g"
	done
	ir new job logs --since-ms 0 /wk/j
	assert_eq "$(wc -l <"$T/out")" 4
	ir new job logs --since-ms -5 /wk/j
	assert_eq "$(wc -l <"$T/out")" 4
	ir new job logs --since-ms 1600000001000 --no-tail --max-lines 1 /wk/j
	assert_eq "$(out)" "[12:26:41] task=/wk/j/0 attempt=0 | c"
	ir new job logs --since-ms 1600000000000 --tail --max-lines 2 /wk/j
	assert_eq "$(cut -d'|' -f2 "$T/out" | tr -d ' \n')" cd
	iris _log /wk/j recent
	ir new job logs --since-seconds 600 /wk/j
	assert_eq "$(cut -d'|' -f2 "$T/out")" " recent"
	ir new job logs --since-ms 1 --since-seconds 1 /wk/j
	assert_eq "$rc" 2
}

# --tail/--no-tail and --max-lines over 100,000 entries added with _logfile.
test_logs_window_100k() {
	isetup
	iris _add /wk/big running
	seq 1 100000 | sed 's/^/line /' >"$T/big.txt"
	iris _logfile /wk/big "$T/big.txt"
	assert_eq "$(wc -l <"$(dir_of /wk/big)/log")" 100000
	ir mid job logs --tail --max-lines 2000 /wk/big
	assert_eq "$(wc -l <"$T/out")" 2000
	assert_eq "$(head -n 1 "$T/out" | cut -d'|' -f2)" " line 98001"
	assert_eq "$(tail -n 1 "$T/out" | cut -d'|' -f2)" " line 100000"
	ir new job logs --no-tail --max-lines 3 /wk/big
	assert_eq "$(cut -d'|' -f2 "$T/out" | tr -d '\n')" " line 1 line 2 line 3"
	ir new job logs /wk/big
	assert_eq "$(wc -l <"$T/out")" 1000 "the server default"
	assert_eq "$(head -n 1 "$T/out" | cut -d'|' -f2)" " line 99001"
	ir old job logs --max-lines 0 --no-tail /wk/big
	assert_eq "$(wc -l <"$T/out")" 1000
	ir new job logs --max-lines -3 /wk/big
	assert_eq "$(wc -l <"$T/out")" 1000
	ir new job logs --substring 'line 9999' --max-lines 3 /wk/big
	assert_eq "$(cut -d'|' -f2 "$T/out" | tr -d '\n')" " line 99997 line 99998 line 99999"
	ir new job logs --substring 'line 9999' --max-lines 2 --no-tail /wk/big
	assert_eq "$(cut -d'|' -f2 "$T/out" | tr -d '\n')" " line 9999 line 99990"
}

# The hooks: both state spellings in, the lowercase word out; submit_state; seq; faults.
test_hooks() {
	isetup
	iris _add /wk/a JOB_STATE_RUNNING
	iris _add /wk/b killed
	iris _add /wk/c JOB_STATE_WEIRD
	iris _set /wk/a JOB_STATE_WORKER_FAILED
	assert_eq "$(iris _jobs)" "/wk/a worker_failed
/wk/b killed
/wk/c weird"
	iris _set /wk/c weird
	assert_eq "$(iris _jobs | tail -n 1)" "/wk/c weird"
	iris _set /wk/c JOB_STATE_UNSPECIFIED
	ir old job list --json --prefix /wk/c
	assert_grep '"state": "JOB_STATE_UNSPECIFIED"' "$T/out"
	assert_eq "$(<"$T/cluster/seq")" 3
	echo JOB_STATE_RUNNING >"$T/cluster/submit_state"
	ir new job run --no-wait --job-name s -- x
	assert_eq "$(iris _jobs | tail -n 1)" "/wk/s running"
	echo building >"$T/cluster/submit_state"
	ir new job run --no-wait --job-name s2 -- x
	assert_eq "$(iris _jobs | tail -n 1)" "/wk/s2 building"
	rc=0
	iris _set /wk/nope running 2>/dev/null || rc=$?
	assert_eq "$rc" 1
	# fail: the controller unreachable, exit 1, for every command.
	iris _fault fail
	ir new job list
	assert_eq "$rc" 1
	assert_grep 'ConnectionError' "$T/err"
	ir new job run --no-wait --job-name f -- x
	assert_eq "$rc:$(out)" "1:"
	ir old job stop /wk/a
	assert_eq "$rc" 1
	ir new job list --help
	assert_eq "$rc" 0 "help needs no controller"
	iris _fault none
	ir new job list
	assert_eq "$rc" 0
	# hang: the CLI and its sleeper hang, their pids in hang.pids.
	iris _fault hang
	iris job list >/dev/null 2>&1 &
	local p=$! pids
	echo "$p" >>"$T/.pids"
	wait_for 10 test -s "$T/cluster/hang.pids"
	read -r -a pids <"$T/cluster/hang.pids"
	echo "${pids[1]}" >>"$T/.pids"
	assert_eq "${#pids[@]}" 2
	assert_eq "${pids[0]}" "$p"
	live "$p"
	kill "${pids[1]}" "$p" 2>/dev/null
	wait "$p" 2>/dev/null || true
	iris _fault none
}

# job list among 80 jobs of seven users: --prefix narrows to the one asked for.
test_list_many_jobs() {
	isetup
	local i
	for i in $(seq 1 80); do iris _add "/u$((i % 7))/job-$i" running; done
	ir new job list --prefix /u3/job-45
	assert_eq "$(wc -l <"$T/out" | tr -d ' ')" 2 "the header and the one job"
	assert_eq "$(sed -n 2p "$T/out" | cut -d' ' -f1)" /u3/job-45
	ir old job list --json --prefix /u3/job-4
	assert_eq "$(grep -c '^    "job_id"' "$T/out")" 1 "a string prefix: of u3's jobs only job-45 starts with job-4"
}

t help_probes test_help_probes
t usage_errors test_usage_errors
t run_output test_run_output
t run_user test_run_user
t run_duplicate test_run_duplicate
t list_table test_list_table
t list_reason test_list_reason
t list_json_old test_list_json_old
t describe_summary test_describe_summary
t cancel_stop test_cancel_stop
t logs_format test_logs_format
t logs_since test_logs_since
t logs_window_100k test_logs_window_100k
t hooks test_hooks
t list_many_jobs test_list_many_jobs
