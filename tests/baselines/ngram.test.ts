// Count baselines: published add-one bigram values, uniform = ln V, distributions sum to 1, training-only fit.
import { describe, expect, it } from "vitest";
import { addKBigram, allBaselines, fitCounts, unigram, unigramPriorBigram } from "../../src/baselines/ngram.ts";
import { packedBatches, paddedBatches } from "../../src/data/batches.ts";
import { overfitDocuments } from "../../src/data/fixtures.ts";
import { evaluateLikelihood } from "../../src/eval/passes/likelihood.ts";
import { meanNll, perplexity } from "../../src/eval/metrics/summary.ts";

const r6 = (x: number) => Math.round(x * 1e6) / 1e6;
const binding = { vocabSize: 266, contextLength: 8 };
const docs = overfitDocuments();
const train = docs.filter((d) => d.split === "train"),
  val = docs.filter((d) => d.split === "validation");

describe("baselines on the overfit fixture", () => {
  const [uni, unigramB, bigram, prior] = allBaselines(train, binding);

  it("add-one bigram: train 4.402665 (ppl 81.668227), validation 5.044970 (ppl 155.239620)", () => {
    // train transitions: BOS→a ×2, a→a ×3, a→b ×2, b→EOS ×2; C_BOS = 2, C_a = 5, C_b = 2, V = 266
    // NLL = [4·ln(268/3) + 3·ln(271/4) + 2·ln(271/3)] / 9 = 4.402665
    const t = evaluateLikelihood(bigram, "train", packedBatches(train, binding, 2)).metrics;
    const v = evaluateLikelihood(bigram, "validation", paddedBatches(val, binding, 1)).metrics;
    expect([r6(meanNll(t)), r6(perplexity(t)), t.targets]).toEqual([4.402665, 81.668227, 9]);
    expect([r6(meanNll(v)), r6(perplexity(v)), v.targets]).toEqual([5.04497, 155.23962, 9]);
  });

  it("uniform scores ln 266 on both splits", () => {
    for (const [split, d] of [
      ["train", train],
      ["validation", val],
    ] as const) {
      expect(meanNll(evaluateLikelihood(uni, split, packedBatches(d, binding, 2)).metrics)).toBeCloseTo(Math.log(266), 12);
    }
    expect(unigramB.name).toMatch(/unigram/);
    expect(prior.name).toMatch(/unigram-prior/);
  });

  it("every distribution sums to 1 over the vocabulary for every context; lam 0 and 1 are the endpoints", () => {
    const c = fitCounts(train, 266);
    for (const p of [unigram(c), addKBigram(c, 1), addKBigram(c, 0.1), unigramPriorBigram(c, 1), unigramPriorBigram(c, 0.1, 0.3)]) {
      for (const u of [0, 1, 99, 100, 200]) {
        let s = 0;
        for (let v = 0; v < 266; v++) s += p(u, v);
        expect(s).toBeCloseTo(1, 12);
      }
    }
    expect(unigramPriorBigram(c, 1, 0)(99, 100)).toBeCloseTo(unigram(c)(99, 100), 15);
    expect(unigramPriorBigram(c, 1, 1)(99, 100)).toBeCloseTo(addKBigram(c, 1)(99, 100), 15);
    // per-context form: weight C_u/(C_u + kV) on the counts; for u = a (C_a = 5), k = 1: (C_ab + 266·p_uni(b)) / (5 + 266)
    expect(unigramPriorBigram(c, 1)(99, 100)).toBeCloseTo((2 + 266 * unigram(c)(0, 100)) / 271, 15);
  });

  it("is fitted on training documents only", () => {
    expect(() => fitCounts(docs, 266)).toThrow(/training documents only; "validation-abaa" is validation/);
  });
});
