#!/usr/bin/env bash
# patrol watch --job ID (patrol/watch.c): a run's config whose one stage
# adopts a cluster job that already runs, written only when it loads.  The
# configs it writes are checked with the programs' own loader (`handbook -c
# FILE -o -` loads and validates like every program, exit 78 on a config
# error) and read back as JSON with their comments stripped.  Nothing here
# talks to a cluster: adopting the job is test_job's.
#
# Also the skill's rules for agents (skills/watchkeeper/SKILL.md): the
# seeds' small-fix rule and the cluster-job keys are stated there.
. "$(dirname "$0")/lib.sh"

PATROL="$TOP/$BUILD/patrol"
HANDBOOK="$TOP/$BUILD/handbook"
SKILL="$TOP/skills/watchkeeper/SKILL.md"
RAY_ID=raysubmit_4LamXRuQpYdSMg7J
IRIS_ID=/dlwh/iris-run-train_tiny_model_tpu-20260302-185630
IRIS_RESUBMIT='uv run iris --config lib/iris/config/marin.yaml job run --no-wait --extra marin-core:tpu --tpu v5litepod-16 -- python experiments/tutorials/train_tiny_model_tpu.py'

# pwatch ARGS...: patrol watch in $T, its output in $T/out and $T/err, its exit in $rc.
pwatch() { rc=0; (cd "$T" && $ONBOX_WRAP "$PATROL" watch "$@") >"$T/out" 2>"$T/err" || rc=$?; }
# loads FILE: the programs' loader takes it (handbook renders it).
loads() { $ONBOX_WRAP "$HANDBOOK" -c "$1" -o - >"$T/hb" 2>"$T/hb.err" || fail "$1 does not load: $(<"$T/hb.err")"; }
# jsonc FILE EXPR: EXPR over d, FILE's JSON once its // comments are gone.
jsonc() { python3 -c 'import json,re,sys; d=json.loads(re.sub(r"^\s*//.*$", "", open(sys.argv[1]).read(), flags=re.M)); v=eval(sys.argv[2]); print(v if not isinstance(v,bool) else str(v).lower())' "$1" "$2"; }
# usage_err FLAG ARGS...: patrol watch ARGS exits 64 naming FLAG, and writes nothing.
usage_err() {
	local flag=$1
	shift
	pwatch "$@"
	assert_eq "$rc" 64 "patrol watch $*: $(<"$T/err")"
	assert_grep "^patrol watch: .*$flag" "$T/err"
	assert_no_file "$T/watchkeeper.json"
}

test_ray() {
	pwatch --job "$RAY_ID"
	assert_eq "$rc" 0 "$(<"$T/err")"
	assert_file "$T/watchkeeper.json"
	loads "$T/watchkeeper.json"
	assert_eq "$(jsonc "$T/watchkeeper.json" 'd["chain"][0]["adopt"]')" "$RAY_ID"
	assert_eq "$(jsonc "$T/watchkeeper.json" 'd["chain"][0]["stage"]')" train
	assert_eq "$(jsonc "$T/watchkeeper.json" 'd["profile"]')" ray
	assert_eq "$(jsonc "$T/watchkeeper.json" 'd["run"]')" "$RAY_ID"
	assert_eq "$(jsonc "$T/watchkeeper.json" 'd["workdir"]')" "$T"
	assert_eq "$(jsonc "$T/watchkeeper.json" '"box" in d or "resubmit" in d["chain"][0]')" false
	# Commented JSONC, and what it wrote plus the next command on stdout.
	assert_grep '^  // ' "$T/watchkeeper.json"
	assert_grep "wrote watchkeeper.json" "$T/out"
	assert_grep "\"adopt\": \"$RAY_ID\"" "$T/out"
	assert_grep "onbox -c watchkeeper.json start" "$T/out"
	# The seed's id, which is a name plus a date, and its own names.
	pwatch --job ray-run-held-isoflop_sweep-20260131-051716 -o seed.json --run sweep --stage sweep \
	    --resubmit 'ray job submit --no-wait -- python experiments/isoflop_sweep.py'
	assert_eq "$rc" 0 "$(<"$T/err")"
	loads "$T/seed.json"
	assert_eq "$(jsonc "$T/seed.json" 'd["run"] + " " + d["chain"][0]["stage"]')" "sweep sweep"
	assert_eq "$(jsonc "$T/seed.json" 'd["chain"][0]["resubmit"]')" \
	    'ray job submit --no-wait -- python experiments/isoflop_sweep.py'
	# An id the run-name charset does not take becomes a name it does.
	pwatch --job 'job:2026/01@a' --profile ray -o odd.json
	assert_eq "$rc" 0 "$(<"$T/err")"
	loads "$T/odd.json"
	assert_eq "$(jsonc "$T/odd.json" 'd["run"]')" job-2026-01-a
	assert_eq "$(jsonc "$T/odd.json" 'd["chain"][0]["adopt"]')" 'job:2026/01@a'
}

