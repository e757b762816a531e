// bench/attention_core.sh's C side: causal_attention.h's kernel at xl's shape (6 heads of 64, rows of 256) on
// one thread, on seeded inputs, timed and checked against a float64 reference; prints one JSON line.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "../../native/causal_attention.h"

enum { S = 256, H = 6, D = 64, C = H * D };

static void attention(const float* q, const float* k, const float* v, float* y, int rows, float* scratch) {
  for (int b = 0; b < rows; b++)
    for (int h = 0; h < H; h++) {
      size_t o = (size_t)b * S * C + h * D;
      ca_head64(q + o, k + o, v + o, y + o, NULL, S, C, C, 0.125f, scratch);
    }
}

/* the same in float64, every key of the row written out with the mask */
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

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  int rows = argc > 1 ? atoi(argv[1]) : 2;
  if (rows < 1) return 1;
  size_t n = (size_t)rows * S * C;
  float *q = malloc(n * 4), *k = malloc(n * 4), *v = malloc(n * 4), *y = malloc(n * 4);
  float* scratch = aligned_alloc(64, (ca_scratch(S, D) * 4 + 63) / 64 * 64);
  uint64_t x = 88172645463325252ull; /* xorshift64: seeded inputs in [-1, 1) */
  for (size_t i = 0; i < 3 * n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    (i < n ? q : i < 2 * n ? k : v)[i % n] = (float)(x >> 40) / (1 << 24) * 2 - 1;
  }
  attention(q, k, v, y, rows, scratch);
  double err = max_error(q, k, v, y, rows), ts[15];
  for (int r = 0; r < 15; r++) {
    double t = now_ms();
    for (int i = 0; i < 20; i++) attention(q, k, v, y, rows, scratch);
    ts[r] = (now_ms() - t) / 20;
  }
  qsort(ts, 15, sizeof(double), cmp);
  double full = 4.0 * rows * H * S * S * D; /* bench/flops.ts's count: both products over the whole row */
  printf("{\"kernel\":\"c-causal\",\"rows\":%d,\"ms_median\":%.3f,\"ms_min\":%.3f,\"full_row_gflop_s\":%.1f,\"max_abs_error_vs_float64\":%.2g}\n",
         rows, ts[7], ts[0], full / ts[7] / 1e6, err);
  return 0;
}
