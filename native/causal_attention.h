// A causal attention core on AVX-512F: for one head of one row, y[i] = softmax_j≤i(q[i]·k[j]·scale + bias[i][j]) · v,
// the keys past each query never computed. tinylab_ort.c runs it as onnxruntime's tinylab.CausalAttention;
// bench/attention_core.sh times it alone. Compiled for AVX-512F whatever the build's target: callers check the CPU.
#pragma once
#pragma GCC push_options
#pragma GCC target("avx512f")
#include <immintrin.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

enum { CA_QUERIES = 8 }; /* queries per block: eight score accumulators share each key vector */

/* e^x for x <= 0: 2^n · e^r with |r| <= ln2/2, a degree-6 polynomial for e^r */
static inline __m512 ca_exp(__m512 x) {
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

static inline __mmask16 ca_first(int n) { return n >= 16 ? 0xFFFF : (__mmask16)((1u << n) - 1); }

/** Floats of scratch one head needs at S positions and head size D. */
static inline size_t ca_scratch(int S, int D) {
  size_t sp = (size_t)(S + 15) / 16 * 16;
  return 2 * sp * D + CA_QUERIES * sp;
}

/*
 * One head of one row: q, k, v rows of stride ld (floats), y rows of stride ldy, D a multiple of 32, bias [S][S] or
 * NULL (added to the scores of the keys a query sees: an additive mask, e.g. documents kept apart), scratch of
 * ca_scratch(S, D) floats aligned to 64 bytes.
 */
static inline __attribute__((always_inline)) void ca_head(const float* q, const float* k, const float* v, float* y, const float* bias, int S, int D, int ld,
                    int ldy, float scale, float* scratch) {
  const int sp = (S + 15) / 16 * 16;
  float *kt = scratch, *vh = kt + (size_t)sp * D, *p = vh + (size_t)sp * D;
  const __m512i rows16 = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi32(ld));
  for (int j0 = 0; j0 < S; j0 += 16) /* keys transposed: kt[d][j] */
    for (int d = 0; d < D; d++)
      _mm512_storeu_ps(kt + (size_t)d * sp + j0, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), ca_first(S - j0), rows16, k + (size_t)j0 * ld + d, 4));
  for (int j = 0; j < S; j++) memcpy(vh + (size_t)j * D, v + (size_t)j * ld, (size_t)D * sizeof(float));
  const __m512 sc = _mm512_set1_ps(scale);
  for (int i0 = 0; i0 < S; i0 += CA_QUERIES) {
    const int qn = S - i0 < CA_QUERIES ? S - i0 : CA_QUERIES, keys = i0 + qn;
    int row[CA_QUERIES]; /* a short last block repeats its last query, whose results are not stored */
    for (int a = 0; a < CA_QUERIES; a++) row[a] = i0 + (a < qn ? a : qn - 1);
    /* scores of the block's queries against keys 0..keys-1 (its last query sees them all) */
    for (int jv = 0; jv < (keys + 15) / 16; jv++) {
      __m512 acc[CA_QUERIES];
      for (int a = 0; a < CA_QUERIES; a++) acc[a] = _mm512_setzero_ps();
      for (int d = 0; d < D; d++) {
        __m512 kk = _mm512_loadu_ps(kt + (size_t)d * sp + jv * 16);
        for (int a = 0; a < CA_QUERIES; a++) acc[a] = _mm512_fmadd_ps(_mm512_set1_ps(q[(size_t)row[a] * ld + d]), kk, acc[a]);
      }
      for (int a = 0; a < qn; a++) {
        __m512 s = _mm512_mul_ps(acc[a], sc);
        if (bias) s = _mm512_add_ps(s, _mm512_maskz_loadu_ps(ca_first(S - jv * 16), bias + (size_t)(i0 + a) * S + jv * 16));
        _mm512_storeu_ps(p + (size_t)a * sp + jv * 16, s);
      }
    }
    /* softmax over keys 0..i of each query i; the block's later keys set to zero for ·v */
    for (int a = 0; a < qn; a++) {
      const int len = i0 + a + 1, nv = (len + 15) / 16;
      float* pr = p + (size_t)a * sp;
      __m512 mx = _mm512_set1_ps(-INFINITY), sum = _mm512_setzero_ps();
      for (int jv = 0; jv < nv; jv++) mx = _mm512_mask_max_ps(mx, ca_first(len - jv * 16), mx, _mm512_loadu_ps(pr + jv * 16));
      const __m512 m = _mm512_set1_ps(_mm512_reduce_max_ps(mx));
      for (int jv = 0; jv < nv; jv++) {
        __m512 e = _mm512_maskz_mov_ps(ca_first(len - jv * 16), ca_exp(_mm512_sub_ps(_mm512_loadu_ps(pr + jv * 16), m)));
        _mm512_storeu_ps(pr + jv * 16, e);
        sum = _mm512_add_ps(sum, e);
      }
      const __m512 inv = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(sum));
      for (int jv = 0; jv < nv; jv++) _mm512_storeu_ps(pr + jv * 16, _mm512_mul_ps(_mm512_loadu_ps(pr + jv * 16), inv));
      for (int j = len; j < keys; j++) pr[j] = 0;
    }
    /* y[i] = Σ_j p[i][j] v[j], the block's queries × 32 columns at a time */
    for (int c0 = 0; c0 < D; c0 += 32) {
      __m512 acc[CA_QUERIES][2];
      for (int a = 0; a < CA_QUERIES; a++) acc[a][0] = acc[a][1] = _mm512_setzero_ps();
      for (int j = 0; j < keys; j++) {
        __m512 v0 = _mm512_loadu_ps(vh + (size_t)j * D + c0), v1 = _mm512_loadu_ps(vh + (size_t)j * D + c0 + 16);
        for (int a = 0; a < CA_QUERIES; a++) {
          __m512 pj = _mm512_set1_ps(p[(size_t)(a < qn ? a : qn - 1) * sp + j]);
          acc[a][0] = _mm512_fmadd_ps(pj, v0, acc[a][0]);
          acc[a][1] = _mm512_fmadd_ps(pj, v1, acc[a][1]);
        }
      }
      for (int a = 0; a < qn; a++) {
        _mm512_storeu_ps(y + (size_t)(i0 + a) * ldy + c0, acc[a][0]);
        _mm512_storeu_ps(y + (size_t)(i0 + a) * ldy + c0 + 16, acc[a][1]);
      }
    }
  }
}
/* the kernel at head sizes 64 and 32, each compiled for its constant D (the only entry points for other code) */
static __attribute__((noinline, unused)) void ca_head64(const float* q, const float* k, const float* v, float* y, const float* bias,
                                                        int S, int ld, int ldy, float scale, float* scratch) {
  ca_head(q, k, v, y, bias, S, 64, ld, ldy, scale, scratch);
}
static __attribute__((noinline, unused)) void ca_head32(const float* q, const float* k, const float* v, float* y, const float* bias,
                                                        int S, int ld, int ldy, float scale, float* scratch) {
  ca_head(q, k, v, y, bias, S, 32, ld, ldy, scale, scratch);
}
#pragma GCC pop_options
