#!/usr/bin/env bash
# Benchmark: xl's attention core (scores, softmax, ·v; 6 heads of 64, rows of 256, the QKV product left out) on one
# thread, onnxruntime's MultiHeadAttention with the causal bias (what the scoring graph runs, bench/attention_core.ts)
# against a causal kernel in C that computes only the keys a query sees (native/causal_attention.h, AVX-512, compiled
# here with the machine's gcc): the kernel tinylab's addon runs as its causal attention operator (native/tinylab_ort.c;
# bench/causal_attention.ts times it inside the scoring graph). Each side checks its output
# against a float64 reference. Interleaved, one JSON line per side and round; not a test.
# Usage: bash bench/attention_core.sh [ROUNDS=3] [ROWS=2]
set -euo pipefail
rounds=${1:-3}
rows=${2:-2}
here=$(cd "$(dirname "$0")" && pwd)
grep -qw avx512f /proc/cpuinfo || { echo '{"error":"this CPU has no AVX-512F"}'; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O3 -march=native "$here/native/attention_core.c" -o "$tmp/attention" -lm
for r in $(seq "$rounds"); do
  "$tmp/attention" "$rows" | sed "s/^{/{\"round\":$r,/"
  npx --prefix "$here/.." tsx "$here/attention_core.ts" --rows "$rows" | sed "s/^{/{\"round\":$r,/"
done
