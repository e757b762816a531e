#!/usr/bin/env bash
# Benchmark, not a test: wall time of `tinylab sweep overfit --seeds 39,40,41 --jobs 2` against the same three
# runs one after another (`tinylab overfit --seeds S --out .` each), in N interleaved pairs (default 3), start-up
# included. Prints each pair and the ratio sweep / sequential (median over pairs). Writes to tmp/bench-sweep.
set -euo pipefail
N=${1:-3}
cd "$(dirname "$0")/.."
BIN="$PWD/bin/tinylab.js"
ROOT="$PWD/tmp/bench-sweep"
rm -rf "$ROOT" && mkdir -p "$ROOT"
now() { date +%s.%N; }
ratios=()
for i in $(seq 1 "$N"); do
  t0=$(now)
  node "$BIN" sweep overfit --seeds 39,40,41 --jobs 2 --out "$ROOT/sweep-$i" >/dev/null
  t1=$(now)
  for s in 39 40 41; do
    mkdir -p "$ROOT/seq-$i/seed=$s"
    (cd "$ROOT/seq-$i/seed=$s" && node "$BIN" overfit --seeds "$s" --out . >/dev/null)
  done
  t2=$(now)
  sweep=$(echo "$t1 - $t0" | bc -l); seq=$(echo "$t2 - $t1" | bc -l); ratio=$(echo "$sweep / $seq" | bc -l)
  printf 'pair %d: sweep --jobs 2 %.2f s, sequential %.2f s, ratio %.3f\n' "$i" "$sweep" "$seq" "$ratio"
  ratios+=("$ratio")
done
printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {printf "median ratio sweep/sequential over %d pairs: %.3f\n", NR, a[int((NR+1)/2)]}'
