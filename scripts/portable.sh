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
# - cJSON and PCRE2 come from Debian's source packages (`apt-get source cjson
#   pcre2`, Debian's patches applied: scripts/install-deps.sh adds the deb-src
#   entries), unpacked once into build/portable/src/; no network after that.
#   The newest version apt knows that the mirror serves (a security update
#   whose source is missing falls back to the release's, with a warning);
#   build/portable/src/VERSIONS says which.
#   Each is compiled per architecture into a static library: cJSON is one .c
#   file; PCRE2 is compiled directly from its source list (its
#   NON-AUTOTOOLS-BUILD), 8-bit, Unicode and JIT on as in Debian's build.
# - Both are dependencies, built once a machine: the source trees and the
#   static libraries are kept in $WATCHKEEPER_PORTABLE_CACHE
#   (/var/cache/watchkeeper/portable, as the older box's root is kept in
#   /var/cache/watchkeeper/oldbox), and a clone copies them from there
#   instead of fetching and compiling them again (PCRE2 is some 70 s of CPU
#   for the two architectures here).  A source tree is kept under its
#   package and version, and used only while that version is the newest apt
#   knows; a library under a checksum of everything that makes it (the
#   architecture, the compiler's version, the flags, the source tree's name),
#   so a change to any of them builds it again.  Entries are written to a
#   temporary name and renamed, so a half-written or concurrent one is never
#   used; a cache that cannot be written is only not used.
# - Watchkeeper's own objects are built by the Makefile's rules (a sub-make
#   with BUILD=build/portable/<arch>), with -DWK_PORTABLE=1: core/curlapi.c
#   then loads no libcurl (a static glibc cannot dlopen the box's
#   libcurl.so), and notifications go through the box's `curl` command.
#   libcurl's headers are still needed to compile core/notify-http.c,
#   curlcmd.c and curlapi.c; they are copied from the host's
#   libcurl4-openssl-dev (curl's headers are the same on every architecture
#   since 7.56: curl/system.h reads the compiler's macros).
# - Static glibc: x86_64 links the host gcc's libc.a (libc6-dev); aarch64 is
#   cross-compiled with Debian's gcc-aarch64-linux-gnu and libc6-dev-arm64-cross
#   (on an aarch64 host the host compiler builds aarch64 and x86_64 is the
#   cross one, x86_64-linux-gnu-gcc).
#
# glibc's static-link warnings ("Using 'getpwnam' in statically linked
# applications requires at runtime the shared libraries from the glibc version
# used for linking"): the link prints none, because onbox calls none of them.
# The NSS-dependent calls in core/ (getpwnam, getpwuid, getaddrinfo and
# getservbyname in sshconf.c; getaddrinfo and getpwuid in ssh.c) are patrol's
# side: onbox's objects reference neither sshconf.o nor ssh.o, so those
# archive members are never linked.  dlopen: with -DWK_PORTABLE=1 nothing of
# ours calls it.  The static binary still holds glibc's own dlopen/_dl_open
# (libc.a's libio vtables.o and rtld_static_init.o reference __dlopen, for
# foreign stdio vtables, iconv's gconv modules and NSS); onbox uses none of
# those, so that code is never reached and ld prints no warning for it.  This
# script checks all of it on every build (check_static): a link that prints
# such a warning, a binary holding one of the NSS functions, or any object of
# ours referencing dlopen fails the build.

# Exit status: 0 every architecture asked for was built; 2 one or more could
# not be built because something optional is missing (the reason is printed
# and written to build/portable/onbox-<arch>-linux.skip, which
# tests/e2e/test_portable.sh prints as its SKIP reason); 1 a build failed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=build/portable
src=$out/src
MAKE=${MAKE:-make}
deps_only=0
[ "${1:-}" = --deps ] && { deps_only=1; shift; }
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(x86_64 aarch64)
CACHE=${WATCHKEEPER_PORTABLE_CACHE:-/var/cache/watchkeeper/portable}
host=$(uname -m)
[ "$host" = arm64 ] && host=aarch64
mkdir -p "$src"

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

