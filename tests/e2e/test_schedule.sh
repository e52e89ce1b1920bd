#!/usr/bin/env bash
# patrol --install-schedule / --uninstall-schedule (aliases --install-cron,
# --uninstall-cron) and --scheduler: patrol's ticks in cron, a systemd user
# timer or a launchd agent (core/scheduler.c, patrol/schedule.c).
#
# systemd here is real where it can be: this machine has no cron, and
# systemd installed with no user manager running, so the first test runs
# patrol against the real systemctl and checks the units with the real
# `systemd-analyze verify`.  A desktop whose manager answers, and macOS's
# launchctl, are stand-ins on PATH that record their arguments
# (fixtures/fake-systemctl, fixtures/fake-launchctl: their headers say what
# they mirror and why they are needed).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"

FIX=$TOP/tests/e2e/fixtures
UNITS="home/.config/systemd/user"
PATROL="$TOP/$BUILD/patrol"
HANDBOOK="$TOP/$BUILD/handbook"
patrol() { $ONBOX_WRAP "$PATROL" -c "$T/wk.json" "$@"; }
handbook() { $ONBOX_WRAP "$HANDBOOK" -c "$T/wk.json" "$@"; }
HB() { echo "$T/state/watchkeeper/t1/HANDBOOK.md"; }

# sched_box: the run's config over the suite's sshd; no crontab on PATH (the
# box's stand-in removed: this machine has none), stand-ins in $T/sbin.
sched_box() {
	box
	rm -f "$T/fakebin/crontab"
	mkdir -p "$T/sbin"
	pconf '' '[{"stage": "train", "run": "true"}]'
}

# with_fake NAME: the stand-in for NAME first on PATH
with_fake() {
	ln -sf "$FIX/fake-$1" "$T/sbin/$1"
	export PATH="$T/sbin:$PATH" FAKE_SYSTEMCTL_LOG="$T/systemctl.log" FAKE_LAUNCHCTL_LOG="$T/launchctl.log"
}

# The cron-less machine as it is: detection picks systemd, the real systemctl
# cannot reach a user manager, so patrol enables the timer itself.
test_systemd_here() {
	sched_box
	rc=0; patrol --install-schedule >"$T/i1" 2>&1 || rc=$?
	cat "$T/i1"
	assert_eq "$rc" 0
	assert_grep '^installed patrol for run t1 as a systemd user timer: 3,33 \* \* \* \* \(output: .*/t1/cron.log\)$' "$T/i1"
	assert_grep "did not answer .systemctl --user., so the timer is enabled and starts with it" "$T/i1"
	assert_grep "^remove it with: .*/patrol -c $T/wk.json --uninstall-schedule$" "$T/i1"
	timer="$T/$UNITS/watchkeeper-t1.timer" service="$T/$UNITS/watchkeeper-t1.service"
	assert_grep '^OnCalendar=\*-\*-\* \*:03,33:00$' "$timer"
	assert_grep '^Persistent=true$' "$timer"
	assert_grep '^WantedBy=timers.target$' "$timer"
	assert_grep "^ExecStart=\"$PATROL\" -c \"$T/wk.json\" --once$" "$service"
	assert_grep "^StandardOutput=append:$T/state/watchkeeper/t1/cron.log$" "$service"
	assert_eq "$(readlink "$T/$UNITS/timers.target.wants/watchkeeper-t1.timer")" "$timer"
	# The real systemd accepts both units.
	rc=0; systemd-analyze verify "$timer" "$service" >"$T/verify" 2>&1 || rc=$?
	assert_eq "$rc" 0 "$(<"$T/verify")"
	# The handbook says it is installed (not only a crontab line counts).
	handbook >/dev/null
	assert_grep '^Installed: yes\.$' "$(HB)"
	# Again: updated, still one of each.
	patrol --install-cron >"$T/i2" 2>&1
	assert_grep '^updated patrol for run t1 as a systemd user timer' "$T/i2"
	assert_eq "$(ls "$T/$UNITS" | grep -c watchkeeper-t1)" 2
	rc=0; patrol --uninstall-schedule >"$T/u1" 2>&1 || rc=$?
	assert_eq "$rc" 0 "$(<"$T/u1")"
	assert_grep '^removed this run.s patrol from the systemd user timer$' "$T/u1"
	assert_no_file "$timer"
	assert_no_file "$service"
	[ ! -L "$T/$UNITS/timers.target.wants/watchkeeper-t1.timer" ] || fail "the wants link stayed"
	patrol --uninstall-cron >"$T/u2" 2>&1
	assert_grep '^no patrol for this run in ' "$T/u2"
}

