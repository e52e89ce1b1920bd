#!/bin/sh
# Install the Debian packages Watchkeeper's build, tests and benchmarks need.
# Idempotent and non-interactive: a no-op (no apt-get at all) when everything is present.
set -eu

PKGS="build-essential pkg-config
libssh2-1-dev libssl-dev libcurl4-openssl-dev libcjson-dev libpcre2-dev libcmocka-dev
openssh-server openssh-client tmux dash procps iproute2 iptables python3 valgrind"
# The Slurm tests' one-node cluster (tests/e2e/slurm.sh), and clang with its
# libFuzzer runtime for `make fuzz` (fuzz/run.sh).  Optional: when these cannot
# be installed the tests that need them say so and count as skipped.
OPT_PKGS="slurm-wlm munge clang libclang-rt-14-dev"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

optional=""
for p in $OPT_PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		optional="$optional $p"
	fi
done

if [ -z "$missing$optional" ]; then
	echo "install-deps: all packages present"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root or sudo to install:$missing" >&2; exit 1; }
	SUDO="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
if [ -n "$missing" ]; then
	echo "install-deps: installing:$missing"
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -q --no-install-recommends $missing
fi
if [ -n "$optional" ]; then
	echo "install-deps: installing (optional):$optional"
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -q --no-install-recommends $optional ||
		echo "install-deps: could not install$optional: the Slurm and fuzz tests will be skipped" >&2
fi
echo "install-deps: done"
