#!/usr/bin/env bash
# Log scanning as the log grows (bench/scan_bench.c): a full read's MB/s and
# the per-tick cost of reading 1 KiB appended to logs of 10 MB, 100 MB and
# 1 GB from a kept position (a restarted reader).  The tick cost must stay
# flat.  Prints one line: "MB:MBPS:TICKUS MB:MBPS:TICKUS ...".
# Usage: bench/scan_bench.sh [BUILD_DIR]   (BENCH_SCAN_MB="10 100 1024")
set -eu
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
case $build in /*) ;; *) build="$top/$build" ;; esac
[ -f "$build/libwatchkeeper.a" ] || { echo "scan_bench: no $build/libwatchkeeper.a (make first)" >&2; exit 64; }
d=$(mktemp -d /tmp/wk-bench-scan.XXXXXX)
trap 'rm -rf "$d"' EXIT
# shellcheck disable=SC2046
cc -std=c11 -D_GNU_SOURCE -O2 -I"$top/core" $(pkg-config --cflags libcjson libpcre2-8) \
	-o "$d/scan_bench" "$top/bench/scan_bench.c" "$build/libwatchkeeper.a" \
	$(pkg-config --libs libcjson libpcre2-8) -ldl -lm
# shellcheck disable=SC2086
"$d/scan_bench" "$d" ${BENCH_SCAN_MB:-10 100 1024} | awk '{ printf "%s%s:%s:%s", (NR > 1 ? " " : ""), $1, $2, $3 } END { print "" }'
