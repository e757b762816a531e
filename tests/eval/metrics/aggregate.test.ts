// Aggregation as code: a declared ratio of sums turned into its value and its interval by one helper, worked by hand,
// and the interval withheld, with its reason, under MIN_INTERVAL_DOCUMENTS documents, over one window or no denominator.
import { describe, expect, it } from "vitest";
import { aggregate, ONE_WINDOW, proportion, ratioOfSums, type RatioOfSums } from "../../../src/eval/metrics/aggregate.ts";
import { blockBootstrapRatio, wilsonInterval } from "../../../src/eval/metrics/intervals.ts";
import { Rng } from "../../../src/util/primitives/rng.ts";

const NLL = {
  kind: "ratio-of-sums",
  numerator: "total_nll",
  denominator: "targets",
  over: "windows",
  interval: "block-bootstrap-95",
} as const satisfies RatioOfSums;
const few = (n: number) => `n too small for an interval: ${n} document${n === 1 ? "" : "s"}, fewer than 10 (MIN_INTERVAL_DOCUMENTS)`;

describe("aggregate", () => {
  it("divides the sums once, never averaging the items' ratios", () => {
    // windows (2 nats over 1 target) and (9 over 3): (2 + 9) / (1 + 3) = 2.75, where the mean of 2 and 3 is 2.5
    const a = aggregate(NLL, { numerators: [2, 9], denominators: [1, 3], documents: 2 }, { rng: Rng.fromSeed(0), replicates: 10 });
    expect(a.value).toBe(2.75);
    expect(
      ratioOfSums([
        { numerator: 2, denominator: 1 },
        { numerator: 9, denominator: 3 },
      ]),
    ).toBe(2.75);
    // the declared ratio replaces the quotient: bits per byte = Σ nats / (ln 2 · Σ bytes) = 11 / (4 ln 2)
    const bpb = aggregate(
      { ...NLL, ratio: (n: number, d: number) => n / (Math.LN2 * d) },
      { numerators: [2, 9], denominators: [1, 3], documents: 2 },
      { rng: Rng.fromSeed(0), replicates: 10 },
    );
    expect(bpb.value).toBe(11 / (Math.LN2 * 4));
  });

  it("gives the block bootstrap of the same items at MIN_INTERVAL_DOCUMENTS documents, from the stream passed in", () => {
    const num = Array.from({ length: 12 }, (_, i) => 1 + (i % 4)),
      den = Array.from({ length: 12 }, (_, i) => 1 + (i % 3));
    const a = aggregate(NLL, { numerators: num, denominators: den, documents: 10 }, { rng: Rng.fromSeed(7), replicates: 300 });
    const b = blockBootstrapRatio(num, den, Rng.fromSeed(7), { replicates: 300 });
    expect(a.interval).toEqual({ lo: b.lo, hi: b.hi, se: b.se, block_length: b.blockLength, replicates: 300 });
    expect(a.interval_reason).toBeUndefined();
  });

  it("withholds the interval, naming why: too few documents, one window, no denominator", () => {
    const opts = { rng: Rng.fromSeed(1), replicates: 50 };
    expect(aggregate(NLL, { numerators: [1, 2, 3], denominators: [1, 1, 1], documents: 9 }, opts)).toEqual({
      value: 2,
      interval: null,
      interval_reason: few(9),
    });
    expect(aggregate(NLL, { numerators: [4], denominators: [2], documents: 1 }, opts)).toEqual({
      value: 2,
      interval: null,
      interval_reason: ONE_WINDOW,
    });
    const none = aggregate({ ...NLL, noDenominator: "no bytes" }, { numerators: [1, 2], denominators: [0, 0], documents: 20 }, opts);
    expect(none.value).toBeNaN();
    expect(none.interval_reason).toBe("no bytes");
  });

  it("gives a proportion Wilson's interval, over the items or the documents they come from", () => {
    const hits = [1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0]; // 8 of 12
    expect(proportion(hits)).toEqual({ value: 8 / 12, interval: wilsonInterval(8, 12) });
    expect(proportion(hits, 3)).toEqual({ value: 8 / 12, interval: null, interval_reason: few(3) });
    expect(proportion(hits.slice(0, 9))).toMatchObject({ interval: null, interval_reason: few(9) });
  });
});
