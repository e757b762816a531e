// The token-weighted aggregator (src/eval/metrics/summary.ts): perplexity from per-sequence sums with token weighting,
// published values from the seeds, refusal of bad inputs, and the compensated sum underneath.
import { describe, expect, it } from "vitest";
import { fromSequenceSums, meanNll, neumaierSum, perplexity as perplexityOf } from "../../../src/eval/metrics/summary.ts";

/** perplexity(sums, counts) over two arrays, read off the folded aggregator. */
const perplexity = (sums: readonly number[], counts: readonly number[]) => {
  const s = fromSequenceSums(sums, counts);
  return { totalNll: s.totalNll, tokens: s.targets, meanNll: meanNll(s), perplexity: perplexityOf(s) };
};

describe("perplexity", () => {
  it("weights by tokens: losses 2 and 4 over 10 and 90 tokens give 3.8 (003), PPL 44.7012", () => {
    // (2·10 + 4·90) / (10 + 90) = 380 / 100 = 3.8; e^3.8 = 44.7012 (003 "At loss 3.8, PPL≈44.7012").
    const r = perplexity([20, 360], [10, 90]);
    expect(r).toMatchObject({ totalNll: 380, tokens: 100 });
    expect(r.meanNll).toBe(3.8);
    expect(r.perplexity).toBeCloseTo(44.7012, 4);
    // Neither the unweighted batch mean 3.0 nor the mean of perplexities (e² + e⁴)/2 ≈ 30.99.
    expect(r.meanNll).not.toBe(3.0);
    expect(Math.abs(r.perplexity - (Math.exp(2) + Math.exp(4)) / 2)).toBeGreaterThan(10);
  });

  it("reproduces 003's other published points: loss 3.85 → 46.9931, 3.4 → 29.9641", () => {
    expect(perplexity([3.85], [1]).perplexity).toBeCloseTo(46.9931, 4);
    expect(perplexity([3.4 * 7], [7]).perplexity).toBeCloseTo(29.9641, 4);
  });

  it("halves perplexity when the mean loss falls by ln 2, at any level (003)", () => {
    for (const loss of [0.8, 3.8, 9]) {
      const ratio = perplexity([loss], [1]).perplexity / perplexity([loss - Math.LN2], [1]).perplexity;
      expect(ratio).toBeCloseTo(2, 12);
    }
  });

  it("gives perplexity V for a uniform model over V tokens (004: ln 512 per token → 512)", () => {
    const r = perplexity([3 * Math.log(512)], [3]);
    expect(r.meanNll).toBeCloseTo(Math.log(512), 12);
    expect(r.perplexity).toBeCloseTo(512, 9);
  });

  it("agrees with 000's grouped table: exp(nll) matches each printed ppl to 3 decimals", () => {
    // Rows (tokens, nll, ppl) from 000's printed report; totals are nll·tokens.
    const rows: [number, number, number][] = [
      [5, 1.1925, 3.295],
      [5, 0.7129, 2.04],
      [6, 0.6857, 1.985],
      [5, 0.7096, 2.033],
    ];
    for (const [tokens, nll, ppl] of rows) expect(perplexity([nll * tokens], [tokens]).perplexity).toBeCloseTo(ppl, 3);
  });

  it("returns NaN mean and perplexity at zero tokens instead of throwing", () => {
    for (const r of [perplexity([], []), perplexity([0, 0], [0, 0])]) {
      expect(r.tokens).toBe(0);
      expect(r.totalNll).toBe(0);
      expect(r.meanNll).toBeNaN();
      expect(r.perplexity).toBeNaN();
    }
    // An empty sequence beside scored ones is fine and changes nothing.
    expect(perplexity([6, 0], [3, 0]).meanNll).toBe(2);
  });

  it("refuses negative NLL as a forgotten negation, naming the index", () => {
    expect(() => perplexity([1, -0.5], [1, 1])).toThrow(/index 1 .*log p instead of −log p/);
  });

  it("refuses each other bad input with its own message", () => {
    expect(() => perplexity([1, 2], [1])).toThrow(/2 NLL sums but 1 token counts/);
    expect(() => perplexity([NaN], [1])).toThrow(/NLL sum at index 0 is not finite/);
    // one rule set for every summary: +∞ (a target of probability 0) is reported, not refused (summary.ts header)
    expect(perplexity([Infinity], [1]).perplexity).toBe(Infinity);
    expect(() => perplexity([1, 1], [1, NaN])).toThrow(/token count at index 1 is not finite/);
    expect(() => perplexity([1], [Infinity])).toThrow(/token count at index 0 is not finite/);
    expect(() => perplexity([1], [-2])).toThrow(/token count at index 0 must be a non-negative integer/);
    expect(() => perplexity([1], [2.5])).toThrow(/token count at index 0 must be a non-negative integer/);
    expect(() => perplexity([0, 1.5], [1, 0])).toThrow(/index 1 has NLL 1.5 but zero tokens/);
  });
});

describe("neumaierSum", () => {
  it("recovers small terms around a huge cancelling pair (where plain Kahan gives 0)", () => {
    // 1 + 1e100 loses the 1 in float64; Neumaier keeps it in the compensation: exact answer 2.
    expect([1, 1e100, 1, -1e100].reduce((s, v) => s + v, 0)).toBe(0);
    expect(neumaierSum([1, 1e100, 1, -1e100])).toBe(2);
  });

  it("sums ten 0.1s to exactly 1 where plain summation gives 0.9999999999999999", () => {
    const tenths = Array<number>(10).fill(0.1);
    expect(tenths.reduce((s, v) => s + v, 0)).not.toBe(1);
    expect(neumaierSum(tenths)).toBe(1);
  });

  it("accepts any iterable and returns 0 for an empty one", () => {
    function* gen() {
      yield 1.5;
      yield 2.5;
    }
    expect(neumaierSum(gen())).toBe(4);
    expect(neumaierSum([])).toBe(0);
  });

  it("returns Infinity or NaN as plain summation would, not NaN from the compensation", () => {
    expect(neumaierSum([1, Infinity, 2])).toBe(Infinity);
    expect(neumaierSum([Infinity, -Infinity])).toBeNaN();
    expect(neumaierSum([1, NaN])).toBeNaN();
  });
});
