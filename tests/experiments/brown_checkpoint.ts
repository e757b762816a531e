// Checks on a trained Brown checkpoint loaded from disk: causality, same-seed sampling, and one confident
// prediction asserted only when its greedy margin clears a stated threshold. Shared by the slice test and
// the test of the default run's checkpoint; not a test file itself.
import { expect } from "vitest";
import { readTensor } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { loadModel } from "../helpers.ts";
import { decoderAdapter } from "../../src/eval/passes/adapter.ts";
import { generate, greedyMargin } from "../../src/eval/passes/generate.ts";
import { toModelInput } from "../../src/model/input.ts";

/**
 * The confident prediction: after "of the United" the next token should be " States" (its first token).
 * Asserted only when the model's greedy margin exceeds 1.0 logits (p(top) ≥ e ≈ 2.7× the runner-up): below
 * that the model has no firm opinion and a wrong top token would say nothing about a bug.
 */
export const CONFIDENT_PROMPT = "of the United";
export const CONFIDENT_NEXT = " States";
export const MARGIN_THRESHOLD = 1.0;

/** Unchanged logits agree to float32 rounding of a reordered reduction. */
const CAUSAL_ATOL = 1e-5;

/** Causality and same-seed sampling on the loaded weights; returns the margin-gated prediction's outcome. */
export function checkLoadedCheckpoint(path: string): { margin: number; asserted: boolean; top: string } {
  const { model, tokenizer } = loadModel(path);
  try {
    const T = model.config.contextLength;
    // causality on the loaded weights: change tokens from position t + 1 on
    const text = "The jury said it did find that many of the voters had not been told where to go on the day of the election.";
    const ids = [tokenizer.bos, ...tokenizer.encode(text)].slice(0, T);
    const t = Math.floor(ids.length / 2);
    const changed = ids.map((id, i) => (i > t ? ((id + 7) % (model.config.vocabSize - 2)) + 2 : id));
    const V = model.config.vocabSize;
    const a = readTensor(() => model.forward(toModelInput([ids], undefined, model.config)));
    const b = readTensor(() => model.forward(toModelInput([changed], undefined, model.config)));
    let before = 0,
      after = 0;
    for (let i = 0; i < a.length; i++) {
      const d = Math.abs(a[i] - b[i]);
      if (i < (t + 1) * V) before = Math.max(before, d);
      else after = Math.max(after, d);
    }
    expect(before).toBeLessThanOrEqual(CAUSAL_ATOL);
    expect(after).toBeGreaterThan(1e-3);

    // seeded sampling: the same seed gives the same tokens, another seed different ones
    const adapter = decoderAdapter(model);
    const prompt = [tokenizer.bos, ...tokenizer.encode("The")];
    const sample = (seed: number) =>
      generate(adapter, prompt, { maxTokens: 24, decoding: { kind: "sample", temperature: 1, rng: Rng.fromSeed(seed) } }).tokens;
    expect(sample(7)).toEqual(sample(7));
    expect(sample(8)).not.toEqual(sample(7));

    // the margin-gated confident prediction
    const m = greedyMargin(adapter, [tokenizer.bos, ...tokenizer.encode(CONFIDENT_PROMPT)]);
    const top = tokenizer.decode([m.token]);
    const asserted = m.margin > MARGIN_THRESHOLD;
    if (asserted) expect(CONFIDENT_NEXT.startsWith(top)).toBe(true);
    return { margin: m.margin, asserted, top };
  } finally {
    model.dispose();
  }
}
