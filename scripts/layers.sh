#!/usr/bin/env bash
# scripts/layers.sh: check the shape ARCHITECTURE.md promises, from the tree.
#
#   scripts/layers.sh [-v] [BUILD]   exit 0 when every rule holds, 1 otherwise
#
# Rules (one line of output per breach, "layers: ..." prefixed):
#   1. Who may include whom, by folder.  A folder's files may include headers
#      of the folders listed for it in `allowed` below and nothing else of
#      ours: core/ is below everything; ssh/ and handbook/ sit on core/; the
#      binaries sit on top; onbox (the box's side) never sees ssh/ or
#      handbook/.
#   2. No import circles: a module is a file name without its extension
#      (core/ckpt = ckpt.c + ckpt.h) together with the files that include its
#      private header X-int.h (a file split by concern is still one module:
#      notify-http.c is part of core/notify); module A -> B when a file of A
#      includes B's header.  tsort(1) finds the loops.  Given a BUILD directory, the
#      same for calls, from its objects (nm): A -> B when A's object uses a
#      symbol B's object defines, so a circle behind one shared header (two
#      files that call back into each other) shows too.
#   3. Sizes: no source file outside tests/ (and third_party/, upstream's as
#      it is) over 1,000 lines, onbox/runner.c
#      under 800.
#   4. ARCHITECTURE.md matches the tree: every .c file of the six folders is
#      named in it (as folder/file.c), and every folder/file.c or .h it names
#      exists.
# With -v it prints the module graph's edge count and the largest files.
set -u
cd "${LAYERS_TOP:-$(dirname "$0")/..}" || exit 2
verbose=0
[ "${1:-}" = -v ] && { verbose=1; shift; }
build=${1:-}

declare -A allowed=(
	[core]="core"
	[ssh]="core ssh"
	[handbook]="core ssh handbook"
	[onbox]="core onbox"
	[patrol]="core ssh handbook patrol"
	[sentinel]="core ssh sentinel"
)
# Where an #include "x.h" is looked for: the file's own folder, then the -I
# folders of the Makefile, in its order.
search="core ssh handbook"

bad=0
breach() {
	echo "layers: $*"
	bad=1
}

# The module a file belongs to: X-int.h and every file including it are X.
# (Bash alone, cached: this runs for every include of every file, and a fork
# costs more than the lookup.)  Sets MOD.
declare -A modcache=()
module_of() {
	local f=$1 d b priv="" line re='^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"/]*)-int\.h"'
	if [ -n "${modcache[$1]+set}" ]; then
		MOD=${modcache[$1]}
		return
	fi
	d=${f%%/*}
	b=${f##*/}
	b=${b%.*}
	case $b in
	*-int) MOD="$d/${b%-int}"; modcache[$1]=$MOD; return ;;
	esac
	case $f in *.h) [ -e "${f%.h}.c" ] && f=${f%.h}.c ;; esac
	while IFS= read -r line || [ -n "$line" ]; do
		if [[ $line =~ $re ]]; then
			priv=${BASH_REMATCH[1]}
			break
		fi
	done <"$f"
	if [ -n "$priv" ] && [ -e "$d/$priv-int.h" ]; then
		MOD="$d/$priv"
	else
		MOD="$d/$b"
	fi
	modcache[$1]=$MOD
}

# The quoted includes of a file, one a line.
includes_of() {
	local line re='^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)"'
	while IFS= read -r line || [ -n "$line" ]; do
		[[ $line =~ $re ]] && printf '%s\n' "${BASH_REMATCH[1]}"
	done <"$1"
	return 0
}

edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

