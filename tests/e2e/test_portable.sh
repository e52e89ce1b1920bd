#!/usr/bin/env bash
# End-to-end tests of the portable onbox (make onbox-portable, scripts/portable.sh):
# build/portable/onbox-<arch>-linux for x86_64 and aarch64.  Each is fully
# static (no program interpreter, no NEEDED library), prints `onbox <VERSION>`
# with an empty environment, and runs a two-stage chain to DONE with both
# markers; the architecture that is not this machine's runs under
# qemu-user-static (the stages' /bin/sh is the host's).
#
# `make test` builds them before the tests (make onbox-portable); this file
# builds one only when no build was even tried (neither the binary nor its
# .skip note is there).  What cannot be built or run here -- no zig cc
# (scripts/zig), no qemu -- prints
# "SKIP name: reason", never a PASS.  The same binaries are tested under
# BUILD=build and BUILD=build/asan (the portable build has no sanitizer variant).
. "$(dirname "$0")/lib.sh"

PDIR="$TOP/build/portable"
VERSION=$(<"$TOP/VERSION")
HOST=$(uname -m)
[ "$HOST" = arm64 ] && HOST=aarch64

# ready ARCH: sets PBIN and PRUN (the runner: empty, or qemu-ARCH-static);
# else sets WHY and returns 1.
ready() {
	local arch=$1
	PBIN="$PDIR/onbox-$arch-linux"
	PRUN=""
	WHY=""
	if [ ! -f "$PBIN" ] && [ ! -f "$PBIN.skip" ]; then
		bash "$TOP/scripts/portable.sh" "$arch" >"$PDIR.$arch.buildlog" 2>&1 || true
	fi
	if [ ! -f "$PBIN" ]; then
		if [ -f "$PBIN.skip" ]; then
			WHY="cannot build onbox-$arch-linux: $(<"$PBIN.skip")"
			return 1
		fi
		# Not a missing tool: the build itself failed.  That is a FAIL, not a SKIP.
		return 2
	fi
	if [ "$arch" != "$HOST" ]; then
		PRUN=$(command -v "qemu-$arch-static" || true)
		if [ -z "$PRUN" ]; then
			WHY="no qemu-$arch-static to run it (install qemu-user-static)"
			return 1
		fi
	fi
	return 0
}

# pt NAME ARCH FUNCTION: `t NAME FUNCTION`, or SKIP with the reason.
pt() {
	local name=$1 arch=$2 fn=$3 r=0
	ready "$arch" || r=$?
	case $r in
	0) PARCH=$arch t "$name" "$fn" ;;
	1) echo "SKIP $name: $WHY" ;;
	*)
		echo "FAIL $name: make onbox-portable did not build $PBIN and says no tool is missing"
		[ -f "$PDIR.$arch.buildlog" ] && sed 's/^/    | /' "$PDIR.$arch.buildlog" | tail -n 30 ;;
	esac
}

# ponbox ARGS...: the portable onbox of $PARCH (through qemu when foreign) on
# $T/wk.json, in a bare environment: PATH and HOME only.
ponbox() { ready "$PARCH" && env -i PATH=/usr/bin:/bin HOME="$T" ${PRUN:+"$PRUN"} "$PBIN" -c "$T/wk.json" "$@"; }

test_static() {
	local machine
	ready "$PARCH"
	case $PARCH in
	x86_64) machine='Advanced Micro Devices X86-64' ;;
	aarch64) machine='AArch64' ;;
	esac
	readelf -hW "$PBIN" >"$T/hdr"
	assert_grep "Machine: +$machine\$" "$T/hdr"
	assert_grep 'Type: +EXEC|Type: +DYN' "$T/hdr"
	readelf -lW "$PBIN" >"$T/phdr"
	assert_grep 'LOAD' "$T/phdr"
	assert_no_grep 'INTERP|Requesting program interpreter' "$T/phdr"
	readelf -dW "$PBIN" >"$T/dyn" 2>&1
	assert_no_grep 'NEEDED' "$T/dyn"
	if command -v file >/dev/null 2>&1; then
		file -L "$PBIN" >"$T/file"
		assert_grep 'statically linked' "$T/file"
	fi
	# The host's ldd (when it can read the file) sees no library either.
	if [ "$PARCH" = "$HOST" ]; then
		ldd "$PBIN" >"$T/ldd" 2>&1 || true
		assert_grep 'not a dynamic executable' "$T/ldd"
	fi
}

