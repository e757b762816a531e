#!/usr/bin/env bash
# Benchmark: tinylab's graph engine (wasm + onnxruntime, --workers WORKERS) against the PyTorch peer
# (../shared/peer/torch_decoder.py, PEER_THREADS threads) on medium, large and xl, in interleaved pairs (tinylab, then
# the peer, config by config), one JSON line per config and pair: step_ratio = tinylab ms ÷ peer ms per training
# step, scoring_ratio = tinylab scoring time ÷ the peer's (peer tokens/s ÷ tinylab tokens/s), rss_ratio = tinylab's
# peak resident memory (GNU time's %M of its process) ÷ the peer's peak_rss_kb; below 1 means tinylab is ahead. Each
# line carries the peer's OpenBLAS kernel (openblas_coretype_env, used; _inherited, the environment's), the other CPU
# load the peer saw and tinylab's time to its first update (process start to the end of update 1), and each side's
# rate of the products' work (bench/flops.ts: GFLOP/s of training and of scoring, the peer's from its tokens/s). After
# the pairs, one summary line per config: the median, smallest and largest of each ratio over its pairs, and each
# side's best against the other's best. Not a test.
# Usage: bash bench/scale.sh [PAIRS=2] [CONFIGS=medium,large,xl] [WORKERS=2] [PEER_THREADS=2] [KERNELS=onnxruntime] [STEPS]
# STEPS (default: each side's own counts) times that many training steps on both sides, after the peer's one warm-up
# step and tinylab's two, and that many scoring passes: for a machine too busy for the full counts.
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-2}
configs=${2:-medium,large,xl}
workers=${3:-2}
threads=${4:-2}
kernels=${5:-onnxruntime}
steps=${6:-}
ours_steps=() theirs_steps=()
if [ -n "$steps" ]; then ours_steps=(--steps "$steps"); theirs_steps=(--warmup 1 --steps "$steps" --eval-steps "$steps"); fi
peer="$PWD/../shared/peer/torch_decoder.py"
[ -f "$peer" ] || peer=/work/shared/peer/torch_decoder.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in $(seq "$pairs"); do
  for c in ${configs//,/ }; do
    /usr/bin/time -f "%M" -o "$tmp/rss" node --import tsx bench/step.ts --backends wasm --kernels "$kernels" --configs "$c" --workers "$workers" "${ours_steps[@]}" > "$tmp/ours" 2>/dev/null
    /usr/bin/python3 "$peer" --config "$c" --threads "$threads" "${theirs_steps[@]}" > "$tmp/theirs"
    jq -n -c --slurpfile a "$tmp/ours" --slurpfile b "$tmp/theirs" --arg rss "$(tail -1 "$tmp/rss")" --arg p "$p" '
      ($a[0].results[0]) as $t | $b[0] as $b | {
        pair: ($p | tonumber), config: $t.config, parameters: $t.parameters, engine: $t.engine, scoring: $t.scoring, workers: $t.workers, peer_threads: $b.threads,
        peer_openblas_coretype_env: $b.env.openblas_coretype_env, peer_openblas_coretype_inherited: $b.env.openblas_coretype_inherited,
        step_ratio: ($t.ms_per_step / $b.train.median_ms * 100 | round / 100),
        scoring_ratio: ($b.eval.tokens_per_s_median / $t.eval_tokens_per_s * 100 | round / 100),
        rss_ratio: (($rss | tonumber) / $b.peak_rss_kb * 100 | round / 100),
        tinylab_first_update_s: $t.first_update_s,
        tinylab_ms: $t.ms_per_step, peer_ms: ($b.train.median_ms * 10 | round / 10),
        tinylab_train_tokens_per_s: $t.train_tokens_per_s, peer_train_tokens_per_s: ($b.train.tokens_per_s_median | round),
        tinylab_eval_tokens_per_s: $t.eval_tokens_per_s, peer_eval_tokens_per_s: ($b.eval.tokens_per_s_median | round),
        tinylab_train_gflop_s: $t.train_gflop_s, peer_train_gflop_s: ($b.train.tokens_per_s_median * 3 * $t.forward_flops_per_token / 1e8 | round / 10),
        tinylab_eval_gflop_s: $t.eval_gflop_s, peer_eval_gflop_s: ($b.eval.tokens_per_s_median * $t.forward_flops_per_token / 1e8 | round / 10),
        tinylab_peak_rss_kb: ($rss | tonumber), peer_peak_rss_kb: $b.peak_rss_kb,
        peer_other_cpu_load: ($b.train.other_cpu_load * 100 | round / 100) }' | tee -a "$tmp/lines"
  done
done
# per config over its pairs: each ratio's median (of an even count, the mean of the middle two), smallest and largest,
# the median of each side's rate, and each side's best against the other's best (its fastest step, its highest scoring
# rate): what the two sides can do in their quietest moments, which a noisy machine gives each side in different pairs
jq -s -c 'group_by(.config)[] | . as $p | def m(f): [$p[] | f] | sort | if length % 2 == 1 then .[length / 2 | floor]
    else (.[length / 2 - 1] + .[length / 2]) / 2 * 1000 | round / 1000 end;
  def r(f): {median: m(f), min: ([$p[] | f] | min), max: ([$p[] | f] | max)};
  {summary: $p[0].config, pairs: length, peer_openblas_coretype_env: ([$p[].peer_openblas_coretype_env] | unique | join(",")),
   step_ratio: r(.step_ratio), scoring_ratio: r(.scoring_ratio), rss_ratio: r(.rss_ratio),
   tinylab_train_gflop_s: m(.tinylab_train_gflop_s), peer_train_gflop_s: m(.peer_train_gflop_s),
   tinylab_eval_gflop_s: m(.tinylab_eval_gflop_s), peer_eval_gflop_s: m(.peer_eval_gflop_s),
   best_step_ratio: (([$p[].tinylab_ms] | min) / ([$p[].peer_ms] | min) * 100 | round / 100),
   best_scoring_ratio: (([$p[].peer_eval_tokens_per_s] | max) / ([$p[].tinylab_eval_tokens_per_s] | max) * 100 | round / 100),
   peer_other_cpu_load_max: ([$p[].peer_other_cpu_load] | max)}' "$tmp/lines"
