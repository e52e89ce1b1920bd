#!/usr/bin/env bash
# Run every test against one or more builds and end with "N passed, N failed".
#
#   tests/run.sh [--valgrind] [--only unit|e2e] BUILD_DIR...
#
# Unit tests are cmocka binaries ($BUILD/tests/test_*): each "[       OK ]"
# line is a pass, the "[  FAILED  ] N test(s)" summary gives the failures, and
# a binary that dies (sanitizer report, crash, leak) counts as one failure.
# End-to-end tests are tests/e2e/*.sh: each prints "PASS name" / "FAIL name",
# or "SKIP name: why" for a test that cannot run here (counted apart).
# With --valgrind, the unit tests and every onbox the e2e tests start run under
# valgrind's memcheck; a leak or memory error fails the test.
set -u
cd "$(dirname "$0")/.." || exit 2

valgrind=0
only=""
while [ $# -gt 0 ]; do
	case "$1" in
	--valgrind) valgrind=1; shift ;;
	--only) only=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: tests/run.sh [--valgrind] [--only unit|e2e] BUILD..." >&2; exit 64; }

pass=0
fail=0
skip=0
failed=()
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for build in "$@"; do
	label=$build
	if [ "$only" != e2e ]; then
		for t in "$build"/tests/test_*; do
			case "$t" in *.d) continue ;; esac
			[ -x "$t" ] || continue
			name="$label/$(basename "$t")"
			if [ $valgrind = 1 ]; then
				timeout 600 valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
					--errors-for-leak-kinds=definite,indirect --error-exitcode=99 "$t" >"$out" 2>&1
			else
				timeout 600 "$t" >"$out" 2>&1
			fi
			rc=$?
			p=$(grep -c '^\[       OK \]' "$out")
			f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test(s).*/\1/p' "$out" | tail -n 1)
			f=${f:-0}
			if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
				f=1
			fi
			pass=$((pass + p))
			fail=$((fail + f))
			if [ "$f" -gt 0 ]; then
				failed+=("$name")
				echo "FAIL $name (exit $rc)"
				sed 's/^/    /' "$out" | grep -v '^\s*\[ *\(RUN\|OK\) ' | tail -n 60
			else
				echo "ok   $name ($p)"
			fi
		done
	fi
	if [ "$only" != unit ]; then
		if [ $valgrind = 1 ]; then
			export ONBOX_WRAP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99"
		fi
		for e in tests/e2e/test_*.sh; do
			[ -f "$e" ] || continue
			name="$label/$(basename "$e" .sh)"
			BUILD=$build timeout 900 bash "$e" >"$out" 2>&1
			rc=$?
			p=$(grep -c '^PASS ' "$out")
			f=$(grep -c '^FAIL ' "$out")
			s=$(grep -c '^SKIP ' "$out")
			skip=$((skip + s))
			if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
				f=1
				echo "FAIL $name: the script itself exited $rc"
			fi
			pass=$((pass + p))
			fail=$((fail + f))
			grep -E '^(PASS|FAIL|SKIP) ' "$out" | sed -E "s#^(PASS|FAIL|SKIP) #\1 $name: #"
			if [ "$f" -gt 0 ]; then
				failed+=("$name")
				grep -v -E '^(PASS|SKIP) ' "$out" | sed 's/^/    /' | tail -n 80
			fi
		done
	fi
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "failed: ${failed[*]}"
fi
# Skipped tests (a tool the machine lacks) are never counted as passed.
if [ "$skip" -gt 0 ]; then
	echo "$skip skipped (see the SKIP lines above: not counted as passed)"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
