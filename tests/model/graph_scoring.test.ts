// Scoring through the whole ONNX graph (src/model/graph_scoring.ts on onnxruntime kernels) against tfjs's forward:
// within 1e-5 nats per target on windows and packed rows, the same targets, one session per weights, bit-identical
// for 1, 2 and 3 workers, and tfjs's own numbers where the kernels are tfjs. onnxruntime-node is a dependency:
// without it these tests fail, never skip.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packedBatches } from "../../src/data/batches.ts";
import type { Document } from "../../src/data/documents.ts";
import { decoderAdapter } from "../../src/eval/passes/adapter.ts";
import { evaluateWindows } from "../../src/eval/passes/windowed.ts";
import { windowBatches } from "../../src/eval/passes/windows.ts";
import { decodeModelParts } from "../../src/lab/model_file.ts";
import { resolveModelConfig, type ModelConfig } from "../../src/model/config.ts";
import { GPT } from "../../src/model/gpt.ts";
import { graphBuilds, SCORING_RUN_POSITIONS, scoreBatch } from "../../src/model/graph_scoring.ts";
import type { ParamArrays } from "../../src/model/init.ts";
import type { ScoredBatch } from "../../src/model/input.ts";
import { positionNll } from "../../src/model/loss.ts";
import { initBackend, readTensor, tf } from "../../src/util/backend.ts";
import type { Engine } from "../../src/util/engine.ts";
import { openKernels } from "../../src/node/native_kernels.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { startPool } from "../../src/node/pool.ts";
import { randomWeights } from "../helpers.ts";
import { loadGraphBuilders } from "../../src/model/graph_builders.ts";

/** The bound on onnxruntime against tfjs scores: float32 rounding only (different summation orders), per target. */
const NLL_ATOL = 1e-5;

const FIXTURE = resolve(import.meta.dirname, "../fixtures/seed39-format2.safetensors");
const seed39 = () => decodeModelParts(new Uint8Array(readFileSync(FIXTURE)), FIXTURE);
const bpeShape = resolveModelConfig({ vocabSize: 300, contextLength: 48, nLayers: 2, dModel: 32, nHeads: 4, dFF: 64, tiedHead: false });

/** Documents longer than the context, so windows at a stride below it carry unscored context. */
function documents(config: ModelConfig, rng: Rng, lengths: number[]): Document[] {
  return lengths.map((n, i) => ({
    id: `d${i}`,
    split: "validation" as const,
    source: "test",
    ids: Array.from({ length: n }, () => rng.int(config.vocabSize)),
  }));
}

/** `lengths` for windows (longer than the context), `short` for packed rows (several documents to a row). */
const cases: { name: string; config: ModelConfig; weights: ParamArrays; lengths: number[]; short: number[]; stride: number }[] = [
  {
    name: "seed-39 overfit",
    ...(({ config, weights }) => ({ config, weights }))(seed39()),
    lengths: [5, 9, 20, 3, 14],
    short: [3, 4, 2, 5, 3, 2],
    stride: 3,
  },
  {
    name: "2-layer BPE shape, context 48",
    config: bpeShape,
    weights: randomWeights(bpeShape, Rng.fromSeed(23)),
    lengths: [130, 49, 7, 100, 61],
    short: [10, 20, 15, 30, 12, 8],
    stride: 16,
  },
];

/** Largest |a − b| over the scored (mask 1) positions of the batches. */
function scoredDiff(batches: readonly ScoredBatch[], a: Float64Array[], b: Float64Array[]): number {
  let worst = 0;
  batches.forEach((batch, k) =>
    batch.mask.forEach((m, i) => {
      if (m) worst = Math.max(worst, Math.abs(a[k][i] - b[k][i]));
    }),
  );
  return worst;
}

