#!/usr/bin/env bash
# The fault and bad-input suite's short version for `make test`, one
# scenario a file so the scenarios run side by side: tests/chaos/hostile.sh at
# size 2 (the long version is `make chaos`, tests/chaos/run.sh), the malformed configs.
# It prints its own PASS/FAIL lines; BUILD and ONBOX_WRAP pass through (under
# valgrind the script shrinks its sizes further).  The three were one file,
# whose ASan run took 830 to 900 s beside a second make test: over
# tests/run.sh's bound for a file.
exec bash "$(cd "$(dirname "$0")/../chaos" && pwd)/hostile.sh" 2 malformed
