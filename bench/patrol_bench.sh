#!/usr/bin/env bash
# Part of make bench: what it costs the owner's machine to look at a box.
# Against the test suite's throwaway sshd (tests/e2e/sshd.sh) and a live run
# on it (onbox running a `prep` stage that left its marker and a `train`
# stage writing "Epoch E step I/100000" lines, a fake nvidia-smi first on the
# remote PATH), three ways of looking, interleaved N times:
#
#   patrol     one full tick: connect, auth, the combined probe, decide,
#              report (its verdict must be OK, or the bench fails)
#   bare       `ssh -F cfg box true`, the floor for any ssh-based look
#   seed       bench/seed_probe.sh: the seed's separate probes, one
#              `ssh -F cfg box CMD` per check
#   warm       a `status` call to a `patrol mcp` that has looked at the box
#              once already (bench/warm_look.py): a look over the warm
#              connection its holder keeps (ssh/warm.h), no handshake
#
# Each call's time and the connections sshd accepted during it ("Accepted
# publickey" in its log).  Then the same three, BENCH_DELAY_N times each,
# with BENCH_DELAY_MS (default 50) added to every packet each way; the added
# time over 2 x delay is the number of round trips a look waits for.
#
# The delay: tc netem is not in this kernel (CONFIG_NET_SCH_NETEM is not
# set and there are no modules).  So, as root, the whole measurement runs in
# a network namespace of its own (its own loopback; nothing of the host's
# network is touched), where iptables sends the sshd port's packets to an
# NFQUEUE that bench/nfqdelay.py holds for the delay: a per-packet delay in
# the kernel's path, as netem would give.  The measured TCP handshake must
# show the delay, or it is not used.  Where that is not possible (not root,
# no `ip netns`, no NFQUEUE) or BENCH_DELAY=proxy, bench/delayproxy.py, a
# userspace TCP proxy that delays each chunk, stands in; the result says
# which one was used and why.  BENCH_DELAY=nfqueue makes the kernel delay
# mandatory.  The namespace is deleted (its iptables rules with it) and
# everything started in it is killed by pid, whatever happens.
#
# Prints one JSON object on its last stdout line.
# Usage: bench/patrol_bench.sh BUILD_DIR [N]
set -eu
build=${1:-build}
N=${2:-20}
DN=${BENCH_DELAY_N:-5}
DELAY=${BENCH_DELAY_MS:-50}
MODE=${BENCH_DELAY:-auto}
top=$(cd "$(dirname "$0")/.." && pwd)
case $build in /*) ;; *) build="$top/$build" ;; esac
case $MODE in auto | nfqueue | proxy) ;; *) echo "patrol_bench: BENCH_DELAY must be auto, nfqueue or proxy" >&2; exit 64 ;; esac
for b in onbox patrol; do
	[ -x "$build/$b" ] || { echo "patrol_bench: no $build/$b (make first)" >&2; exit 64; }
done

# --- outside: make the namespace, run the measurement in it, always remove it ---
if [ -z "${WK_BENCH_INSIDE:-}" ]; then
	why=""
	if [ "$MODE" = proxy ]; then
		why="BENCH_DELAY=proxy"
	elif [ "$(id -u)" != 0 ]; then
		why="not root: no network namespace"
	elif ! command -v ip >/dev/null || ! command -v iptables >/dev/null; then
		why="no ip or iptables command"
	fi
	if [ -z "$why" ]; then
		NS="wk-bench-$$"
		IPID=""
		WK_BENCH_T=$(mktemp -d /tmp/wk-bench-patrol.XXXXXX)
		out="$WK_BENCH_T.out"
		ns_cleanup() {
			local p
			if [ -n "$IPID" ]; then
				# The inside cleans up after itself on TERM, once its current look is over.
				kill -TERM "$IPID" 2>/dev/null
				for _ in $(seq 1 50); do kill -0 "$IPID" 2>/dev/null || break; sleep 0.1; done
			fi
			# Only what this script started lives in its namespace.
			for p in $(ip netns pids "$NS" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
			ip netns del "$NS" 2>/dev/null
			rm -rf "$WK_BENCH_T" "$out"
			return 0
		}
		trap ns_cleanup EXIT
		trap 'exit 130' INT
		trap 'exit 143' TERM
		if ! ip netns add "$NS" 2>/dev/null; then
			why="ip netns add failed"
		elif ! ip -n "$NS" link set lo up; then
			why="no loopback in the namespace"
		elif ! ip netns exec "$NS" iptables -A OUTPUT -o lo -p tcp --dport 9 -j NFQUEUE --queue-num 0 --queue-bypass 2>/dev/null; then
			why="iptables has no NFQUEUE target"
		fi
		if [ -n "$why" ]; then
			ns_cleanup
			trap - EXIT INT TERM
		fi
	fi
	if [ -n "$why" ]; then
		[ "$MODE" = nfqueue ] && { echo "patrol_bench: BENCH_DELAY=nfqueue but $why" >&2; exit 1; }
		WK_BENCH_INSIDE=host WK_BENCH_WHY=$why exec bash "$0" "$build" "$N"
	fi
	ip netns exec "$NS" iptables -D OUTPUT -o lo -p tcp --dport 9 -j NFQUEUE --queue-num 0 --queue-bypass
	WK_BENCH_INSIDE=netns WK_BENCH_T=$WK_BENCH_T ip netns exec "$NS" bash "$0" "$build" "$N" >"$out" &
	IPID=$!
	rc=0
	wait "$IPID" || rc=$?
	IPID=""
	cat "$out"
	exit $rc
fi

# --- inside (the namespace, or the host with the proxy) ---
BUILD=$build	# lib.sh makes it relative to $top
# shellcheck source=/dev/null
. "$top/tests/e2e/lib.sh"
# shellcheck source=/dev/null
. "$top/tests/e2e/sshd.sh"
T=${WK_BENCH_T:-$(mktemp -d /tmp/wk-bench-patrol.XXXXXX)}
export T
NFQ="" PX="" IPT="" RULES=()
# At exit, pass or fail: the delay's iptables rules and processes, lib.sh's
# cleanup_procs (onbox, whose pid goes to $T/.pids, then every attempt's stage
# and wrapper), $T; sshd.sh stops sshd after that.
bench_stop() {
	local r p
	# shellcheck disable=SC2086	# a rule is its words
	for r in "${RULES[@]}"; do $IPT -D OUTPUT $r; done
	for p in $NFQ $PX; do kill -9 "$p"; done
	cleanup_procs
	rm -rf "$T"
}
sshd_at_exit bench_stop
trap 'exit 130' INT
trap 'exit 143' TERM
set -E
trap 'echo "patrol_bench: failed at line $LINENO" >&2' ERR
now_ns() { date +%s%N; }
die() { echo "patrol_bench: $*" >&2; exit 1; }

sshd_start >/dev/null || die "sshd did not start"
W="$T/work"
mkdir -p "$W" "$T/state" "$T/bin"
ln -sf "$ONBOX" "$T/sshd/bin/onbox"
printf '#!/bin/sh\necho "87 %%, 61234 MiB"\n' >"$T/sshd/bin/nvidia-smi"
chmod +x "$T/sshd/bin/nvidia-smi"
# A training run that keeps making progress (20 lines a second, for at most 90 minutes).
cat >"$T/bin/train.sh" <<'SH'
#!/bin/sh
i=1
while [ $i -le 108000 ]; do
	echo "Epoch $((i / 1000)) step $i/108000 loss 2.$((i % 97)) 11.2 it/s" >>train.log
	i=$((i + 1))
	sleep 0.05
done
echo "Training completed" >>train.log
SH
chmod +x "$T/bin/train.sh"
cat >"$T/wk.json" <<JSON
{ "run": "bench", "workdir": "$W", "detach": "nohup", "heartbeat_s": 1,
  "box": { "host": "box", "ssh_config": "$SSH_CFG", "config": "$T/wk.json", "connect_timeout_s": 20 },
  "progress": { "pattern": "step (\\\\d+)/(\\\\d+)", "max": 108000 },
  "patrol": { "stall_ticks": 1000 },
  "chain": [
    { "stage": "prep", "run": "true", "marker": "PREP_DONE" },
    { "stage": "train", "run": "$T/bin/train.sh", "log": "train.log",
      "done_when": "Training completed", "marker": "TRAIN_DONE" } ] }
JSON
export XDG_STATE_HOME="$T/state"
"$ONBOX" -c "$T/wk.json" run >"$T/onbox.out" 2>&1 &
echo $! >>"$T/.pids"
# Under way: prep's marker in place, train's progress in the heartbeat.
wait_for 30 grep -q '"text":[[:space:]]*"[^"]*[0-9]/' "$W/.watchkeeper/state.json" 2>/dev/null ||
	die "the run did not start: $(cat "$T/onbox.out")"
[ -e "$W/.watchkeeper/markers/PREP_DONE" ] || die "no PREP_DONE marker"

cfg_now=$SSH_CFG	# the ssh config the looks use (the proxy's, when delayed through it)
seed() { bash "$top/bench/seed_probe.sh" "$cfg_now" box "$W/train.log" "$W/.watchkeeper/markers" "$W"; }
run_patrol() { "$top/$BUILD/patrol" -c "$T/wk.json"; }
run_bare() { ssh -F "$cfg_now" box true; }

# look KIND SUFFIX: one call of run_patrol / run_bare / seed, timed; its
# microseconds and the connections sshd accepted go to $T/KIND.SUFFIX.{us,conns}.
look() {
	local kind=$1 sfx=$2 c0 c1 t0 t1 rc=0 fn
	case $kind in patrol) fn=run_patrol ;; bare) fn=run_bare ;; *) fn=seed ;; esac
	c0=$(sshd_accepted_count)
	t0=$(now_ns)
	"$fn" >"$T/out" 2>&1 || rc=$?
	t1=$(now_ns)
	c1=$(sshd_accepted_count)
	if [ $rc -ne 0 ]; then
		sed 's/^/    /' "$T/out" >&2
		die "$kind ($sfx) exited $rc"
	fi
	if [ "$kind" = patrol ] && ! grep -qE '^[0-9TZ:-]+ bench OK( |$)' "$T/out"; then
		sed 's/^/    /' "$T/out" >&2
		die "patrol's verdict is not OK"
	fi
	# The seed's answers must be answers: the marker, the progress lines, the GPU, the disk.
	if [ "$kind" = seed ] && ! { grep -q '^PREP_DONE$' "$T/out" && grep -qE '^[0-9]+:Epoch [0-9]+ step' "$T/out" &&
		grep -q '^87 %' "$T/out" && grep -q '^Filesystem' "$T/out"; }; then
		sed 's/^/    /' "$T/out" >&2
		die "the seed's probes did not see the run"
	fi
	printf '%s ' $(( (t1 - t0) / 1000 )) >>"$T/$kind.$sfx.us"
	printf '%s ' $(( c1 - c0 )) >>"$T/$kind.$sfx.conns"
}

for _ in $(seq 1 "$N"); do
	look patrol direct
	look bare direct
	look seed direct
done
# warm_looks N SUFFIX: N timed status calls to one patrol mcp after its first look.
warm_looks() {
	python3 "$top/bench/warm_look.py" "$1" bench "grep -c 'Accepted publickey' '$T/sshd/sshd.log' || true" \
	    "$top/$BUILD/patrol" mcp -c "$T/wk.json" >"$T/warm.$2.json" 2>"$T/warm.$2.err" ||
	    die "warm looks ($2): $(tail -c 600 "$T/warm.$2.err")"
}
warm_looks "$N" direct

# --- the delay ---
method="" why=${WK_BENCH_WHY:-}
if [ "$WK_BENCH_INSIDE" = netns ]; then
	for IPT in iptables iptables-legacy ""; do
		[ -n "$IPT" ] && $IPT -L OUTPUT -n >/dev/null 2>&1 && break
	done
	python3 "$top/bench/nfqdelay.py" 0 "$DELAY" "$T/nfq.ready" >/dev/null 2>"$T/nfq.err" &
	NFQ=$!
	if [ -z "$IPT" ]; then
		why="iptables does not work in the namespace"
	elif ! wait_for 10 test -s "$T/nfq.ready" 2>/dev/null; then
		why="nfqdelay.py did not bind the queue: $(head -c 200 "$T/nfq.err")"
	else
		for r in "-o lo -p tcp --dport $SSHD_PORT -j NFQUEUE --queue-num 0 --queue-bypass" \
			"-o lo -p tcp --sport $SSHD_PORT -j NFQUEUE --queue-num 0 --queue-bypass"; do
			# shellcheck disable=SC2086
			$IPT -A OUTPUT $r
			RULES+=("$r")
		done
		# A TCP handshake is one round trip: it must take 2 x delay (the rules bypass a dead queue).
		hs=$(python3 -c 'import socket, sys, time
t = time.monotonic(); s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 10); print(int((time.monotonic() - t) * 1000))' "$SSHD_PORT")
		if [ "$hs" -ge $((2 * DELAY * 9 / 10)) ] && [ "$hs" -le $((2 * DELAY * 2)) ]; then
			method=nfqueue
		else
			why="the NFQUEUE delay did not show (a TCP handshake took $hs ms)"
			for r in "${RULES[@]}"; do $IPT -D OUTPUT $r; done
			RULES=()
		fi
	fi
	if [ -z "$method" ]; then
		kill "$NFQ" 2>/dev/null || true
		NFQ=
		[ "$MODE" = nfqueue ] && die "BENCH_DELAY=nfqueue but $why"
	fi
fi
if [ -z "$method" ]; then
	method=proxy
	# Not on our stdout: a command substitution would wait for the proxy forever.
	python3 "$top/bench/delayproxy.py" "$T/px.port" "$SSHD_PORT" "$DELAY" >/dev/null 2>&1 &
	PX=$!
	wait_for 10 test -s "$T/px.port" || die "delayproxy.py did not start"
	px=$(cat "$T/px.port")
	sed "s/^\(\s*Port\) .*/\1 $px/" "$SSH_CFG" >"$T/ssh_config.px"
	sed "s/\[127.0.0.1\]:$SSHD_PORT/[127.0.0.1]:$px/" "$T/sshd/known_hosts" >"$T/kh.px"
	cat "$T/kh.px" >>"$T/sshd/known_hosts"
	sed -i "s|$SSH_CFG|$T/ssh_config.px|" "$T/wk.json"
	cfg_now="$T/ssh_config.px"
