// The matrix products on onnxruntime-node (src/node/native_kernels.ts): each transposition against tfjs's own
// product, the float64 reference and the gradient check with every product native, native and wasm scores within
// 1e-5 nats per target, the pool bit-identical for 1, 2 and 3 workers on native kernels, and the choice refused by
// name where it cannot be met. onnxruntime-node is a dependency: without it these tests fail, never skip.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend, readTensor, tf } from "../../src/util/backend.ts";
import { nativeCalls, nativeShapes, NATIVE_MIN_MACS, openKernels } from "../../src/node/native_kernels.ts";
import { batchMatMul } from "../../src/util/wasm_matmul.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { PRESETS, resolveModelConfig, type ModelConfig } from "../../src/model/config.ts";
import { GPT } from "../../src/model/gpt.ts";
import { gradcheck, gradcheckParameters } from "../../src/model/gradcheck.ts";
import { initParameters } from "../../src/model/init.ts";
import { toModelInput } from "../../src/model/input.ts";
import { positionNll } from "../../src/model/loss.ts";
import { referenceLogits, toParams64 } from "../../src/model/reference.ts";
import { packedBatches, trainingBatches } from "../../src/data/batches.ts";
import { overfitDocuments, overfitTokenizer } from "../../src/data/fixtures.ts";
import { EpochSource } from "../../src/data/epoch_source.ts";
import type { WorkerPool } from "../../src/train/pool.ts";
import { trainOptions } from "../../src/lab/config.ts";
import { Run } from "../../src/lab/run.ts";
import { snapshotDifferences } from "../../src/lab/resume_check.ts";
import { runGradcheck } from "../../experiments/gradcheck.ts";
import { startPool } from "../../src/node/pool.ts";
import { leakedBy, maxAbsDiff, randomArray, referenceCases } from "../helpers.ts";
import { loadGraphBuilders } from "../../src/model/graph_builders.ts";

/** As tests/model/reference.test.ts: float32 logits of O(1) size agree with float64 to ~1e-6; 1e-5 leaves room. */
const LOGIT_ATOL = 1e-5;
/** The bound on native against wasm scores: float32 rounding only, per target. */
const NLL_ATOL = 1e-5;

beforeAll(async () => {
  await initBackend("wasm");
  await loadGraphBuilders(); // openEngine's part, for the engines openKernels opens here
});
afterAll(() => openKernels("tfjs"));

/**
 * `f` on tfjs's kernels and on onnxruntime's with every product native (`smallest` 0), and the native call count.
 * Whole graphs off (models `f` builds are on no engine of their own: tfjs autograd on this thread's products), the
 * path a model with dropout trains on (the training graph's own checks are tests/model/graph_training.test.ts and
 * tests/node/pool_graph.test.ts).
 */
function both<T>(f: () => T): { tfjs: T; native: T; calls: number } {
  openKernels("tfjs");
  const tfjs = f();
  openKernels("onnxruntime", 0);
  const before = nativeCalls();
  const native = f();
  const calls = nativeCalls() - before;
  openKernels("tfjs");
  return { tfjs, native, calls };
}