# A desktop whose user manager answers: patrol tells it, and asks it again to forget.
test_systemd_manager() {
	sched_box
	with_fake systemctl
	rc=0; patrol --install-schedule --scheduler systemd >"$T/i1" 2>&1 || rc=$?
	cat "$T/i1"
	assert_eq "$rc" 0
	assert_grep "^units: $T/$UNITS/watchkeeper-t1.timer, $T/$UNITS/watchkeeper-t1.service " "$T/i1"
	assert_eq "$(<"$T/systemctl.log")" "--user daemon-reload
--user enable --now watchkeeper-t1.timer"
	[ -L "$T/$UNITS/timers.target.wants/watchkeeper-t1.timer" ] || fail "not enabled"
	: >"$T/systemctl.log"
	patrol --uninstall-schedule --scheduler systemd >"$T/u1" 2>&1
	assert_eq "$(<"$T/systemctl.log")" "--user disable --now watchkeeper-t1.timer
--user daemon-reload"
	assert_no_file "$T/$UNITS/watchkeeper-t1.timer"
	[ ! -L "$T/$UNITS/timers.target.wants/watchkeeper-t1.timer" ] || fail "the wants link stayed"
}

# macOS: a launch agent with the calendar's minutes, loaded with launchctl bootstrap.
test_launchd() {
	sched_box
	with_fake launchctl
	rc=0; patrol --install-schedule --scheduler launchd >"$T/i1" 2>&1 || rc=$?
	cat "$T/i1"
	assert_eq "$rc" 0
	plist="$T/home/Library/LaunchAgents/watchkeeper.patrol.t1.plist"
	assert_grep "^agent: $plist \(label watchkeeper.patrol.t1\)$" "$T/i1"
	# A plist as plistlib (the format's reference reader) reads it.
	python3 - "$plist" "$PATROL" "$T/wk.json" "$T/state/watchkeeper/t1/cron.log" >"$T/plist.out" 2>&1 <<'PY' ||
import plistlib, sys
p = plistlib.load(open(sys.argv[1], "rb"))
assert p["Label"] == "watchkeeper.patrol.t1", p
assert p["ProgramArguments"] == [sys.argv[2], "-c", sys.argv[3], "--once"], p["ProgramArguments"]
assert p["StartCalendarInterval"] == [{"Minute": 3}, {"Minute": 33}], p["StartCalendarInterval"]
assert p["StandardOutPath"] == p["StandardErrorPath"] == sys.argv[4], p
print("ok")
PY
		fail "the plist: $(<"$T/plist.out")"
	assert_eq "$(<"$T/launchctl.log")" "bootstrap gui/$(id -u) $plist"
	# Installed again: the loaded agent is booted out first, then the new plist loaded.
	patrol --install-schedule --scheduler launchd >"$T/i2" 2>&1
	assert_grep '^updated patrol for run t1 as a launchd agent' "$T/i2"
	assert_eq "$(tail -n 2 "$T/launchctl.log")" "bootout gui/$(id -u)/watchkeeper.patrol.t1
bootstrap gui/$(id -u) $plist"
	handbook >/dev/null
	assert_grep '^Installed: yes\.$' "$(HB)"
	patrol --uninstall-schedule >"$T/u1" 2>&1
	assert_grep '^removed this run.s patrol from the launchd agent$' "$T/u1"
	assert_eq "$(tail -n 1 "$T/launchctl.log")" "bootout gui/$(id -u)/watchkeeper.patrol.t1"
	assert_no_file "$plist"
}

# One scheduler at a time: moving to another removes the entry in the first.
test_switch_and_errors() {
	box
	mkdir -p "$T/sbin"
	with_fake systemctl
	pconf '' '[{"stage": "train", "run": "true"}]'
	patrol --install-schedule >"$T/i1" 2>&1	# the box's stand-in crontab works: cron
	assert_grep '^installed patrol for run t1 in the crontab: ' "$T/i1"
	assert_grep 'watchkeeper:t1$' "$T/crontab.txt"
	patrol --install-schedule --scheduler systemd >"$T/i2" 2>&1
	assert_grep '^removed this run.s patrol from the crontab \(now in the systemd user timer\)$' "$T/i2"
	assert_no_grep 'watchkeeper:t1' "$T/crontab.txt"
	assert_file "$T/$UNITS/watchkeeper-t1.timer"
	rc=0; patrol --install-schedule --scheduler anacron >"$T/e1" 2>&1 || rc=$?
	assert_eq "$rc" 64
	assert_grep 'scheduler anacron: one of cron, systemd, launchd' "$T/e1"
	rc=0; patrol --scheduler systemd >"$T/e2" 2>&1 || rc=$?
	assert_eq "$rc" 64
	# A schedule systemd cannot say: a config error naming the key, nothing written.
	pconf '"patrol": {"schedule": "@reboot"},' '[{"stage": "train", "run": "true"}]'
	patrol --uninstall-schedule >/dev/null 2>&1
	rc=0; patrol --install-schedule --scheduler systemd >"$T/e3" 2>&1 || rc=$?
	assert_eq "$rc" 78
	assert_grep 'key "patrol.schedule": "@reboot" is not one of @hourly' "$T/e3"
	assert_no_file "$T/$UNITS/watchkeeper-t1.timer"
}

