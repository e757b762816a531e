#!/usr/bin/env bash
# Benchmark: what a causal attention operator of our own saves in a whole scoring run, inside onnxruntime's graph.
# Builds bench/native/ort_custom_attention.c (a Node addon over onnxruntime's C API, linked against the library that
# onnxruntime-node ships) with the machine's gcc and Node's headers, then runs bench/custom_attention.ts for each
# config: the scoring graph as tinylab runs it against the same graph with the custom operator, interleaved, one
# JSON line per config. Needs AVX-512F, gcc and Node's headers; says which is missing and stops. Not a test.
# Usage: bash bench/custom_attention.sh [CONFIGS=xl] [ROUNDS=10] [ROWS=2]
set -euo pipefail
configs=${1:-xl}
rounds=${2:-10}
rows=${3:-2}
here=$(cd "$(dirname "$0")" && pwd)
grep -qw avx512f /proc/cpuinfo || { echo '{"error":"this CPU has no AVX-512F"}'; exit 0; }
command -v gcc > /dev/null || { echo '{"error":"gcc is not installed"}'; exit 0; }
headers=$(dirname "$(dirname "$(command -v node)")")/include/node
[ -f "$headers/node_api.h" ] || { echo "{\"error\":\"Node's headers are not in $headers\"}"; exit 0; }
ort=$(cd "$here/.." && node -p 'require("path").dirname(require.resolve("onnxruntime-node/package.json"))')/bin/napi-v6/linux/x64
[ -f "$ort/libonnxruntime.so.1" ] || { echo "{\"error\":\"no libonnxruntime.so.1 in $ort\"}"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O3 -march=native -shared -fPIC -I"$headers" -DNODE_GYP_MODULE_NAME=tinylab_bench \
  "$here/native/ort_custom_attention.c" -o "$tmp/custom_attention.node" -L"$ort" -l:libonnxruntime.so.1 -Wl,-rpath,"$ort"
for c in ${configs//,/ }; do
  npx --prefix "$here/.." tsx "$here/custom_attention.ts" --addon "$tmp/custom_attention.node" --config "$c" --rounds "$rounds" --rows "$rows"
done
