// Scoring's causal attention on tinylab's kernel (native/tinylab_ort.c through src/node/causal_attention.ts): at
// head sizes 32 and 64 it agrees with onnxruntime's Attention and with the float64 reference, keeps the future and
// the other documents of a packed row out of every score, gives the same bits on 1, 2 and 3 workers, and leaves
// other head sizes to onnxruntime bit for bit. The engine records and names it. Required in CI
// (TINYLAB_REQUIRE_NATIVE=1 from .ci/run, which has gcc and Node's headers); elsewhere, without the addon, skipped
// with the reason.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveModelConfig, type ModelConfig } from "../../src/model/config.ts";
import { GPT } from "../../src/model/gpt.ts";
import { scoreBatch } from "../../src/model/graph_scoring.ts";
import { initParameters } from "../../src/model/init.ts";
import type { ScoredBatch } from "../../src/model/input.ts";
import { referenceLogits, referenceNll, toParams64 } from "../../src/model/reference.ts";
import { loadGraphBuilders } from "../../src/model/graph_builders.ts";
import { causalAttention } from "../../src/node/causal_attention.ts";
import { openKernels } from "../../src/node/native_kernels.ts";
import { startPool } from "../../src/node/pool.ts";
import { decoderAdapter } from "../../src/eval/passes/adapter.ts";
import { initBackend, tf } from "../../src/util/backend.ts";
import { engineLabel, engineRecord, usesCausalAttention, type Engine } from "../../src/util/engine.ts";
import { Rng } from "../../src/util/primitives/rng.ts";

const REQUIRED = process.env.TINYLAB_REQUIRE_NATIVE === "1";
const unavailable = (() => {
  const c = causalAttention(1);
  return typeof c === "string" ? c : undefined;
})();
if (unavailable && !REQUIRED) console.warn(`skipping tinylab's causal attention tests: ${unavailable}`);

/** The engine with the addon, and the same engine without it (onnxruntime's Attention everywhere). */
let withKernel: Engine, without: Engine;
beforeAll(async () => {
  await initBackend("wasm");
  await loadGraphBuilders();
  withKernel = openKernels("onnxruntime");
  const { attention: _a, causalAttention: _c, ...rest } = withKernel;
  without = rest;
});
afterAll(() => {
  openKernels("tfjs");
});

const shape = (dModel: number, nHeads: number): ModelConfig =>
  resolveModelConfig({ vocabSize: 97, contextLength: 40, nLayers: 2, dModel, nHeads, dFF: 2 * dModel, dropout: 0 });

/** Rows of random tokens, the second and third rows packing documents of 13 and 27 and of 30, 9 and 1 positions. */
function packed(c: ModelConfig, seed: number): ScoredBatch {
  const rng = Rng.fromSeed(seed),
    rows = 3,
    cols = c.contextLength,
    n = rows * cols;
  const ids = Int32Array.from({ length: n }, () => rng.int(c.vocabSize));
  const docIds = Int32Array.from({ length: n }, (_, i) => {
    const [r, p] = [Math.floor(i / cols), i % cols];
    return 10 * r + (r === 1 ? +(p >= 13) : r === 2 ? +(p >= 30) + +(p >= 39) : 0);
  });
  const targets = Int32Array.from({ length: n }, () => rng.int(c.vocabSize));
  return { input: { rows, cols, ids, docIds }, targets, mask: new Float32Array(n).fill(1), targetCount: n };
}

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

