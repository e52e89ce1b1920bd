#!/usr/bin/env bash
# Run every test file against one or more builds, N files at a time, and end
# with "N passed, N failed" (", N skipped").
#
#   tests/run.sh [-j N] [--times] [--quick] [--valgrind] [--only unit|e2e] BUILD...
#
#   -j N        files run at once (default: three a core, at least 6: most
#               e2e files wait on an sshd, tmux, a chroot or a timer, not a
#               CPU; at two a core, four long waiting files side by side left
#               the two cores a fifth idle for minutes)
#   --times     every file's wall time at the end (the ten slowest are
#               printed after every run)
#   --quick     only the unit tests and the e2e files whose last measured
#               time (under make test's load) is under 40 s (make test-quick)
#   --match RE  only the files whose name matches RE (grep -E): BUILD/test_x
#               for an e2e file, BUILD/tests/test_x for a unit binary
#   --valgrind  the unit tests and every onbox the e2e tests start run under
#               valgrind's memcheck; a leak or memory error fails the test
#
# A file is a unit binary of a build ($BUILD/tests/test_*: cmocka, each
# "[       OK ]" a pass, "[  FAILED  ] N test(s)" the failures, a binary that
# dies counts as one failure) or an e2e script run with BUILD set
# (tests/e2e/test_*.sh: "PASS name", "FAIL name", "SKIP name: why" lines).
# Each file's output goes to its own file and is printed whole when it ends,
# so parallel files never interleave.  Files start longest first (the times
# of the last run on this machine, build/test-times.tsv, else the tree's
# tests/times.tsv), so a slow file never starts last; each file must
# therefore be able to run beside any other (tests/e2e/lib.sh: a directory,
# HOME, state, ports and processes of its own).
set -u
cd "$(dirname "$0")/.." || exit 2
# All of it in one compound command, read whole before it runs: an edit to
# this file while it runs (bash reads scripts as it goes) cannot change it.
{

usage() { echo "usage: tests/run.sh [-j N] [--times] [--quick] [--match RE] [--valgrind] [--only unit|e2e] BUILD..." >&2; exit 64; }
valgrind=0
only=""
times=0
quick=0
match=""
jobs=$(( $(nproc 2>/dev/null || echo 2) * 3 ))
[ "$jobs" -ge 6 ] || jobs=6
while [ $# -gt 0 ]; do
	case "$1" in
	--valgrind) valgrind=1; shift ;;
	--only) [ $# -ge 2 ] || usage; only=$2; shift 2 ;;
	--times) times=1; shift ;;
	--quick) quick=1; shift ;;
	--match) [ $# -ge 2 ] || usage; match=$2; shift 2 ;;
	-j) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
	-j*) jobs=${1#-j}; shift ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || usage
case $jobs in '' | *[!0-9]* | 0) usage ;; esac
case $only in '' | unit | e2e) ;; *) usage ;; esac

# Files longer than this (seconds, last measured) are left out by --quick.
QUICK_MAX=40
TIMES_TREE=tests/times.tsv
TIMES_LAST=build/test-times.tsv

