#!/bin/sh
# A stand-in for a training script: progress lines, a W&B-style link,
# checkpoints (a complete one carries metadata.json, written last), then the
# done line.  It resumes like a real trainer: --resume DIR starts after the
# step DIR's metadata.json names ('' or "none": from step 1).
#
# usage: fake-train.sh [STEPS [SECONDS_PER_STEP]] [--resume DIR]
#
# The demo's fault: when ./crash-once-at (in the working directory) holds a
# step N, the attempt that reaches step N removes the file (so it happens
# once), leaves ckpt/step_N half written (no metadata.json), prints an NCCL
# watchdog timeout the way PyTorch does and exits 1.
steps=40
pace=0.05
resume=
npos=0
while [ $# -gt 0 ]; do
	case $1 in
	--resume) resume=${2-}; shift 2 || shift ;;
	--resume=*) resume=${1#--resume=}; shift ;;
	*)
		npos=$((npos + 1))
		if [ "$npos" -eq 1 ]; then steps=$1; else pace=$1; fi
		shift
		;;
	esac
done
crash_at=
[ -f crash-once-at ] && crash_at=$(cat crash-once-at)

start=1
if [ -n "$resume" ] && [ "$resume" != none ]; then
	s=$(sed -n 's/.*"step": *\([0-9][0-9]*\).*/\1/p' "$resume/metadata.json")
	[ -n "$s" ] || { echo "cannot resume: no step in $resume/metadata.json" >&2; exit 2; }
	start=$((s + 1))
	echo "resuming from $resume (step $s)"
else
	echo "starting fresh"
fi
echo "wandb: 🚀 View run demo-run at https://wandb.ai/demo/watchkeeper/runs/demo123"
i=$start
while [ "$i" -le "$steps" ]; do
	loss=$(awk -v i="$i" 'BEGIN { printf "%.4f", 3.0 / (1 + i / 10) }')
	echo "step $i/$steps loss=$loss tokens/s=41000"
	if [ "$i" = "$crash_at" ]; then
		rm -f crash-once-at
		mkdir -p "ckpt/step_$i"
		echo "half the weights for step $i" >"ckpt/step_$i/model.bin"
		echo "[rank0]:[E ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=$i, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600021 milliseconds before timing out."
		echo "torch.distributed.DistBackendError: NCCL communicator was aborted on rank 0."
		exit 1
	fi
	if [ $((i % 10)) -eq 0 ]; then
		mkdir -p "ckpt/step_$i"
		echo "weights for step $i" >"ckpt/step_$i/model.bin"
		echo "{\"step\": $i}" >"ckpt/step_$i/metadata.json"
		echo "saved checkpoint ckpt/step_$i"
	fi
	sleep "$pace"
	i=$((i + 1))
done
echo "Training completed"
