# Watchkeeper: one core library (core/) and thin binaries over it.
#
#   make              build what exists (build/)
#   make onbox        build only the on-box agent (needs libc, libcurl, cJSON, PCRE2)
#   make onbox-portable  static onbox for x86_64 and aarch64 (build/portable/, scripts/portable.sh)
#   make check-macos  the owner's side compiled and linked for aarch64/x86_64 macOS (zig cc)
#   make test         unit + end-to-end tests, plain and under ASan+UBSan (JOBS=N at once)
#   make test-quick   the unit tests and the e2e files under 40 s (plain build, < 3 min)
#   make demo         all four layers against a throwaway sshd on 127.0.0.1 (~20 s)
#   make bench        benchmarks (speed and memory targets)
#   make memcheck     unit tests under valgrind
#   make install PREFIX=/usr/local
#
# SANITIZE=1 builds with ASan+UBSan into build/asan.

CC	?= cc
PKG_CONFIG ?= pkg-config
PREFIX	?= /usr/local
DESTDIR	?=

SANITIZE ?= 0
ifeq ($(SANITIZE),1)
BUILD	?= build/asan
OPT	?= -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
# The sanitizer runtimes linked in statically: each of the test suite's some
# thousands of sanitized process starts then resolves no libasan.so symbols
# (a sixth less CPU per start here).
LDSAN	= -fsanitize=address,undefined -static-libasan -static-libubsan
else
BUILD	?= build
OPT	?= -O2
LDSAN	=
endif

PKGS_ONBOX := libcurl libcjson libpcre2-8
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS_ONBOX) 2>/dev/null)
# libcurl is loaded with dlopen by the processes that deliver notifications
# (core/curlapi.c): its headers are needed to build, its library only to notify.
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs libcjson libpcre2-8 2>/dev/null || echo -lcjson -lpcre2-8) -ldl

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
WK_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wformat=2 \
	-Wno-format-nonliteral -g $(OPT) -Icore $(PKG_CFLAGS) \
	-DWK_VERSION='"$(VERSION)"' -DWK_PROFILES_DIR='"$(PREFIX)/share/watchkeeper/profiles"' \
	-DWK_SRC_PROFILES_DIR='"$(CURDIR)/profiles"' $(CFLAGS)
WK_LDFLAGS = $(LDSAN) $(LDFLAGS)