/** `f` with a model of these weights on tfjs's engine, then on onnxruntime's (the graph path). */
function onBoth<T>(config: ModelConfig, weights: ParamArrays, f: (model: GPT) => T): { tfjs: T; graph: T } {
  const on = (engine: Engine) => {
    const model = new GPT(config, weights, engine);
    try {
      return f(model);
    } finally {
      model.dispose();
    }
  };
  try {
    return { tfjs: on(openKernels("tfjs")), graph: on(openKernels("onnxruntime")) };
  } finally {
    openKernels("tfjs");
  }
}

/** A model on onnxruntime's engine (the caller disposes it and opens tfjs's again). */
const onGraph = (config: ModelConfig, weights: ParamArrays) => new GPT(config, weights, openKernels("onnxruntime"));

beforeAll(async () => {
  await initBackend("wasm");
  await loadGraphBuilders(); // openEngine's part, for the engines openKernels opens here
});
afterAll(() => openKernels("tfjs"));

describe.each(cases)("graph scoring of the $name model", ({ config, weights, lengths, short, stride }) => {
  const docs = documents(config, Rng.fromSeed(`docs ${config.nLayers}`), lengths);
  const binding = { vocabSize: config.vocabSize, contextLength: config.contextLength };

  it("agrees with tfjs within 1e-5 nats per target on windows and on packed rows, without leaks", () => {
    const model = new GPT(config, weights);
    const windows = windowBatches(docs, binding, stride, 4).batches;
    const packed = packedBatches(documents(config, Rng.fromSeed("short"), short), binding, 2);
    expect(packed.some((b) => new Set(b.input.docIds).size > 2)).toBe(true); // rows holding several documents
    for (const batches of [windows, packed]) {
      const before = tf.memory().numTensors;
      const r = onBoth(config, weights, (m) => batches.map((b) => scoreBatch(m, b)));
      expect(tf.memory().numTensors).toBe(before);
      const direct = batches.map((b) => Float64Array.from(readTensor(() => positionNll(model.forward(b.input), b.targets))));
      expect(r.tfjs).toEqual(direct); // tfjs kernels: exactly the tfjs forward
      const d = scoredDiff(batches, r.tfjs, r.graph);
      expect(d).toBeGreaterThan(0); // two engines: float32 rounding shows, so the bound below is not vacuous
      expect(d).toBeLessThanOrEqual(NLL_ATOL);
    }
    model.dispose();
  });

  it("gives evaluateWindows the same targets and windows, and totals within 1e-5 per target", () => {
    const r = onBoth(config, weights, (m) => evaluateWindows(decoderAdapter(m), docs, stride, { rowsPerBatch: 4 }));
    expect(r.graph.metrics.targets).toBe(r.tfjs.metrics.targets);
    expect(r.graph.windows.map((w) => [w.doc, w.start, w.scored])).toEqual(r.tfjs.windows.map((w) => [w.doc, w.start, w.scored]));
    expect(Math.abs(r.graph.metrics.totalNll - r.tfjs.metrics.totalNll)).toBeLessThanOrEqual(NLL_ATOL * r.tfjs.metrics.targets);
  });
});

