#!/usr/bin/env bash
# End-to-end tests of `patrol deploy` with no flags: the real patrol against
# the suite's sshd on 127.0.0.1 ("the box" is this machine, reached over ssh).
#
# The portable onbox (make onbox-portable) is not what these tests exercise
# (test_portable and test_oldbox do): each test that needs one puts a copy of $BUILD/onbox as
# $WATCHKEEPER_ONBOX_DIR/onbox-x86_64-linux, which is where patrol looks first
# (README: patrol deploy).  On this machine that copy runs like the real one
# would, and under ASan it keeps the box side sanitized.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
PATROL="$TOP/$BUILD/patrol"

patrol() { $ONBOX_WRAP "$PATROL" -c "$T/wk.json" "$@"; }

# A box with no onbox of its own, and a "portable build" here.
bare_box() {
	box
	rm -f "$T/sshd/bin/onbox"
	mkdir -p "$T/portable"
	cp "$ONBOX" "$T/portable/onbox-$(uname -m)-linux"
	export WATCHKEEPER_ONBOX_DIR="$T/portable"
}

# dconf EXTRA CHAIN: pconf with the config on the box at its default place
# (<workdir>/.watchkeeper/watchkeeper.json, not this machine's $T/wk.json).
dconf() {
	pconf "$1" "$2"
	sed -i 's|"config": "[^"]*", ||' "$T/wk.json"
}

waiting_stage() {
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
echo x >>"$T/launch.train"
echo "step 1/10"
"$AWAIT" 30 "$T/go" || :
echo "Training completed"
SH
	chmod +x "$T/bin/train.sh"
}
launches() { [ -f "$T/launch.train" ] && wc -l <"$T/launch.train" | tr -d ' ' || echo 0; }

# The onbox a deploy started has finished (no probe may call the run alive).
onbox_gone() {
	local pid
	pid=$(json "$1/state.json" 'd.get("onbox_pid", 0)' 2>/dev/null) || return 1
	[ "$(json "$1/state.json" 'd.get("status")')" = done ] && ! kill -0 "$pid" 2>/dev/null
}

# inode and mtime of each file deploy keeps in step: a re-sent file is a new inode (rename).
stamps() {
	local w=$T/work/.watchkeeper
	stat -c '%n %i %y' "$w/bin/onbox" "$w/watchkeeper.json" "$w/profiles/generic.json"
}

test_no_flags_portable_then_unchanged() {
	bare_box
	dconf '"profile": "generic",' '[{"stage": "train", "run": "echo step 1/1"}]'
	patrol deploy >"$T/d1" 2>&1
	assert_grep '^box: x86_64$' "$T/d1"
	assert_grep "^onbox: uploaded $T/portable/onbox-x86_64-linux to $T/work/.watchkeeper/bin/onbox: onbox $(<"$TOP/VERSION")$" "$T/d1"
	assert_grep '^  http: ' "$T/d1"
	assert_grep '^config: uploaded the config to ' "$T/d1"
	assert_grep '^profile: uploaded profile to ' "$T/d1"
	assert_grep 'started run t1' "$T/d1"
	cmp "$T/wk.json" "$T/work/.watchkeeper/watchkeeper.json"
	cmp "$ONBOX" "$T/work/.watchkeeper/bin/onbox"
	assert_no_file "$T/work/.watchkeeper/bin/onbox.new"
	wait_for 20 onbox_gone "$W"
	assert_file "$W/markers/TRAIN_DONE"
	# What deploy learned is in patrol's state.
	ps="$T/state/watchkeeper/t1/patrol.json"
	assert_eq "$(json "$ps" 'd["deploy"]["arch"]')" x86_64
	assert_eq "$(json "$ps" 'd["deploy"]["onbox_source"]')" uploaded
	assert_eq "$(json "$ps" 'd["deploy"]["onbox_path"]')" "$T/work/.watchkeeper/bin/onbox"
	assert_eq "$(json "$ps" 'd["deploy"]["tmux_missing"]')" false
	# A re-deploy sends nothing: each file unchanged, same inode and mtime on the box.
	stamps >"$T/s1"
	patrol deploy >"$T/d2" 2>&1
	assert_grep '^onbox: unchanged \(.*/bin/onbox\): onbox ' "$T/d2"
	assert_grep '^config: unchanged ' "$T/d2"
	assert_grep '^profile: unchanged ' "$T/d2"
	assert_no_grep 'uploaded' "$T/d2"
	assert_eq "$(grep -c '^onbox: ' "$T/d2")" 1
	stamps >"$T/s2"
	cmp "$T/s1" "$T/s2"
	# A config change re-sends the config only.
	sed -i 's/"heartbeat_s": 1,/"heartbeat_s": 2,/' "$T/wk.json"
	patrol deploy >"$T/d3" 2>&1
	assert_grep '^config: uploaded the config to .* \(changed\)$' "$T/d3"
	assert_grep '^onbox: unchanged ' "$T/d3"
	assert_grep '^profile: unchanged ' "$T/d3"
	cmp "$T/wk.json" "$T/work/.watchkeeper/watchkeeper.json"
	stamps >"$T/s3"
	assert_eq "$(grep -v watchkeeper.json "$T/s3")" "$(grep -v watchkeeper.json "$T/s1")"
	assert_no_grep "$(grep watchkeeper.json "$T/s1")" "$T/s3"
}

