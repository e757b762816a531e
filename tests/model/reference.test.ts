// tfjs logits against the float64 reference, and the gradient check (which must also be able to fail).
import { describe, expect, it, beforeAll, vi } from "vitest";
import { readTensor, tf } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { PRESETS, resolveModelConfig } from "../../src/model/config.ts";
import { GPT } from "../../src/model/gpt.ts";
import { gradcheck, gradcheckParameters } from "../../src/model/gradcheck.ts";
import { toModelInput } from "../../src/model/input.ts";
import { referenceLogits, toParams64 } from "../../src/model/reference.ts";
import { runGradcheck } from "../../experiments/gradcheck.ts";
import { packedBatches } from "../../src/data/batches.ts";
import { overfitDocuments } from "../../src/data/fixtures.ts";
import { SLICE_MIN_MACS, usesSlicedMatMul } from "../../src/util/wasm_matmul.ts";
import { TEST_BACKENDS, maxAbsDiff, referenceCases, useBackend } from "../helpers.ts";

/** The bound: float32 logits of O(1) size agree with float64 to ~1e-6; 1e-5 leaves room for accumulation. */
const LOGIT_ATOL = 1e-5;

describe.each(TEST_BACKENDS)("reference agreement on %s", (backend) => {
  beforeAll(() => useBackend(backend));

  it("logits match the float64 reference within 1e-5 (packed, padded and a 2-layer untied model)", () => {
    for (const { config, params, input } of referenceCases()) {
      const model = new GPT(config, params);
      const got = readTensor(() => model.forward(input));
      const want = referenceLogits(config, toParams64(params), input);
      expect(maxAbsDiff(got, want)).toBeLessThan(LOGIT_ATOL);
      model.dispose();
    }
  });

  it.each(["overfit", "micro"] as const)("gradient check passes for every coordinate of the %s config", (name) => {
    const report = runGradcheck(name);
    const bad = report.tensors.filter((t) => !t.passed).map((t) => `${t.name}: ${JSON.stringify(t.worst)}`);
    expect(bad).toEqual([]);
    expect(report.coordinates).toBe(name === "overfit" ? 2808 : 212);
  });

  // attention slices of 16×16×16 = SLICE_MIN_MACS: on wasm this config runs the sliced matmul kernel
  const sliced = resolveModelConfig({ vocabSize: 6, contextLength: 16, nLayers: 1, dModel: 16, nHeads: 1, dFF: 16 });

  it("the attention path of larger products (the sliced kernel on wasm) matches the reference and passes the gradient check", () => {
    const D = sliced.dModel / sliced.nHeads;
    expect(sliced.contextLength ** 2 * D).toBeGreaterThanOrEqual(SLICE_MIN_MACS);
    expect(usesSlicedMatMul()).toBe(backend === "wasm");
    const params = gradcheckParameters(sliced, Rng.fromSeed(12));
    const model = new GPT(sliced, params);
    const rng = Rng.fromSeed(13);
    const rows = [0, 1].map(() => Array.from({ length: 16 }, () => rng.int(6)));
    const input = toModelInput(rows, [Array(16).fill(0), [...Array(9).fill(0), ...Array(7).fill(1)]], sliced);
    expect(
      maxAbsDiff(
        readTensor(() => model.forward(input)),
        referenceLogits(sliced, toParams64(params), input),
      ),
    ).toBeLessThan(LOGIT_ATOL);
    model.dispose();
    const docs = [0, 1, 2].map((i) => ({
      id: `d${i}`,
      split: "train" as const,
      source: "test",
      ids: Array.from({ length: 17 }, () => rng.int(6)),
    }));
    const report = gradcheck(sliced, params, packedBatches(docs, { vocabSize: 6, contextLength: 16 }, 2));
    expect(report.tensors.filter((t) => !t.passed).map((t) => t.name)).toEqual([]);
  });

  it("gradient check fails when the analytic side computes a different function (logits scaled by 1.01)", () => {
    const config = PRESETS.micro;
    const original = GPT.prototype.forward;
    const spy = vi.spyOn(GPT.prototype, "forward").mockImplementation(function (this: GPT, input, mode) {
      return tf.mul(original.call(this, input, mode), 1.01) as tf.Tensor3D;
    });
    try {
      const docs = overfitDocuments()
        .filter((d) => d.split === "train")
        .map((d) => ({ ...d, ids: d.ids.map((i) => Math.min(i, 3)).slice(0, 5) }));
      const report = gradcheck(
        config,
        gradcheckParameters(config, Rng.fromSeed(3)),
        packedBatches(docs, { vocabSize: 4, contextLength: 4 }, 2),
      );
      expect(report.passed).toBe(false);
    } finally {
      spy.mockRestore();
    }
  });
});
