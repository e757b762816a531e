#!/usr/bin/env bash
# Benchmark: tinylab (wasm, on tfjs's kernels and on onnxruntime-node's) and the PyTorch peer (../shared/peer) on the
# medium config in interleaved pairs (tinylab's engines first, then the peer), printing per pair and engine the
# step-time ratio tinylab/peer and the forward-only scoring ratio peer tokens/s ÷ tinylab tokens/s (both > 1 mean
# tinylab is slower). Not a test.
# Usage: bash bench/vs_peer.sh [PAIRS=3] [PEER_THREADS=2] [SRCS=this tree] [STEPS=6] [PEER_STEPS=30] [WORKERS=1] [KERNELS=tfjs,onnxruntime]
#   WORKERS: comma-separated tinylab worker counts, each measured once per pair (e.g. 1,2)
#   KERNELS: comma-separated kernels (tfjs, onnxruntime, onnxruntime-products), each measured once per pair and worker
#   count (onnxruntime scores through the whole ONNX graph; onnxruntime-products scores on tfjs with native products)
#   SRCS: comma-separated checkouts whose src/ this tree's bench/step.ts measures, each once per pair against
#   the same peer run (a before/after comparison against the peer in one run)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-3}
threads=${2:-2}
srcs=${3:-$PWD}
steps=${4:-6}
peer_steps=${5:-30}
workers=${6:-1}
kernels=${7:-tfjs,onnxruntime}
peer="$PWD/../shared/peer/torch_decoder.py"
[ -f "$peer" ] || peer=/work/shared/peer/torch_decoder.py
for p in $(seq "$pairs"); do
  ours=()
  for src in ${srcs//,/ }; do for w in ${workers//,/ }; do for k in ${kernels//,/ }; do
    ours+=("$(node --import tsx bench/step.ts --backends wasm --kernels "$k" --configs medium --steps "$steps" --workers "$w" --src "$src" 2>/dev/null)")
  done; done; done
  theirs=$(/usr/bin/python3 "$peer" --config medium --threads "$threads" --steps "$peer_steps" --eval-steps "$peer_steps")
  for a in "${ours[@]}"; do
    jq -n -c --argjson a "$a" --argjson b "$theirs" --arg p "$p" '
      ($a.results[0]) as $t | {
        pair: ($p | tonumber), engine: $t.engine, scoring: $t.scoring, gradients: $t.gradients, src: $a.src, workers: $t.workers, peer_threads: $b.threads,
        peer_openblas_coretype: $b.env.openblas_coretype_env,
        tinylab_ms: $t.ms_per_step, peer_ms: ($b.train.median_ms * 1000 | round / 1000),
        step_ratio: ($t.ms_per_step / $b.train.median_ms * 100 | round / 100),
        tinylab_eval_tokens_per_s: $t.eval_tokens_per_s, tinylab_eval_first_ms: $t.eval_first_ms, peer_eval_tokens_per_s: ($b.eval.tokens_per_s_median | round),
        scoring_ratio: ($b.eval.tokens_per_s_median / $t.eval_tokens_per_s * 100 | round / 100),
        kernel_calls_per_step: $t.kernel_calls_per_step, peer_other_cpu_load: ($b.train.other_cpu_load * 100 | round / 100) }'
  done
done
