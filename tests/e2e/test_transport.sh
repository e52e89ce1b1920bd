#!/usr/bin/env bash
# End-to-end tests of "transport": "auto" (the default): the real patrol
# against the suite's sshd.  An RSA user key or a ProxyJump host goes to the
# system ssh (said once in report.log, and in the handbook); an ed25519 host
# stays on libssh2 (the sshd log names the client's software); verdicts and
# failure classes are those of the other transports; an explicit libssh2
# with an RSA key still gives its clear error; without a system ssh, auto
# falls back to libssh2 and says why.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
PATROL="$TOP/$BUILD/patrol"
SENTINEL="$TOP/$BUILD/sentinel"

patrol() { $ONBOX_WRAP "$PATROL" -c "$T/wk.json" "$@"; }
REPORT() { echo "$T/state/watchkeeper/t1/report.log"; }
PSTATE() { echo "$T/state/watchkeeper/t1/patrol.json"; }
HANDBOOK() { echo "$T/state/watchkeeper/t1/HANDBOOK.md"; }

transport_lines() { grep -cE '^[0-9TZ:-]+ t1 transport ' "$(REPORT)" || true; }

# The sshd logs each client's software (LogLevel DEBUG1: "remote software version ...").
debug_box() { SSHD_EXTRA_CONFIG="LogLevel DEBUG1" box; }
clients() { grep -oE 'remote software version [^ ,]+' "$T/sshd/sshd.log" | sed 's/.*version //' | sort | uniq -c; }

# A stage that prints progress, then waits for $T/go and completes.
waiting_stage() {
	mkdir -p "$T/bin"
	cat >"$T/bin/train.sh" <<SH
#!/bin/sh
i=1; while [ \$i -le 3 ]; do echo "step \$i/10"; i=\$((i+1)); done
"$AWAIT" 30 "$T/go" || :
echo "Training completed"
SH
	chmod +x "$T/bin/train.sh"
}

# pconf EXTRA CHAIN [HOST]: the run's config, box.transport left to its default.
pconf() {
	conf "\"box\": {\"host\": \"${3:-box}\", \"ssh_config\": \"$SSH_CFG\", \"config\": \"$T/wk.json\", \"connect_timeout_s\": 5}, $1" "$2"
}

# An id_rsa user, auto: OK then DONE through the system ssh, said once.
test_rsa_user_auto() {
	SSHD_CLIENT_KEY_TYPE=rsa debug_box
	waiting_stage
	pconf '"progress": {"pattern": "step (\\d+)/(\\d+)", "max": 10},' \
		"[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\", \"done_when\": \"Training completed\"}]"
	bg_onbox run
	wait_for 10 grep -q '~3/10' "$W/state.json"
	rc=0; patrol >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 0
	line_ok OK "$T/p1"
	assert_grep 'train attempt 1 ~3/10' "$T/p1"
	touch "$T/go"
	wait "$LAST_PID"
	rc=0; patrol >"$T/p2" 2>&1 || rc=$?
	assert_eq "$rc" 0
	line_ok DONE "$T/p2"
	rc=0; patrol >"$T/p3" 2>&1 || rc=$?
	assert_eq "$rc" 0
	# Three ticks, one line saying which transport and why.
	assert_eq "$(transport_lines)" 1
	assert_grep "^[0-9TZ:-]+ t1 transport openssh: RSA key $T/sshd/id_rsa \(libssh2 1.10 cannot sign rsa-sha2\)$" "$(REPORT)"
	assert_eq "$(grep -c ' t1 \(OK\|DONE\) ' "$(REPORT)")" 3
	assert_eq "$(json "$(PSTATE)" 'd["transport"]')" "openssh: RSA key $T/sshd/id_rsa (libssh2 1.10 cannot sign rsa-sha2)"
	assert_grep "SSH transport: \`openssh: RSA key $T/sshd/id_rsa" "$(HANDBOOK)"
	assert_grep '\(`box.transport` auto\)' "$(HANDBOOK)"
	# Only the system ssh connected; no tick reached SSH_DOWN.
	clients >"$T/clients"
	assert_grep 'OpenSSH' "$T/clients"
	assert_no_grep 'libssh2' "$T/clients"
	assert_no_grep 'SSH_DOWN' "$(REPORT)"
	# handbook (the program) says the same without a tick.
	"$TOP/$BUILD/handbook" -c "$T/wk.json" -o - >"$T/hb.md"
	assert_grep "SSH transport: \`openssh: RSA key $T/sshd/id_rsa" "$T/hb.md"
}