describe("native products", () => {
  it("equal tfjs's on integers (exact in float32) for every transposition, rank 2 to 4, without leaks", () => {
    const rng = Rng.fromSeed("native products");
    const ints = (shape: number[]) =>
      tf.tensor(
        Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.int(7) - 3),
        shape,
      );
    for (const [lead, M, K, N] of [
      [[], 5, 7, 3],
      [[4], 9, 8, 6],
      [[2, 3], 4, 5, 6],
    ] as [number[], number, number, number][]) {
      for (const [ta, tb] of [
        [false, false],
        [true, false],
        [false, true],
        [true, true],
      ]) {
        const a = ints([...lead, ...(ta ? [K, M] : [M, K])]),
          b = ints([...lead, ...(tb ? [N, K] : [K, N])]);
        const r = both(() => {
          let out: Float32Array | undefined;
          expect(leakedBy(() => void (out = readTensor(() => tf.matMul(a, b, ta, tb))))).toBe(0);
          return out!;
        });
        expect(r.calls, `${lead} ${M}×${K}×${N} ${ta} ${tb}`).toBe(1);
        expect([...r.native]).toEqual([...r.tfjs]);
        tf.dispose([a, b]);
      }
    }
  });

  it("take the sliced batched kernel's products too, and agree with it in float32 rounding", () => {
    const rng = Rng.fromSeed("native sliced");
    const [a, b] = [tf.tensor(randomArray(rng, 4 * 16 * 8), [4, 16, 8]), tf.tensor(randomArray(rng, 4 * 8 * 16), [4, 8, 16])];
    const r = both(() => readTensor(() => batchMatMul(a, b)));
    expect(r.calls).toBe(1);
    expect(maxAbsDiff(r.native, r.tfjs)).toBeLessThan(1e-5);
    tf.dispose([a, b]);
  });

  it("leave small, broadcast and mismatched products to tfjs", () => {
    expect(nativeShapes([64, 64], [64, 64], false, false)).toEqual([64, 64]);
    expect(nativeShapes([8, 8], [8, 8], false, false)).toBeUndefined(); // 512 multiply-adds < NATIVE_MIN_MACS
    expect(NATIVE_MIN_MACS).toBeGreaterThan(512);
    expect(nativeShapes([1, 64, 64], [3, 64, 64], false, false, 0)).toBeUndefined(); // broadcast batch
    expect(nativeShapes([64, 64], [32, 64], false, false, 0)).toBeUndefined(); // inner sizes differ
    expect(nativeShapes([2, 64, 32], [2, 64, 32], true, false, 0)).toEqual([2, 32, 32]);
  });
});

describe("the model on native products", () => {
  it("matches the float64 reference within 1e-5 (packed, padded and a 2-layer untied model)", () => {
    for (const { config, params, input } of referenceCases()) {
      const model = new GPT(config, params);
      const r = both(() => readTensor(() => model.forward(input)));
      expect(r.calls).toBeGreaterThan(0);
      expect(maxAbsDiff(r.native, referenceLogits(config, toParams64(params), input))).toBeLessThan(LOGIT_ATOL);
      model.dispose();
    }
  });

  it.each(["overfit", "micro"] as const)("passes the gradient check for every coordinate of the %s config", (name) => {
    const r = both(() => runGradcheck(name));
    expect(r.calls).toBeGreaterThan(0);
    expect(r.native.tensors.filter((t) => !t.passed).map((t) => `${t.name}: ${JSON.stringify(t.worst)}`)).toEqual([]);
  });

  it("passes the gradient check on the attention path of larger products", () => {
    const config = resolveModelConfig({ vocabSize: 6, contextLength: 16, nLayers: 1, dModel: 16, nHeads: 1, dFF: 16 });
    const rng = Rng.fromSeed(13);
    const docs = [0, 1, 2].map((i) => ({
      id: `d${i}`,
      split: "train" as const,
      source: "test",
      ids: Array.from({ length: 17 }, () => rng.int(6)),
    }));
    const r = both(() =>
      gradcheck(config, gradcheckParameters(config, Rng.fromSeed(12)), packedBatches(docs, { vocabSize: 6, contextLength: 16 }, 2)),
    );
    expect(r.calls).toBeGreaterThan(0);
    expect(r.native.tensors.filter((t) => !t.passed).map((t) => t.name)).toEqual([]);
  });

  it("scores within 1e-5 nats per target of tfjs's kernels on the medium config", () => {
    const config = PRESETS.medium;
    const rng = Rng.fromSeed("native scores");
    const model = new GPT(config, initParameters(config, rng.child("params")));
    const rows = [0, 1].map(() => Array.from({ length: config.contextLength }, () => rng.int(config.vocabSize)));
    const input = toModelInput(
      rows,
      rows.map(() => Array(config.contextLength).fill(0)),
      config,
    );
    const targets = Int32Array.from({ length: 2 * config.contextLength }, () => rng.int(config.vocabSize));
    openKernels("tfjs");
    const tfjs = readTensor(() => positionNll(model.forward(input), targets));
    openKernels("onnxruntime"); // the default threshold: what a run uses
    const before = nativeCalls();
    const native = readTensor(() => positionNll(model.forward(input), targets));
    expect(nativeCalls() - before).toBeGreaterThan(0);
    openKernels("tfjs");
    expect(maxAbsDiff(native, tfjs)).toBeLessThanOrEqual(NLL_ATOL);
    model.dispose();
  });
});

