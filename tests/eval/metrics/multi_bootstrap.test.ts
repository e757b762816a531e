// The Multi-Bootstrap: its reductions to the document and seed bootstraps, identical arms, a hand-worked case,
// seed pairing and refusals.
import { describe, expect, it } from "vitest";
import { blockBootstrapRatio } from "../../../src/eval/metrics/intervals.ts";
import {
  gatedMultiBootstrap,
  multiBootstrap,
  multiBootstrapDifference,
  replicateRatio,
  type Arm,
} from "../../../src/eval/metrics/multi_bootstrap.ts";
import { Rng } from "../../../src/util/primitives/rng.ts";

// Hand-worked arm: 2 seeds × 2 documents, document 0 has 1 target, document 1 has 2.
//   seed 0: NLL sums [1, 6] → per-target rates 1 and 3
//   seed 1: NLL sums [3, 2] → per-target rates 3 and 1
// Estimate: (1 + 6 + 3 + 2) / (1 + 2 + 1 + 2) = 12 / 6 = 2.
// Every replicate is Σ NLL / Σ targets over the drawn seeds × drawn documents:
//   seeds {0,0}: docs {0,0} → 4/4 = 1, docs {0,1} → 14/6 = 7/3, docs {1,1} → 24/8 = 3
//   seeds {0,1}: docs {0,0} → 8/4 = 2, docs {0,1} → 12/6 = 2, docs {1,1} → 16/8 = 2
//   seeds {1,1}: docs {0,0} → 12/4 = 3, docs {0,1} → 10/6 = 5/3, docs {1,1} → 8/8 = 1
// Each multiset {i,i} has probability 1/4 and {0,1} 1/2, so P(1) = P(3) = 1/16 + 1/16 = 1/8 > 2.5%: the 95%
// percentile interval is exactly [1, 3]. Seeds only (documents fixed at {0,1}): 7/3, 2, 5/3 with probabilities
// 1/4, 1/2, 1/4, so [5/3, 7/3]. Documents only (seeds fixed at {0,1}): always 2, so [2, 2] — here the documents'
// differences cancel across the two seeds, and resampling documents alone sees no spread at all.
const hand: Arm = {
  seeds: [0, 1],
  nll: [
    [1, 6],
    [3, 2],
  ],
  targets: [
    [1, 2],
    [1, 2],
  ],
};

describe("multiBootstrap", () => {
  it("works the hand case: replicate ratios, estimate 2 and the percentile intervals", () => {
    expect(replicateRatio(hand, [0, 0], [0, 1])).toBe(14 / 6);
    expect(replicateRatio(hand, [1, 1], [0, 1])).toBe(10 / 6);
    expect(replicateRatio(hand, [0, 1], [1, 1])).toBe(2);
    expect(replicateRatio(hand, [0, 0], [1, 1])).toBe(3);
    const both = multiBootstrap(hand, Rng.fromSeed(1), { replicates: 4000 });
    expect(both).toMatchObject({ estimate: 2, lo: 1, hi: 3, seeds: 2, documents: 2, resample: "both", replicates: 4000 });
    const seeds = multiBootstrap(hand, Rng.fromSeed(1), { replicates: 4000, resample: "seeds" });
    expect(seeds.lo).toBeCloseTo(5 / 3, 14);
    expect(seeds.hi).toBeCloseTo(7 / 3, 14);
    const docs = multiBootstrap(hand, Rng.fromSeed(1), { replicates: 4000, resample: "documents" });
    expect([docs.lo, docs.hi, docs.se]).toEqual([2, 2, 0]);
  });

  it("with one seed equals the document bootstrap (blockBootstrapRatio, blocks of 1) bit for bit", () => {
    const arm: Arm = { seeds: [39], nll: [[4.1, 7.3, 0.2, 9.9, 3.3]], targets: [[3, 5, 1, 6, 2]] };
    const multi = multiBootstrap(arm, Rng.fromSeed(5), { replicates: 500 });
    const docs = blockBootstrapRatio(arm.nll[0], arm.targets[0], Rng.fromSeed(5).child("documents"), { replicates: 500, blockLength: 1 });
    expect({ estimate: multi.estimate, lo: multi.lo, hi: multi.hi, se: multi.se }).toEqual({
      estimate: docs.estimate,
      lo: docs.lo,
      hi: docs.hi,
      se: docs.se,
    });
  });

  it("with one document equals the seed bootstrap bit for bit", () => {
    const arm: Arm = { seeds: [39, 40, 41, 42], nll: [[20.1], [25.7], [18.3], [30.2]], targets: [[9], [9], [9], [9]] };
    const multi = multiBootstrap(arm, Rng.fromSeed(5), { replicates: 500 });
    const seeds = blockBootstrapRatio(
      arm.nll.map((r) => r[0]),
      arm.targets.map((r) => r[0]),
      Rng.fromSeed(5).child("seeds"),
      { replicates: 500, blockLength: 1 },
    );
    expect({ estimate: multi.estimate, lo: multi.lo, hi: multi.hi, se: multi.se }).toEqual({
      estimate: seeds.estimate,
      lo: seeds.lo,
      hi: seeds.hi,
      se: seeds.se,
    });
  });

  it("refuses empty arms, ragged rows, repeated seeds, non-finite sums and all-zero counts", () => {
    const rng = Rng.fromSeed(0);
    expect(() => multiBootstrap({ seeds: [], nll: [], targets: [] }, rng)).toThrow(/no seeds/);
    expect(() => multiBootstrap({ seeds: [1, 2], nll: [[1], [1, 2]], targets: [[1], [1, 1]] }, rng)).toThrow(/seed 2 has 2 NLL/);
    expect(() => multiBootstrap({ seeds: [1, 1], nll: [[1], [1]], targets: [[1], [1]] }, rng)).toThrow(/repeated/);
    expect(() => multiBootstrap({ seeds: [1], nll: [[NaN]], targets: [[1]] }, rng)).toThrow(/not finite/);
    expect(() => multiBootstrap({ seeds: [1], nll: [[0]], targets: [[0]] }, rng)).toThrow(/every target count is 0/);
    expect(() => multiBootstrap(hand, rng, { replicates: 1 })).toThrow(/replicates/);
  });
});

