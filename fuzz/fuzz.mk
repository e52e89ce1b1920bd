# fuzz/fuzz.mk: builds the libFuzzer targets with clang; fuzz/run.sh runs it
# (make -f fuzz/fuzz.mk FUZZ_BUILD=DIR CC=clang TARGETS="config probe ...").
#
# Every core/*.c (libssh2 is needed only by ssh/, which no target links) is compiled
# with coverage instrumentation and ASan+UBSan into $(FUZZ_BUILD)/libwkfuzz.a,
# with the same language flags and pkg-config libraries as the Makefile; each
# fuzz/fuzz_<name>.c links against it with libFuzzer's main.  Nothing is
# written outside $(FUZZ_BUILD).  Profiles come only from the tree's profiles/
# (WK_PROFILES_DIR is empty) so that a run does not depend on the machine.

TOP		:= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
FUZZ_BUILD	?= $(TOP)/fuzz/build
CC		:= clang
AR		?= ar
PKG_CONFIG	?= pkg-config
# Extra compiler flags, e.g. -fno-sanitize=float-cast-overflow to fuzz past a
# known finding while it is being fixed (use another FUZZ_BUILD for them).
FUZZ_CFLAGS	?=
TARGETS		?= $(patsubst $(TOP)/fuzz/fuzz_%.c,%,$(wildcard $(TOP)/fuzz/fuzz_*.c))

VERSION		:= $(shell cat $(TOP)/VERSION 2>/dev/null || echo 0.0.0)
PKG_CFLAGS	:= $(shell $(PKG_CONFIG) --cflags libcurl libcjson libpcre2-8 2>/dev/null)
PKG_LIBS	:= $(shell $(PKG_CONFIG) --libs libcjson libpcre2-8 2>/dev/null || echo -lcjson -lpcre2-8) -ldl -lm

SAN		:= -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FZ_CFLAGS	:= -std=c11 -D_GNU_SOURCE -g -O1 -I$(TOP)/core -I$(TOP)/fuzz -I$(TOP)/patrol $(PKG_CFLAGS) \
	-DWK_VERSION='"$(VERSION)"' -DWK_PROFILES_DIR='""' -DWK_SRC_PROFILES_DIR='"$(TOP)/profiles"' \
	-Wall -Wextra -Wshadow -Wformat=2 -Wno-format-nonliteral

CORE_SRCS	:= $(filter-out $(TOP)/core/os-darwin.c $(TOP)/core/lock-flock.c,$(sort $(wildcard $(TOP)/core/*.c)))
CORE_OBJS	:= $(CORE_SRCS:$(TOP)/core/%.c=$(FUZZ_BUILD)/obj/core/%.o)
UTIL_OBJ	:= $(FUZZ_BUILD)/obj/fuzz/fuzzutil.o
LIB		:= $(FUZZ_BUILD)/libwkfuzz.a
BINS		:= $(TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

.PHONY: all
all: $(BINS)

# The core is not ours to fix from here: clang's warnings are shown, not fatal.
$(FUZZ_BUILD)/obj/core/%.o: $(TOP)/core/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $(notdir $<)"
	@$(CC) $(FZ_CFLAGS) -fsanitize=fuzzer-no-link $(SAN) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

$(FUZZ_BUILD)/obj/fuzz/%.o: $(TOP)/fuzz/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      fuzz/$(notdir $<)"
	@$(CC) $(FZ_CFLAGS) -Werror -fsanitize=fuzzer-no-link $(SAN) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

# A patrol/ file a target drives (it must need only core/): its object, linked into that target.
$(FUZZ_BUILD)/obj/patrol/%.o: $(TOP)/patrol/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      patrol/$(notdir $<)"
	@$(CC) $(FZ_CFLAGS) -Werror -fsanitize=fuzzer-no-link $(SAN) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

$(FUZZ_BUILD)/fuzz_mcp: $(FUZZ_BUILD)/obj/patrol/mcp-proto.o

$(LIB): $(CORE_OBJS)
	@rm -f $@
	@$(AR) rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/obj/fuzz/fuzz_%.o $(UTIL_OBJ) $(LIB)
	@echo "  LD      $(notdir $@)"
	@$(CC) -fsanitize=fuzzer $(SAN) $(FUZZ_CFLAGS) -o $@ $(filter %.o,$^) $(LIB) $(PKG_LIBS)

-include $(CORE_OBJS:.o=.d) $(UTIL_OBJ:.o=.d) $(FUZZ_BUILD)/obj/patrol/mcp-proto.d $(TARGETS:%=$(FUZZ_BUILD)/obj/fuzz/fuzz_%.d)
