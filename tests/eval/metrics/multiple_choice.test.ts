// Multiple-choice contracts: candidate boundaries, acc versus acc_norm (003), chance = mean 1/kᵢ,
// tie handling and refusal of malformed items or scorer output.
import { describe, expect, it } from "vitest";
import { scoreMultipleChoice, type ChoiceItem, type ContinuationLogProbs } from "../../../src/eval/metrics/multiple_choice.ts";

/** A scorer from a fixed table keyed by continuation; it also records what it was asked. */
function tableScorer(table: Record<string, number[]>, calls: [number[], number[]][] = []): ContinuationLogProbs {
  return (context, continuation) => {
    calls.push([[...context], [...continuation]]);
    const lps = table[JSON.stringify(continuation)];
    if (!lps) throw new Error(`no entry for ${JSON.stringify(continuation)}`);
    return lps;
  };
}

describe("scoreMultipleChoice", () => {
  it("scores each candidate as a continuation of the prompt, once", () => {
    const calls: [number[], number[]][] = [];
    scoreMultipleChoice([{ prompt: [5, 6], candidates: [[1], [2, 3]], gold: 0 }], tableScorer({ "[1]": [-1], "[2,3]": [-1, -1] }, calls));
    expect(calls).toEqual([
      [[5, 6], [1]],
      [
        [5, 6],
        [2, 3],
      ],
    ]);
  });

  it("003: summed and per-token likelihood can pick different candidates", () => {
    // Short candidate: one token at −1.0 → sum −1, per token −1. Long: three at −0.5 → sum −1.5,
    // per token −0.5. Sum picks the short one (wrong), per-token the long one (gold).
    const items: ChoiceItem[] = [{ prompt: [9], candidates: [[1], [2, 3, 4]], gold: 1 }];
    const r = scoreMultipleChoice(items, tableScorer({ "[1]": [-1], "[2,3,4]": [-0.5, -0.5, -0.5] }));
    expect(r.items[0]).toEqual({
      sumLogLik: [-1, -1.5],
      perTokenLogLik: [-1, -0.5],
      predicted: 0,
      predictedNorm: 1,
      correct: false,
      correctNorm: true,
    });
    expect([r.acc, r.accNorm]).toEqual([0, 1]);
  });

  it("chance is the mean of 1/kᵢ: 2 and 4 options give 0.375; four-choice items give 0.25 (003)", () => {
    const scorer: ContinuationLogProbs = (_, cont) => cont.map(() => -1);
    const two: ChoiceItem = { prompt: [0], candidates: [[1], [2]], gold: 0 };
    const four: ChoiceItem = { prompt: [0], candidates: [[1], [2], [3], [4]], gold: 3 };
    // (1/2 + 1/4)/2 = 0.375, not 1/3 from the mean option count and not a coin flip.
    expect(scoreMultipleChoice([two, four], scorer).chance).toBe(0.375);
    expect(scoreMultipleChoice([four, four, four], scorer).chance).toBe(0.25);
  });

  it("aggregates acc over items and breaks ties toward the lowest index", () => {
    const scorer = tableScorer({ "[1]": [-2], "[2]": [-1], "[3]": [-1] });
    const r = scoreMultipleChoice(
      [
        { prompt: [0], candidates: [[1], [2]], gold: 1 }, // −1 beats −2: right
        { prompt: [0], candidates: [[2], [3]], gold: 1 }, // tie → index 0: wrong
        { prompt: [0], candidates: [[1], [2], [3]], gold: 0 }, // predicts 1: wrong
      ],
      scorer,
    );
    expect(r.items.map((i) => i.predicted)).toEqual([1, 0, 1]);
    expect(r.count).toBe(3);
    expect(r.acc).toBeCloseTo(1 / 3, 15);
    expect(r.chance).toBeCloseTo((1 / 2 + 1 / 2 + 1 / 3) / 3, 15);
  });

  it("accepts a zero-probability token (−Infinity) and returns NaN aggregates for no items", () => {
    const r = scoreMultipleChoice([{ prompt: [0], candidates: [[1], [2]], gold: 1 }], tableScorer({ "[1]": [-Infinity], "[2]": [-3] }));
    expect(r.items[0].predicted).toBe(1);
    expect(scoreMultipleChoice([], () => [])).toEqual({ items: [], count: 0, acc: NaN, accNorm: NaN, chance: NaN });
  });

  it("refuses malformed items, each with its own message", () => {
    const ok: ContinuationLogProbs = (_, c) => c.map(() => -1);
    const run = (item: ChoiceItem) => () => scoreMultipleChoice([item], ok);
    expect(run({ prompt: [], candidates: [[1], [2]], gold: 0 })).toThrow(/item 0 prompt is empty/);
    expect(run({ prompt: [1], candidates: [[1], []], gold: 0 })).toThrow(/item 0 candidate 1 is empty/);
    expect(run({ prompt: [1], candidates: [[1]], gold: 0 })).toThrow(/item 0 has 1 candidate\(s\); need at least 2/);
    expect(run({ prompt: [1], candidates: [[1], [2]], gold: 2 })).toThrow(/gold index 2 is out of range \[0, 1\]/);
    expect(run({ prompt: [1], candidates: [[1], [2]], gold: -1 })).toThrow(/gold index -1 is out of range/);
    expect(run({ prompt: [1], candidates: [[1], [2]], gold: 0.5 })).toThrow(/gold index 0.5 is out of range/);
    expect(run({ prompt: [1.5], candidates: [[1], [2]], gold: 0 })).toThrow(/item 0 prompt token 0 is not a token id \(1.5\)/);
    expect(run({ prompt: [1], candidates: [[1], [-3]], gold: 0 })).toThrow(/item 0 candidate 1 token 0 is not a token id \(-3\)/);
  });

  it("refuses scorer output that is positive, NaN or the wrong length", () => {
    const item: ChoiceItem = { prompt: [0], candidates: [[1], [2, 3]], gold: 0 };
    expect(() => scoreMultipleChoice([item], tableScorer({ "[1]": [-1], "[2,3]": [-1, 0.2] }))).toThrow(
      /item 0 candidate 1 token 1 has log-prob 0.2; must be ≤ 0/,
    );
    expect(() => scoreMultipleChoice([item], tableScorer({ "[1]": [NaN], "[2,3]": [-1, -1] }))).toThrow(
      /item 0 candidate 0 token 0 has log-prob NaN/,
    );
    expect(() => scoreMultipleChoice([item], tableScorer({ "[1]": [-1], "[2,3]": [-2] }))).toThrow(
      /scorer returned 1 log-probs for item 0 candidate 1 of 2 tokens/,
    );
  });
});
