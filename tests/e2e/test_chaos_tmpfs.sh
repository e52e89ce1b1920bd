#!/usr/bin/env bash
# The fault and bad-input suite's short version for `make test`, one
# scenario a file so the scenarios run side by side: tests/chaos/tmpfs.sh at
# size 2 (the long version is `make chaos`, tests/chaos/run.sh).  It prints
# its own PASS/FAIL lines; BUILD and ONBOX_WRAP pass through (under valgrind
# the script shrinks its sizes further).
exec bash "$(cd "$(dirname "$0")/../chaos" && pwd)/tmpfs.sh" 2