# The box's own onbox of this version (on its PATH) is used, nothing is uploaded
# for it; its --version says the box has no way to HTTP(S) (line 2
# of onbox --version; here a wrapper around
# this build's onbox says it): deploy and the handbook warn.
test_box_own_onbox_on_path() {
	box
	rm -f "$T/sshd/bin/onbox"
	cat >"$T/sshd/bin/onbox" <<SH
#!/bin/sh
if [ "\$1" = --version ]; then
	echo "onbox $(<"$TOP/VERSION")"
	echo "http: none (no libcurl, no curl command); events stay in the outbox"
	exit 0
fi
exec "$ONBOX" "\$@"
SH
	chmod +x "$T/sshd/bin/onbox"
	export WATCHKEEPER_ONBOX_DIR="$T/none"
	dconf '' '[{"stage": "train", "run": "true"}]'
	patrol deploy >"$T/d1" 2>"$T/d1.err"
	assert_grep "^onbox: the box's own $T/sshd/bin/onbox: onbox " "$T/d1"
	assert_grep '^  http: none \(no libcurl, no curl command\); events stay in the outbox$' "$T/d1"
	assert_grep "the box cannot deliver webhooks .*keeps every event in $T/work/.watchkeeper/outbox" "$T/d1.err"
	assert_no_file "$T/work/.watchkeeper/bin/onbox"
	assert_grep 'started run t1' "$T/d1"
	wait_for 20 onbox_gone "$W"
	ps="$T/state/watchkeeper/t1/patrol.json"
	assert_eq "$(json "$ps" 'd["deploy"]["onbox_source"]')" box
	assert_eq "$(json "$ps" 'd["deploy"]["onbox_path"]')" "$T/sshd/bin/onbox"
	patrol --once >/dev/null 2>&1
	assert_grep 'Webhooks from the box: `http: none .*the box cannot deliver webhooks' "$T/state/watchkeeper/t1/HANDBOOK.md"
	# A stale bin/onbox of another version is moved aside, so the PATH's one runs the run.
	mkdir -p "$T/work/.watchkeeper/bin"
	printf '#!/bin/sh\necho "onbox 0.0.1"\n' >"$T/work/.watchkeeper/bin/onbox"
	chmod +x "$T/work/.watchkeeper/bin/onbox"
	patrol deploy >"$T/d2" 2>&1
	assert_grep "^onbox: moved the box's $T/work/.watchkeeper/bin/onbox \(\"onbox 0.0.1\"\) aside" "$T/d2"
	assert_no_file "$T/work/.watchkeeper/bin/onbox"
	assert_file "$T/work/.watchkeeper/bin/onbox.old"
}

# uname -m says arm64 (macOS-style naming on some aarch64 images): the aarch64
# build is picked.  (A copy of this machine's onbox stands in for it, so it runs.)
test_arm64_is_aarch64() {
	box
	rm -f "$T/sshd/bin/onbox"
	mkdir -p "$T/portable"
	cp "$ONBOX" "$T/portable/onbox-aarch64-linux"
	export WATCHKEEPER_ONBOX_DIR="$T/portable"
	printf '#!/bin/sh\necho arm64\n' >"$T/sshd/bin/uname"
	chmod +x "$T/sshd/bin/uname"
	dconf '' '[{"stage": "train", "run": "true"}]'
	patrol deploy --no-start >"$T/d1" 2>&1
	assert_grep '^box: aarch64$' "$T/d1"
	assert_grep "^onbox: uploaded $T/portable/onbox-aarch64-linux to " "$T/d1"
	assert_no_grep 'started' "$T/d1"
	assert_no_file "$W/state.json"
}

