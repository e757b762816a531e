// Interval contracts: Wilson values (003 and by hand), paired and block bootstrap determinism and
// behaviour, and the ratio-estimator standard error of a token-weighted mean (004).
import { describe, expect, it } from "vitest";
import {
  blockBootstrap,
  blockBootstrapRatio,
  pairedBootstrap,
  tokenWeightedStandardError,
  wilsonInterval,
} from "../../../src/eval/metrics/intervals.ts";
import { Rng } from "../../../src/util/primitives/rng.ts";

describe("wilsonInterval", () => {
  it("003: 2700 of 10000 gives an interval around 0.27 that excludes four-choice chance 0.25", () => {
    // p = .27, z² = 3.8416: centre = (.27 + .00019208)/1.00038416 = .270088;
    // half = 1.96·√(.27·.73/1e4 + 3.8416/4e8)/1.00038416 = 1.96·.00444068/1.00038416 = .0087004.
    const { lo, hi } = wilsonInterval(2700, 10000);
    expect(lo).toBeGreaterThan(0.25);
    expect(lo).toBeLessThan(0.27);
    expect(hi).toBeGreaterThan(0.27);
    expect(lo).toBeCloseTo(0.261388, 6);
    expect(hi).toBeCloseTo(0.278789, 6);
  });

  it("matches a hand computation: 2 of 4 with z = 2 is 0.5 ± √0.125", () => {
    // z²/n = 1 → denominator 2, centre (.5 + .5)/2 = .5, half = 2·√(.25/4 + 4/64)/2 = √.125 = .353553.
    const { lo, hi } = wilsonInterval(2, 4, 2);
    expect(lo).toBeCloseTo(0.5 - Math.sqrt(0.125), 12);
    expect(hi).toBeCloseTo(0.5 + Math.sqrt(0.125), 12);
  });

  it("stays inside [0, 1] at 0 and n successes: 0 of 10 → [0, z²/n / (1 + z²/n)] = [0, .277540]", () => {
    expect(wilsonInterval(0, 10)).toEqual({ lo: 0, hi: expect.closeTo(0.38416 / 1.38416, 12) });
    expect(wilsonInterval(10, 10).hi).toBe(1);
    expect(wilsonInterval(10, 10).lo).toBeCloseTo(1 - 0.38416 / 1.38416, 12);
  });

  it("refuses bad counts and z", () => {
    expect(() => wilsonInterval(0, 0)).toThrow(/n must be a positive integer, got 0/);
    expect(() => wilsonInterval(1, 2.5)).toThrow(/n must be a positive integer, got 2.5/);
    expect(() => wilsonInterval(5, 4)).toThrow(/successes must be an integer in \[0, 4\], got 5/);
    expect(() => wilsonInterval(-1, 4)).toThrow(/got -1/);
    expect(() => wilsonInterval(1.5, 4)).toThrow(/got 1.5/);
    expect(() => wilsonInterval(1, 4, 0)).toThrow(/z must be positive and finite, got 0/);
  });
});

describe("pairedBootstrap", () => {
  const a = [0, 0, 1, 1, 0, 1, 0, 1, 1, 0];
  const b = [1, 0, 1, 1, 1, 1, 0, 1, 1, 0];

  it("003: identical systems give a zero difference and the interval [0, 0]", () => {
    expect(pairedBootstrap([0, 1, 1], [0, 1, 1], Rng.fromSeed(8))).toMatchObject({ estimate: 0, lo: 0, hi: 0, se: 0 });
  });

  it("estimates the mean of b − a, reports level and replicates, and brackets the estimate", () => {
    // b − a is 1 on items 0 and 4, else 0 → mean 0.2.
    const r = pairedBootstrap(a, b, Rng.fromSeed(1), { replicates: 500, level: 0.9 });
    expect(r.estimate).toBeCloseTo(0.2, 15);
    expect(r).toMatchObject({ level: 0.9, replicates: 500 });
    expect(r.lo).toBeLessThanOrEqual(r.estimate);
    expect(r.hi).toBeGreaterThanOrEqual(r.estimate);
    // Each replicate is a mean of ten 0/1 differences, so the bounds lie on the grid k/10 in [0, 1].
    expect(r.lo).toBeGreaterThanOrEqual(0);
    expect(r.hi).toBeLessThanOrEqual(1);
    expect(pairedBootstrap(b, a, Rng.fromSeed(1)).estimate).toBeCloseTo(-0.2, 15);
  });

  it("is deterministic for a seed, differs for another, and does not depend on hidden state", () => {
    const x = Array.from({ length: 50 }, (_, i) => Math.sin(i));
    const y = x.map((v, i) => v + Math.cos(3 * i));
    const first = pairedBootstrap(x, y, Rng.fromSeed(7));
    expect(pairedBootstrap(x, y, Rng.fromSeed(7))).toEqual(first);
    const other = pairedBootstrap(x, y, Rng.fromSeed(8));
    expect([other.lo, other.hi]).not.toEqual([first.lo, first.hi]);
  });

  it("refuses mismatched, empty or non-finite inputs and bad options", () => {
    const rng = Rng.fromSeed(0);
    expect(() => pairedBootstrap([1, 2], [1], rng)).toThrow(/2 scores for a but 1 for b/);
    expect(() => pairedBootstrap([], [], rng)).toThrow(/no items/);
    expect(() => pairedBootstrap([1, NaN], [1, 1], rng)).toThrow(/pairedBootstrap a: value at index 1 is not finite/);
    expect(() => pairedBootstrap([1], [Infinity], rng)).toThrow(/pairedBootstrap b: value at index 0/);
    expect(() => pairedBootstrap([1], [1], rng, { replicates: 1 })).toThrow(/replicates must be an integer ≥ 2, got 1/);
    expect(() => pairedBootstrap([1], [1], rng, { level: 1 })).toThrow(/level must be in \(0, 1\), got 1/);
  });
});

