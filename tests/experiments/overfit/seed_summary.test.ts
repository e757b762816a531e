// One number per seed summarized: count, mean, the sample SD (K − 1), min and max, on published finals.
import { describe, expect, it } from "vitest";
import { seedSummary } from "../../../experiments/overfit/seed_summary.ts";

const r6 = (x: number) => Math.round(x * 1e6) / 1e6;

describe("seed summary", () => {
  it("seed summary on the published finals 4.172745, 4.328176, 2.545169: mean 3.682030, sample SD 0.987613", () => {
    const s = seedSummary([4.172745, 4.328176, 2.545169]);
    expect(r6(s.mean)).toBe(3.68203);
    expect(r6(s.sample_sd!)).toBe(0.987613); // divides by K − 1 = 2
    expect([s.count, s.min, s.max]).toEqual([3, 2.545169, 4.328176]);
    expect(s.interpretation).toMatch(/initialization/);
  });
});
