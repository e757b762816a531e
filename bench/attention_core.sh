#!/usr/bin/env bash
# Benchmark: xl's attention core (scores, softmax, ·v; 6 heads of 64, rows of 256, the QKV product left out) on one
# thread, onnxruntime's MultiHeadAttention with the causal bias (what the scoring graph runs, bench/attention_core.ts)
# against a causal kernel in C that computes only the keys a query sees (AVX-512 intrinsics, compiled here with the
# machine's gcc). Not wired into tinylab: onnxruntime-node's binding takes no custom operator, so this measures
# what such a kernel would save, if a binding of our own ran it inside the graph (docs/benchmarks.md). Each side
# checks its output against a float64 reference. Interleaved, one JSON line per side and round; not a test.
# Usage: bash bench/attention_core.sh [ROUNDS=3] [ROWS=2]
set -euo pipefail
rounds=${1:-3}
rows=${2:-2}
here=$(cd "$(dirname "$0")" && pwd)
grep -qw avx512f /proc/cpuinfo || { echo '{"error":"this CPU has no AVX-512F"}'; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/attention.c" <<'C'
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { S = 256, H = 6, D = 64, C = H * D, QB = 8 };

/* e^x for x <= 0: 2^n · e^r with |r| <= ln2/2, a degree-6 polynomial for e^r */
static inline __m512 exp_neg(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-87.3f));
  __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.3981999507e-3f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_scalef_ps(p, n);
}

static inline __mmask16 first(int n) { return n >= 16 ? 0xFFFF : (__mmask16)((1u << n) - 1); }

/* one head of one row: q, k, v, y have row stride C; kt [D][S], vh [S][D] and p [QB][S] are scratch */
static void head(const float* q, const float* k, const float* v, float* y, float* kt, float* vh, float* p) {
  const __m512i rows16 = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi32(C));
  for (int j0 = 0; j0 < S; j0 += 16)
    for (int d = 0; d < D; d++) _mm512_storeu_ps(kt + d * S + j0, _mm512_i32gather_ps(rows16, k + j0 * C + d, 4));
  for (int j = 0; j < S; j++) memcpy(vh + j * D, v + j * C, D * sizeof(float));
  const __m512 scale = _mm512_set1_ps(0.125f); /* 1/sqrt(D) */
  for (int i0 = 0; i0 < S; i0 += QB) {
    /* scores of queries i0..i0+QB-1 against keys 0..i0+QB-1 (the block's last query sees them all) */
    for (int jv = 0; jv < (i0 + QB + 15) / 16; jv++) {
      __m512 acc[QB];
      for (int a = 0; a < QB; a++) acc[a] = _mm512_setzero_ps();
      for (int d = 0; d < D; d++) {
        __m512 kk = _mm512_loadu_ps(kt + d * S + jv * 16);
        for (int a = 0; a < QB; a++) acc[a] = _mm512_fmadd_ps(_mm512_set1_ps(q[(i0 + a) * C + d]), kk, acc[a]);
      }
      for (int a = 0; a < QB; a++) _mm512_storeu_ps(p + a * S + jv * 16, _mm512_mul_ps(acc[a], scale));
    }
    /* softmax over keys 0..i of each query i */
    for (int a = 0; a < QB; a++) {
      int len = i0 + a + 1, nv = (len + 15) / 16;
      float* pr = p + a * S;
      __m512 mx = _mm512_set1_ps(-INFINITY), sum = _mm512_setzero_ps();
      for (int jv = 0; jv < nv; jv++) mx = _mm512_mask_max_ps(mx, first(len - jv * 16), mx, _mm512_loadu_ps(pr + jv * 16));
      __m512 m = _mm512_set1_ps(_mm512_reduce_max_ps(mx));
      for (int jv = 0; jv < nv; jv++) {
        __m512 e = _mm512_maskz_mov_ps(first(len - jv * 16), exp_neg(_mm512_sub_ps(_mm512_loadu_ps(pr + jv * 16), m)));
        _mm512_storeu_ps(pr + jv * 16, e);
        sum = _mm512_add_ps(sum, e);
      }
      __m512 inv = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(sum));
      for (int jv = 0; jv < nv; jv++) _mm512_storeu_ps(pr + jv * 16, _mm512_mul_ps(_mm512_loadu_ps(pr + jv * 16), inv));
      for (int j = len; j < i0 + QB; j++) pr[j] = 0; /* the block's later keys, which ·v below reads */
    }
    /* y[i] = Σ_j p[i][j] v[j]: the block's queries × 32 columns at a time */
    for (int c0 = 0; c0 < D; c0 += 32) {
      __m512 acc[QB][2];
      for (int a = 0; a < QB; a++) acc[a][0] = acc[a][1] = _mm512_setzero_ps();
      for (int j = 0; j < i0 + QB; j++) {
        __m512 v0 = _mm512_loadu_ps(vh + j * D + c0), v1 = _mm512_loadu_ps(vh + j * D + c0 + 16);
        for (int a = 0; a < QB; a++) {
          __m512 pj = _mm512_set1_ps(p[a * S + j]);
          acc[a][0] = _mm512_fmadd_ps(pj, v0, acc[a][0]);
          acc[a][1] = _mm512_fmadd_ps(pj, v1, acc[a][1]);
        }
      }
      for (int a = 0; a < QB; a++) {
        _mm512_storeu_ps(y + (i0 + a) * C + c0, acc[a][0]);
        _mm512_storeu_ps(y + (i0 + a) * C + c0 + 16, acc[a][1]);
      }
    }
  }
}