test_iris() {
	mkdir -p "$T/sub"
	pwatch --job "$IRIS_ID" --resubmit "$IRIS_RESUBMIT" --host gpu1 --workdir /srv/marin -o sub/iris.json
	assert_eq "$rc" 0 "$(<"$T/err")"
	loads "$T/sub/iris.json"
	assert_eq "$(jsonc "$T/sub/iris.json" 'd["profile"]')" iris
	assert_eq "$(jsonc "$T/sub/iris.json" 'd["chain"][0]["adopt"]')" "$IRIS_ID"
	assert_eq "$(jsonc "$T/sub/iris.json" 'd["chain"][0]["resubmit"]')" "$IRIS_RESUBMIT"
	assert_eq "$(jsonc "$T/sub/iris.json" 'd["box"]["host"]')" gpu1
	assert_eq "$(jsonc "$T/sub/iris.json" 'd["workdir"]')" /srv/marin
	# The run is named for the job, without its user.
	assert_eq "$(jsonc "$T/sub/iris.json" 'd["run"]')" iris-run-train_tiny_model_tpu-20260302-185630
	assert_grep "patrol -c sub/iris.json deploy" "$T/out"
	# Only the config is left in the directory: the temp file it was checked in is gone.
	assert_eq "$(ls -A "$T/sub")" iris.json
	# An Iris id needs its user: /<user>/<job>.
	usage_err '--job /iris-run' --job /iris-run
	usage_err '--job x' --job x --profile iris
}

test_slurm_job() {
	# A Slurm job id (digits, an array task _N): watched from the login node.
	pwatch --job 4242 --resubmit "sbatch --parsable -J sweep train.sbatch"
	assert_eq "$rc" 0 "$(<"$T/err")"
	loads "$T/watchkeeper.json"
	assert_eq "$(jsonc "$T/watchkeeper.json" 'd["profile"]')" slurm-job
	assert_eq "$(jsonc "$T/watchkeeper.json" 'd["chain"][0]["adopt"]')" 4242
	rm -f "$T/watchkeeper.json"
	pwatch --job 4242_7
	assert_eq "$rc" 0 "$(<"$T/err")"
	assert_eq "$(jsonc "$T/watchkeeper.json" 'd["profile"]')" slurm-job
	# The other Slurm profile runs onbox inside the job: not for a job already running.
	rm -f "$T/watchkeeper.json"
	usage_err '--profile slurm' --job abc --profile slurm
	assert_grep 'slurm-job' "$T/err"
	# Digits are a Ray id when the profile says so.
	pwatch --job 4242 --profile ray
	assert_eq "$rc" 0 "$(<"$T/err")"
	loads "$T/watchkeeper.json"
	assert_eq "$(jsonc "$T/watchkeeper.json" 'd["chain"][0]["adopt"]')" 4242
}

test_resubmit_needs_nowait() {
	usage_err '--resubmit' --job "$RAY_ID" --resubmit 'ray job submit -- python train.py'
	assert_grep 'must pass --no-wait' "$T/err"
	usage_err '--resubmit' --job "$IRIS_ID" --resubmit 'iris job run -- python train.py'
	assert_grep 'iris job run --no-wait' "$T/err"
	# A word, not a part of one.
	usage_err '--resubmit' --job "$RAY_ID" --resubmit 'ray job submit --no-waiting -- x'
}

test_existing_file() {
	echo '{ "theirs": 1 }' >"$T/watchkeeper.json"
	pwatch --job "$RAY_ID"
	assert_eq "$rc" 1 "$(<"$T/err")"
	assert_grep 'exists; not overwriting it \(--force replaces it\)' "$T/err"
	assert_eq "$(<"$T/watchkeeper.json")" '{ "theirs": 1 }'
	pwatch --job "$RAY_ID" --force
	assert_eq "$rc" 0 "$(<"$T/err")"
	loads "$T/watchkeeper.json"
	assert_eq "$(jsonc "$T/watchkeeper.json" 'd["chain"][0]["adopt"]')" "$RAY_ID"
}