describe("the pool on native products", () => {
  // a row's products (e.g. qkv: 8+ positions × 128 × 384) pass NATIVE_MIN_MACS: the default threshold sends them to onnxruntime;
  // dropout keeps every thread on tfjs's autograd with those products (without it they all run the training graph)
  const config: ModelConfig = resolveModelConfig({ contextLength: 32, dModel: 128, nHeads: 4, dFF: 512, dropout: 0.1 }, PRESETS.overfit);
  const tokenizer = overfitTokenizer();
  const train = overfitDocuments(tokenizer).filter((d) => d.split === "train");
  const spec = () => ({
    config,
    tokenizer: tokenizer.toJSON(),
    options: trainOptions({ seed: 5, lr: 0.02, shuffle: true, microbatchesPerUpdate: 3, data: "overfit-fixture" }),
    data: (batches: Rng) =>
      new EpochSource(trainingBatches(train, { vocabSize: config.vocabSize, contextLength: config.contextLength }, "separate"), 3, batches),
  });
  const pools: WorkerPool[] = [];
  afterAll(() => pools.forEach((p) => p.close()));

  it("1, 2 and 3 workers give the single-thread native weights bit for bit after 3 updates, and differ from tfjs's", () => {
    const onTfjs = Run.create({ ...spec(), engine: openKernels("tfjs") });
    onTfjs.train({ updates: 3 });
    const tfjsSnapshot = onTfjs.snapshot();
    onTfjs.dispose();
    const engine = openKernels("onnxruntime");
    try {
      expect(engine.kernels).toBe("onnxruntime");
      const before = nativeCalls();
      const reference = Run.create({ ...spec(), engine });
      reference.train({ updates: 3 });
      expect(nativeCalls() - before).toBeGreaterThan(0);
      const want = reference.snapshot();
      reference.dispose();
      expect(snapshotDifferences(tfjsSnapshot, want)).not.toEqual([]); // the engines differ in rounding, so the identity below can fail
      for (const n of [1, 2, 3]) {
        const pool = startPool(n, config, engine);
        pools.push(pool);
        const run = Run.create({ ...spec(), engine }, undefined, pool);
        try {
          run.train({ updates: 3 });
          expect(snapshotDifferences(want, run.snapshot()), `${n} workers`).toEqual([]);
        } finally {
          run.dispose();
        }
      }
    } finally {
      openKernels("tfjs");
    }
  }, 120_000);
});

describe("the kernels choice", () => {
  it("is recorded, refused by name off wasm, and auto falls back to tfjs there", async () => {
    expect(openKernels("onnxruntime")).toMatchObject({ backend: "wasm", kernels: "onnxruntime", onnxruntime: "1.30.0" });
    const tfjs = openKernels("tfjs");
    expect(tfjs.kernels).toBe("tfjs");
    expect(tfjs.onnxruntime).toBeUndefined();
    await initBackend("cpu");
    try {
      expect(() => openKernels("onnxruntime")).toThrow("--kernels onnxruntime runs under --backend wasm, and the backend is cpu");
      expect(openKernels("auto")).toEqual({ backend: "cpu", kernels: "tfjs" });
    } finally {
      await initBackend("wasm");
    }
    expect(openKernels("auto").kernels).toBe("onnxruntime");
    openKernels("tfjs");
  });
});
