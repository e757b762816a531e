// Calibration contracts: 000's worked ECE, 002's edge cases, Brier and an exact Murphy decomposition.
import { describe, expect, it } from "vitest";
import {
  brierDecomposition,
  brierScore,
  calibrationReport,
  expectedCalibrationError,
  reliabilityBins,
} from "../../../src/eval/metrics/calibration.ts";
import { Rng } from "../../../src/util/primitives/rng.ts";

// 000's eight predictions ("Calibration" section).
const conf000 = [0.12, 0.18, 0.32, 0.38, 0.62, 0.68, 0.82, 0.92];
const correct000 = [0, 1, 0, 1, 1, 1, 1, 0];

describe("reliability bins and ECE", () => {
  it("reproduces 000's 5-bin table and ECE 0.305", () => {
    // Bins of width 0.2: {.12,.18} → conf .15 acc .5; {.32,.38} → .35, .5; bin 2 empty;
    // {.62,.68} → .65, 1; {.82,.92} → .87, .5. ECE = 2/8·(.35 + .15 + .35 + .37) = 0.305.
    const bins = reliabilityBins(conf000, correct000, { bins: 5 });
    expect(bins.map((b) => b.count)).toEqual([2, 2, 2, 2]);
    expect(bins.map((b) => b.lo)).toEqual([0, 0.2, 0.6, 0.8]);
    expect(bins.map((b) => b.hi)).toEqual([0.2, 0.4, 0.8, 1]);
    [0.15, 0.35, 0.65, 0.87].forEach((c, i) => expect(bins[i].meanConfidence).toBeCloseTo(c, 12));
    expect(bins.map((b) => b.accuracy)).toEqual([0.5, 0.5, 1, 0.5]);
    const { ece, populatedBins } = expectedCalibrationError(conf000, correct000, { bins: 5 });
    expect(ece).toBeCloseTo(0.305, 12);
    expect(populatedBins).toBe(4);
  });

  it("gives 0 for 000's check: two predictions at 0.5, one right, two bins", () => {
    expect(expectedCalibrationError([0.5, 0.5], [1, 0], { bins: 2 }).ece).toBe(0);
  });

  it("works 000's exercise P7.1 by hand: [.2,.4,.9] vs [1,0,0] in 3 bins gives ECE 0.7", () => {
    // One prediction per bin: (|1−.2| + |0−.4| + |0−.9|)/3 = 2.1/3 = 0.7; the 0.9 bin is overconfident.
    const bins = reliabilityBins([0.2, 0.4, 0.9], [1, 0, 0], { bins: 3 });
    expect(bins.map((b) => b.count)).toEqual([1, 1, 1]);
    expect(bins[2].accuracy).toBeLessThan(bins[2].meanConfidence);
    expect(expectedCalibrationError([0.2, 0.4, 0.9], [1, 0, 0], { bins: 3 }).ece).toBeCloseTo(0.7, 12);
  });

  it("defaults to 10 equal-width bins, closes the last bin at 1 and opens the first at 0", () => {
    const bins = reliabilityBins([0, 0.05, 0.95, 1], [false, true, true, true]);
    expect(bins.map((b) => [b.lo, b.hi, b.count])).toEqual([
      [0, 0.1, 2],
      [0.9, 1, 2],
    ]);
  });

  it("equal-mass bins split sorted confidences into equal counts", () => {
    const bins = reliabilityBins(conf000, correct000, { bins: 4, scheme: "equal-mass" });
    expect(bins.map((b) => b.count)).toEqual([2, 2, 2, 2]);
    expect(bins.map((b) => [b.lo, b.hi])).toEqual([
      [0.12, 0.18],
      [0.32, 0.38],
      [0.62, 0.68],
      [0.82, 0.92],
    ]);
    // Same grouping as 5 equal-width bins here, so the same ECE.
    expect(expectedCalibrationError(conf000, correct000, { bins: 4, scheme: "equal-mass" }).ece).toBeCloseTo(0.305, 12);
  });

  it("equal-mass bins never split a run of tied confidences", () => {
    // A cut after 2 of 4 would separate the three 0.5 confidences; they stay together and the next bin takes the rest.
    const bins = reliabilityBins([0.5, 0.9, 0.5, 0.5], [1, 1, 0, 0], { bins: 2, scheme: "equal-mass" });
    expect(bins.map((b) => [b.lo, b.hi, b.count])).toEqual([
      [0.5, 0.5, 3],
      [0.9, 0.9, 1],
    ]);
  });
});

