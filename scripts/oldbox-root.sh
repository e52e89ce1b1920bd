#!/bin/sh
# The Debian 11 root of tests/e2e/oldbox.sh's older box: a --variant=minbase
# debootstrap of $OLDBOX_SUITE from $OLDBOX_MIRROR with $OLDBOX_INCLUDE and
# nothing else, built once a machine under $OLDBOX_CACHE
# (/var/cache/watchkeeper/oldbox) and shared by every clone: the tests never
# change it (each box is an overlay with it as the lower layer).
#
#   scripts/oldbox-root.sh          print the root's path, building it first
#                                   when it is not there (needs root and
#                                   debootstrap; the mirror is the network)
#   scripts/oldbox-root.sh --check  print it when it is there, else exit 1
#   scripts/oldbox-root.sh --release-url
#                                   the mirror's Release file of the suite
#                                   (what says the mirror is reachable)
#
# scripts/install-deps.sh builds it (it is a dependency: a Debian userland
# fetched from the mirror, like the packages); an e2e file that finds it
# missing builds it the same way.  The root's directory is named by the suite
# and a checksum of the package list, so a change to either builds a new one.
# It is built into a temporary directory next to it and renamed when
# debootstrap has finished, under a lock (flock on $OLDBOX_CACHE/.lock): a
# half-finished or concurrent build is never used, and a killed one is
# cleaned up by the next.  Exit 0 with the path on stdout; 1 with why on
# stderr (debootstrap's last line; its whole log is $OLDBOX_CACHE/debootstrap.log).
set -u
OLDBOX_CACHE=${OLDBOX_CACHE:-/var/cache/watchkeeper/oldbox}
OLDBOX_SUITE=${OLDBOX_SUITE:-bullseye}
OLDBOX_MIRROR=${OLDBOX_MIRROR:-http://deb.debian.org/debian}
OLDBOX_INCLUDE=${OLDBOX_INCLUDE:-openssh-server,python3,tmux,curl,ca-certificates}

[ "${1:-}" = --release-url ] && { echo "$OLDBOX_MIRROR/dists/$OLDBOX_SUITE/Release"; exit 0; }
sum=$(printf '%s\n' "$OLDBOX_INCLUDE" | cksum | cut -d' ' -f1)
done="$OLDBOX_CACHE/$OLDBOX_SUITE-$sum"

if [ -d "$done" ]; then
	echo "$done"
	exit 0
fi
[ "${1:-}" = --check ] && exit 1

# Unmount whatever is still mounted below $1 (a killed debootstrap leaves /proc and /sys there).
umount_below() {
	for m in $(awk -v p="$1/" 'index($2, p) == 1 { print $2 }' /proc/self/mounts | sort -r); do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
}

[ "$(id -u)" = 0 ] || { echo "oldbox-root: needs root (debootstrap)" >&2; exit 1; }
command -v debootstrap >/dev/null 2>&1 ||
	{ echo "oldbox-root: debootstrap not installed (scripts/install-deps.sh installs it)" >&2; exit 1; }
mkdir -p "$OLDBOX_CACHE" || exit 1
(
	flock -w 1800 9 || { echo "oldbox-root: no lock on $OLDBOX_CACHE/.lock" >&2; exit 1; }
	[ -d "$done" ] && exit 0
	# Leftovers of a build that was killed (we hold the lock: no one is building).
	for old in "$OLDBOX_CACHE"/.build.*; do
		[ -d "$old" ] || continue
		umount_below "$old"
		rm -rf --one-file-system "$old"
	done
	tmp=$(mktemp -d "$OLDBOX_CACHE/.build.XXXXXX") || exit 1
	echo "oldbox-root: debootstrap $OLDBOX_SUITE into $tmp (once a machine; kept in $done)" >&2
	rc=0
	debootstrap --variant=minbase --include="$OLDBOX_INCLUDE" \
		"$OLDBOX_SUITE" "$tmp" "$OLDBOX_MIRROR" >"$OLDBOX_CACHE/debootstrap.log" 2>&1 || rc=$?
	umount_below "$tmp"
	if [ $rc -ne 0 ]; then
		echo "oldbox-root: debootstrap failed (exit $rc): $(tail -n 1 "$OLDBOX_CACHE/debootstrap.log")" >&2
		rm -rf --one-file-system "$tmp"
		exit 1
	fi
	# Downloaded packages are not part of the box.
	rm -f "$tmp"/var/cache/apt/archives/*.deb
	chmod 755 "$tmp"
	mv -T "$tmp" "$done"
) 9>"$OLDBOX_CACHE/.lock" || exit 1
echo "$done"