# DONE removes the timer as it removes a cron line.
test_done_removes_timer() {
	sched_box
	with_fake systemctl
	patrol --install-schedule --scheduler systemd >/dev/null 2>&1
	assert_file "$T/$UNITS/watchkeeper-t1.timer"
	onbox run >/dev/null 2>&1
	rc=0; patrol >"$T/p" 2>&1 || rc=$?
	assert_eq "$rc" 0 "$(<"$T/p")"
	line_ok DONE "$T/p"
	assert_grep 'run done: its systemd timer is removed' "$T/p"
	assert_no_file "$T/$UNITS/watchkeeper-t1.timer"
	assert_grep '^--user disable --now watchkeeper-t1.timer$' "$T/systemctl.log"
}

# The first test is about this machine: no cron, systemd installed.
if crontab -l >/dev/null 2>&1 || crontab -l 2>&1 | grep -q 'no crontab'; then
	echo "SKIP schedule_systemd_here: this machine has a working crontab, so detection picks cron"
elif ! command -v systemctl >/dev/null || ! command -v systemd-analyze >/dev/null; then
	echo "SKIP schedule_systemd_here: systemd is not installed here (apt-get install systemd)"
else
	t schedule_systemd_here test_systemd_here
fi
# A scheduled tick has no SSH_AUTH_SOCK (cron, a systemd timer): it finds the
# session's agent where desktops keep it ($XDG_RUNTIME_DIR/openssh_agent,
# Debian's ssh-agent service), and when there is none its line says so.
test_tick_finds_agent() {
	local tr
	sched_box
	# The key is only in the agent: the ssh_config names a key file that is not there.
	sed "s|IdentityFile .*|IdentityFile $T/no-such-key|; s|IdentitiesOnly yes|IdentitiesOnly no|" \
		"$SSH_CFG" >"$T/agent_ssh_config"
	sed -i "s|\"ssh_config\": \"$SSH_CFG\"|\"ssh_config\": \"$T/agent_ssh_config\", \"transport\": \"libssh2\"|" "$T/wk.json"
	mkdir -m 700 "$T/run"
	ssh-agent -a "$T/run/openssh_agent" >"$T/agent.env"
	apid=$(sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p' "$T/agent.env")
	echo "$apid" >>"$T/.pids"
	SSH_AUTH_SOCK="$T/run/openssh_agent" ssh-add "$SSHD_CLIENT_KEY" 2>"$T/add.err" || fail "ssh-add: $(<"$T/add.err")"
	for tr in libssh2 openssh; do
		sed -i "s/\"transport\": \"[a-z0-9]*\"/\"transport\": \"$tr\"/" "$T/wk.json"
		before=$(sshd_accepted_count)
		rc=0; env -u SSH_AUTH_SOCK XDG_RUNTIME_DIR="$T/run" "$PATROL" -c "$T/wk.json" >"$T/p.$tr" 2>&1 || rc=$?
		assert_no_grep ' t1 SSH_DOWN' "$T/p.$tr"
		[ "$(sshd_accepted_count)" -gt "$before" ] || fail "$tr: no login with the agent's key: $(<"$T/p.$tr")"
	done
	# No agent at all: the tick is refused, and its line says no agent was reached.
	kill "$apid"
	wait_for 10 sh -c "! kill -0 $apid 2>/dev/null"
	rm -f "$T/run/openssh_agent"
	for tr in libssh2 openssh; do
		sed -i "s/\"transport\": \"[a-z0-9]*\"/\"transport\": \"$tr\"/" "$T/wk.json"
		rc=0; env -u SSH_AUTH_SOCK XDG_RUNTIME_DIR="$T/run" "$PATROL" -c "$T/wk.json" >"$T/n.$tr" 2>&1 || rc=$?
		assert_eq "$rc" 2 "$tr: $(<"$T/n.$tr")"
		assert_grep "no ssh-agent reached: SSH_AUTH_SOCK is not set, as under cron or a systemd timer, and no agent socket is in $T/run" "$T/n.$tr"
	done
}

# One entry for the fleet (patrol --install-schedule --all): it runs `patrol
# --all`, takes the place of the runs' own entries, and goes when every run
# is DONE; the systemd units it writes pass the real systemd-analyze.
test_fleet_entry() {
	box
	pconf '' '[{"stage": "train", "run": "true"}]'
	sed 's/"run": "t1"/"run": "t2"/' "$T/wk.json" >"$T/wk2.json"
	mkdir -p "$T/state/watchkeeper/t1" "$T/state/watchkeeper/t2"
	echo "{\"run\": \"t1\", \"config\": \"$T/wk.json\"}" >"$T/state/watchkeeper/t1/patrol.json"
	echo "{\"run\": \"t2\", \"config\": \"$T/wk2.json\"}" >"$T/state/watchkeeper/t2/patrol.json"
	"$PATROL" -c "$T/wk.json" --install-schedule --scheduler cron >/dev/null
	"$PATROL" -c "$T/wk2.json" --install-schedule --scheduler cron >/dev/null
	assert_eq "$(grep -c 'watchkeeper:t[12]$' "$T/crontab.txt")" 2
	"$PATROL" --install-schedule --all --scheduler cron >"$T/i1"
	assert_grep '^installed patrol for every run patrol knows \(patrol --all\) in the crontab: 3,33 \* \* \* \*' "$T/i1"
	assert_grep '^removed the own schedule entries of 2 runs: the fleet.s entry ticks them$' "$T/i1"
	assert_grep "^remove it with: .*/patrol --uninstall-schedule --all$" "$T/i1"
	assert_eq "$(grep -c 'watchkeeper:' "$T/crontab.txt")" 1
	assert_grep "^3,33 \* \* \* \* '$PATROL' --all >> '$T/state/watchkeeper/:fleet/cron.log' 2>&1 # watchkeeper::fleet$" "$T/crontab.txt"
	# Every run DONE: the fleet's tick has nothing to do, and its entry goes.
	for r in t1 t2; do
		python3 - "$T/state/watchkeeper/$r/patrol.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p)); d["verdict"] = "DONE"; json.dump(d, open(p, "w"))
PY
	done
	"$PATROL" --all >"$T/a1"
	assert_grep 'every run of the fleet is DONE or sealed: nothing to tick' "$T/a1"
	assert_no_grep 'watchkeeper:' "$T/crontab.txt"
	# systemd: the units of the fleet, checked by the real systemd-analyze.
	mkdir -p "$T/sbin"
	with_fake systemctl
	"$PATROL" --install-schedule --all --scheduler systemd >"$T/i2"
	timer="$T/$UNITS/watchkeeper.fleet.timer" service="$T/$UNITS/watchkeeper.fleet.service"
	assert_grep "^ExecStart=\"$PATROL\" --all$" "$service"
	assert_grep '^Unit=watchkeeper.fleet.service$' "$timer"
	rc=0; systemd-analyze verify "$timer" "$service" >"$T/verify" 2>&1 || rc=$?
	assert_eq "$rc" 0 "$(<"$T/verify")"
	"$PATROL" --uninstall-schedule --all --scheduler systemd >"$T/u2"
	assert_no_file "$timer"
	assert_no_file "$service"
	# launchd: the fleet's agent, watchkeeper.fleet.
	with_fake launchctl
	"$PATROL" --install-schedule --all --scheduler launchd >"$T/i3"
	plist="$T/home/Library/LaunchAgents/watchkeeper.fleet.plist"
	assert_grep '<string>watchkeeper.fleet</string>' "$plist"
	assert_grep '<string>--all</string>' "$plist"
	"$PATROL" --uninstall-schedule --all --scheduler launchd >"$T/u3"
	assert_no_file "$plist"
	# Not with -c, nor with deploy.
	rc=0; "$PATROL" -c "$T/wk.json" --install-schedule --all >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" 64
}

t schedule_systemd_manager test_systemd_manager
t schedule_launchd test_launchd
t schedule_switch_and_errors test_switch_and_errors
t schedule_done_removes_timer test_done_removes_timer
t schedule_tick_finds_agent test_tick_finds_agent
t schedule_fleet_entry test_fleet_entry