describe("002's edge cases", () => {
  it("all wrong: ECE equals the mean confidence, Brier the mean squared confidence", () => {
    const conf = [0.3, 0.6, 0.9, 0.95];
    // mean = 2.75/4 = 0.6875; Brier = (.09 + .36 + .81 + .9025)/4 = 0.540625.
    expect(expectedCalibrationError(conf, [0, 0, 0, 0]).ece).toBeCloseTo(0.6875, 12);
    expect(brierScore(conf, [false, false, false, false])).toBeCloseTo(0.540625, 12);
  });

  it("all right with high confidence: ECE and Brier near zero", () => {
    // One bin [0.9, 1]: mean conf .99, acc 1 → ECE 0.01; Brier = (.0001 + .0004 + 0)/3 ≈ 0.000167.
    expect(expectedCalibrationError([0.99, 0.98, 1], [1, 1, 1]).ece).toBeCloseTo(0.01, 12);
    expect(brierScore([0.99, 0.98, 1], [1, 1, 1])).toBeCloseTo(0.0005 / 3, 12);
  });

  it("p = 0.5 everywhere: ECE = |0.5 − accuracy| and Brier exactly 0.25", () => {
    const conf = [0.5, 0.5, 0.5, 0.5];
    expect(expectedCalibrationError(conf, [1, 1, 1, 0]).ece).toBe(0.25);
    expect(expectedCalibrationError(conf, [1, 0, 1, 0]).ece).toBe(0);
    expect(brierScore(conf, [1, 1, 1, 0])).toBe(0.25);
    expect(brierScore(conf, [0, 0, 0, 0])).toBe(0.25);
  });

  it("empty input: ECE (0, 0 populated bins), Brier 0, no bins, no throw", () => {
    expect(expectedCalibrationError([], [])).toEqual({ ece: 0, populatedBins: 0 });
    expect(brierScore([], [])).toBe(0);
    expect(reliabilityBins([], [])).toEqual([]);
    expect(calibrationReport([], [])).toEqual({
      count: 0,
      scheme: "equal-width",
      binCount: 10,
      ece: 0,
      populatedBins: 0,
      brier: 0,
      bins: [],
      reliability: { confidence: new Array(10).fill(0), accuracy: new Array(10).fill(0), count: new Array(10).fill(0) },
    }); // 002: zero-filled arrays
    expect(brierDecomposition([], [])).toEqual({ brier: 0, reliability: 0, resolution: 0, uncertainty: 0, residual: 0 });
  });
});

describe("Brier decomposition", () => {
  it("hand example with constant forecasts per bin: residual 0, brier = rel − res + unc", () => {
    // p = [.2,.2,.8,.8], y = [0,1,1,1]; base rate .75 → unc .1875. Bins {.2: acc .5}, {.8: acc 1}:
    // rel = (2·.3² + 2·.2²)/4 = .065, res = (2·.25² + 2·.25²)/4 = .0625, Brier = (.04+.64+.04+.04)/4 = .19.
    const d = brierDecomposition([0.2, 0.2, 0.8, 0.8], [0, 1, 1, 1], { bins: 5 });
    expect(d.brier).toBeCloseTo(0.19, 12);
    expect(d.reliability).toBeCloseTo(0.065, 12);
    expect(d.resolution).toBeCloseTo(0.0625, 12);
    expect(d.uncertainty).toBeCloseTo(0.1875, 12);
    expect(d.residual).toBeCloseTo(0, 12);
  });

  it("hand example where one bin hides spread: residual −0.09", () => {
    // One bin holds p = [.1, .3], y = [0, 1]: mean .2, acc .5 → rel .09, res 0, unc .25; Brier = (.01+.49)/2 = .25.
    // Residual = mean of dp² − 2·dp·(y − acc) = ((.01 − .1) + (.01 − .1))/2 = −0.09, and .09 − 0 + .25 − .09 = .25.
    const d = brierDecomposition([0.1, 0.3], [0, 1], { bins: 1 });
    expect([d.brier, d.reliability, d.resolution, d.uncertainty, d.residual].map((v) => +v.toFixed(12))).toEqual([
      0.25, 0.09, 0, 0.25, -0.09,
    ]);
  });

  it("brier = reliability − resolution + uncertainty + residual on random data, both schemes", () => {
    // The identity is algebraically exact; 1e-12 only absorbs float64 rounding over 1000 O(1) terms.
    const rng = Rng.fromSeed(11);
    const conf = Array.from({ length: 1000 }, () => rng.next());
    const y = conf.map((p) => rng.next() < p * p);
    for (const opts of [{}, { bins: 7 }, { bins: 10, scheme: "equal-mass" as const }]) {
      const d = brierDecomposition(conf, y, opts);
      expect(Math.abs(d.brier - (d.reliability - d.resolution + d.uncertainty + d.residual))).toBeLessThan(1e-12);
      expect(d.brier).toBeCloseTo(brierScore(conf, y), 15);
    }
  });
});

