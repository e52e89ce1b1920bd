#!/usr/bin/env bash
# The long fault and bad-input suite (`make chaos`): every scenario of
# tests/chaos/ at its long size against one build, ending with
# "N passed, N failed" as tests/run.sh does.
#
#   tests/chaos/run.sh BUILD_DIR
#
# Sizes: 100 kill -9s, 10 full disks, 20 stages of receiver faults, 50 SSH
# trials, every hostile value in every field.  CHAOS_SEED makes a run
# repeatable (each scenario prints the seed it used).  `make test` runs the
# same scripts with small sizes through tests/e2e/test_chaos_<scenario>.sh.
set -u
cd "$(dirname "$0")/../.." || exit 2
[ $# -eq 1 ] || { echo "usage: tests/chaos/run.sh BUILD_DIR" >&2; exit 64; }
build=$1

SCENARIOS=(
	"kill9.sh 100"
	"tmpfs.sh 10"
	"webhooks.sh 20"
	"ssh.sh 50"
	"hostile.sh 0"
)

pass=0
fail=0
skip=0
failed=()
out=$(mktemp /tmp/wk-chaos-run.XXXXXX)
trap 'rm -f "$out"' EXIT

for s in "${SCENARIOS[@]}"; do
	script=${s%% *}
	size=${s#* }
	name="chaos/${script%.sh}"
	start=$(date +%s)
	BUILD=$build timeout 3600 bash "tests/chaos/$script" "$size" >"$out" 2>&1
	rc=$?
	p=$(grep -c '^PASS ' "$out")
	f=$(grep -c '^FAIL ' "$out")
	k=$(grep -c '^SKIP ' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "FAIL $name: the script itself exited $rc"
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + k))
	grep '^# ' "$out"
	grep -E '^(PASS|FAIL|SKIP) ' "$out" | sed "s|^\(PASS\|FAIL\|SKIP\) |\1 $name: |"
	echo "     $name: $(( $(date +%s) - start )) s"
	if [ "$f" -gt 0 ]; then
		failed+=("$name")
		grep -v -E '^(PASS|FAIL|SKIP|#) ' "$out" | sed 's/^/    /' | tail -n 80
	fi
done

[ ${#failed[@]} -eq 0 ] || echo "failed: ${failed[*]}"
[ "$skip" -eq 0 ] || echo "$skip skipped (see the SKIP lines above: not counted as passed)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
