#!/usr/bin/env bash
# Benchmark: wall time of `tinylab --help` and `tinylab train --help` (no tfjs should load), median of N runs.
# With a second checkout as DIR, the two trees run in interleaved pairs and the ratio is printed.
# Usage: bash bench/help.sh [N=9] [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-9}
other=${2:-}
wall() { local s e; s=$(date +%s%N); (cd "$1" && node bin/tinylab.js "${@:2}" > /dev/null); e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
for args in "--help" "train --help"; do
  here=(); there=()
  for _ in $(seq "$n"); do
    here+=("$(wall . $args)")
    if [ -n "$other" ]; then there+=("$(wall "$other" $args)"); fi
  done
  h=$(printf '%s\n' "${here[@]}" | median)
  if [ -n "$other" ]; then
    t=$(printf '%s\n' "${there[@]}" | median)
    echo "tinylab $args: this tree ${h} ms, $other ${t} ms (median of $n interleaved pairs; ratio $(awk "BEGIN {printf \"%.2f\", $h / $t}"))"
  else
    echo "tinylab $args: ${h} ms (median of $n)"
  fi
done
