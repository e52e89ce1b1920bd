#!/bin/sh
# A stand-in for an evaluation: reads the newest COMPLETE checkpoint (the one
# with metadata.json, by step number), writes a results CSV atomically.
set -e
last=$(for m in ckpt/step_*/metadata.json; do [ -f "$m" ] && dirname "$m"; done |
	sort -t_ -k2 -n | tail -n 1)
[ -n "$last" ] || { echo "no complete checkpoint to evaluate" >&2; exit 1; }
echo "evaluating $last"
mkdir -p results
printf 'metric,value\nacc,0.812\nf1,0.790\n' >results/metrics.csv.tmp
mv results/metrics.csv.tmp results/metrics.csv
echo "eval finished: acc=0.812 f1=0.790"