static void attention(const float* q, const float* k, const float* v, float* y, int rows, float* kt, float* vh, float* p) {
  for (int b = 0; b < rows; b++)
    for (int h = 0; h < H; h++) {
      size_t o = (size_t)b * S * C + h * D;
      head(q + o, k + o, v + o, y + o, kt, vh, p);
    }
}

/* the same in float64, every key of the row written out with the mask, as a reference */
static double max_error(const float* q, const float* k, const float* v, const float* y, int rows) {
  double worst = 0, s[S];
  for (int b = 0; b < rows; b++)
    for (int h = 0; h < H; h++)
      for (int i = 0; i < S; i++) {
        size_t o = (size_t)b * S * C + h * D;
        double mx = -INFINITY, sum = 0;
        for (int j = 0; j < S; j++) {
          double dot = 0;
          for (int d = 0; d < D; d++) dot += (double)q[o + i * C + d] * k[o + j * C + d];
          s[j] = j <= i ? dot / 8 : -INFINITY;
          if (s[j] > mx) mx = s[j];
        }
        for (int j = 0; j < S; j++) sum += (s[j] = exp(s[j] - mx));
        for (int d = 0; d < D; d++) {
          double out = 0;
          for (int j = 0; j <= i; j++) out += s[j] / sum * v[o + j * C + d];
          double e = fabs(out - y[o + i * C + d]);
          if (e > worst) worst = e;
        }
      }
  return worst;
}

static double now_ms(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static int cmp(const void* a, const void* b) { double x = *(const double*)a, y = *(const double*)b; return (x > y) - (x < y); }

int main(int argc, char** argv) {
  int rows = argc > 1 ? atoi(argv[1]) : 2;
  size_t n = (size_t)rows * S * C;
  float *q = malloc(n * 4), *k = malloc(n * 4), *v = malloc(n * 4), *y = malloc(n * 4);
  float *kt = aligned_alloc(64, D * S * 4), *vh = aligned_alloc(64, S * D * 4), *p = aligned_alloc(64, QB * S * 4);
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < 3 * n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    float u = (float)(x >> 40) / (1 << 24) * 2 - 1;
    (i < n ? q : i < 2 * n ? k : v)[i % n] = u;
  }
  attention(q, k, v, y, rows, kt, vh, p);
  double err = max_error(q, k, v, y, rows), ts[15];
  for (int r = 0; r < 15; r++) {
    double t = now_ms();
    for (int i = 0; i < 20; i++) attention(q, k, v, y, rows, kt, vh, p);
    ts[r] = (now_ms() - t) / 20;
  }
  qsort(ts, 15, sizeof(double), cmp);
  double full = 4.0 * rows * H * S * S * D; /* bench/flops.ts's count: both products over the whole row */
  printf("{\"kernel\":\"c-causal\",\"rows\":%d,\"ms_median\":%.3f,\"ms_min\":%.3f,\"full_row_gflop_s\":%.1f,\"max_abs_error_vs_float64\":%.2g}\n",
         rows, ts[7], ts[0], full / ts[7] / 1e6, err);
  return 0;
}
C
gcc -O3 -march=native "$tmp/attention.c" -o "$tmp/attention" -lm
for r in $(seq "$rounds"); do
  "$tmp/attention" "$rows" | sed "s/^{/{\"round\":$r,/"
  npx --prefix "$here/.." tsx "$here/attention_core.ts" --rows "$rows" | sed "s/^{/{\"round\":$r,/"
done