describe.skipIf(unavailable !== undefined && !REQUIRED)("tinylab's causal attention", () => {
  it("is built and runs here", () => {
    expect(unavailable).toBeUndefined();
    expect(withKernel.attention).toBe("tinylab");
    expect(engineRecord(withKernel)).toMatchObject({ kernels: "onnxruntime", attention: "tinylab" });
  });

  it.each([
    [32, 2],
    [64, 2],
  ])("at head size %i agrees with onnxruntime's Attention and the float64 reference over packed documents", (d, heads) => {
    const c = shape(d * heads, heads);
    const model = new GPT(c, initParameters(c, Rng.fromSeed(d)), withKernel);
    const onnx = new GPT(c, initParameters(c, Rng.fromSeed(d)), without);
    try {
      expect(usesCausalAttention(withKernel, c)).toBe(true);
      const batch = packed(c, d);
      const before = tf.memory().numTensors;
      const nll = scoreBatch(model, batch);
      expect(tf.memory().numTensors).toBe(before);
      const theirs = scoreBatch(onnx, batch);
      expect(nll).not.toEqual(theirs); // another kernel: other last bits
      expect(maxDiff(nll, theirs)).toBeLessThan(1e-5);
      const exact = referenceNll(referenceLogits(c, toParams64(model.read()), batch.input), batch.targets, c.vocabSize);
      expect(maxDiff(nll, exact)).toBeLessThan(1e-5);
    } finally {
      model.dispose();
      onnx.dispose();
    }
  });

  it("keeps later positions and the row's other documents out of every score", () => {
    const c = shape(64, 2);
    const model = new GPT(c, initParameters(c, Rng.fromSeed(7)), withKernel);
    try {
      const batch = packed(c, 7);
      const base = scoreBatch(model, batch);
      // row 1, position 20 (its second document): earlier positions of the row and its first document cannot change
      const ids = batch.input.ids.slice();
      ids[c.contextLength + 20] = (ids[c.contextLength + 20] + 1) % c.vocabSize;
      const moved = scoreBatch(model, { ...batch, input: { ...batch.input, ids } });
      const at = (xs: Float64Array, from: number, to: number) => Array.from(xs.subarray(from, to));
      expect(at(moved, c.contextLength, c.contextLength + 20)).toEqual(at(base, c.contextLength, c.contextLength + 20));
      expect(at(moved, 0, c.contextLength)).toEqual(at(base, 0, c.contextLength));
      expect(at(moved, c.contextLength + 20, c.contextLength + 21)).not.toEqual(at(base, c.contextLength + 20, c.contextLength + 21));
    } finally {
      model.dispose();
    }
  });

  it("leaves other head sizes to onnxruntime's Attention, bit for bit", () => {
    const c = shape(32, 2); // heads of 16
    expect(usesCausalAttention(withKernel, c)).toBe(false);
    const model = new GPT(c, initParameters(c, Rng.fromSeed(3)), withKernel);
    const onnx = new GPT(c, initParameters(c, Rng.fromSeed(3)), without);
    try {
      const batch = packed(c, 3);
      expect(scoreBatch(model, batch)).toEqual(scoreBatch(onnx, batch));
    } finally {
      model.dispose();
      onnx.dispose();
    }
  });

  it("scores on 1, 2 and 3 workers bit for bit", () => {
    const c = shape(64, 2);
    const batches = [11, 12, 13, 14].map((seed) => packed(c, seed));
    const score = (workers: number) => {
      const model = new GPT(c, initParameters(c, Rng.fromSeed(11)), withKernel);
      const pool = workers > 1 ? startPool(workers, c, withKernel) : undefined;
      try {
        const adapter = decoderAdapter(model, { pool });
        return adapter.positionNlls?.(batches) ?? batches.map((b) => adapter.positionNll(b));
      } finally {
        pool?.close();
        model.dispose();
      }
    };
    const one = score(1);
    expect(score(2)).toEqual(one);
    expect(score(3)).toEqual(one);
  }, 60_000);

  it("is named where output names the engine, for the models that use it", () => {
    const record = engineRecord(withKernel);
    expect(engineLabel(record, shape(64, 2))).toContain("scoring's attention on tinylab's causal kernel");
    expect(engineLabel(record, shape(32, 2))).not.toContain("tinylab's causal kernel");
    expect(engineLabel(record)).toContain("scoring's attention on tinylab's causal kernel (head sizes 32 and 64)");
  });
});