# The functions whose presence in a static onbox would need the box's glibc
# at run time (NSS): none may be linked.  dlopen is checked apart (see the top).
NSS_FUNCS="getpwnam getpwnam_r getpwuid getpwuid_r getgrnam getgrgid getaddrinfo
gethostbyname gethostbyname2 gethostbyaddr getservbyname getservbyport
initgroups getgrouplist getlogin getlogin_r"

# --- sources: Debian's, once -------------------------------------------------
cjson_dir() { find "$src" -mindepth 1 -maxdepth 1 -type d -name 'cjson-*' | sort | tail -n 1; }
pcre2_dir() { find "$src" -mindepth 1 -maxdepth 1 -type d -name 'pcre2-*' | sort | tail -n 1; }

# fetch_one PKG: PKG's source tree into $src, the newest version apt knows
# that can be fetched (a security update whose source the mirror lacks falls
# back to the release's, said aloud); else sets why and returns 1.
fetch_one() {
	local pkg=$1 tmp v vers newest="" got="" err=""
	[ -n "$(find "$src" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*")" ] && return 0
	vers=$(apt-cache showsrc "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | sort -urV)
	if [ -z "$vers" ]; then
		why="apt knows no source package $pkg (no deb-src entries: scripts/install-deps.sh adds them)"
		return 1
	fi
	# The machine's copy of the newest version, when there is one.
	v=${vers%%[[:space:]]*}
	for tmp in "$CACHE/src/${pkg}_$v"/"$pkg"-*/; do
		[ -d "$tmp" ] || continue
		if cp -a "${tmp%/}" "$src/.cache.$$" && mv -T "$src/.cache.$$" "$src/$(basename "$tmp")"; then
			echo "$pkg $v" >>"$src/VERSIONS"
			say "source: $pkg $v (the machine's copy, $CACHE)"
			return 0
		fi
		rm -rf "$src/.cache.$$"
	done
	tmp=$(mktemp -d "$src/.fetch.XXXXXX")
	for v in $vers; do
		[ -n "$newest" ] || newest=$v
		rm -rf "${tmp:?}"/*
		if (cd "$tmp" && apt-get -q source "$pkg=$v") >"$tmp.log" 2>&1; then
			got=$v
			break
		fi
		[ -n "$err" ] || err=$(grep -E '^E:' "$tmp.log" | head -n 1 || true)
	done
	if [ -n "$got" ]; then
		mv "$tmp/$pkg"-*/ "$src/" 2>/dev/null || true
		echo "$pkg $got" >>"$src/VERSIONS"
		# kept for the next clone: the tree as apt-get source unpacked it
		v=$(find "$src" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" | sort | tail -n 1)
		if [ -n "$v" ]; then
			mkdir -p "$tmp.keep" && cp -a "$v" "$tmp.keep/" && cache_put "$tmp.keep" "src/${pkg}_$got"
			rm -rf "$tmp.keep"
		fi
	fi
	rm -rf "$tmp" "$tmp.log"
	if [ -z "$got" ]; then
		why="apt-get source $pkg failed for every version apt knows ($vers): $err"
		return 1
	fi
	if [ -z "$(find "$src" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*")" ]; then
		why="apt-get source $pkg=$got unpacked no $pkg-* tree (is dpkg-dev installed?)"
		return 1
	fi
	say "source: $pkg $got"
	[ "$got" = "$newest" ] ||
		echo "onbox-portable: warning: $pkg $newest could not be fetched ($err); built from $got" >&2
}

# fetch_sources: 0 when both trees are there; else sets why and returns 1.
fetch_sources() {
	if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-source >/dev/null 2>&1; then
		if [ -z "$(cjson_dir)" ] || [ -z "$(pcre2_dir)" ]; then
			why="no cJSON/PCRE2 source in $src and no apt-get/dpkg-source (dpkg-dev) to fetch it"
			return 1
		fi
	fi
	fetch_one cjson && fetch_one pcre2
}

# --- the compiler for one architecture -----------------------------------------
# Sets cc and strip, or why and returns 1.
toolchain() {
	local arch=$1 libc
	if [ "$arch" = "$host" ]; then
		cc=${CC:-cc}
		strip="strip"
	else
		cc=$arch-linux-gnu-gcc
		strip=$arch-linux-gnu-strip
		if ! command -v "$cc" >/dev/null 2>&1; then
			why="no $cc (install gcc-$arch-linux-gnu and libc6-dev-$(deb_arch "$arch")-cross: scripts/install-deps.sh)"
			return 1
		fi
	fi
	libc=$("$cc" -print-file-name=libc.a)
	if [ ! -f "$libc" ]; then
		why="$cc has no static libc.a (install $([ "$arch" = "$host" ] && echo libc6-dev || echo "libc6-dev-$(deb_arch "$arch")-cross"))"
		return 1
	fi
	command -v "$strip" >/dev/null 2>&1 || strip=""
}
deb_arch() { case $1 in x86_64) echo amd64 ;; aarch64) echo arm64 ;; *) echo "$1" ;; esac; }