# An onbox that does not run on the box (here: exits 9 on --version) is removed
# again, and neither the config nor a start follows.
test_onbox_that_does_not_run_is_removed() {
	bare_box
	dconf '' '[{"stage": "train", "run": "true"}]'
	printf '#!/bin/sh\necho "GLIBC_2.34 not found" >&2\nexit 9\n' >"$T/bad-onbox"
	chmod +x "$T/bad-onbox"
	rc=0; patrol deploy --onbox "$T/bad-onbox" >"$T/d1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep "$T/bad-onbox does not run on the box \(exit 9\): GLIBC_2.34 not found" "$T/d1"
	assert_grep 'it was removed again' "$T/d1"
	assert_no_file "$W/bin/onbox"
	assert_no_file "$W/bin/onbox.new"
	assert_no_file "$W/watchkeeper.json"
	assert_no_file "$W/state.json"
}

# A box without sha256sum: the config cannot be compared, so it is sent again;
# the onbox deploy sent first is of this version, so it is kept.
test_no_sha256sum_resends() {
	mkdir -p "$T/sshd/bin"
	path_without "$T/sysbin" sha256sum
	SSHD_PATH="$T/sshd/bin:$T/sysbin" bare_box
	dconf '' '[{"stage": "train", "run": "true"}]'
	patrol deploy --no-start >"$T/d1" 2>&1
	patrol deploy --no-start >"$T/d2" 2>&1
	assert_grep '^onbox: uploaded ' "$T/d1"
	assert_grep "^onbox: the box's own $T/work/.watchkeeper/bin/onbox: onbox " "$T/d2"
	assert_grep '^config: uploaded the config to ' "$T/d2"
	assert_no_grep 'unchanged' "$T/d2"
}

# Every refusal comes before anything is sent: the box's workdir stays as it was.
test_refusals_upload_nothing() {
	bare_box
	dconf '' '[{"stage": "train", "run": "true"}]'
	# An architecture with no portable build.
	printf '#!/bin/sh\necho riscv64\n' >"$T/sshd/bin/uname"
	chmod +x "$T/sshd/bin/uname"
	rc=0; patrol deploy >"$T/d1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep 'the box is riscv64: watchkeeper builds a portable onbox for x86_64 and aarch64 only' "$T/d1"
	assert_grep "looked at $T/portable/onbox-riscv64-linux" "$T/d1"
	assert_grep 'Nothing was uploaded' "$T/d1"
	assert_eq "$(ls -A "$T/work")" ""
	rm "$T/sshd/bin/uname"
	# An onbox of another version on the box, and no portable build.
	printf '#!/bin/sh\necho "onbox 0.0.1"\n' >"$T/sshd/bin/onbox"
	chmod +x "$T/sshd/bin/onbox"
	rc=0; WATCHKEEPER_ONBOX_DIR="$T/none" patrol deploy >"$T/d2" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep "the box's onbox \($T/sshd/bin/onbox: \"onbox 0.0.1\"\) is not onbox $(<"$TOP/VERSION")" "$T/d2"
	assert_grep 'make onbox-portable' "$T/d2"
	assert_eq "$(ls -A "$T/work")" ""
	rm "$T/sshd/bin/onbox"
	# A workdir that cannot be created (a file where a directory should be).
	: >"$T/afile"
	sed -i "s|\"workdir\": \"$T/work\"|\"workdir\": \"$T/afile/work\"|" "$T/wk.json"
	rc=0; HOME="$T/afile" patrol deploy >"$T/d3" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep "cannot create $T/afile/work on the box: $T/afile is not a directory" "$T/d3"
	# under this machine's $HOME: the hint that "~" is expanded here, not on the box
	assert_grep "it is under THIS machine's \\\$HOME, $T/afile: \"~\" in the config is expanded here" "$T/d3"
	assert_eq "$(stat -c %s "$T/afile")" 0
	# An alive run: refused (75), nothing of the deploy's lands.
	sed -i "s|\"workdir\": \"$T/afile/work\"|\"workdir\": \"$T/work\"|" "$T/wk.json"
	waiting_stage
	dconf '' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	bg_onbox run
	wait_for 10 test -f "$T/launch.train"
	rc=0; patrol deploy >"$T/d4" 2>&1 || rc=$?
	assert_eq "$rc" 75
	assert_grep 'alive on the box .*nothing was uploaded' "$T/d4"
	assert_no_file "$W/watchkeeper.json"
	assert_no_file "$W/bin"
	assert_eq "$(launches)" 1
	touch "$T/go"
	wait "$LAST_PID"
}