# Failure classes under auto are those of both explicit transports.
test_rsa_verdicts_agree() {
	SSHD_CLIENT_KEY_TYPE=rsa box
	pconf '' '[{"stage": "train", "run": "true"}]'
	cp "$T/sshd/known_hosts" "$T/kh.orig"
	ssh-keygen -q -t ed25519 -N '' -f "$T/other" >/dev/null
	echo "[127.0.0.1]:$SSHD_PORT $(cut -d' ' -f1,2 "$T/other.pub")" >"$T/sshd/known_hosts"
	for tr in auto openssh libssh2; do
		sed -i -E "s/\"box\": \{(\"transport\": \"[a-z0-9]+\", )?/\"box\": {\"transport\": \"$tr\", /" "$T/wk.json"
		rc=0; patrol --json >"$T/hk.$tr" 2>/dev/null || rc=$?
		assert_eq "$rc" 2 "$tr"
		assert_eq "$(json "$T/hk.$tr" 'd["verdict"]')" HOSTKEY_MISMATCH "$tr"
	done
	assert_eq "$(cmp "$T/sshd/known_hosts" - <<<"[127.0.0.1]:$SSHD_PORT $(cut -d' ' -f1,2 "$T/other.pub")" && echo same)" same
	cp "$T/kh.orig" "$T/sshd/known_hosts"
	# The key refused by the server: SSH_DOWN (auth) with auto and openssh alike.
	: >"$T/sshd/authorized_keys"
	for tr in auto openssh; do
		sed -i -E "s/\"transport\": \"[a-z0-9]+\"/\"transport\": \"$tr\"/" "$T/wk.json"
		rc=0; patrol --json >"$T/auth.$tr" 2>/dev/null || rc=$?
		assert_eq "$rc" 2 "$tr"
		assert_eq "$(json "$T/auth.$tr" 'd["verdict"]')" SSH_DOWN "$tr"
		assert_grep '"details": *"auth' "$T/auth.$tr"
	done
	# A port with nothing listening: the same connect failure from all three.
	sshd_stop
	for tr in auto openssh libssh2; do
		sed -i -E "s/\"transport\": \"[a-z0-9]+\"/\"transport\": \"$tr\"/" "$T/wk.json"
		rc=0; patrol --json >"$T/down.$tr" 2>/dev/null || rc=$?
		assert_eq "$rc" 2 "$tr"
		assert_grep '"details": *"connect' "$T/down.$tr"
	done
}

# An explicit libssh2 with an RSA key: today's clear error, every tick; no transport line.
test_explicit_libssh2_rsa() {
	SSHD_CLIENT_KEY_TYPE=rsa box
	pconf '' '[{"stage": "train", "run": "true"}]'
	sed -i 's/"box": {/"box": {"transport": "libssh2", /' "$T/wk.json"
	rc=0; patrol >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 2
	line_ok SSH_DOWN "$T/p1"
	assert_grep 'rsa-sha2' "$T/p1"
	assert_grep 'ssh-keygen -t ed25519' "$T/p1"
	assert_grep '"transport": "openssh"' "$T/p1"
	assert_eq "$(transport_lines)" 0
	assert_eq "$(json "$(PSTATE)" 'd["transport"]')" "libssh2: set by box.transport"
	assert_grep 'SSH transport: `libssh2: set by box.transport`' "$(HANDBOOK)"
}

# ProxyJump through the same sshd to itself: auto takes the system ssh.
test_proxyjump_auto() {
	box
	mkdir -p "$T/work"
	sed -n '/^Host box/,$p' "$SSH_CFG" | sed -e 's/^Host box$/Host jumped/' >"$T/jumped"
	printf '\tProxyJump box\n' >>"$T/jumped"
	cat "$T/jumped" >>"$SSH_CFG"
	pconf '"results": "metrics.csv",' "[{\"stage\": \"train\", \"run\": \"echo acc,0.5 > metrics.csv\"}]" jumped
	onbox run >/dev/null 2>&1
	before=$(sshd_accepted_count)
	rc=0; patrol >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 0
	line_ok DONE "$T/p1"
	assert_grep '^acc,0.5$' "$T/p1"
	# Two connections: the hop and the box behind it.
	assert_eq "$(( $(sshd_accepted_count) - before ))" 2
	assert_grep '^[0-9TZ:-]+ t1 transport openssh: ProxyJump box$' "$(REPORT)"
	patrol >/dev/null 2>&1 || true
	assert_eq "$(transport_lines)" 1
	assert_grep 'SSH transport: `openssh: ProxyJump box`' "$(HANDBOOK)"
	# sentinel goes the same way and says so.
	rc=0; $ONBOX_WRAP "$SENTINEL" -c "$T/wk.json" --marker TRAIN_DONE --max-ticks 1 --json \
		>"$T/s.json" 2>"$T/s.err" || rc=$?
	assert_eq "$rc" 0
	assert_eq "$(json "$T/s.json" 'd["outcome"]')" found
	assert_grep '^sentinel: transport openssh: ProxyJump box$' "$T/s.err"
}