# --- cJSON and PCRE2, static, per architecture ---------------------------------
# newer LIB TREE: LIB exists and is newer than every file of TREE.
newer() { [ -f "$1" ] && [ -z "$(find "$2" -newer "$1" -type f -print -quit)" ]; }

# lib_key TREE FLAGS...: the cache's name for a library built from TREE with
# FLAGS by this architecture's compiler.
lib_key() {
	local t=$1
	shift
	key=$arch-$(basename "$t")-$({ "$cc" --version 2>/dev/null | head -n 1; "$cc" -dumpmachine; echo "$*"; } | cksum | cut -d' ' -f1)
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
		ar rcs "$dir/lib/libcjson.a" "$dir/cjson/cJSON.o" &&
		to_cache "$key" "$dir" libcjson.a cJSON.h
}

# PCRE2's own list (NON-AUTOTOOLS-BUILD), less pcre2_ucptables.c which
# pcre2_tables.c includes; pcre2_jit_compile.c includes the JIT's other files.
PCRE2_SRCS="auto_possess chartables compile config context convert dfa_match error
extuni find_bracket jit_compile maketables match match_data newline ord2utf
pattern_info script_run serialize string_utils study substitute substring tables
ucd valid_utf xclass"
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
	ar rcs "$dir/lib/libpcre2-8.a" "${objs[@]}" &&
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

# check_static DIR: DIR/onbox is fully static, links none of NSS_FUNCS, and
# nothing of ours (DIR's objects and libraries) calls dlopen.
check_static() {
	local dir=$1 bin=$1/onbox log=$1/link.log f bad=""
	if grep -q 'statically linked applications requires' "$log" 2>/dev/null; then
		echo "onbox-portable: $arch: glibc warns about a static-link-unsafe call:" >&2
		grep 'statically linked applications requires' "$log" >&2
		return 1
	fi
	if readelf -lW "$bin" | grep -q INTERP || readelf -dW "$bin" | grep -q NEEDED; then
		echo "onbox-portable: $arch: $bin is not fully static" >&2
		return 1
	fi
	for f in $NSS_FUNCS; do
		if nm "$bin" 2>/dev/null | grep -qE "^[0-9a-f]+ [TtWw] ($f|__$f)\$"; then
			bad="$bad $f"
		fi
	done
	if [ -n "$bad" ]; then
		echo "onbox-portable: $arch: the static onbox links$bad (needs the box's glibc at run time)" >&2
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
	[ "$deps_only" = 0 ] || return 0
	log=$dir/link.log
	# The Makefile's own rules; the ld warnings go to the log too.
	if ! "$MAKE" --no-print-directory -C "$top" BUILD="$dir" SANITIZE=0 OPT=-O2 CC="$cc" \
		PKG_CFLAGS="-I$dir/include -DWK_PORTABLE=1" \
		PKG_LIBS="$dir/lib/libcjson.a $dir/lib/libpcre2-8.a" \
		LDFLAGS="-static" "$dir/onbox" 2> >(tee "$log" >&2); then
		return 1
	fi
	check_static "$dir" || return 1
	if [ -n "$strip" ]; then
		"$strip" -o "$dir/onbox.stripped" "$dir/onbox" || return 1
	else
		cp "$dir/onbox" "$dir/onbox.stripped" || return 1
	fi
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
