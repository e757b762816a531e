#!/usr/bin/env bash
# Benchmark: the single-precision FMA peak of each core (GFLOP/s), the ceiling every matrix product here and in the
# PyTorch peer runs under: twelve independent chains of 512-bit fused multiply-adds (16 lanes, 2 FLOPs each) compiled
# with the machine's gcc, pinned to one core at a time, then to all at once. No CPU with AVX-512F: says so and stops.
# Prints one JSON line per run; not a test. Usage: bash bench/fma_peak.sh [ROUNDS=3]
set -euo pipefail
rounds=${1:-3}
grep -qw avx512f /proc/cpuinfo || { echo '{"error":"this CPU has no AVX-512F"}'; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/peak.c" <<'C'
#include <immintrin.h>
#include <stdio.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(void) {
  __m512 a[12], b = _mm512_set1_ps(1.0000001f), c = _mm512_set1_ps(1e-7f);
  for (int i = 0; i < 12; i++) a[i] = _mm512_set1_ps((float)i);
  const long n = 20000000;
  double t0 = now();
  for (long k = 0; k < n; k++) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; i++) a[i] = _mm512_fmadd_ps(a[i], b, c);
  }
  double t = now() - t0;
  float s = 0;
  for (int i = 0; i < 12; i++) s += _mm512_reduce_add_ps(a[i]);
  printf("%.1f %g\n", n * 12.0 * 32 / t / 1e9, s); /* the sum keeps the chains from being optimised away */
  return 0;
}
C
gcc -O2 -mavx512f -mfma "$tmp/peak.c" -o "$tmp/peak"
cores=$(nproc)
for r in $(seq "$rounds"); do
  for c in $(seq 0 $((cores - 1))); do
    echo "{\"round\":$r,\"cores\":[$c],\"gflop_s\":$(taskset -c "$c" "$tmp/peak" | cut -d' ' -f1)}"
  done
  all=$(for c in $(seq 0 $((cores - 1))); do taskset -c "$c" "$tmp/peak" & done | cut -d' ' -f1 | paste -sd, -)
  echo "{\"round\":$r,\"cores\":\"all\",\"gflop_s_each\":[$all]}"
done
