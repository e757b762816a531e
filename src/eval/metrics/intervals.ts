// Uncertainty for evaluation numbers: Wilson binomial interval, paired bootstrap of item differences,
// ratio-estimator SE of a token-weighted mean, and a moving-block bootstrap over windows (of a mean or a ratio).
// Not a hypothesis-testing library; every resampler takes its Rng explicitly.
import type { Rng } from "../../util/primitives/rng.ts";

/** A two-sided interval [lo, hi]. */
export interface Interval {
  readonly lo: number;
  readonly hi: number;
}

/** Percentile bootstrap summary; `replicates` is how many resamples produced lo and hi. */
export interface BootstrapInterval extends Interval {
  readonly estimate: number;
  readonly level: number;
  readonly replicates: number;
  /** Standard deviation of the replicates: the bootstrap standard error. */
  readonly se: number;
}

export interface BootstrapOptions {
  readonly replicates?: number;
  readonly level?: number;
}

export function wilsonInterval(successes: number, n: number, z = 1.96): Interval {
  if (!Number.isInteger(n) || n < 1) throw new Error(`wilson: n must be a positive integer, got ${n}`);
  if (!Number.isInteger(successes) || successes < 0 || successes > n)
    throw new Error(`wilson: successes must be an integer in [0, ${n}], got ${successes}`);
  if (!(Number.isFinite(z) && z > 0)) throw new Error(`wilson: z must be positive and finite, got ${z}`);
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  // Rounding can push the bounds a hair outside [0, 1] at p = 0 or 1.
  return { lo: Math.max(0, center - half), hi: Math.min(1, center + half) };
}

function finiteArray(name: string, xs: readonly number[]): void {
  xs.forEach((x, i) => {
    if (!Number.isFinite(x)) throw new Error(`${name}: value at index ${i} is not finite (${x})`);
  });
}

/**
 * Fewest documents an interval or a p-value is printed over. A bootstrap over n documents draws from at most
 * C(2n − 1, n) distinct resamples (1 for one document: "[x, x]", p ≈ 1/replicates), and its percentile interval
 * undercovers badly below about ten (Efron and Tibshirani, An Introduction to the Bootstrap, ch. 13); a Wilson
 * interval over so few items says as little. Under it the point estimate is shown with "n too small for an interval".
 */
export const MIN_INTERVAL_DOCUMENTS = 10;

/** The reason printed (and written as the JSON's `…_reason`) in place of an interval over `n` documents. */
export const tooFewDocuments = (n: number): string =>
  `n too small for an interval: ${n} document${n === 1 ? "" : "s"}, fewer than ${MIN_INTERVAL_DOCUMENTS} (MIN_INTERVAL_DOCUMENTS)`;

/** Fewest bootstrap replicates that give a percentile interval (one replicate has no spread). */
export const MIN_REPLICATES = 2;

/** Replicates and level with their defaults (2000, 0.95), refused by name when out of range. */
export function resampling(name: string, opts: BootstrapOptions): { replicates: number; level: number } {
  const { replicates = 2000, level = 0.95 } = opts;
  if (!Number.isInteger(replicates) || replicates < MIN_REPLICATES)
    throw new Error(`${name}: replicates must be an integer ≥ ${MIN_REPLICATES}, got ${replicates}`);
  if (!(level > 0 && level < 1)) throw new Error(`${name}: level must be in (0, 1), got ${level}`);
  return { replicates, level };
}

/** Percentile interval (linear interpolation between order statistics) plus the replicates' SD: the one summary every resampler here uses. */
export function summarize(estimate: number, reps: number[], level: number): BootstrapInterval {
  const sorted = reps.slice().sort((a, b) => a - b);
  const at = (q: number) => {
    const h = (sorted.length - 1) * q;
    const lo = Math.floor(h);
    return sorted[lo] + (h - lo) * ((sorted[Math.ceil(h)] ?? sorted[lo]) - sorted[lo]);
  };
  const mean = reps.reduce((s, r) => s + r, 0) / reps.length;
  const se = Math.sqrt(reps.reduce((s, r) => s + (r - mean) ** 2, 0) / (reps.length - 1));
  return { estimate, lo: at((1 - level) / 2), hi: at((1 + level) / 2), level, replicates: reps.length, se };
}

/** Bootstrap of item-wise differences b − a over the same items; `estimate` is the mean difference. */
export function pairedBootstrap(a: readonly number[], b: readonly number[], rng: Rng, opts: BootstrapOptions = {}): BootstrapInterval {
  if (a.length !== b.length) throw new Error(`pairedBootstrap: ${a.length} scores for a but ${b.length} for b`);
  if (a.length === 0) throw new Error("pairedBootstrap: no items");
  finiteArray("pairedBootstrap a", a);
  finiteArray("pairedBootstrap b", b);
  const { replicates, level } = resampling("pairedBootstrap", opts);
  const d = a.map((x, i) => b[i] - x);
  const reps: number[] = [];
  for (let r = 0; r < replicates; r++) {
    let s = 0;
    for (let i = 0; i < d.length; i++) s += d[rng.int(d.length)];
    reps.push(s / d.length);
  }
  return summarize(d.reduce((s, x) => s + x, 0) / d.length, reps, level);
}