test_version_empty_env() {
	ready "$PARCH"
	env -i ${PRUN:+"$PRUN"} "$PBIN" --version >"$T/v" 2>"$T/err"
	assert_eq "$(head -n 1 "$T/v")" "onbox $VERSION"
}

# Two stages through nohup, the done line matched by PCRE2 (a group and an
# alternation, JIT-compiled), then both markers, the state "done" and one
# chain_done event; a second run has nothing left to do.
test_two_stage_chain() {
	local s
	mkdir -p "$T/bin" "$T/work"
	for s in prep train; do
		cat >"$T/bin/$s.sh" <<SH
#!/bin/sh
echo x >>"$T/launch.$s"
i=1
while [ \$i -le 3 ]; do echo "step \$i/3 loss=0.5"; i=\$((i+1)); done
echo "$s finished in \$i steps"
SH
		chmod +x "$T/bin/$s.sh"
	done
	conf '"progress": {"pattern": "step ([0-9]+)/([0-9]+)", "max": 3},' "[
	{\"stage\": \"prep\", \"run\": \"$T/bin/prep.sh\", \"done_when\": \"^prep (completed|finished) in [0-9]+ steps\$\", \"marker\": \"PREP_DONE\"},
	{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"^train (completed|finished) in [0-9]+ steps\$\", \"marker\": \"TRAIN_DONE\"}]"
	local rc=0
	ponbox run >"$T/out" 2>&1 || rc=$?
	[ $rc -eq 0 ] || { cat "$T/out" >&2; fail "onbox run exited $rc"; }
	assert_file "$W/markers/PREP_DONE"
	assert_file "$W/markers/TRAIN_DONE"
	assert_no_file "$W/markers/TRAIN_DONE.FAILED"
	assert_eq "$(json "$W/markers/TRAIN_DONE" 'd["exit_code"]')" 0
	assert_eq "$(json "$W/markers/TRAIN_DONE" 'd["attempt"]')" 1
	assert_grep 'train finished in 4 steps' "$W/logs/train.1.log"
	assert_eq "$(json "$W/state.json" 'd["status"]')" done
	assert_eq "$(json "$W/state.json" 'd["progress"]["text"]')" "~3/3"
	assert_eq "$(grep -c '"stage_done"' "$W/events.jsonl")" 2
	assert_eq "$(grep -c '"chain_done"' "$W/events.jsonl")" 1
	ponbox status >"$T/status" 2>&1
	ponbox run >"$T/out2" 2>&1
	assert_eq "$(grep -c '"chain_done"' "$W/events.jsonl")" 1
	assert_eq "$(wc -l <"$T/launch.train" | tr -d ' ')" 1
}

# `onbox start` as `patrol deploy` runs it: detached with nohup (onbox re-runs
# itself from /proc/self/exe), a bare environment, the chain to DONE in the
# background.  This machine's architecture only: qemu-user cannot re-run a
# foreign binary without binfmt_misc.
test_start_detached() {
	local pid
	mkdir -p "$T/work"
	conf "" "[
	{\"stage\": \"a\", \"run\": \"echo a ok\", \"done_when\": \"^a ok\$\", \"marker\": \"A_DONE\"},
	{\"stage\": \"b\", \"run\": \"echo b ok\", \"done_when\": \"^b ok\$\", \"marker\": \"B_DONE\"}]"
	ponbox start >"$T/start.out" 2>&1
	pid=$(sed -n 's/.*(onbox pid \([0-9]*\)).*/\1/p' "$T/start.out")
	[ -n "$pid" ] || { cat "$T/start.out" >&2; fail "no onbox pid in start's output"; }
	echo "$pid" >>"$T/.pids"
	wait_for 30 test -f "$W/markers/B_DONE"
	assert_file "$W/markers/A_DONE"
	wait_for 30 eval '[ "$(json "$W/state.json" "d[\"status\"]")" = done ]'
	wait_for 30 eval '! kill -0 '"$pid"' 2>/dev/null'
}

for a in x86_64 aarch64; do
	pt "portable_${a}_static" "$a" test_static
	pt "portable_${a}_version_empty_env" "$a" test_version_empty_env
	pt "portable_${a}_two_stage_chain" "$a" test_two_stage_chain
done
pt "portable_${HOST}_start_detached" "$HOST" test_start_detached