# The owner's ssh stack (ssh/: the transports, ssh_config, the target) is its
# own archive, so `make onbox` builds on a box that has only libc, libcurl's
# headers, cJSON and PCRE2.  Only patrol, sentinel, handbook and the tests see
# its headers (-Issh); core/ and onbox/ never do.
# What differs per system is in two files (core/os.h): os-linux.c with
# lock-linux.c here, os-darwin.c with lock-flock.c on a Mac; make check-macos
# compiles and links the Mac's set from this machine.
UNAME_S    := $(shell uname -s)
# The system the programs are for: the portable onbox is Linux's on any host.
TARGET_OS  ?= $(UNAME_S)
ifeq ($(TARGET_OS),Darwin)
CORE_OS_OTHER := core/os-linux.c core/lock-linux.c
else
CORE_OS_OTHER := core/os-darwin.c core/lock-flock.c
endif
CORE_SRCS  := $(filter-out $(CORE_OS_OTHER),$(sort $(wildcard core/*.c)))
CORE_OBJS  := $(CORE_SRCS:%.c=$(BUILD)/obj/%.o)
SSH_SRCS   := $(sort $(wildcard ssh/*.c))
SSH_OBJS   := $(SSH_SRCS:%.c=$(BUILD)/obj/%.o)
SSH_LIBS   := $(shell $(PKG_CONFIG) --libs libssh2 2>/dev/null || echo -lssh2)
# Their headers too: Homebrew's libssh2 and openssl@3 (keg-only) are not on
# the compiler's default path (README: On macOS).
SSH_CFLAGS := $(shell $(PKG_CONFIG) --cflags libssh2 libcrypto 2>/dev/null)
# patrol deploy compares files with the box's copies by sha256 (libcrypto:
# OpenSSL, which libssh2's -dev package already pulls in).
CRYPTO_LIBS := $(shell $(PKG_CONFIG) --libs libcrypto 2>/dev/null || echo -lcrypto)
# patrol top's screen (patrol/top.c, top-keys.c, top-draw.c) is ncurses, Debian's
# libncurses-dev (wide: UTF-8 bars and sparklines); a Mac links its own
# -lncurses.  Only patrol links it (make check-macos: scripts/check-macos.sh).
CURSES_LIBS := $(if $(filter Darwin,$(TARGET_OS)),-lncurses,$(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null || echo -lncursesw))
ONBOX_SRCS := $(sort $(wildcard onbox/*.c))
ONBOX_OBJS := $(ONBOX_SRCS:%.c=$(BUILD)/obj/%.o)
PATROL_SRCS := $(sort $(wildcard patrol/*.c))
PATROL_OBJS := $(PATROL_SRCS:%.c=$(BUILD)/obj/%.o)
SENTINEL_SRCS := $(sort $(wildcard sentinel/*.c))
SENTINEL_OBJS := $(SENTINEL_SRCS:%.c=$(BUILD)/obj/%.o)
# The handbook renderer is a library (handbook/render*.c) linked into patrol
# and the handbook binary (handbook/main.c): patrol -> handbook, never core -> handbook.
HANDBOOK_LIB_SRCS := $(sort $(wildcard handbook/render*.c))
HANDBOOK_LIB_OBJS := $(HANDBOOK_LIB_SRCS:%.c=$(BUILD)/obj/%.o)
HANDBOOK_SRCS := $(filter-out $(HANDBOOK_LIB_SRCS),$(sort $(wildcard handbook/*.c)))
HANDBOOK_OBJS := $(HANDBOOK_SRCS:%.c=$(BUILD)/obj/%.o)
LIBHANDBOOK := $(BUILD)/libwatchkeeper-handbook.a
LIB        := $(BUILD)/libwatchkeeper.a
LIBSSH     := $(BUILD)/libwatchkeeper-ssh.a

UNIT_SRCS  := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS  := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

# onbox runs on the Linux box (inotify, cgroups, pidfd): a Mac builds the owner's three.
BINS := $(if $(filter Darwin,$(TARGET_OS)),,$(BUILD)/onbox) $(BUILD)/patrol \
	$(if $(SENTINEL_SRCS),$(BUILD)/sentinel) $(if $(HANDBOOK_SRCS),$(BUILD)/handbook)

.PHONY: check-macos all onbox onbox-portable patrol sentinel handbook unit test test-quick test-plain test-asan demo bench memcheck chaos fuzz install clean
all: $(BINS)
onbox: $(BUILD)/onbox
patrol: $(BUILD)/patrol
sentinel: $(BUILD)/sentinel
handbook: $(BUILD)/handbook

# The self-contained onbox: fully static (zig cc, musl), cJSON and PCRE2 from
# third_party/ inside, one per architecture (scripts/portable.sh says how and why).
PORTABLE_ARCHS := x86_64 aarch64
onbox-portable:
	+@MAKE="$(MAKE)" bash scripts/portable.sh $(PORTABLE_ARCHS)

# Would the owner's side build and link on a Mac?  (scripts/check-macos.sh;
# make test runs it as tests/e2e/test_macos.sh.)
check-macos:
	@bash scripts/check-macos.sh

$(BUILD)/obj/ssh/%.o $(BUILD)/obj/patrol/%.o $(BUILD)/obj/sentinel/%.o \
    $(BUILD)/obj/handbook/%.o: WK_CFLAGS += -Issh $(SSH_CFLAGS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(WK_CFLAGS) -MMD -MP -c -o $@ $<

$(LIB): $(CORE_OBJS)
	@rm -f $@
	@echo "  AR      $@"
	@$(AR) rcs $@ $^

$(LIBSSH): $(SSH_OBJS)
	@rm -f $@
	@echo "  AR      $@"
	@$(AR) rcs $@ $^

$(LIBHANDBOOK): $(HANDBOOK_LIB_OBJS)
	@rm -f $@
	@echo "  AR      $@"
	@$(AR) rcs $@ $^

# patrol, the handbook binary and test_handbook include handbook.h.
$(PATROL_OBJS) $(HANDBOOK_OBJS) $(HANDBOOK_LIB_OBJS): WK_CFLAGS += -Ihandbook

$(BUILD)/onbox: $(ONBOX_OBJS) $(LIB)
	@echo "  LD      $@"
	@$(CC) $(WK_LDFLAGS) -o $@ $(ONBOX_OBJS) $(LIB) $(PKG_LIBS)

$(BUILD)/patrol: $(PATROL_OBJS) $(LIBHANDBOOK) $(LIB) $(LIBSSH)
	@echo "  LD      $@"
	@$(CC) $(WK_LDFLAGS) -o $@ $(PATROL_OBJS) $(LIBHANDBOOK) $(LIBSSH) $(LIB) $(PKG_LIBS) $(SSH_LIBS) $(CRYPTO_LIBS) $(CURSES_LIBS)

$(BUILD)/sentinel: $(SENTINEL_OBJS) $(LIB) $(LIBSSH)
	@echo "  LD      $@"
	@$(CC) $(WK_LDFLAGS) -o $@ $(SENTINEL_OBJS) $(LIBSSH) $(LIB) $(PKG_LIBS) $(SSH_LIBS)

$(BUILD)/handbook: $(HANDBOOK_OBJS) $(LIBHANDBOOK) $(LIB) $(LIBSSH)
	@echo "  LD      $@"
	@$(CC) $(WK_LDFLAGS) -o $@ $(HANDBOOK_OBJS) $(LIBHANDBOOK) $(LIBSSH) $(LIB) $(PKG_LIBS) $(SSH_LIBS)

# test_triage also reads the stage's cgroup counter, which is onbox's (onbox/cgroup.c).
$(BUILD)/tests/test_triage: $(BUILD)/obj/onbox/cgroup.o
$(BUILD)/tests/test_triage: WK_CFLAGS += -Ionbox

$(BUILD)/tests/%: tests/unit/%.c $(LIB) $(LIBSSH)
	@mkdir -p $(dir $@)
	@echo "  CC+LD   $@"
	@$(CC) $(WK_CFLAGS) -Issh $(SSH_CFLAGS) -MMD -MP -o $@ $< $(filter %.o,$^) $(LIBSSH) $(LIB) $(WK_LDFLAGS) $(PKG_LIBS) $(SSH_LIBS) -lcmocka

$(BUILD)/tests/test_handbook: tests/unit/test_handbook.c $(LIBHANDBOOK) $(LIB) $(LIBSSH)
	@mkdir -p $(dir $@)
	@echo "  CC+LD   $@"
	@$(CC) $(WK_CFLAGS) -Ihandbook -Issh $(SSH_CFLAGS) -MMD -MP -o $@ $< $(LIBHANDBOOK) $(LIBSSH) $(LIB) $(WK_LDFLAGS) $(PKG_LIBS) $(SSH_LIBS) -lcmocka

# test_mcp links patrol's objects but its main (patrol.o), for the real tool table.
MCP_TEST_OBJS := $(filter-out $(BUILD)/obj/patrol/patrol.o,$(PATROL_OBJS))
$(BUILD)/tests/test_mcp: tests/unit/test_mcp.c $(MCP_TEST_OBJS) $(LIBHANDBOOK) $(LIB) $(LIBSSH)
	@mkdir -p $(dir $@)
	@echo "  CC+LD   $@"
	@$(CC) $(WK_CFLAGS) -Ipatrol -Ihandbook -Issh $(SSH_CFLAGS) -MMD -MP -o $@ $< $(MCP_TEST_OBJS) $(LIBHANDBOOK) $(LIBSSH) $(LIB) $(WK_LDFLAGS) $(PKG_LIBS) $(SSH_LIBS) $(CRYPTO_LIBS) $(CURSES_LIBS) -lcmocka

# test_top: patrol top's text (top-fmt.c), the loss ring (top-loss.c) and the rows
# from state directories (top-model.c): no terminal.
$(BUILD)/tests/test_top: $(BUILD)/obj/patrol/top-fmt.o $(BUILD)/obj/patrol/top-loss.o \
    $(BUILD)/obj/patrol/top-model.o
$(BUILD)/tests/test_top: WK_CFLAGS += -Ipatrol

# A driver for the ssh transport's end-to-end tests (tests/e2e/test_ssh.sh).
$(BUILD)/sshtool: tests/unit/sshtool.c $(LIB) $(LIBSSH)
	@echo "  CC+LD   $@"
	@$(CC) $(WK_CFLAGS) -Issh $(SSH_CFLAGS) -MMD -MP -o $@ $< $(LIBSSH) $(LIB) $(WK_LDFLAGS) $(PKG_LIBS) $(SSH_LIBS)

# The e2e tests' own tools: a file-wait without polling for their stage
# scripts (tests/unit/await.c), json()'s reader (tests/unit/jsonq.c) and
# port_take's holder (tests/unit/porthold.c; the demo's too).  Not
# the product: built without the sanitizers in every build, so that an ASan
# build's tests do not pay ASan's start and exit (some 50 ms of CPU) at each
# of their thousands of calls.
HELPER_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -O2 -g $(PKG_CFLAGS) $(CFLAGS)
$(BUILD)/await: tests/unit/await.c
	@mkdir -p $(dir $@)
	@echo "  CC+LD   $@"
	@$(CC) $(HELPER_CFLAGS) -o $@ $< $(LDFLAGS)

$(BUILD)/jsonq: tests/unit/jsonq.c
	@mkdir -p $(dir $@)
	@echo "  CC+LD   $@"
	@$(CC) $(HELPER_CFLAGS) -o $@ $< $(LDFLAGS) $(PKG_LIBS) -lm

$(BUILD)/porthold: tests/unit/porthold.c
	@mkdir -p $(dir $@)
	@echo "  CC+LD   $@"
	@$(CC) $(HELPER_CFLAGS) -o $@ $< $(LDFLAGS)

unit: $(UNIT_BINS) $(BUILD)/sshtool $(BUILD)/await $(BUILD)/jsonq $(BUILD)/porthold

# The README's test command.  Both builds, then every test file of both, JOBS
# files at a time (tests/run.sh: default three a core, at least 6), then one
# summary line and the ten slowest files.  The portable onbox needs optional
# packages: when it cannot be built, test_portable SKIPs (or FAILs, for a
# build error) with the reason.
# The three builds run at once under one jobserver (test-builds): one after
# the other, each one's serial tail (its links, the portable build's two
# architectures) left a core idle for most of a minute.
NPROC := $(shell nproc 2>/dev/null || echo 2)
JOBS ?=
test:
	$(MAKE) -j$(NPROC) --no-print-directory test-builds
	bash tests/run.sh $(if $(JOBS),-j $(JOBS)) build build/asan

.PHONY: test-builds test-build-plain test-build-asan test-build-portable
test-builds: test-build-plain test-build-asan test-build-portable
test-build-plain:
	+@$(MAKE) --no-print-directory SANITIZE=0 all unit
test-build-asan:
	+@$(MAKE) --no-print-directory SANITIZE=1 all unit
test-build-portable:
	+@$(MAKE) --no-print-directory SANITIZE=0 onbox-portable || echo "make test: onbox-portable not (fully) built: test_portable says why"

# The edit-build-test loop: the plain build's unit tests and the e2e files that
# took under 40 s in their last run (tests/run.sh --quick).  CI runs make test.
test-quick:
	$(MAKE) -j$(NPROC) --no-print-directory all unit
	bash tests/run.sh --quick $(if $(JOBS),-j $(JOBS)) build

test-plain: all unit
	bash tests/run.sh $(BUILD)

# The demo deploys with no flags: the portable onbox for this machine's arch.
demo: all $(BUILD)/porthold
	$(MAKE) --no-print-directory onbox-portable PORTABLE_ARCHS=$$(uname -m | sed s/arm64/aarch64/) || \
		echo "make demo: no portable onbox (the demo says why and uses --onbox)"
	bash examples/demo/demo.sh $(BUILD)

bench: all
	$(MAKE) --no-print-directory onbox-portable || echo "make bench: onbox-portable not (fully) built: bench says why"
	bash bench/bench.sh $(BUILD)

# The long fault suite (tests/chaos/): the short version is part of `make test`.
chaos: all unit
	bash tests/chaos/run.sh $(BUILD)

# libFuzzer targets (fuzz/), each for FUZZ_SECONDS, from the seed corpus in the tree.
FUZZ_SECONDS ?= 60
fuzz:
	bash fuzz/run.sh $(FUZZ_SECONDS)

memcheck: all unit
	bash tests/run.sh --valgrind $(BUILD)

# The portable onboxes go where an installed patrol looks for them
# (<bin>/../lib/watchkeeper/): each one that could be built; the others are named.
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/watchkeeper/profiles
	install -m 0755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 profiles/*.json $(DESTDIR)$(PREFIX)/share/watchkeeper/profiles/
	-+@MAKE="$(MAKE)" bash scripts/portable.sh $(PORTABLE_ARCHS)
	install -d $(DESTDIR)$(PREFIX)/lib/watchkeeper
	@for a in $(PORTABLE_ARCHS); do \
		f=build/portable/onbox-$$a-linux; \
		if [ -f $$f ]; then install -m 0755 $$f $(DESTDIR)$(PREFIX)/lib/watchkeeper/ && \
			echo "install: $(DESTDIR)$(PREFIX)/lib/watchkeeper/onbox-$$a-linux"; \
		else echo "install: no portable onbox for $$a: $$(cat $$f.skip 2>/dev/null || echo 'its build failed (make onbox-portable)')"; fi; \
	done

clean:
	rm -rf build

-include $(CORE_OBJS:.o=.d) $(SSH_OBJS:.o=.d) $(ONBOX_OBJS:.o=.d) $(PATROL_OBJS:.o=.d) \
	$(SENTINEL_OBJS:.o=.d) $(HANDBOOK_OBJS:.o=.d) $(HANDBOOK_LIB_OBJS:.o=.d) $(UNIT_BINS:=.d)
