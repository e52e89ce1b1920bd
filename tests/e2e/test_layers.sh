#!/usr/bin/env bash
# The shape of the tree (scripts/layers.sh): who may include whom, no include
# or call circles among the modules (the calls read from $BUILD's objects),
# no source file over 1,000 lines (onbox/runner.c under 800), ARCHITECTURE.md
# naming every file.  layers_catches proves on a small made-up tree that each
# rule fails when broken, so a pass of the real tree means something.
set -u
: "${BUILD:=build}"
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[ -z "${ONBOX_WRAP:-}" ] || exit 0

t_layers() {
	local out b
	case $BUILD in /*) b=$BUILD ;; *) b=$TOP/$BUILD ;; esac
	if out=$(bash "$TOP/scripts/layers.sh" "$b" 2>&1) && [ "$out" = "layers: ok" ]; then
		echo "PASS layers"
	else
		echo "FAIL layers"
		echo "$out" | sed 's/^/    /' | head -n 40
	fi
}

t_layers_catches() {
	local d out rc want miss=""
	d=$(mktemp -d /tmp/wk-layers.XXXXXX) || { echo "FAIL layers_catches: mktemp"; return; }
	mkdir -p "$d/scripts" "$d/core" "$d/onbox" "$d/ssh" "$d/b/obj/core" "$d/b/obj/onbox"
	cp "$TOP/scripts/layers.sh" "$d/scripts/"
	# a <-> b by includes; c and d call each other behind one header; onbox
	# includes an ssh/ header; big.c is 1,001 lines; ghost.c is only named.
	printf '#include "b.h"\nint a(void) { return 1; }\n' >"$d/core/a.c"
	printf '#include "a.h"\nint b(void) { return 2; }\n' >"$d/core/b.c"
	printf 'int a(void);\n' >"$d/core/a.h"
	printf 'int b(void);\n' >"$d/core/b.h"
	printf '#include "cd.h"\nint c(int n) { return n ? d(n - 1) : 0; }\n' >"$d/core/c.c"
	printf '#include "cd.h"\nint d(int n) { return n ? c(n - 1) : 1; }\n' >"$d/core/d.c"
	printf 'int c(int);\nint d(int);\n' >"$d/core/cd.h"
	printf '#include "conn.h"\nint x(void) { return 0; }\n' >"$d/onbox/x.c"
	printf 'int conn(void);\n' >"$d/ssh/conn.h"
	seq 1001 | sed 's/.*/\/* & *\//' >"$d/core/big.c"
	printf 'core/a.c core/b.c core/c.c core/d.c core/big.c core/ghost.c\n' >"$d/ARCHITECTURE.md"
	cc -c -o "$d/b/obj/core/c.o" "$d/core/c.c" -I"$d/core" &&
		cc -c -o "$d/b/obj/core/d.o" "$d/core/d.c" -I"$d/core" || { echo "FAIL layers_catches: cc"; rm -rf "$d"; return; }
	(cd "$d" && git init -q && git add -A) || { echo "FAIL layers_catches: git"; rm -rf "$d"; return; }
	out=$(cd "$d" && bash scripts/layers.sh "$d/b" 2>&1)
	rc=$?
	for want in "include circle: core/a -> core/b" "include circle: core/b -> core/a" \
		"call circle: core/c -> core/d" "call circle: core/d -> core/c" \
		"onbox/x.c includes ssh/conn.h" "core/big.c has 1001 lines" \
		"onbox/x.c is not in ARCHITECTURE.md" "names core/ghost.c, which is not"; do
		case $out in *"$want"*) ;; *) miss="$miss [$want]" ;; esac
	done
	# Either member may open a loop's line: one of the two spellings is enough.
	case $miss in *"core/a -> core/b"*"core/b -> core/a"*) ;; *) miss=$(echo "$miss" | sed 's/ \[include circle: core\/[ab] -> core\/[ab]\]//g') ;; esac
	case $miss in *"core/c -> core/d"*"core/d -> core/c"*) ;; *) miss=$(echo "$miss" | sed 's/ \[call circle: core\/[cd] -> core\/[cd]\]//g') ;; esac
	if [ $rc = 1 ] && [ -z "$miss" ]; then
		echo "PASS layers_catches"
	else
		echo "FAIL layers_catches: rc $rc, missing:$miss"
		echo "$out" | sed 's/^/    /'
	fi
	rm -rf "$d"
}

t_layers
t_layers_catches