# tmux missing on the box while detach is tmux: nohup, said once, never called dead.
test_tmux_missing_falls_back_to_nohup() {
	# A remote PATH with everything of /usr/bin and /bin but tmux.
	mkdir -p "$T/sshd/bin"
	path_without "$T/sysbin" tmux
	SSHD_PATH="$T/sshd/bin:$T/sysbin" bare_box
	waiting_stage
	dconf '' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	sed -i 's/"detach": "nohup",/"detach": "tmux", "session": "wk-t1",/' "$T/wk.json"
	patrol deploy >"$T/d1" 2>&1
	assert_eq "$(grep -c 'tmux is not on the PATH' "$T/d1")" 1 "said once"
	assert_grep 'starting run t1 with nohup instead' "$T/d1"
	assert_grep 'started run t1 with nohup' "$T/d1"
	wait_for 10 test -f "$T/launch.train"
	echo "$(json "$W/state.json" 'd["onbox_pid"]')" >>"$T/.pids"
	# No tmux session, yet alive: patrol says OK, not a dead run.
	rc=0; patrol --once >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep ' t1 OK ' "$T/p1"
	assert_eq "$(json "$T/state/watchkeeper/t1/patrol.json" 'd["deploy"]["tmux_missing"]')" true
	assert_grep "tmux is not on the box's PATH: onbox runs the chain with nohup" "$T/state/watchkeeper/t1/HANDBOOK.md"
	touch "$T/go"
	wait_for 20 onbox_gone "$W"
	rc=0; patrol --once >"$T/p2" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep ' t1 DONE' "$T/p2"
	assert_eq "$(launches)" 1
}

# onbox start by hand with no tmux on the PATH: nohup, said on stdout.
test_onbox_start_without_tmux() {
	path_without "$T/nobin" tmux
	waiting_stage
	conf '' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	sed -i 's/"detach": "nohup",/"detach": "tmux", "session": "wk-t1",/' "$T/wk.json"
	PATH="$T/nobin" onbox start >"$T/s" 2>"$T/s.err"
	assert_grep '^tmux is not on the PATH: starting run t1 with nohup instead' "$T/s"
	assert_grep "started run t1 with nohup \(onbox pid [0-9]+\)" "$T/s"
	echo "$(json "$W/state.json" 'd["onbox_pid"]')" >>"$T/.pids"
	wait_for 10 test -f "$T/launch.train"
	touch "$T/go"
	wait_for 20 onbox_gone "$W"
	assert_file "$W/markers/TRAIN_DONE"
}

# A workdir with a space, every remote script run by dash (sh on the remote PATH
# is dash, and keeps a copy of each script it ran), then the probe run with
# `dash -s` explicitly.
test_workdir_with_space_under_dash() {
	command -v dash >/dev/null || { echo "SKIP workdir_with_space_under_dash: no dash"; return 0; }
	bare_box
	mkdir -p "$T/scripts"
	cat >"$T/sshd/bin/sh" <<SH
#!$(command -v dash)
f=\$(mktemp "$T/scripts/sh.XXXXXX")
tee "\$f" | $(command -v dash) "\$@"
SH
	chmod +x "$T/sshd/bin/sh"
	# Every optional part of the probe: a stage log, checkpoints, results, a transfer.
	dconf '"profile": "generic", "results": "res file.csv", "checkpoints": {"dir": "ck pt", "pattern": "^step_(\\d+)$"}, "transfer": {"remote": "ck pt"},' \
		'[{"stage": "train", "run": "mkdir -p \"ck pt/step_1\"; echo step 1/1 | tee train.log", "log": "train.log"}, {"stage": "eval", "run": "echo evaluated > \"out file.txt\"; echo acc,1 > \"res file.csv\""}]'
	sed -i "s|\"workdir\": \"$T/work\"|\"workdir\": \"$T/my work\"|" "$T/wk.json"
	patrol deploy >"$T/d1" 2>&1
	assert_grep 'started run t1' "$T/d1"
	assert_file "$T/my work/.watchkeeper/bin/onbox"
	assert_file "$T/my work/.watchkeeper/watchkeeper.json"
	wait_for 20 onbox_gone "$T/my work/.watchkeeper"
	assert_eq "$(<"$T/my work/out file.txt")" evaluated
	rc=0; patrol --once >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 0
	assert_grep ' t1 DONE' "$T/p1"
	# Every script the box ran went through dash and parses there.
	n=0
	for f in "$T"/scripts/sh.*; do
		dash -n "$f" || fail "dash -n rejects $f"
		n=$((n + 1))
	done
	[ "$n" -ge 5 ] || fail "only $n scripts went through the remote sh"
	probe=$(grep -l '^# watchkeeper probe' "$T"/scripts/sh.* | head -n 1)
	[ -n "$probe" ] || fail "no probe script was captured"
	dash -s <"$probe" >"$T/probe.out" 2>"$T/probe.err"
	assert_eq "$(tail -n 1 "$T/probe.out")" "@end"
	assert_grep '^\|TRAIN_DONE$' "$T/probe.out"
	for sec in '@log train' '@ckpt' '@results' '@transfer' '@df' '@end'; do
		assert_grep "^$sec" "$T/probe.out"
	done
	assert_grep '^\|acc,1$' "$T/probe.out"
	assert_eq "$(<"$T/probe.err")" ""
}

