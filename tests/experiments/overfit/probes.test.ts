// The overfit recipe's readings: the weighting probe's published values, worked by hand.
import { describe, expect, it } from "vitest";
import { weightingProbe } from "../../../experiments/overfit/probes.ts";

const r6 = (x: number) => Math.round(x * 1e6) / 1e6;

describe("overfit probes", () => {
  it("weighting probe: merged 0.924196 nats, ppl 2.519842 over 6; wrong mean 0.953077, wrong ppl 2.603421", () => {
    // [0.5, 0.25]: 3 ln2 over 2; [0.5,0.5,0.25,0.5]: 5 ln2 over 4; merged 8 ln2 / 6 = (4/3) ln2, ppl 2^(4/3)
    const p = weightingProbe();
    expect(p.batch_targets).toEqual([2, 4]);
    expect(r6(p.correct.mean_nll)).toBe(0.924196);
    expect(r6(p.correct.perplexity)).toBe(2.519842);
    expect(p.correct.targets).toBe(6);
    expect(r6(p.wrong_unweighted_mean_nll)).toBe(0.953077); // (11/8) ln2
    expect(r6(p.wrong_mean_perplexity)).toBe(2.603421); // (2^1.5 + 2^1.25)/2
  });
});
