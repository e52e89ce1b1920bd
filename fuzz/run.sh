#!/usr/bin/env bash
# fuzz/run.sh SECONDS [TARGET...]: build the libFuzzer targets (fuzz/fuzz_*.c)
# with clang and run each for SECONDS, starting from the seed corpus in
# fuzz/corpus/<target>/.
#
#   FUZZ_BUILD  where everything goes (default fuzz/build): objects, targets,
#               the scratch corpus (seeded from the tree's, grown by libFuzzer;
#               the tree's corpus is never written), crash artifacts, logs and
#               the targets' scratch files (TMPDIR, emptied after each run).
#   FUZZ_CC     the compiler (default clang).
#   FUZZ_CFLAGS extra compiler flags (fuzz/fuzz.mk).
#
# Each target ends with one line, "fuzz <target>: N runs, 0 crashes", or
# "fuzz <target>: FAIL ..." with the input that crashed it (kept under
# $FUZZ_BUILD/artifacts/<target>/), then the sanitizer's summary.  A target
# that leaves files in its scratch directory fails too.  Exit 0 when nothing
# failed, 1 on a crash, leak, timeout, left-over file or a build failure, 64
# on a usage error.  Without clang or its libFuzzer runtime: "SKIP fuzz: <reason>"
# and exit 0.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: fuzz/run.sh SECONDS [TARGET...]" >&2; exit 64; }
[ $# -ge 1 ] || usage
secs=$1
shift
case $secs in '' | *[!0-9]*) usage ;; esac
[ "$secs" -ge 1 ] || usage

all=$(cd "$top/fuzz" && for f in fuzz_*.c; do [ -f "$f" ] && f=${f#fuzz_} && echo "${f%.c}"; done | tr '\n' ' ')
if [ $# -gt 0 ]; then
	targets="$*"
	for t in $targets; do
		[ -f "$top/fuzz/fuzz_$t.c" ] || { echo "fuzz: no target \"$t\" (have: ${all% })" >&2; exit 64; }
	done
else
	targets=$all
fi
# shellcheck disable=SC2086,SC2116 # one line, single spaces
targets=$(echo $targets)

cc=${FUZZ_CC:-clang}
fb=${FUZZ_BUILD:-$top/fuzz/build}
case $fb in /*) ;; *) fb=$PWD/$fb ;; esac
case $fb/ in "$top"/build/*) echo "fuzz: FUZZ_BUILD must not be under build/" >&2; exit 64 ;; esac

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "SKIP fuzz: $cc not found (install clang and libclang-rt-14-dev)"
	exit 0
fi
mkdir -p "$fb" || exit 1
# The runtime is a separate package on Debian: try a trivial target first.
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
	>"$fb/check.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined -o "$fb/check" "$fb/check.c" >"$fb/check.log" 2>&1; then
	echo "SKIP fuzz: $cc cannot link -fsanitize=fuzzer,address,undefined" \
		"(install libclang-rt-14-dev): $(head -n 1 "$fb/check.log")"
	rm -f "$fb/check" "$fb/check.c" "$fb/check.log"
	rmdir "$fb" 2>/dev/null
	exit 0
fi
rm -f "$fb/check" "$fb/check.c" "$fb/check.log"

jobs=$(nproc 2>/dev/null || echo 2)
if ! make --no-print-directory -s -f "$top/fuzz/fuzz.mk" -j"$jobs" FUZZ_BUILD="$fb" CC="$cc" \
	TARGETS="$targets" >"$fb/build.log" 2>&1; then
	cat "$fb/build.log"
	echo "fuzz: FAIL build (see above)"
	exit 1
fi

export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export ASAN_OPTIONS="detect_leaks=1"
failed=0
for t in $targets; do
	corpus=$fb/corpus/$t
	art=$fb/artifacts/$t
	scratch=$fb/tmp/$t
	log=$fb/logs/$t.log
	mkdir -p "$corpus" "$art" "$scratch" "$fb/logs"
	# Seeds from the tree; what earlier runs found stays (the names are hashes).
	if [ -d "$top/fuzz/corpus/$t" ]; then
		cp -p -n "$top/fuzz/corpus/$t"/* "$corpus"/ 2>/dev/null
	fi
	rm -f "$art"/*
	(cd "$scratch" && TMPDIR=$scratch exec "$fb/fuzz_$t" -max_total_time="$secs" \
		-rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$art/" "$corpus") >"$log" 2>&1
	rc=$?
	# A target that ended normally must have removed its scratch files.
	left=$(cd "$scratch" && find . -mindepth 1 | head -n 3 | tr '\n' ' ')
	rm -rf "${scratch:?}"/* "$scratch"/.[!.]* 2>/dev/null
	runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
	crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
	if [ $rc -eq 0 ] && [ -z "$crash" ] && [ -z "$left" ]; then
		echo "fuzz $t: ${runs:-0} runs, 0 crashes"
		continue
	fi
	failed=1
	if [ $rc -eq 0 ] && [ -z "$crash" ]; then
		echo "fuzz $t: FAIL: ${runs:-0} runs, 0 crashes, but files left behind: $left"
		continue
	fi
	if [ -n "$crash" ]; then
		echo "fuzz $t: FAIL: crashed after ${runs:-?} runs, input $crash (log $log)"
	else
		echo "fuzz $t: FAIL: exit $rc without a saved input (log $log)"
	fi
	grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error:|.*differ|.*changed|.*fuzz harness:)' "$log" |
		head -n 8 | sed 's/^/    /'
	grep -E '^ +#[0-9]+ ' "$log" | head -n 12 | sed 's/^/    /'
done
exit $failed
