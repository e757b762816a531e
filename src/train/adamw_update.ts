// AdamW's arithmetic on one parameter's float32 arrays: the update pass and the pass that finds the first
// non-finite new value, chunk by chunk from its gradient. Whoever holds a parameter runs them: the optimizer on
// this thread (adamw.ts) or the pool's owner of that parameter (shard_passes.ts). Not the bound or the state.
import { sumTerms } from "./gradient_terms.ts";

/**
 * A gradient is read this many values at a time into a float64 chunk (terms summed as gradient_terms.ts adds them)
 * that stays in cache while the update reads it: one pass over the model, no model-sized float64 copy. Even: the
 * SIMD kernel takes values in pairs.
 */
export const CHUNK = 4096;

/** updateRange's work on one chunk done elsewhere (adamw_simd.ts: WebAssembly SIMD), the same bits. */
export interface ChunkKernel {
  /** The chunk's gradient, float64 (CHUNK values), where the kernel reads it. */
  readonly g: Float64Array;
  /** updateRange on a chunk of the kernel's own `g` (`g` itself or its first values): the same arguments, the same bits. */
  run: typeof updateRange;
}

/**
 * What one thread's passes work in: the float64 chunk, and the kernel whose memory holds that chunk, or null (the
 * JS loop). adamw_simd.ts's updateScratch makes one.
 */
export interface UpdateScratch {
  chunk: Float64Array;
  simd: ChunkKernel | null;
}

/** A parameter's gradient: one array, or its per-microbatch float32 terms summed in float64 in their order. */
export type GradientSource = { terms: readonly Float32Array[] } | { array: Float32Array | Float64Array };

/** The update's constants: AdamW's, this update's step size and bias correction, and the gradient's scale. */
export interface StepConstants {
  beta1: number;
  beta2: number;
  eps: number;
  stepSize: number;
  bc2Sqrt: number;
  gradScale: number;
}

/** Gradient values [from, from + n) into `chunk` (terms summed as gradient_terms.ts adds them; an array as is). */
function fill(g: GradientSource, from: number, n: number, chunk: Float64Array): Float64Array {
  const out = n === chunk.length ? chunk : chunk.subarray(0, n);
  if ("terms" in g) sumTerms(g.terms, out, from);
  else for (let j = 0; j < n; j++) out[j] = g.array[from + j];
  return out;
}

/** Largest |value| of the summed gradient (float64, before any scale); NaN if any value is NaN. */
export function gradientMaxAbs(g: GradientSource, size: number, chunk: Float64Array = new Float64Array(CHUNK)): number {
  let mx = 0;
  for (let at = 0; at < size; at += CHUNK) {
    const c = fill(g, at, Math.min(CHUNK, size - at), chunk);
    for (let j = 0; j < c.length; j++) mx = Math.max(mx, Math.abs(c[j]));
  }
  return mx;
}

/**
 * AdamW on values [at, at + g.length) of one parameter (g its gradient there): moments in place, new weights into
 * `next` (which may be `w` itself: each value is read before its new one is stored), and the largest stored |m|,
 * v and |w| raised into `maxima`. A function of its own, so the engine compiles this loop alone.
 */
function updateRange(
  g: Float64Array,
  at: number,
  w: Float32Array,
  m: Float32Array,
  v: Float32Array,
  next: Float32Array,
  k: StepConstants,
  decay: number,
  maxima: Float64Array,
): void {
  const { beta1, beta2, eps, stepSize, bc2Sqrt, gradScale } = k;
  let mMax = maxima[0],
    vMax = maxima[1],
    wMax = maxima[2];
  const f = Math.fround; // each value as its float32 store keeps it, without reading the store back
  for (let j = 0, i = at; j < g.length; i++, j++) {
    const gi = g[j] * gradScale;
    const mi = f(beta1 * m[i] + (1 - beta1) * gi);
    const vi = f(beta2 * v[i] + (1 - beta2) * gi * gi);
    const wi = f(w[i] * decay - (stepSize * mi) / (Math.sqrt(vi) / bc2Sqrt + eps));
    m[i] = mi;
    v[i] = vi;
    next[i] = wi;
    const am = Math.abs(mi),
      aw = Math.abs(wi);
    if (am > mMax) mMax = am;
    if (vi > vMax) vMax = vi;
    if (aw > wMax) wMax = aw;
  }
  maxima[0] = mMax;
  maxima[1] = vMax;
  maxima[2] = wMax;
}

/**
 * AdamW over one whole parameter (weights `w`, moments `m`, `v` updated in place, new weights into `next`):
 * maxima[0] and maxima[1] are raised to the largest stored |m| and v, and maxima[2] is this parameter's max |w'|.
 * Chunk by chunk in `scratch`: WebAssembly SIMD where it has it, else updateRange (the same bits).
 */
export function updateParameter(
  g: GradientSource,
  w: Float32Array,
  m: Float32Array,
  v: Float32Array,
  next: Float32Array,
  k: StepConstants,
  decay: number,
  maxima: Float64Array,
  scratch: UpdateScratch,
): void {
  maxima[2] = 0;
  for (let at = 0; at < w.length; at += CHUNK) {
    const n = Math.min(CHUNK, w.length - at);
    const g64 = fill(g, at, n, scratch.chunk);
    (scratch.simd?.run ?? updateRange)(g64, at, w, m, v, next, k, decay, maxima);
  }
}

/**
 * The first flat index of a non-finite new weight, first moment and second moment of one parameter (−1: none),
 * each value computed (rounded to float32 as it would be stored) with the update's very arithmetic; nothing stored.
 */
export function firstNonFinite(
  g: GradientSource,
  w: Float32Array,
  m: Float32Array,
  v: Float32Array,
  k: StepConstants,
  decay: number,
  chunk: Float64Array,
): [number, number, number] {
  const { beta1, beta2, eps, stepSize, bc2Sqrt, gradScale } = k;
  const f = Math.fround;
  let badW = -1,
    badM = -1,
    badV = -1;
  for (let at = 0; at < w.length; at += CHUNK) {
    const c = fill(g, at, Math.min(CHUNK, w.length - at), chunk);
    for (let j = 0, i = at; j < c.length; i++, j++) {
      const gi = c[j] * gradScale;
      const mi = f(beta1 * m[i] + (1 - beta1) * gi);
      const vi = f(beta2 * v[i] + (1 - beta2) * gi * gi);
      const wi = f(w[i] * decay - (stepSize * mi) / (Math.sqrt(vi) / bc2Sqrt + eps));
      if (!Number.isFinite(wi) && badW < 0) badW = i;
      if (!Number.isFinite(mi) && badM < 0) badM = i;
      if (!Number.isFinite(vi) && badV < 0) badV = i;
    }
  }
  return [badW, badM, badV];
}