describe("multiBootstrapDifference", () => {
  it("gives a difference of exactly 0 and p = 1 for identical arms", () => {
    const d = multiBootstrapDifference(hand, hand, Rng.fromSeed(3), { replicates: 999 });
    expect(d.paired_seeds).toBe(true);
    expect(d.difference).toMatchObject({ estimate: 0, lo: 0, hi: 0, se: 0, p_one_sided: 1, p_floor: 1 / 1000 });
  });

  it("works a paired hand case: B = A + 0.5 per target in every cell is a difference of exactly 0.5 in every replicate", () => {
    // each cell of B adds 0.5 × targets, so every replicate's ratio rises by exactly 0.5 (Σ(n + t/2)/Σt = Σn/Σt + 1/2)
    const b: Arm = {
      seeds: hand.seeds,
      nll: hand.nll.map((row, s) => row.map((n, d) => n + 0.5 * hand.targets[s][d])),
      targets: hand.targets,
    };
    const d = multiBootstrapDifference(hand, b, Rng.fromSeed(3), { replicates: 999 });
    expect(d.difference.estimate).toBe(0.5);
    expect(d.difference.lo).toBeCloseTo(0.5, 12);
    expect(d.difference.hi).toBeCloseTo(0.5, 12);
    expect(d.difference.p_one_sided).toBe(d.difference.p_floor); // no replicate has B − A ≤ 0
    // A's interval is the one-arm Multi-Bootstrap of A with the same rng: the arms share their draws
    const alone = multiBootstrap(hand, Rng.fromSeed(3), { replicates: 999 });
    expect([d.a.lo, d.a.hi]).toEqual([alone.lo, alone.hi]);
  });

  it("pairs seeds only when the labels match; unpaired seeds widen the interval of a constant shift", () => {
    const b: Arm = { seeds: [7, 8], nll: hand.nll.map((row, s) => row.map((n, d) => n + 0.5 * hand.targets[s][d])), targets: hand.targets };
    const d = multiBootstrapDifference(hand, b, Rng.fromSeed(3), { replicates: 2000 });
    expect(d.paired_seeds).toBe(false);
    expect(d.difference.estimate).toBe(0.5);
    expect(d.difference.hi - d.difference.lo).toBeGreaterThan(0.5); // independent seed draws do not cancel
  });

  it("refuses arms over different documents", () => {
    expect(() => multiBootstrapDifference(hand, { seeds: [0], nll: [[1, 2, 3]], targets: [[1, 1, 1]] }, Rng.fromSeed(0))).toThrow(
      /expected 2 documents/,
    );
  });
});

describe("gatedMultiBootstrap", () => {
  // 3 seeds × n documents of 2 targets each, every cell's NLL a fixed function of (seed, document)
  const arm = (n: number): Arm => ({
    seeds: [0, 1, 2],
    nll: [0, 1, 2].map((s) => Array.from({ length: n }, (_, d) => 1 + ((s * 7 + d * 3) % 5))),
    targets: [0, 1, 2].map(() => Array(n).fill(2)),
  });

  it("under MIN_INTERVAL_DOCUMENTS documents gives the estimate alone, with the reason; at the minimum the whole interval", () => {
    const few = gatedMultiBootstrap(arm(9), Rng.fromSeed(3), { replicates: 200 });
    expect(few).toEqual({
      estimate: multiBootstrap(arm(9), Rng.fromSeed(3), { replicates: 200 }).estimate,
      lo: null,
      hi: null,
      se: null,
      interval_reason: "n too small for an interval: 9 documents, fewer than 10 (MIN_INTERVAL_DOCUMENTS)",
    });
    const enough = gatedMultiBootstrap(arm(10), Rng.fromSeed(3), { replicates: 200 });
    const { estimate, lo, hi, se } = multiBootstrap(arm(10), Rng.fromSeed(3), { replicates: 200 });
    expect(enough).toEqual({ estimate, lo, hi, se });
  });

  it("seeds only reaches no further than the lowest and highest seed's own ratio", () => {
    const a = arm(12);
    const perSeed = a.nll.map((row, s) => row.reduce((x, y) => x + y, 0) / a.targets[s].reduce((x, y) => x + y, 0));
    const iv = gatedMultiBootstrap(a, Rng.fromSeed(4), { replicates: 500, resample: "seeds" });
    expect(iv.lo).toBeGreaterThanOrEqual(Math.min(...perSeed) - 1e-12);
    expect(iv.hi).toBeLessThanOrEqual(Math.max(...perSeed) + 1e-12);
    expect(iv.lo! <= iv.estimate && iv.estimate <= iv.hi!).toBe(true);
  });
});
