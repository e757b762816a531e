#!/usr/bin/env bash
# Benchmark: the data path at scale. Generates (bench/make_text.ts, seeded, not committed) 2, 20 and 200 MB of text
# and 10^4, 10^5 and 10^6 one-line documents in DIR, then times `train --text` (--one-per-line for the lines) to its
# first update with the graph engine, one run and one JSON line per input (bench/first_update.ts): first_s (seconds to
# the first update line, the initial whole-split validation included), data_s (seconds to the data line `train: ...`:
# read, split, BPE, tokenizing), wall_s, cpu_s (user + system of the whole run), peak_rss_mb (GNU time's %M) and the
# longest silence. Linear growth means data_s ten times larger for ten times the input. Not a test.
# Usage: bash bench/data_scale.sh [DIR=/tmp/tinylab-data-scale] [SIZES="2 20 200"] [LINES="10000 100000 1000000"] [KERNELS=onnxruntime]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/tinylab-data-scale}
sizes=${2:-2 20 200}
lines=${3:-10000 100000 1000000}
kernels=${4:-onnxruntime}
mkdir -p "$dir"
run() { # name, input, extra flags: one run, timed to its data line and to its first update
  rm -rf "$dir/out-$1"
  npx tsx bench/first_update.ts -- node bin/tinylab.js train --text "$2" $3 --out "$dir/out-$1" --updates 1 --kernels "$kernels" |
    jq -c --arg input "$1" '{input: $input, data_s, first_s, wall_s, cpu_s, peak_rss_mb, longest_gap_s: .longest_gaps[0].s, exit}'
}
for mb in $sizes; do
  [ -f "$dir/text-$mb.txt" ] || npx tsx bench/make_text.ts --mb "$mb" --out "$dir/text-$mb.txt"
  run "${mb}MB" "$dir/text-$mb.txt" ""
done
for n in $lines; do
  [ -f "$dir/lines-$n.txt" ] || npx tsx bench/make_text.ts --lines "$n" --out "$dir/lines-$n.txt"
  run "$n-lines" "$dir/lines-$n.txt" "--one-per-line"
done