function windows(name: string, means: readonly number[], counts: readonly number[]): void {
  if (means.length !== counts.length) throw new Error(`${name}: ${means.length} window means but ${counts.length} counts`);
  if (means.length === 0) throw new Error(`${name}: no windows`);
  finiteArray(name, means);
  counts.forEach((c, i) => {
    if (!Number.isInteger(c) || c < 1) throw new Error(`${name}: count at index ${i} must be a positive integer, got ${c}`);
  });
}

/** Token-weighted mean L = Σcᵢℓᵢ / Σcᵢ and its standard error, treating windows as independent:
 *  SE² = n/(n−1) · Σ cᵢ²(ℓᵢ − L)² / (Σcᵢ)². NaN SE for a single window. */
export function tokenWeightedStandardError(
  windowMeans: readonly number[],
  counts: readonly number[],
): { mean: number; se: number; windows: number; tokens: number } {
  windows("tokenWeightedStandardError", windowMeans, counts);
  const n = windowMeans.length;
  const tokens = counts.reduce((s, c) => s + c, 0);
  const mean = windowMeans.reduce((s, l, i) => s + counts[i] * l, 0) / tokens;
  const ss = windowMeans.reduce((s, l, i) => s + (counts[i] * (l - mean)) ** 2, 0);
  return { mean, se: n < 2 ? NaN : Math.sqrt((n / (n - 1)) * ss) / tokens, windows: n, tokens };
}

/** Moving-block bootstrap of the token-weighted mean: draws ⌈n/b⌉ runs of b adjacent windows
 *  (starts uniform in [0, n−b], no wrap), truncates to n windows, recomputes Σcℓ/Σc. */
export function blockBootstrap(
  windowMeans: readonly number[],
  counts: readonly number[],
  rng: Rng,
  opts: BootstrapOptions & { blockLength?: number } = {},
): BootstrapInterval & { blockLength: number } {
  windows("blockBootstrap", windowMeans, counts);
  const { mean } = tokenWeightedStandardError(windowMeans, counts);
  return resampleRatio(
    windowMeans.map((l, i) => counts[i] * l),
    counts,
    mean,
    rng,
    "blockBootstrap",
    opts,
  );
}

/**
 * The same moving-block bootstrap for a ratio Σnumᵢ / Σdenᵢ over windows whose denominators may be zero
 * (bits per byte: nats over ln 2 times the bytes a window's targets stand for; a window of only EOS has 0 bytes).
 * `ratio` turns the two sums into the value when that is not their plain quotient, for the estimate and each replicate.
 */
export function blockBootstrapRatio(
  numerators: readonly number[],
  denominators: readonly number[],
  rng: Rng,
  opts: BootstrapOptions & { blockLength?: number; ratio?: (numerator: number, denominator: number) => number } = {},
): BootstrapInterval & { blockLength: number } {
  const name = "blockBootstrapRatio";
  if (numerators.length !== denominators.length)
    throw new Error(`${name}: ${numerators.length} numerators but ${denominators.length} denominators`);
  if (numerators.length === 0) throw new Error(`${name}: no windows`);
  finiteArray(name, numerators);
  denominators.forEach((d, i) => {
    if (!(Number.isFinite(d) && d >= 0)) throw new Error(`${name}: denominator at index ${i} must be finite and ≥ 0, got ${d}`);
  });
  const total = denominators.reduce((s, d) => s + d, 0);
  if (total === 0) throw new Error(`${name}: every denominator is 0`);
  const ratio = opts.ratio ?? ((n: number, d: number) => n / d);
  return resampleRatio(
    numerators,
    denominators,
    ratio(
      numerators.reduce((s, x) => s + x, 0),
      total,
    ),
    rng,
    name,
    { ...opts, ratio },
  );
}

function resampleRatio(
  num: readonly number[],
  den: readonly number[],
  estimate: number,
  rng: Rng,
  name: string,
  opts: BootstrapOptions & { blockLength?: number; ratio?: (numerator: number, denominator: number) => number },
): BootstrapInterval & { blockLength: number } {
  const { replicates, level } = resampling(name, opts);
  const ratio = opts.ratio ?? ((n: number, d: number) => n / d);
  const n = num.length;
  // Cube root of n is a convention (block length grows slower than n), not an optimum.
  const blockLength = opts.blockLength ?? Math.max(1, Math.round(Math.cbrt(n)));
  if (!Number.isInteger(blockLength) || blockLength < 1 || blockLength > n)
    throw new Error(`${name}: blockLength must be an integer in [1, ${n}], got ${blockLength}`);
  const reps: number[] = [];
  for (let r = 0; r < replicates; r++) {
    let top = 0,
      bottom = 0,
      taken = 0;
    while (taken < n) {
      const start = rng.int(n - blockLength + 1);
      for (let t = 0; t < blockLength && taken < n; t++, taken++) {
        top += num[start + t];
        bottom += den[start + t];
      }
    }
    reps.push(ratio(top, bottom));
  }
  return { ...summarize(estimate, reps, level), blockLength };
}
