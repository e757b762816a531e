// McNemar's exact test against hand-worked binomial tails, its symmetry, the no-discordance case and refusals.
import { describe, expect, it } from "vitest";
import { mcnemarExact } from "../../../src/eval/metrics/mcnemar.ts";

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