for dir in "${!allowed[@]}"; do
	[ -d "$dir" ] || continue
	for f in "$dir"/*.c "$dir"/*.h; do
		[ -e "$f" ] || continue
		module_of "$f"
		from=$MOD
		while IFS= read -r hdr; do
			target=""
			for d in "$dir" $search; do
				if [ -e "$d/$hdr" ]; then
					target=$d/$hdr
					break
				fi
			done
			[ -n "$target" ] || continue	# a system or generated header
			tdir=${target%%/*}
			case " ${allowed[$dir]} " in
			*" $tdir "*) ;;
			*) breach "$f includes $target: $dir/ may include only ${allowed[$dir]}" ;;
			esac
			module_of "$target"
			[ "$MOD" = "$from" ] || echo "$from $MOD" >>"$edges"
		done < <(includes_of "$f")
	done
done

# tsort prints each loop it breaks as a "input contains a loop:" line and
# then the loop's members, one a line.
circles() {
	sort -u "$1" | tsort 2>&1 >/dev/null | awk -v what="$2" '
		/input contains a loop/ { if (m != "") print what ": " m; m = ""; next }
		{ sub(/^tsort: /, ""); m = (m == "" ? $0 : m " -> " $0) }
		END { if (m != "") print what ": " m }'
}
while IFS= read -r c; do
	[ -n "$c" ] && breach "$c"
done < <(circles "$edges" "include circle")

if [ -n "$build" ]; then
	calls=$(mktemp)
	trap 'rm -f "$edges" "$calls"' EXIT
	objs=()
	for dir in "${!allowed[@]}"; do
		for o in "$build/obj/$dir"/*.o; do
			# an object left from a file since moved or removed is not the tree
			[ -e "$o" ] && [ -e "$dir/$(basename "${o%.o}").c" ] && objs+=("$o")
		done
	done
	[ ${#objs[@]} -gt 0 ] || { echo "layers: no objects under $build/obj" >&2; exit 2; }
	# "module T sym" for definitions, "module U sym" for uses.
	for o in "${objs[@]}"; do
		m=${o#"$build"/obj/}
		m=${m%.o}
		[ -e "$m.c" ] && module_of "$m.c" && m=$MOD
		nm -g "$o" | awk -v m="$m" 'NF == 2 && $1 == "U" { print m, "U", $2 }
			NF == 3 && $2 ~ /^[TDBRCGSV]$/ { print m, "T", $3 }'
	done | awk '$2 == "T" { def[$3] = $1; next } { use[n++] = $1 " " $3 }
		END { for (i = 0; i < n; i++) { split(use[i], a, " ");
			if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]] } }' >"$calls"
	while IFS= read -r c; do
		[ -n "$c" ] && breach "$c"
	done < <(circles "$calls" "call circle")
fi

while read -r n f; do
	[ "$f" = total ] && continue
	if [ "$n" -gt 1000 ]; then
		breach "$f has $n lines (at most 1,000 outside tests/)"
	fi
	if [ "$f" = onbox/runner.c ] && [ "$n" -ge 800 ]; then
		breach "$f has $n lines (under 800)"
	fi
done < <(git ls-files -- '*.c' '*.h' | grep -Ev '^(tests|third_party)/' | xargs wc -l)

if [ -e ARCHITECTURE.md ]; then
	arch=$(<ARCHITECTURE.md)
	for dir in "${!allowed[@]}"; do
		for f in "$dir"/*.c; do
			[ -e "$f" ] || continue
			case $arch in *"$f"*) ;; *) breach "$f is not in ARCHITECTURE.md" ;; esac
		done
	done
	while IFS= read -r f; do
		[ -e "$f" ] || breach "ARCHITECTURE.md names $f, which is not in the tree"
	done < <(grep -oE '\b(core|ssh|handbook|onbox|patrol|sentinel)/[A-Za-z0-9_.-]+\.[ch]\b' ARCHITECTURE.md | sort -u)
else
	breach "no ARCHITECTURE.md"
fi

if [ $verbose = 1 ]; then
	echo "layers: $(sort -u "$edges" | wc -l) module edges"
	git ls-files -- '*.c' '*.h' | grep -Ev '^(tests|third_party)/' | xargs wc -l | sort -n | tail -n 6
fi
[ $bad = 0 ] && echo "layers: ok"
exit $bad