# The launch gate over ssh (core/gate.c): a hero run's dirty tree on the box
# is refused by `deploy --check` and by `deploy` before anything is uploaded;
# --allow-dirty starts it, and the logbook keeps the contract and the diff's sha256.
test_gate_over_ssh() {
	bare_box
	G() { git -C "$T/work" -c user.email=t@example.com -c user.name=t -c commit.gpgsign=false "$@"; }
	mkdir -p "$T/work"
	G init -q
	echo v1 >"$T/work/train.py"
	G add train.py
	G commit -q -m v1
	echo v2 >"$T/work/train.py"
	dconf '"hero": true, "output_root": "out", "progress": {"pattern": "step (\\d+)", "max": 1},' \
		'[{"stage": "train", "run": "echo step 1 HF_TOKEN=hf0123456789abcdef"}]'
	rc=0; patrol deploy --check >"$T/d1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep '^launch contract of run t1 \(a hero run\)$' "$T/d1"
	assert_grep '^  stage train: echo step 1 HF_TOKEN=\*\*\*$' "$T/d1"
	assert_grep "^REFUSED: the code in $T/work has uncommitted changes to 1 tracked file" "$T/d1"
	assert_grep "would not start run t1" "$T/d1"
	assert_no_file "$T/work/.watchkeeper"
	rc=0; patrol deploy >"$T/d2" 2>&1 || rc=$?
	assert_eq "$rc" 1
	assert_grep 'the launch gate refuses run t1 \(see above\). Nothing was uploaded' "$T/d2"
	assert_no_file "$T/work/.watchkeeper"
	# --check with --allow-dirty makes no sense: usage.
	rc=0; patrol deploy --check --allow-dirty >"$T/d3" 2>&1 || rc=$?
	assert_eq "$rc" 64
	sha=$(G diff HEAD --binary | sha256sum | cut -c1-64)
	patrol deploy --allow-dirty >"$T/d4" 2>&1
	assert_grep 'launched anyway: --allow-dirty' "$T/d4"
	assert_grep 'launch gate: passed \(git [0-9a-f]{40} dirty, --allow-dirty\)' "$T/d4"
	assert_grep 'started run t1' "$T/d4"
	wait_for 20 onbox_gone "$W"
	assert_eq "$(json "$W/gate.json" 'd["approved_diff_sha256"]')" "$sha"
	rc=0; patrol --once >"$T/tick" 2>&1 || rc=$?
	lb="$T/state/watchkeeper/t1/LOGBOOK.md"
	assert_grep "uncommitted changes to tracked files \(allowed: --allow-dirty, diff sha256 $sha\)" "$lb"
	assert_grep 'LAUNCH CONTRACT of train \(attempt 1\): checked, passed' "$lb"
	assert_grep '^ *output_root: +'"$T"'/work/out' "$lb"
	assert_no_grep 'hf0123456789' "$lb"
}

t no_flags_portable_then_unchanged test_no_flags_portable_then_unchanged
t box_own_onbox_on_path test_box_own_onbox_on_path
t arm64_is_aarch64 test_arm64_is_aarch64
t no_sha256sum_resends test_no_sha256sum_resends
t onbox_that_does_not_run_is_removed test_onbox_that_does_not_run_is_removed
t refusals_upload_nothing test_refusals_upload_nothing
t tmux_missing_falls_back_to_nohup test_tmux_missing_falls_back_to_nohup
t onbox_start_without_tmux test_onbox_start_without_tmux
t workdir_with_space_under_dash test_workdir_with_space_under_dash
t gate_over_ssh test_gate_over_ssh