fi
for _ in $(seq 1 "$DN"); do
	look patrol delayed
	look bare delayed
	look seed delayed
done
warm_looks "$DN" delayed
# The rules let packets through undelayed if the queue's reader is gone: it must have lasted.
if [ "$method" = nfqueue ] && ! kill -0 "$NFQ" 2>/dev/null; then
	die "nfqdelay.py died during the delayed looks: $(head -c 300 "$T/nfq.err")"
fi

python3 - "$T" "$method" "$why" "$DELAY" "$(SEED_PROBES_COUNT=1 bash "$top/bench/seed_probe.sh")" <<'PY'
import json, sys
t, method, why, delay, probes = sys.argv[1:]
out = {"delay_method": method, "delay_why": why, "delay_ms": int(delay), "seed_probes": int(probes)}
for kind in ("patrol", "bare", "seed"):
    for sfx in ("direct", "delayed"):
        for unit in ("us", "conns"):
            out["%s_%s_%s" % (kind, sfx, unit)] = [int(x) for x in open("%s/%s.%s.%s" % (t, kind, sfx, unit)).read().split()]
for sfx in ("direct", "delayed"):
    w = json.load(open("%s/warm.%s.json" % (t, sfx)))
    out["warm_%s_us" % sfx] = w["us"]
    out["warm_%s_conns" % sfx] = w["conns"]
print(json.dumps(out))
PY