describe("calibrationReport and validation", () => {
  it("bundles ECE, populated bins, Brier and the bins for the chosen scheme", () => {
    const r = calibrationReport(conf000, correct000, { bins: 5 });
    expect(r.count).toBe(8);
    expect(r.binCount).toBe(5);
    expect(r.ece).toBeCloseTo(0.305, 12);
    expect(r.populatedBins).toBe(4);
    expect(r.bins).toEqual(reliabilityBins(conf000, correct000, { bins: 5 }));
    expect(r.brier).toBeCloseTo(brierScore(conf000, correct000), 15);
  });

  it("refuses each bad input with its own message", () => {
    expect(() => reliabilityBins([0.1, 0.2], [1])).toThrow(/2 confidences but 1 correctness labels/);
    expect(() => brierScore([0.1, 1.2], [1, 0])).toThrow(/confidence at index 1 is 1.2, not in \[0, 1\]/);
    expect(() => brierScore([-0.1], [1])).toThrow(/confidence at index 0 is -0.1/);
    expect(() => expectedCalibrationError([NaN], [1])).toThrow(/confidence at index 0 is NaN/);
    expect(() => brierScore([0.1, 0.2], [1, 2])).toThrow(/correctness at index 1 is 2, expected a boolean or 0\/1/);
    expect(() => brierScore([0.1], ["yes" as unknown as number])).toThrow(/correctness at index 0 is yes/);
    expect(() => reliabilityBins([0.1], [1], { bins: 0 })).toThrow(/bins must be an integer in \[1, 10000\] \(MAX_BINS\), got 0/);
    expect(() => reliabilityBins([0.1], [1], { bins: 2.5 })).toThrow(/bins must be an integer in \[1, 10000\] \(MAX_BINS\), got 2.5/);
    // a bound checked before the bins are allocated: 1e9 of them would be gigabytes of arrays
    expect(() => reliabilityBins([0.1], [1], { bins: 1e9 })).toThrow(
      /bins must be an integer in \[1, 10000\] \(MAX_BINS\), got 1000000000/,
    );
    expect(reliabilityBins([0.1], [1], { bins: 10_000 })).toHaveLength(1); // the limit itself is taken (one populated bin)
    expect(() => reliabilityBins([0.1], [1], { scheme: "quantile" as "equal-mass" })).toThrow(/unknown bin scheme "quantile"/);
  });
});

describe("calibration as the report computes it (nextTokenCalibration, what `tinylab report --bins --scheme` calls)", () => {
  const predictions = (confidences: number[], correct: number[]) => ({
    split: "validation" as const,
    stride: 1,
    confidences,
    correct: correct.map((c) => c === 1),
  });

  it("reproduces 000's ECE 0.305 with --bins 5, and returns 002's zero-filled per-bin arrays", async () => {
    const { nextTokenCalibration } = await import("../../../src/eval/passes/next_token.ts");
    const c = nextTokenCalibration(predictions(conf000, correct000), { bins: 5 });
    expect(c.report.ece).toBeCloseTo(0.305, 12);
    expect([c.report.binCount, c.report.populatedBins, c.report.scheme]).toEqual([5, 4, "equal-width"]);
    // 002: three arrays over every bin, the empty bin 2 as zeros
    expect(c.report.reliability.count).toEqual([2, 2, 0, 2, 2]);
    expect(c.report.reliability.accuracy).toEqual([0.5, 0.5, 0, 1, 0.5]);
    [0.15, 0.35, 0, 0.65, 0.87].forEach((v, i) => expect(c.report.reliability.confidence[i]).toBeCloseTo(v, 12));
    // 002's default, 10 equal-width bins: ten entries each, zeros where nothing fell
    const ten = nextTokenCalibration(predictions(conf000, correct000), {});
    expect(ten.report.reliability.count).toEqual([0, 2, 0, 2, 0, 0, 2, 0, 1, 1]);
    expect(ten.report.reliability.confidence).toHaveLength(10);
    // equal-mass: 4 bins of 2 predictions each
    expect(nextTokenCalibration(predictions(conf000, correct000), { bins: 4, scheme: "equal-mass" }).report.reliability.count).toEqual([
      2, 2, 2, 2,
    ]);
  });

  it("declines the ECE below MIN_ECE_PREDICTIONS, with the reason, and keeps Brier and the bins", async () => {
    const { nextTokenCalibration, MIN_ECE_PREDICTIONS } = await import("../../../src/eval/passes/next_token.ts");
    expect(MIN_ECE_PREDICTIONS).toBe(8);
    const few = nextTokenCalibration(predictions(conf000.slice(0, 7), correct000.slice(0, 7)), { bins: 5 });
    expect(few.report.ece).toBeNull();
    expect(few.report.ece_reason).toBe("declined: 7 predictions, fewer than 8 (MIN_ECE_PREDICTIONS)");
    expect(few.report.brier).toBeGreaterThan(0);
    const none = nextTokenCalibration(predictions([], []), {});
    expect([none.report.ece, none.accuracy.rate, none.accuracy.rate_reason]).toEqual([null, null, "no predictions"]);
    expect(none.report.reliability.count).toEqual(new Array(10).fill(0));
  });
});