# A config that does not load is not left behind, and --force does not lose
# the file it would have replaced: a profile without job.submit here.
test_invalid_not_written() {
	mkdir -p "$T/prof"
	echo '{ "detach": "job" }' >"$T/prof/ray.json"
	rc=0
	(cd "$T" && WATCHKEEPER_PROFILES="$T/prof" "$PATROL" watch --job "$RAY_ID") >"$T/out" 2>"$T/err" || rc=$?
	assert_eq "$rc" 78 "$(<"$T/err")"
	assert_grep 'needs "job.submit"' "$T/err"
	assert_grep 'does not validate; nothing written' "$T/err"
	assert_no_file "$T/watchkeeper.json"
	! compgen -G "$T/.watch-*" >/dev/null || fail "temp file left: $(ls -A "$T")"
	echo '{ "theirs": 1 }' >"$T/watchkeeper.json"
	rc=0
	(cd "$T" && WATCHKEEPER_PROFILES="$T/prof" "$PATROL" watch --job "$RAY_ID" --force) >"$T/out" 2>"$T/err" || rc=$?
	assert_eq "$rc" 78 "$(<"$T/err")"
	assert_eq "$(<"$T/watchkeeper.json")" '{ "theirs": 1 }'
	# A directory that is not there: 74, nothing written.
	pwatch --job "$RAY_ID" -o "$T/nodir/wk.json"
	assert_eq "$rc" 74 "$(<"$T/err")"
	assert_grep "nodir/wk.json" "$T/err"
}

test_bad_flags() {
	usage_err '--job: required' --profile ray
	usage_err '--bogus' --job "$RAY_ID" --bogus
	usage_err '--job' --job
	usage_err '-o' --job "$RAY_ID" -o
	usage_err '--job' --job -o x.json
	usage_err "--job" --job 'a b'
	usage_err '--profile generic' --job "$RAY_ID" --profile generic
	usage_err '--run a/b' --job "$RAY_ID" --run a/b
	usage_err '--stage \.\.' --job "$RAY_ID" --stage ..
	usage_err '--workdir rel' --job "$RAY_ID" --host gpu1 --workdir rel
	usage_err '--host' --job "$RAY_ID" --host -oProxyCommand=x
	usage_err 'extra' --job "$RAY_ID" extra
	usage_err '-o: empty' --job "$RAY_ID" -o ''
	# patrol's own options are not watch's, and watch's are not patrol's.
	rc=0; "$PATROL" -c "$T/x.json" watch --job "$RAY_ID" >"$T/out" 2>"$T/err" || rc=$?
	assert_eq "$rc" 64
	rc=0; "$PATROL" --job "$RAY_ID" >"$T/out" 2>"$T/err" || rc=$?
	assert_eq "$rc" 64
	assert_no_file "$T/watchkeeper.json"
	# The help texts.
	pwatch --help
	assert_eq "$rc" 0
	assert_grep '^usage: patrol watch --job ID' "$T/out"
	rc=0; "$PATROL" --help >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep 'patrol watch --job ID' "$T/out"
}

# The skill states the seeds' small-fix rule and the cluster-job keys.
test_skill() {
	local s
	for s in 'NameError' 'ImportError' 'SyntaxError' 'obvious' 'KeyError' \
	    '`where`' '`class`' '`evidence`' '`file`' '`line`' '`function`' 'minimal' 'diff' \
	    'same error' 'escalate' 'never retried' 'design choice' 'hyperparameter' \
	    'patrol -c CFG deploy' 'never_retry' \
	    'patrol watch --job' 'chain[].adopt' 'chain[].resubmit' '--no-wait' 'consent'; do
		grep -qF -- "$s" "$SKILL" || fail "SKILL.md does not say: $s"
	done
	# The old blanket "never fix" is gone; the cluster guardrail is there.
	! grep -qiE 'never (fix|edit) (the )?code' "$SKILL" || fail "SKILL.md still forbids every fix"
	grep -qiE 'never .*(restart|replace|recreate|mutate).*cluster|cluster.*without the owner' "$SKILL" ||
	    fail "SKILL.md lacks the cluster guardrail"
}

t watch_ray test_ray
t watch_iris test_iris
t watch_slurm_job test_slurm_job
t watch_resubmit_needs_nowait test_resubmit_needs_nowait
t watch_existing_file test_existing_file
t watch_invalid_not_written test_invalid_not_written
t watch_bad_flags test_bad_flags
t watch_skill test_skill
