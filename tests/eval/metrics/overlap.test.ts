// N-gram overlap contracts: 000's published rates by order, unique counting, boundaries, short inputs.
import { describe, expect, it } from "vitest";
import { ngramCount, ngramOverlaps, ngramSet, overlapByOrder } from "../../../src/eval/metrics/overlap.ts";

const words = (s: string) => s.split(" ");
// 000's "N-gram overlap" example.
const training = ["the cat sat on the mat", "the dog ran to the park", "a model predicts the next token"].map(words);
const generations = ["the cat sat on the mat", "the model predicts a token", "new birds fly above water"].map(words);

describe("overlapByOrder", () => {
  it("reproduces 000's mean unique overlap 0.667, 0.417, 0.333 for orders 1–3", () => {
    // Copy: 1 at every order. "the model predicts a token": all 5 words seen (1); of its bigrams only
    // "model predicts" is seen (1/4); no trigram (0). Novel line: 0. Means: 2/3, 5/12, 1/3.
    const rows = overlapByOrder(generations, training);
    expect(rows.map((r) => r.n)).toEqual([1, 2, 3]);
    expect(rows.map((r) => +r.meanOverlap.toFixed(3))).toEqual([0.667, 0.417, 0.333]);
    [2 / 3, 5 / 12, 1 / 3].forEach((v, i) => expect(rows[i].meanOverlap).toBeCloseTo(v, 12));
    expect(rows.every((r) => r.scored === 3)).toBe(true);
  });

  it("matches 000's asserts: a training line overlaps fully at order 3, the novel line not at all", () => {
    expect(ngramOverlaps([training[0], generations[2]], training, 3)).toEqual([1, 0]);
  });

  it("counts a generation with no n-gram of order n as 0 in the mean (000's ngram_overlap), and says how many had one", () => {
    const rows = overlapByOrder([words("the cat"), words("new birds fly")], training, [2, 3]);
    // Order 2: "the cat" → 1, "new birds fly" → 0, mean .5 over 2. Order 3: "the cat" has no trigram → 0, the 3-word line 0.
    expect(rows).toEqual([
      { n: 2, meanOverlap: 0.5, scored: 2, withNgrams: 2 },
      { n: 3, meanOverlap: 0, scored: 2, withNgrams: 1 },
    ]);
    expect(overlapByOrder([words("cat")], training, [2])[0]).toEqual({ n: 2, meanOverlap: 0, scored: 1, withNgrams: 0 });
    // a copied 2-word line: 1 at order 2, 0 at order 3 (000 returns 0.0 for an empty candidate set), so the mean is 0.5, not 1
    expect(overlapByOrder([words("the cat"), words("the cat sat")], training, [3])[0].meanOverlap).toBe(0.5);
    // no generation at all is undefined, not 0
    expect(overlapByOrder([], training, [1])[0].meanOverlap).toBeNaN();
  });
});

describe("ngramOverlaps", () => {
  it("counts unique candidate n-grams, so repeating a phrase does not inflate the rate", () => {
    // Unique unigrams {a, b}; only a is in the reference → 1/2 (token-level counting would say 3/4).
    expect(ngramOverlaps([["a", "a", "a", "b"]], [["a"]], 1)).toEqual([0.5]);
  });

  it("does not form n-grams across reference boundaries", () => {
    expect(ngramOverlaps([["a", "b"]], [["a"], ["b"]], 2)).toEqual([0]);
    expect(ngramOverlaps([["a", "b"]], [["a", "b"]], 2)).toEqual([1]);
  });

  it("returns 0 for a candidate with no n-grams (000) and keeps token ids and strings apart", () => {
    expect(ngramOverlaps([[1]], [[1, 2]], 2)[0]).toBe(0);
    expect(ngramOverlaps([[1, 2]], [["1", "2"]], 2)).toEqual([0]);
    expect(ngramOverlaps([[1, 2, 3]], [[0, 1, 2, 3, 4]], 3)).toEqual([1]);
  });

  it("refuses an order that is not a positive integer", () => {
    expect(() => ngramOverlaps([], [], 0)).toThrow(/order must be a positive integer, got 0/);
    expect(() => overlapByOrder([["a"]], [], [1.5])).toThrow(/got 1.5/);
    expect(() => ngramSet(["a"], -1)).toThrow(/got -1/);
  });
});

describe("ngram helpers", () => {
  it("count positions and distinct n-grams", () => {
    expect(ngramCount(words("the cat sat on the mat"), 2)).toBe(5);
    expect(ngramCount(["a"], 2)).toBe(0);
    expect(ngramSet(words("a b a b"), 2).size).toBe(2);
  });
});
