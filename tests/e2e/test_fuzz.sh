#!/usr/bin/env bash
# The short fuzz run for `make test`: every libFuzzer target in fuzz/ for 5
# seconds from the tree's seed corpus (fuzz/run.sh), built into a temporary
# FUZZ_BUILD that is removed afterwards.  One "PASS fuzz_<target>" per target
# that ran (more than 0 inputs) without a crash, a leak, a timeout or a file
# left behind; "FAIL fuzz_<target>" otherwise, with the crashing input copied
# to a kept directory; "SKIP fuzz: why" without clang or its fuzzer runtime.
#
# The fuzz build does not depend on BUILD, so it runs once per `make test`:
# with the plain build only (silently nothing for an ASan build, or under
# valgrind, where ONBOX_WRAP is set).
set -u
: "${BUILD:=build}"
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
case ${BUILD%/} in *asan) exit 0 ;; esac
[ -z "${ONBOX_WRAP:-}" ] || exit 0

tmp=$(mktemp -d /tmp/wk-fuzz-e2e.XXXXXX) || { echo "FAIL fuzz_setup: mktemp"; exit 1; }
trap 'rm -rf "$tmp"' EXIT
seeds_before=$(cd "$TOP/fuzz/corpus" && find . -type f | sort | md5sum)

FUZZ_BUILD=$tmp/fb timeout 600 bash "$TOP/fuzz/run.sh" 5 >"$tmp/out" 2>&1
rc=$?

if grep -q '^SKIP fuzz' "$tmp/out"; then
	grep '^SKIP fuzz' "$tmp/out" | head -n 1
	exit 0
fi

# Kept for a failure: the crashing inputs and the targets' logs.
keep() {
	if [ -z "${kept:-}" ]; then
		kept=$(mktemp -d /tmp/wk-fuzz-fail.XXXXXX)
		cp -r "$tmp/fb/artifacts" "$tmp/fb/logs" "$tmp/out" "$kept"/ 2>/dev/null
	fi
}

targets=$(cd "$TOP/fuzz" && for f in fuzz_*.c; do [ -f "$f" ] && f=${f#fuzz_} && echo "${f%.c}"; done)
for t in $targets; do
	line=$(grep -E "^fuzz $t: " "$tmp/out" | tail -n 1)
	runs=$(printf '%s\n' "$line" | sed -n 's/^fuzz [a-z_]*: \([0-9][0-9]*\) runs, 0 crashes$/\1/p')
	if [ -n "$runs" ] && [ "$runs" -gt 0 ]; then
		echo "PASS fuzz_$t"
	else
		keep
		echo "FAIL fuzz_$t: ${line:-no result line} (run.sh exit $rc; inputs and logs kept in $kept)"
		# This target's block of run.sh's output (its indented lines), else all of it.
		awk -v t="fuzz $t: " 'index($0, t) == 1 { on = 1; next } /^[^ ]/ { on = 0 } on' \
			"$tmp/out" | sed 's/^/    | /' | head -n 24
		[ -n "$line" ] || sed 's/^/    | /' "$tmp/out" | tail -n 30
	fi
done

# The tree's seed corpus is read, never written.
seeds_after=$(cd "$TOP/fuzz/corpus" && find . -type f | sort | md5sum)
if [ "$seeds_before" = "$seeds_after" ]; then
	echo "PASS fuzz_corpus_untouched"
else
	echo "FAIL fuzz_corpus_untouched: fuzz/corpus changed during the run"
fi
exit 0
