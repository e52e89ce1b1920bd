# Shared helpers for the fault and bad-input suite (tests/chaos/*.sh);
# sourced after tests/e2e/lib.sh and tests/e2e/sshd.sh, whose helpers
# (t, wait_for, conf, bg_onbox, json, box, sshd_start, sshd_at_exit, ...)
# these build on.
#
#   ct NAME FN            lib.sh's `t`, with the counts the test wrote by
#                         `summary` appended to its PASS line
#   summary TEXT          the counts for the PASS line ("100 kills, ...")
#   rnd VAR LO HI         VAR = a random integer in [LO, HI] (bash's RANDOM)
#   rnd_s VAR LO_MS HI_MS VAR = a random duration in seconds ("0.734")
#   guarded VAR SECS CMD  run CMD under `timeout` (the bound), exit status in VAR;
#                         fails when the guard had to stop it, or on a crash
#   crashed RC ERRFILE    0 when RC or ERRFILE show a crash (signal, sanitizer)
#   json_whole DIR [live] every JSON file (and JSONL line) under DIR parses, and
#                         no temp file is left (live: its writer still runs, so
#                         a temp file between write and rename is no fault)
#   onbox_pids CFG        pids of `onbox run` processes for config CFG
#   pids_dead PIDS...     none of PIDS is alive (a zombie counts as dead)
#   chaos_kill_recorded WORKDIR
#                         stop, by pid, every stage process group and wrapper
#                         the attempt records under WORKDIR name (lib.sh's
#                         cleanup_procs does this for $T/work only)
#
# Randomness is reproducible: CHAOS_SEED (printed at the start of each
# scenario) seeds RANDOM when each test starts (bash reseeds it in every
# subshell, hence variables set in place rather than $(rnd ...)).  CHAOS_SLOW is 1 when ONBOX_WRAP is set (valgrind
# under `make memcheck`): the scenarios then use smaller sizes.

CHAOS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${CHAOS_SEED:=$(( $(date +%s%N) % 1000000 ))}"
RANDOM=$CHAOS_SEED
CHAOS_SLOW=0
[ -n "${ONBOX_WRAP:-}" ] && CHAOS_SLOW=1
# A sanitizer report or a signal is a crash; these are what the builds print.
CHAOS_CRASH_RE='AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|Segmentation fault|core dumped|==[0-9]+==ERROR'

summary() { printf '%s' "$*" >"$CHAOS_SUM"; }

_ct_run() { RANDOM=$CHAOS_SEED; "$CT_FN"; }
ct() {
	local name=$1 line
	CT_FN=$2
	CHAOS_SUM=$(mktemp /tmp/wk-chaos-sum.XXXXXX)
	export CHAOS_SUM
	t "$name" _ct_run | while IFS= read -r line; do
		if [ "$line" = "PASS $name" ] && [ -s "$CHAOS_SUM" ]; then
			echo "PASS $name ($(<"$CHAOS_SUM"))"
		else
			printf '%s\n' "$line"
		fi
	done
	rm -f "$CHAOS_SUM"
}

rnd() { printf -v "$1" '%d' $(( $2 + (RANDOM * 32768 + RANDOM) % ($3 - $2 + 1) )); }
rnd_s() {
	local __ms
	rnd __ms "$2" "$3"
	printf -v "$1" '%d.%03d' $((__ms / 1000)) $((__ms % 1000))
}

crashed() {
	local rc=$1 err=$2
	[ "$rc" -ge 128 ] && [ "$rc" -ne 255 ] && return 0
	[ -f "$err" ] && grep -qaE "$CHAOS_CRASH_RE" "$err" && return 0
	return 1
}

# guarded VAR SECS CMD...: stdout/stderr go where the caller redirects them.
guarded() {
	local __var=$1 secs=$2 __rc=0
	shift 2
	timeout -k 5 "$secs" "$@" || __rc=$?
	printf -v "$__var" '%s' "$__rc"
	case $__rc in
	124|137) fail "the guard (${secs}s) had to stop: $*"; return 1 ;;
	esac
	return 0
}

json_whole() {
	python3 - "$1" "${2:-}" <<'PY'
import json, os, sys
bad = []
checked = 0
live = sys.argv[2] == "live"
for root, dirs, files in os.walk(sys.argv[1]):
    for f in files:
        p = os.path.join(root, f)
        if ".tmp." in f:
            # A writer that still runs may be between its write and its rename.
            if not live:
                bad.append(p + ": a temp file was left behind")
            continue
        if not (f.endswith(".json") or f.endswith(".jsonl") or "/markers" in root):
            continue
        try:
            data = open(p, "rb").read()
        except OSError as e:
            bad.append("%s: %s" % (p, e))
            continue
        checked += 1
        try:
            if f.endswith(".jsonl"):
                for i, line in enumerate(data.split(b"\n")[:-1]):
                    json.loads(line)
                if data and not data.endswith(b"\n"):
                    raise ValueError("last line has no newline (torn append)")
            else:
                json.loads(data)
        except Exception as e:
            bad.append("%s: not whole JSON: %s (%d bytes: %r)" % (p, e, len(data), data[-80:]))
for b in bad:
    print(b, file=sys.stderr)
print(checked)
sys.exit(1 if bad else 0)
PY
}

onbox_pids() {
	local cfg=$1 p cmd out="" comm a
	for p in /proc/[0-9]*; do
		read -r comm 2>/dev/null <"$p/comm" || continue
		[ "$comm" = onbox ] || continue
		mapfile -d '' a 2>/dev/null <"$p/cmdline" || continue
		cmd="${a[*]} "
		case " $cmd" in *" -c $cfg "*run*|*" run -c $cfg "*) out="$out ${p#/proc/}" ;; esac
	done
	echo $out
}

pids_dead() {
	local p st
	for p in "$@"; do
		st=""
		read -r st 2>/dev/null <"/proc/$p/stat" || st=""
		st=${st##*) }
		st=${st%% *}
		[ -z "$st" ] || [ "$st" = Z ] || return 1
	done
	return 0
}

chaos_kill_recorded() {
	local f p
	for f in "$1"/.watchkeeper/attempts/*.json; do
		[ -f "$f" ] || continue
		p=$(json "$f" 'd.get("pid", 0)' 2>/dev/null) || continue
		[ -n "$p" ] && [ "$p" -gt 1 ] && kill -9 -- "-$p" 2>/dev/null
		p=$(json "$f" 'd.get("wrapper_pid", 0)' 2>/dev/null) || continue
		[ -n "$p" ] && [ "$p" -gt 1 ] && kill -9 "$p" 2>/dev/null
	done
	return 0
}

# Scenario scripts run their tests through ct and print the seed first.
chaos_banner() { echo "# $1: seed $CHAOS_SEED${2:+, $2}"; }