tmp=$(mktemp -d /tmp/wk-run.XXXXXX) || exit 2
declare -A running_pids=()
# On a signal, stop the files still running: each is its own process group,
# and so is its timeout(1), which passes the signal on to the file's group.
stop_all() {
	local p f
	for f in "$tmp"/*.tpid; do
		[ -f "$f" ] && read -r p <"$f" && kill -TERM "$p" 2>/dev/null
	done
	for p in "${!running_pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done
	exit 130
}
trap stop_all INT TERM
trap 'rm -rf "$tmp"' EXIT

# python3 as itself, not through a version manager's shim: pyenv's is a bash
# script that runs some 40 processes per start (0.6 s of CPU here, six times
# the interpreter's own), and the tests start python3 thousands of times.
# Debian's where it is there (scripts/install-deps.sh installs it, and the
# tests need nothing outside its standard library): pyenv's own interpreter
# imports certifi as it starts, half again the CPU.  Else the one the shim
# would pick.  First on every file's PATH.
py3=/usr/bin/python3
[ -x "$py3" ] && "$py3" -c '' 2>/dev/null || py3=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -n "$py3" ] && [ -x "$py3" ] && [ "$py3" != "$(command -v python3)" ]; then
	mkdir -p "$tmp/bin" && ln -s "$py3" "$tmp/bin/python3" && PATH="$tmp/bin:$PATH"
fi

# Expected times: "label/name<TAB>seconds", the last run's over the tree's.
declare -A expect=()
for f in "$TIMES_TREE" "$TIMES_LAST"; do
	[ -f "$f" ] || continue
	while IFS=$'\t' read -r k v; do
		case $k in '' | \#*) continue ;; esac
		expect[$k]=$v
	done <"$f"
done

# The job list: kind, build, path, display name.
kinds=() builds=() paths=() names=()
add() {
	[ -z "$match" ] || printf '%s\n' "$4" | grep -qE -- "$match" || return 0
	kinds+=("$1"); builds+=("$2"); paths+=("$3"); names+=("$4")
}
for build in "$@"; do
	build=${build%/}
	if [ "$only" != e2e ]; then
		for t in "$build"/tests/test_*; do
			case "$t" in *.d) continue ;; esac
			[ -x "$t" ] || continue
			add unit "$build" "$t" "$t"	# BUILD/tests/test_x: not an e2e file's name
		done
	fi
	if [ "$only" != unit ]; then
		for e in tests/e2e/test_*.sh; do
			[ -f "$e" ] || continue
			n="$build/$(basename "$e" .sh)"
			if [ $quick = 1 ]; then
				# Unmeasured files count as slow: quick stays quick.
				s=${expect[$n]:-9999}
				[ "${s%.*}" -lt $QUICK_MAX ] || continue
			fi
			add e2e "$build" "$e" "$n"
		done
	fi
done
njobs=${#names[@]}
[ "$njobs" -gt 0 ] || { echo "tests/run.sh: no test files in $*" >&2; exit 2; }

# Longest first (unmeasured files count as long: they may be).
order=$(for i in "${!names[@]}"; do
	s=${expect[${names[$i]}]:-600}
	printf '%s\t%s\n' "${s%.*}" "$i"
done | sort -t $'\t' -k1,1nr -k2,2n | cut -f2)

# One file, its output to $tmp/$i.out; in its own process group (set -m in
# the caller), so a stop reaches everything it started.
run_file() {
	local i=$1 out="$tmp/$1.out" t=${paths[$1]} rc
	if [ "${kinds[$i]}" = unit ]; then
		if [ $valgrind = 1 ]; then
			timeout 600 valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
				--errors-for-leak-kinds=definite,indirect --error-exitcode=99 "$t" >"$out" 2>&1 &
		else
			timeout 600 "$t" >"$out" 2>&1 &
		fi
	else
		if [ $valgrind = 1 ]; then
			export ONBOX_WRAP="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99"
		fi
		BUILD=${builds[$i]} timeout 900 bash "$t" </dev/null >"$out" 2>&1 &
	fi
	echo $! >"$tmp/$i.tpid"
	wait $!
	rc=$?
	# Ended: a stop must not signal its pid, which may be another's by then.
	rm -f "$tmp/$i.tpid"
	# The CPU its processes used (user and system), for --times.
	times >"$tmp/$i.cpu"
	exit $rc
}
pass=0
fail=0
skip=0
failed=()
declare -A start_of=() idx_of=() took=()

# A file's wall time in seconds, one decimal.
secs() { printf '%d.%d' $(( took[$1] / 1000000 )) $(( took[$1] / 100000 % 10 )); }
# Its CPU time (user + system of everything it waited for), in seconds.
cpu() {
	local u s
	{ read -r _ && read -r u s; } <"$tmp/$1.cpu" 2>/dev/null || { echo "?"; return; }
	awk -v u="$u" -v s="$s" 'function sec(x,  m) { m = x; sub(/m.*/, "", m); sub(/^[0-9]+m/, "", x); sub(/s$/, "", x); return m * 60 + x }
		BEGIN { printf "%.1f", sec(u) + sec(s) }'
}

