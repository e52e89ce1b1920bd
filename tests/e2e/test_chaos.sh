#!/usr/bin/env bash
# The fault and bad-input suite's short version, for `make test`: the
# scenario scripts of tests/chaos/ (the long version is `make chaos`) with
# small sizes: 8 kill -9s, 2 full disks, 5 stages of receiver faults, 6 SSH
# trials (every fault once), every hostile value in 2 fields (every field at
# least once), every malformed config, the garbage logs.  Each prints its
# own PASS/FAIL lines; BUILD and ONBOX_WRAP pass through (under valgrind the
# scripts shrink their sizes further).
dir=$(cd "$(dirname "$0")/../chaos" && pwd)
for s in "kill9.sh 8" "tmpfs.sh 2" "webhooks.sh 5" "ssh.sh 6" "hostile.sh 2"; do
	bash "$dir/${s%% *}" "${s#* }"
done
