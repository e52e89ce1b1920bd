#!/usr/bin/env bash
# make demo: run the sample chain (train -> eval) through onbox locally and
# show what it leaves behind: markers, `onbox status`, the events.
set -eu
build=${1:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
onbox="$top/$build/onbox"
d=$(mktemp -d /tmp/watchkeeper-demo.XXXXXX)
cp "$top"/examples/demo/fake-train.sh "$top"/examples/demo/fake-eval.sh \
	"$top"/examples/demo/watchkeeper.json "$d/"
cfg="$d/watchkeeper.json"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "the run: $cfg"
grep -v '^\s*//' "$cfg"
say "onbox run  (train -> eval, &&-gated; a marker lands only on success)"
"$onbox" -c "$cfg" run
say "markers"
ls -l "$d/run/.watchkeeper/markers/"
say "TRAIN_DONE says"
cat "$d/run/.watchkeeper/markers/TRAIN_DONE"
say "onbox status"
"$onbox" -c "$cfg" status
say "events.jsonl"
cat "$d/run/.watchkeeper/events.jsonl"
say "results"
cat "$d/run/results/metrics.csv"
say "left in $d (remove with: rm -rf $d)"