# Count and print one finished file.
report() {
	local i=$1 rc=$2 out="$tmp/$1.out" name=${names[$1]} p f s
	if [ "${kinds[$i]}" = unit ]; then
		p=$(grep -c '^\[       OK \]' "$out")
		f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test(s).*/\1/p' "$out" | tail -n 1)
		f=${f:-0}
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			f=1
		fi
		pass=$((pass + p))
		fail=$((fail + f))
		if [ "$f" -gt 0 ]; then
			failed+=("$name")
			echo "FAIL $name (exit $rc)"
			sed 's/^/    /' "$out" | grep -v '^\s*\[ *\(RUN\|OK\) ' | tail -n 60
		else
			echo "ok   $name ($p, $(secs "$i") s)"
		fi
		return
	fi
	p=$(grep -c '^PASS ' "$out")
	f=$(grep -c '^FAIL ' "$out")
	s=$(grep -c '^SKIP ' "$out")
	skip=$((skip + s))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		if [ "$rc" -eq 124 ]; then
			echo "FAIL $name: timed out after 900 s"
		else
			echo "FAIL $name: the script itself exited $rc"
		fi
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	grep -E '^(PASS|FAIL|SKIP) ' "$out" | sed -E "s#^(PASS|FAIL|SKIP) #\1 $name: #"
	echo "==   $name: $p passed, $f failed, $s skipped in $(secs "$i") s"
	if [ "$f" -gt 0 ]; then
		failed+=("$name")
		grep -v -E '^(PASS|SKIP) ' "$out" | sed 's/^/    /' | tail -n 80
	fi
}

# Microseconds on the wall clock.
now_us() { local t=$EPOCHREALTIME; echo $(( ${t%[.,]*} * 1000000 + 10#${t#*[.,]} )); }
# Wait for one file to end, then count and print it.
reap() {
	local pid rc j
	wait -n -p pid
	rc=$?
	j=${idx_of[$pid]}
	took[$j]=$(( $(now_us) - ${start_of[$j]} ))
	unset "running_pids[$pid]"
	report "$j" "$rc"
}
t0=$(now_us)
# The machine's CPU time, busy and all (/proc/stat's first line, in ticks):
# files' own CPU misses what they daemonize (sshd sessions, nohup'd onbox, tmux).
cpu_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8; exit }' /proc/stat 2>/dev/null; }
stat0=$(cpu_ticks)
set -m
for i in $order; do
	while [ ${#running_pids[@]} -ge "$jobs" ]; do reap; done
	run_file "$i" &
	idx_of[$!]=$i
	start_of[$i]=$(now_us)
	running_pids[$!]=1
done
while [ ${#running_pids[@]} -gt 0 ]; do reap; done
set +m
wall=$(( ($(now_us) - t0) / 1000000 ))

# Times: this run's over the last ones (for the next run's order and --quick).
for j in "${!took[@]}"; do
	expect[${names[$j]}]=$(( took[$j] / 100000 / 10 )).$(( took[$j] / 100000 % 10 ))
done
if mkdir -p "$(dirname "$TIMES_LAST")" 2>/dev/null; then
	{
		echo "# tests/run.sh: each file's wall time (s) in its last run here"
		for k in "${!expect[@]}"; do printf '%s\t%s\n' "$k" "${expect[$k]}"; done | sort
	} >"$TIMES_LAST.tmp.$$" && mv -f "$TIMES_LAST.tmp.$$" "$TIMES_LAST"
fi
timeline() {
	for j in "${!took[@]}"; do
		printf '%8s s  %5s s cpu  %s\n' "$(secs "$j")" "$(cpu "$j")" "${names[$j]}"
	done | sort -rn
}
if [ $times = 1 ]; then
	echo "times (wall and CPU, each file; $jobs at once):"
	timeline
fi
# The CPU all files used: what a 2-core machine's wall time is bound by.
cpu_all=$(for j in "${!took[@]}"; do cpu "$j"; echo; done | awk '{ s += $1 } END { printf "%.0f", s }')
busy=$(echo "$stat0 $(cpu_ticks)" | awk 'NF == 4 && $4 > $2 { printf ", the machine %d%% busy", 100 * ($3 - $1) / ($4 - $2) }')
echo "the ten slowest files (wall and CPU; $jobs at once, $wall s in all, $cpu_all s CPU$busy):"
timeline | head -n 10

if [ ${#failed[@]} -gt 0 ]; then
	echo "failed: ${failed[*]}"
fi
# Skipped tests (a tool the machine lacks) are never counted as passed.
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
exit
}
