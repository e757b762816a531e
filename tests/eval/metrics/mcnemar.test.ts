// McNemar's exact test against hand-worked binomial tails, its symmetry, the no-discordance case and refusals.
import { describe, expect, it } from "vitest";
import { gatedMcNemar, mcnemarExact } from "../../../src/eval/metrics/mcnemar.ts";

describe("mcnemarExact", () => {
  it("equals hand-worked two-sided binomial tails", () => {
    // n = 6, min 1: 2 · (C(6,0) + C(6,1)) / 2^6 = 2 · 7 / 64 = 0.21875
    expect(mcnemarExact(1, 5).p_two_sided).toBeCloseTo(0.21875, 14);
    // n = 5, min 0: 2 · 1 / 32 = 0.0625
    expect(mcnemarExact(0, 5).p_two_sided).toBeCloseTo(0.0625, 14);
    // n = 10, min 2: 2 · (1 + 10 + 45) / 1024 = 112 / 1024 = 0.109375
    expect(mcnemarExact(8, 2).p_two_sided).toBeCloseTo(0.109375, 14);
    // n = 4, min 2: 2 · (1 + 4 + 6) / 16 = 22/16 > 1, capped
    expect(mcnemarExact(2, 2).p_two_sided).toBe(1);
  });

  it("is symmetric, 1 without discordant pairs, and finite for large counts", () => {
    expect(mcnemarExact(3, 9).p_two_sided).toBe(mcnemarExact(9, 3).p_two_sided);
    expect(mcnemarExact(0, 0).p_two_sided).toBe(1);
    const big = mcnemarExact(2000, 2300).p_two_sided; // 2^−4300 underflows a double; the log-space sum does not
    expect(big > 0 && big < 1e-4).toBe(true);
  });

  it("refuses counts that are not non-negative integers", () => {
    expect(() => mcnemarExact(-1, 2)).toThrow(/a_only/);
    expect(() => mcnemarExact(1, 2.5)).toThrow(/b_only/);
  });
});

describe("gatedMcNemar", () => {
  it("withholds the p-value under MIN_INTERVAL_DOCUMENTS documents, naming why, and gives mcnemarExact's at the minimum", () => {
    // 1 only-A and 6 only-B: p = 2 · (1 + 7) / 2^7 = 0.125 (worked by hand), whatever the document count
    expect(gatedMcNemar(1, 6, 2)).toEqual({
      a_only: 1,
      b_only: 6,
      p_two_sided: null,
      p_reason: "n too small for an interval: 2 documents, fewer than 10 (MIN_INTERVAL_DOCUMENTS)",
      test: mcnemarExact(1, 6).test,
    });
    expect(gatedMcNemar(1, 6, 10)).toEqual(mcnemarExact(1, 6));
    expect(mcnemarExact(1, 6).p_two_sided).toBeCloseTo(0.125, 15);
  });
});