describe("tokenWeightedStandardError", () => {
  it("hand example: windows of 10 and 90 tokens at mean losses 2 and 4 → mean 3.8, SE 0.36", () => {
    // L = 380/100 = 3.8. SE² = 2/1 · (10²·(−1.8)² + 90²·0.2²)/100² = 2·(324 + 324)/1e4 = .1296 → .36.
    const r = tokenWeightedStandardError([2, 4], [10, 90]);
    expect(r).toMatchObject({ windows: 2, tokens: 100 });
    expect(r.mean).toBeCloseTo(3.8, 14);
    expect(r.se).toBeCloseTo(0.36, 14);
  });

  it("reduces to s/√n with equal counts: [1, 2, 3, 4] → √(5/12)", () => {
    // s² = (2.25 + .25 + .25 + 2.25)/3 = 5/3, SE = √(5/3 / 4) = √(5/12) = .645497.
    expect(tokenWeightedStandardError([1, 2, 3, 4], [64, 64, 64, 64]).se).toBeCloseTo(Math.sqrt(5 / 12), 14);
  });

  it("gives a NaN SE for a single window and accepts negative values (per-window differences)", () => {
    expect(tokenWeightedStandardError([3], [5])).toEqual({ mean: 3, se: NaN, windows: 1, tokens: 5 });
    expect(tokenWeightedStandardError([-1, 1], [1, 1]).mean).toBe(0);
  });

  it("refuses mismatched, empty, non-finite and non-positive-count inputs", () => {
    expect(() => tokenWeightedStandardError([1], [1, 2])).toThrow(/1 window means but 2 counts/);
    expect(() => tokenWeightedStandardError([], [])).toThrow(/no windows/);
    expect(() => tokenWeightedStandardError([NaN], [1])).toThrow(/value at index 0 is not finite/);
    expect(() => tokenWeightedStandardError([1, 2], [1, 0])).toThrow(/count at index 1 must be a positive integer, got 0/);
    expect(() => tokenWeightedStandardError([1], [1.5])).toThrow(/got 1.5/);
  });
});

