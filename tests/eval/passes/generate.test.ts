// Generation contracts: seeded sampling is a function of the Rng (same seed → same tokens, another seed →
// different), top-k restricts the support, greedy is deterministic, the greedy margin is the logit lead, and
// contexts longer than the model's are cropped on the left. Works for baselines and the decoder alike.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScoringModel } from "../../../src/eval/passes/adapter.ts";
import { decoderAdapter } from "../../../src/eval/passes/adapter.ts";
import { baselineAdapter } from "../../../src/baselines/ngram.ts";
import { generate, greedyMargin, nextLogProbs, sampleToken } from "../../../src/eval/passes/generate.ts";
import type { GPT } from "../../../src/model/gpt.ts";
import type { ModelInput } from "../../../src/model/input.ts";
import { Rng } from "../../../src/util/primitives/rng.ts";
import { tinyDecoder } from "../tiny_model.ts";
import { leakedBy, useBackend } from "../../helpers.ts";

/** A model whose next-token logits are fixed rows chosen by the last input id; it records every input. */
function fixedLogits(rows: number[][], contextLength = 4): ScoringModel & { seen: ModelInput[] } {
  const V = rows[0].length;
  const seen: ModelInput[] = [];
  const logSoftmax = (z: number[]) => {
    const m = Math.max(...z);
    const l = m + Math.log(z.reduce((s, v) => s + Math.exp(v - m), 0));
    return z.map((v) => v - l);
  };
  return {
    name: "fixed",
    binding: { vocabSize: V, contextLength },
    seen,
    positionNll: () => {
      throw new Error("not used");
    },
    logProbs: (input) => {
      seen.push(input);
      const out = new Float32Array(input.ids.length * V);
      input.ids.forEach((id, i) => out.set(logSoftmax(rows[id % rows.length]), i * V));
      return out;
    },
    stateFingerprint: () => "fixed",
  };
}

describe("sampling with an explicit Rng", () => {
  const flat = baselineAdapter("uniform", () => 1 / 50, { vocabSize: 50, contextLength: 8 });
  const sample = (seed: number, topK?: number) =>
    generate(flat, [0], { maxTokens: 40, decoding: { kind: "sample", temperature: 1, topK, rng: Rng.fromSeed(seed).child("sampling") } })
      .tokens;

  it("gives the same tokens for the same seed and different tokens for another seed", () => {
    expect(sample(7)).toEqual(sample(7));
    expect(sample(7)).not.toEqual(sample(8));
  });

  it("draws only among the top k tokens, and top-1 sampling equals greedy", () => {
    // logits [0, 3, 1, 2.5, -1]: top 2 are ids 1 and 3
    const m = fixedLogits([[0, 3, 1, 2.5, -1]]);
    const rng = Rng.fromSeed(1);
    const draws = Array.from({ length: 300 }, () => sampleToken(nextLogProbs(m, [0]), 1, rng, 2));
    expect(new Set(draws)).toEqual(new Set([1, 3]));
    // p(1)/p(3) = e^0.5 ≈ 1.65 within top-2: about 62% ones; a loose band, not this machine's digits
    const ones = draws.filter((d) => d === 1).length / draws.length;
    expect(ones).toBeGreaterThan(0.5);
    expect(ones).toBeLessThan(0.75);
    const greedy = generate(m, [0], { maxTokens: 5, decoding: { kind: "greedy" } }).tokens;
    const top1 = generate(m, [0], { maxTokens: 5, decoding: { kind: "sample", temperature: 0.7, topK: 1, rng: Rng.fromSeed(3) } }).tokens;
    expect(top1).toEqual(greedy);
  });

  it("sharpens with low temperature and refuses temperature 0 and bad k", () => {
    const m = fixedLogits([[0, 1, 0.5]]);
    const rng = Rng.fromSeed(2);
    const cold = Array.from({ length: 200 }, () => sampleToken(nextLogProbs(m, [0]), 0.05, rng));
    expect(cold.every((t) => t === 1)).toBe(true); // p(runner-up) ∝ e^{−0.5/0.05} = e^{−10}
    expect(() => sampleToken(nextLogProbs(m, [0]), 0, rng)).toThrow(/temperature/);
    expect(() => sampleToken(nextLogProbs(m, [0]), 1, rng, 4)).toThrow(/top-k/);
  });

  it("stops after the stop token and crops the context on the left to the model's context length", () => {
    const m = fixedLogits(
      [
        [0, 5, 0],
        [0, 0, 5],
        [9, 0, 0],
      ],
      4,
    ); // 0 → 1 → 2 → 0 …
    const g = generate(m, [0, 1, 2, 0, 1, 2], { maxTokens: 10, decoding: { kind: "greedy" }, stopToken: 1 });
    expect(g).toMatchObject({ tokens: [0, 1], stopped: "stop-token" });
    // ln p of each emitted token: after 2 the logits are [9, 0, 0], after 0 they are [0, 5, 0] (float32 log-softmax)
    expect(g.logProbs[0]).toBeCloseTo(9 - Math.log(Math.exp(9) + 2), 6);
    expect(g.logProbs[1]).toBeCloseTo(5 - Math.log(Math.exp(5) + 2), 6);
    expect(m.seen.every((x) => x.cols <= 4)).toBe(true);
    expect(Array.from(m.seen[0].ids)).toEqual([2, 0, 1, 2]);
  });
});

describe("greedy margin", () => {
  it("returns the top token and its logit lead over the runner-up", () => {
    // logits [2, 5, 1, 4.5]: top id 1, runner-up id 3, lead 0.5 logits whatever the normaliser
    const g = greedyMargin(fixedLogits([[2, 5, 1, 4.5]]), [0]);
    expect(g.token).toBe(1);
    expect(g.runnerUp).toBe(3);
    expect(g.margin).toBeCloseTo(0.5, 5); // float32 log-probs
    expect(g.probability).toBeCloseTo(Math.exp(5) / (Math.exp(2) + Math.exp(5) + Math.exp(1) + Math.exp(4.5)), 5);
  });
});

describe("generation from the decoder", () => {
  let model: GPT;
  beforeAll(async () => {
    await useBackend("cpu");
    model = tinyDecoder(5);
  });
  afterAll(() => model.dispose());

  it("is deterministic when greedy, seed-determined when sampling, and leaks no tensors", () => {
    const a = decoderAdapter(model);
    const prompt = [0, 118, 106, 103]; // BOS "the"
    const greedy = () => generate(a, prompt, { maxTokens: 12, decoding: { kind: "greedy" } }).tokens;
    expect(greedy()).toEqual(greedy());
    const sample = (seed: number) =>
      generate(a, prompt, { maxTokens: 20, decoding: { kind: "sample", temperature: 1.5, rng: Rng.fromSeed(seed) } }).tokens;
    expect(sample(7)).toEqual(sample(7));
    expect(sample(7)).not.toEqual(sample(8));
    expect(
      leakedBy(() => {
        greedy();
        greedyMargin(a, prompt);
      }),
    ).toBe(0);
  });
});
