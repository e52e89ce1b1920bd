#!/usr/bin/env bash
# Part of make bench: a full patrol tick against a bare `ssh -F cfg box true`
# on the test suite's throwaway sshd, then the same tick through a proxy that
# delays each way, to count its round trips.  Prints one line:
#   DIRECT_US...|BARE_US...|DELAYED_US...|DELAY_MS|CONNECTIONS|TICKS
set -eu
build=${1:-build}
N=${2:-20}
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$build
# shellcheck source=/dev/null
. "$top/tests/e2e/lib.sh"
# shellcheck source=/dev/null
. "$top/tests/e2e/sshd.sh"
T=$(mktemp -d /tmp/wk-bench-patrol.XXXXXX)
export T
PX=
# sshd.sh owns the EXIT trap; our cleanup goes through it (last in, first out is not needed).
sshd_at_exit 'if [ -n "$PX" ]; then kill "$PX" 2>/dev/null; fi'
sshd_at_exit 'rm -rf "$T"'
now_ns() { date +%s%N; }
delay_ms=20

sshd_start >/dev/null
mkdir -p "$T/work" "$T/state"
cat >"$T/wk.json" <<JSON
{ "run": "bench", "workdir": "$T/work", "detach": "nohup",
  "box": { "host": "box", "ssh_config": "$SSH_CFG" },
  "chain": [ { "stage": "train", "run": "true" } ] }
JSON
export XDG_STATE_HOME="$T/state"
direct=() bare=() delayed=()
for i in $(seq 1 "$N"); do
	t0=$(now_ns); "$top/$build/patrol" -c "$T/wk.json" >/dev/null 2>&1 || true; t1=$(now_ns)
	direct+=($(( (t1 - t0) / 1000 )))
	t0=$(now_ns); ssh -F "$SSH_CFG" box true >/dev/null 2>&1 || true; t1=$(now_ns)
	bare+=($(( (t1 - t0) / 1000 )))
done
ticks_direct=$N
# Not on our stdout: a command substitution would wait for the proxy forever.
python3 "$top/bench/delayproxy.py" "$T/px.port" "$SSHD_PORT" "$delay_ms" >/dev/null 2>&1 &
PX=$!
n=0
while [ ! -s "$T/px.port" ] && [ $n -lt 500 ]; do sleep 0.01; n=$((n+1)); done
px=$(cat "$T/px.port")
sed "s/^\(\s*Port\) .*/\1 $px/" "$SSH_CFG" >"$T/ssh_config.px"
sed "s/\[127.0.0.1\]:$SSHD_PORT/[127.0.0.1]:$px/" "$T/sshd/known_hosts" >"$T/kh.px"
cat "$T/kh.px" >>"$T/sshd/known_hosts"
sed -i "s|$SSH_CFG|$T/ssh_config.px|" "$T/wk.json"
for i in 1 2 3; do
	t0=$(now_ns); "$top/$build/patrol" -c "$T/wk.json" >/dev/null 2>&1 || true; t1=$(now_ns)
	delayed+=($(( (t1 - t0) / 1000 )))
done
# ssh true: one connection each, patrol: one each (direct and delayed).
echo "${direct[*]}|${bare[*]}|${delayed[*]}|$delay_ms|$(sshd_accepted_count)|$(( ticks_direct * 2 + 3 ))"