describe("blockBootstrap", () => {
  // Independent windows: means ~ N(3, 0.3²), counts 20..83.
  const rng = Rng.fromSeed("windows");
  const iidMeans = Array.from({ length: 400 }, () => 3 + 0.3 * rng.normal());
  const iidCounts = iidMeans.map(() => 20 + rng.int(64));

  it("is deterministic for a seed and differs for another", () => {
    const first = blockBootstrap(iidMeans, iidCounts, Rng.fromSeed(7), { replicates: 300 });
    expect(blockBootstrap(iidMeans, iidCounts, Rng.fromSeed(7), { replicates: 300 })).toEqual(first);
    const other = blockBootstrap(iidMeans, iidCounts, Rng.fromSeed(8), { replicates: 300 });
    expect([other.lo, other.hi]).not.toEqual([first.lo, first.hi]);
  });

  it("defaults the block length to round(cbrt(windows)), at least 1 (004's 372 windows → 7)", () => {
    const blockOf = (n: number) => blockBootstrap(Array(n).fill(1), Array(n).fill(1), Rng.fromSeed(0), { replicates: 2 }).blockLength;
    expect([blockOf(1), blockOf(2), blockOf(27), blockOf(372)]).toEqual([1, 1, 3, 7]);
  });

  it("with block length 1 reproduces the naive ratio-estimator SE within 10%", () => {
    // Block 1 is the i.i.d. bootstrap; its SD differs from the analytic SE by √((n−1)/n) ≈ 0.999 and by
    // Monte Carlo error ≈ 1/√(2·4000) ≈ 1.1% of the SE, so 10% is many standard errors wide.
    const naive = tokenWeightedStandardError(iidMeans, iidCounts);
    const boot = blockBootstrap(iidMeans, iidCounts, Rng.fromSeed(3), { blockLength: 1, replicates: 4000 });
    expect(boot.estimate).toBeCloseTo(naive.mean, 14);
    expect(Math.abs(boot.se / naive.se - 1)).toBeLessThan(0.1);
    expect(boot.lo).toBeLessThan(naive.mean);
    expect(boot.hi).toBeGreaterThan(naive.mean);
  });

  it("widens the interval when neighbouring windows are correlated and blocks are longer", () => {
    // AR(1) with φ = 0.9: the long-run variance is (1 + φ)/(1 − φ) = 19 times the i.i.d. one, so blocks
    // of 20 should give an SE several times the block-1 SE; asserting only > 2 leaves wide margin.
    const ar = Rng.fromSeed("ar1");
    const means: number[] = [];
    for (let i = 0, x = 0; i < 400; i++) means.push(3 + (x = 0.9 * x + 0.1 * ar.normal()));
    const counts = means.map(() => 64);
    const short = blockBootstrap(means, counts, Rng.fromSeed(5), { blockLength: 1, replicates: 1000 });
    const long = blockBootstrap(means, counts, Rng.fromSeed(5), { blockLength: 20, replicates: 1000 });
    expect(long.se / short.se).toBeGreaterThan(2);
    expect(long.hi - long.lo).toBeGreaterThan(2 * (short.hi - short.lo));
  });

  it("collapses to the point estimate when one block spans every window", () => {
    const r = blockBootstrap([1, 2, 6], [1, 1, 2], Rng.fromSeed(0), { blockLength: 3, replicates: 50 });
    // Only start 0 exists, so every replicate is (1 + 2 + 12)/4 = 3.75.
    expect(r).toMatchObject({ estimate: 3.75, lo: 3.75, hi: 3.75, se: 0, blockLength: 3, replicates: 50 });
  });

  it("refuses a bad block length and the window-input errors", () => {
    const r = Rng.fromSeed(0);
    expect(() => blockBootstrap([1, 2], [1, 1], r, { blockLength: 3 })).toThrow(/blockLength must be an integer in \[1, 2\], got 3/);
    expect(() => blockBootstrap([1, 2], [1, 1], r, { blockLength: 0 })).toThrow(/got 0/);
    expect(() => blockBootstrap([1, 2], [1, 1], r, { blockLength: 1.5 })).toThrow(/got 1.5/);
    expect(() => blockBootstrap([1], [0], r)).toThrow(/blockBootstrap: count at index 0 must be a positive integer/);
    expect(() => blockBootstrap([], [], r)).toThrow(/blockBootstrap: no windows/);
    expect(() => blockBootstrap([1], [1], r, { level: 0 })).toThrow(/level must be in \(0, 1\), got 0/);
  });
});

describe("blockBootstrapRatio", () => {
  it("is the token-weighted block bootstrap when numerators are count × mean (same stream, same replicates)", () => {
    const means = [3.1, 4.2, 2.9, 5.0, 3.3, 4.4, 3.8],
      counts = [5, 9, 2, 7, 7, 1, 4];
    const a = blockBootstrap(means, counts, Rng.fromSeed(21), { replicates: 200 });
    const b = blockBootstrapRatio(
      means.map((m, i) => m * counts[i]),
      counts,
      Rng.fromSeed(21),
      { replicates: 200 },
    );
    expect(b).toEqual(a);
  });

  it("accepts windows with a zero denominator (a window of only EOS stands for 0 bytes)", () => {
    // one block spans every window, so every replicate is (2 + 1 + 6)/(4 + 0 + 2) = 1.5
    const r = blockBootstrapRatio([2, 1, 6], [4, 0, 2], Rng.fromSeed(0), { blockLength: 3, replicates: 20 });
    expect(r).toMatchObject({ estimate: 1.5, lo: 1.5, hi: 1.5, se: 0 });
    const wide = blockBootstrapRatio([2, 1, 6, 3, 3], [4, 0, 2, 3, 1], Rng.fromSeed(1), { blockLength: 1, replicates: 500 });
    expect(wide.estimate).toBeCloseTo(15 / 10, 12);
    expect(wide.lo).toBeLessThan(wide.estimate);
    expect(wide.hi).toBeGreaterThan(wide.estimate);
  });

  it("names bad input", () => {
    const r = Rng.fromSeed(0);
    expect(() => blockBootstrapRatio([1, 2], [1], r)).toThrow(/2 numerators but 1 denominators/);
    expect(() => blockBootstrapRatio([], [], r)).toThrow(/no windows/);
    expect(() => blockBootstrapRatio([1, NaN], [1, 1], r)).toThrow(/value at index 1 is not finite/);
    expect(() => blockBootstrapRatio([1, 2], [1, -1], r)).toThrow(/denominator at index 1 must be finite and ≥ 0, got -1/);
    expect(() => blockBootstrapRatio([1, 2], [0, 0], r)).toThrow(/every denominator is 0/);
  });
});