describe("graph sessions", () => {
  it("are built once per config: the weights are fed with every batch, so an assign needs no rebuild", () => {
    const [{ config, weights }] = cases;
    const model = onGraph(config, weights);
    const [batch] = packedBatches(
      documents(config, Rng.fromSeed("s"), [6, 8]),
      { vocabSize: config.vocabSize, contextLength: config.contextLength },
      2,
    );
    try {
      const b0 = graphBuilds();
      const first = scoreBatch(model, batch);
      expect(scoreBatch(model, batch)).toEqual(first);
      const built = graphBuilds() - b0;
      expect(built).toBeLessThanOrEqual(1); // 0 when an earlier test built this config's session
      const moved = new Map([...weights].map(([n, w]) => [n, w.map((v) => v * 0.5)]));
      model.assign(moved);
      const second = scoreBatch(model, batch);
      expect(second).not.toEqual(first);
      const other = new GPT(config, moved, model.engine);
      expect(scoreBatch(other, batch)).toEqual(second); // the fed weights, not the first ones, are scored
      other.dispose();
      model.assign(weights);
      expect(scoreBatch(model, batch)).toEqual(first);
      expect(graphBuilds() - b0).toBe(built);
    } finally {
      openKernels("tfjs");
      model.dispose();
    }
  });

  it("score at weights fed apart from the model's exactly as a model holding them, and refuse them on tfjs", () => {
    const [{ config, weights }] = cases;
    const model = onGraph(config, weights);
    const moved = new Map([...weights].map(([n, w]) => [n, w.map((v) => v * 0.5)]));
    const other = new GPT(config, moved, model.engine);
    const onTfjs = new GPT(config, weights, openKernels("tfjs"));
    const [batch] = packedBatches(
      documents(config, Rng.fromSeed("fed"), [6, 8]),
      { vocabSize: config.vocabSize, contextLength: config.contextLength },
      2,
    );
    try {
      const fed = scoreBatch(model, batch, moved);
      expect(fed).toEqual(scoreBatch(other, batch));
      expect(fed).not.toEqual(scoreBatch(model, batch)); // the fed weights, not the model's
      const [name, w] = [...moved][0];
      expect(() => scoreBatch(model, batch, new Map([...moved, [name, w.subarray(1)]]))).toThrow(
        `weights for parameter "${name}": ${w.length - 1} values, ${w.length} expected`,
      );
      expect(() => scoreBatch(onTfjs, batch, moved)).toThrow("need the onnxruntime graph");
    } finally {
      openKernels("tfjs");
      model.dispose();
      other.dispose();
      onTfjs.dispose();
    }
  });

  it("score a batch in runs of any number of rows to the same bits (rows are scored apart)", () => {
    const config = bpeShape;
    const model = onGraph(config, weights2());
    const docs = documents(config, Rng.fromSeed("runs"), [120, 90, 70, 49, 130, 33]);
    const [batch] = windowBatches(docs, { vocabSize: config.vocabSize, contextLength: config.contextLength }, 16, 7).batches;
    try {
      expect(batch.input.rows).toBe(7);
      const whole = scoreBatch(model, batch, undefined, Infinity);
      for (const rows of [1, 2, 3])
        expect(scoreBatch(model, batch, undefined, rows * config.contextLength), `${rows} rows a run`).toEqual(whole);
      expect(SCORING_RUN_POSITIONS).toBeGreaterThanOrEqual(config.contextLength);
    } finally {
      openKernels("tfjs");
      model.dispose();
    }
  });

  it("are an onnxruntime engine's only", () => {
    expect(openKernels("onnxruntime").graphs).toBeDefined();
    expect(openKernels("tfjs").graphs).toBeUndefined();
  });

  it("score bit-identically on 1, 2 and 3 workers", () => {
    const config = bpeShape;
    const model = onGraph(config, weights2());
    const docs = documents(config, Rng.fromSeed("pool docs"), [120, 90, 70, 49, 130, 33]);
    const batches = windowBatches(docs, { vocabSize: config.vocabSize, contextLength: config.contextLength }, 16, 2).batches;
    try {
      const single = batches.map((b) => scoreBatch(model, b));
      for (const n of [1, 2, 3]) {
        const pool = startPool(n, config, model.engine);
        try {
          const b0 = graphBuilds();
          const got = decoderAdapter(model, { pool }).positionNlls?.(batches) ?? batches.map((b) => decoderAdapter(model).positionNll(b));
          expect(got, `${n} workers`).toEqual(single);
          expect(graphBuilds() - b0, "the calling thread reuses its session").toBe(0);
        } finally {
          pool.close();
        }
      }
    } finally {
      openKernels("tfjs");
      model.dispose();
    }
  }, 120_000);
});

function weights2(): ParamArrays {
  return randomWeights(bpeShape, Rng.fromSeed(29));
}
