#!/bin/sh
# A stand-in for a training script: progress lines, a W&B-style link,
# checkpoints (complete ones carry metadata.json), then the done line.
# usage: fake-train.sh STEPS [SECONDS_PER_STEP]
steps=${1:-40}
pace=${2:-0.05}
echo "wandb: 🚀 View run demo-run at https://wandb.ai/demo/watchkeeper/runs/demo123"
i=1
while [ "$i" -le "$steps" ]; do
	loss=$(awk -v i="$i" 'BEGIN { printf "%.4f", 3.0 / (1 + i / 10) }')
	echo "step $i/$steps loss=$loss tokens/s=41000"
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