# An ed25519 host stays on libssh2: nothing said in the report log; the sshd saw libssh2.
test_ed25519_stays_libssh2() {
	debug_box
	waiting_stage
	pconf '' "[{\"stage\": \"train\", \"run\": \"$T/bin/train.sh\"}]"
	bg_onbox run
	wait_for 10 grep -q 'attempt' "$W/state.json"
	rc=0; patrol >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 0
	line_ok OK "$T/p1"
	clients >"$T/clients"
	assert_grep 'libssh2' "$T/clients"
	assert_no_grep 'OpenSSH' "$T/clients"
	assert_eq "$(transport_lines)" 0
	assert_eq "$(json "$(PSTATE)" 'd["transport"]')" "libssh2: nothing in the ssh config or keys needs the system ssh"
	assert_grep 'SSH transport: `libssh2: nothing in the ssh config or keys needs the system ssh`' "$(HANDBOOK)"
	# The choice changes (a ProxyCommand appears): said once, when it changes.
	printf '\tProxyCommand ssh -F %s -o ProxyCommand=none -W %%h:%%p box\n' "$SSH_CFG" >>"$SSH_CFG"
	rc=0; patrol >"$T/p2" 2>&1 || rc=$?
	assert_eq "$rc" 0
	line_ok OK "$T/p2"
	assert_eq "$(transport_lines)" 1
	assert_grep '^[0-9TZ:-]+ t1 transport openssh: ProxyCommand ssh$' "$(REPORT)"
	touch "$T/go"
	wait "$LAST_PID"
}

# No key file, an ssh-agent holding only an RSA key: the system ssh, which signs rsa-sha2 with it.
test_agent_only_rsa() {
	SSHD_CLIENT_KEY_TYPE=rsa box
	sed -i -e '/IdentityFile/d' -e '/IdentitiesOnly/d' "$SSH_CFG"
	mkdir -p "$T/home"
	export HOME="$T/home"	# no ~/.ssh/id_* of this machine's user in the way
	eval "$(ssh-agent -s -a "$T/agent.sock")" >/dev/null
	echo "$SSH_AGENT_PID" >>"$T/.pids"
	sshd_at_exit "kill $SSH_AGENT_PID"
	ssh-add -q "$SSHD_CLIENT_KEY" 2>/dev/null
	pconf '' '[{"stage": "train", "run": "true"}]'
	rc=0; patrol >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 1
	line_ok NEEDS_RESUME "$T/p1"
	assert_grep '^[0-9TZ:-]+ t1 transport openssh: ssh-agent holds only RSA keys \(libssh2 1.10 cannot sign rsa-sha2\)$' "$(REPORT)"
	# The explicit libssh2 offers the same agent key and is refused, as it says.
	sed -i 's/"box": {/"box": {"transport": "libssh2", /' "$T/wk.json"
	rc=0; patrol >"$T/p2" 2>&1 || rc=$?
	assert_eq "$rc" 2
	line_ok SSH_DOWN "$T/p2"
	assert_grep 'ssh-agent ssh-rsa key' "$T/p2"
}

# No system ssh on PATH: auto stays on libssh2 and the errors say what is missing.
test_no_system_ssh() {
	SSHD_CLIENT_KEY_TYPE=rsa box
	pconf '' '[{"stage": "train", "run": "true"}]'
	# Under make memcheck patrol runs inside valgrind: that one program joins the PATH without ssh.
	# (Debian's valgrind is a script that runs the valgrind.bin beside it.)
	if [ -n "$ONBOX_WRAP" ]; then
		w=$(command -v "${ONBOX_WRAP%% *}")
		ln -sf "$w" "$T/fakebin/"
		[ ! -e "$w.bin" ] || ln -sf "$w.bin" "$T/fakebin/"
	fi
	rc=0; PATH="$T/fakebin" patrol >"$T/p1" 2>&1 || rc=$?
	assert_eq "$rc" 2
	line_ok SSH_DOWN "$T/p1"
	assert_grep 'rsa-sha2' "$T/p1"
	assert_grep 'install the OpenSSH client \(ssh\), which "transport": "auto" then uses' "$T/p1"
	assert_grep "^[0-9TZ:-]+ t1 transport libssh2: RSA key $T/sshd/id_rsa \(libssh2 1.10 cannot sign rsa-sha2\) needs the system ssh, which is not installed \(no ssh on PATH\)$" "$(REPORT)"
	# With ssh back, the change is said once more, and the box is seen (never started).
	rc=0; patrol >"$T/p2" 2>&1 || rc=$?
	assert_eq "$rc" 1
	line_ok NEEDS_RESUME "$T/p2"
	assert_eq "$(transport_lines)" 2
	# A ProxyJump host without ssh: refused before connecting, naming the fix.
	printf 'Host jumped\n\tHostName 127.0.0.1\n\tProxyJump box\n' >>"$SSH_CFG"
	sed -i 's/"host": "box"/"host": "jumped"/' "$T/wk.json"
	rc=0; PATH="$T/fakebin" patrol >"$T/p3" 2>&1 || rc=$?
	assert_eq "$rc" 2
	line_ok SSH_DOWN "$T/p3"
	assert_grep 'jumped uses ProxyJump, which the libssh2 transport cannot do, and the system ssh client that "transport": "auto" uses for it is not installed' "$T/p3"
}

t rsa_user_auto test_rsa_user_auto
t rsa_verdicts_agree test_rsa_verdicts_agree
t explicit_libssh2_rsa test_explicit_libssh2_rsa
t proxyjump_auto test_proxyjump_auto
t ed25519_stays_libssh2 test_ed25519_stays_libssh2
t agent_only_rsa test_agent_only_rsa
t no_system_ssh test_no_system_ssh
