// Diversity contracts: 000's repetitive/varied/suite numbers and the undefined cases.
import { describe, expect, it } from "vitest";
import { distinctN, meanPairwiseJaccard, uniqueSequenceRatio } from "../../../src/eval/metrics/diversity.ts";

const split = (lines: string[]) => lines.map((s) => s.split(" "));
// 000's "Generation diversity" sets, and the generations used in its evaluation suite.
const repetitive = split(["the cat sat on the mat", "the cat sat on the mat", "the cat sat near the mat"]);
const varied = split(["red birds fly above water", "small models read heldout data", "green fish swim below ice"]);
const suite = split(["the cat sat on the mat", "the model predicts a token", "new birds fly above water"]);

describe("000's published diversity rows", () => {
  it("repetitive: distinct-1 0.333, distinct-2 0.467, unique 0.667, Jaccard 0.619", () => {
    // Words {the,cat,sat,on,mat,near} = 6 of 18 → 1/3. Bigrams: 7 distinct of 15 → 7/15.
    // Two of three lines distinct → 2/3. Jaccard: identical pair 1, each pair with line 3 shares
    // {the cat, cat sat, the mat} of a 7-bigram union → 3/7; mean (1 + 6/7)/3 = 13/21 = 0.619.
    expect(distinctN(repetitive, 1)).toBeCloseTo(1 / 3, 12);
    expect(distinctN(repetitive, 2)).toBeCloseTo(7 / 15, 12);
    expect(uniqueSequenceRatio(repetitive)).toBeCloseTo(2 / 3, 12);
    expect(meanPairwiseJaccard(repetitive)).toBeCloseTo(13 / 21, 12);
    expect(
      [distinctN(repetitive, 1), distinctN(repetitive, 2), uniqueSequenceRatio(repetitive), meanPairwiseJaccard(repetitive)].map(
        (v) => +v.toFixed(3),
      ),
    ).toEqual([0.333, 0.467, 0.667, 0.619]);
  });

  it("varied: 1, 1, 1, 0", () => {
    expect([distinctN(varied, 1), distinctN(varied, 2), uniqueSequenceRatio(varied), meanPairwiseJaccard(varied, 2)]).toEqual([1, 1, 1, 0]);
  });

  it("suite generations: distinct-1 0.875, distinct-2 1, unique 1, Jaccard 0", () => {
    // 14 distinct words over 6 + 5 + 5 = 16 → 0.875; all 13 bigrams distinct.
    expect([distinctN(suite, 1), distinctN(suite, 2), uniqueSequenceRatio(suite), meanPairwiseJaccard(suite)]).toEqual([0.875, 1, 1, 0]);
  });
});

describe("undefined and degenerate cases", () => {
  it("distinct-n is NaN with no n-grams; unique ratio NaN with no generations", () => {
    expect(distinctN([], 1)).toBeNaN();
    expect(distinctN([["a"], []], 2)).toBeNaN();
    expect(uniqueSequenceRatio([])).toBeNaN();
  });

  it("Jaccard is NaN without a pair and 1 for two generations with no n-grams", () => {
    expect(meanPairwiseJaccard([["a", "b"]])).toBeNaN();
    expect(meanPairwiseJaccard([["a"], ["b"]], 2)).toBe(1);
  });

  it("treats token ids as whole tokens, not characters", () => {
    expect(uniqueSequenceRatio([[1, 2], [12], ["1", "2"]])).toBe(1);
    expect(distinctN([[1, 1, 1, 2]], 1)).toBe(0.5);
  });

  it("refuses a bad order", () => {
    expect(() => distinctN([["a"]], 0)).toThrow(/positive integer, got 0/);
    expect(() => meanPairwiseJaccard([["a"], ["b"]], 1.5)).toThrow(/got 1.5/);
  });
});
