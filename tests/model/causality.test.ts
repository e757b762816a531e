// Causality and document isolation: later tokens and other documents never reach a position's logits.
import { describe, expect, it, beforeAll } from "vitest";
import { readTensor } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { PRESETS } from "../../src/model/config.ts";
import { GPT } from "../../src/model/gpt.ts";
import { gradcheckParameters } from "../../src/model/gradcheck.ts";
import { toModelInput } from "../../src/model/input.ts";
import { TEST_BACKENDS, maxAbsDiff, useBackend } from "../helpers.ts";

/** Unchanged logits are bit-for-bit in practice; 1e-6 allows a backend to reorder a reduction. */
const CAUSAL_ATOL = 1e-6;

describe.each(TEST_BACKENDS)("causality on %s", (backend) => {
  beforeAll(() => useBackend(backend));
  const config = PRESETS.overfit;
  const V = config.vocabSize;
  const logits = (model: GPT, ids: number[][], docs?: number[][]) => readTensor(() => model.forward(toModelInput(ids, docs, config)));

  it("changing tokens after position t leaves logits at ≤ t unchanged and changes later ones", () => {
    const model = new GPT(config, gradcheckParameters(config, Rng.fromSeed(5)));
    const base = [0, 99, 100, 99, 99, 100, 1, 99];
    for (const t of [0, 3, 6]) {
      const changed = base.map((id, i) => (i > t ? (id === 99 ? 100 : 99) : id));
      const a = logits(model, [base]),
        b = logits(model, [changed]);
      expect(maxAbsDiff(a.subarray(0, (t + 1) * V), b.subarray(0, (t + 1) * V))).toBeLessThanOrEqual(CAUSAL_ATOL);
      expect(maxAbsDiff(a.subarray((t + 1) * V), b.subarray((t + 1) * V))).toBeGreaterThan(1e-3);
    }
    model.dispose();
  });

  it("in a packed row, changing the second document leaves the first one's logits unchanged", () => {
    const model = new GPT(config, gradcheckParameters(config, Rng.fromSeed(6)));
    const docs = [[0, 0, 0, 0, 1, 1, 1, 1]];
    const a = logits(model, [[0, 99, 99, 100, 0, 100, 99, 1]], docs);
    const b = logits(model, [[0, 99, 99, 100, 0, 99, 100, 100]], docs);
    expect(maxAbsDiff(a.subarray(0, 4 * V), b.subarray(0, 4 * V))).toBeLessThanOrEqual(CAUSAL_ATOL);
    expect(maxAbsDiff(a.subarray(5 * V), b.subarray(5 * V))).toBeGreaterThan(1e-3);
    // and the second document, placed alone at the start of a row, gets the same logits (positions restart)
    const alone = logits(model, [[0, 100, 99, 1]]);
    expect(maxAbsDiff(alone, a.subarray(4 * V))).toBeLessThanOrEqual(CAUSAL_ATOL);
    model.dispose();
  });
});
