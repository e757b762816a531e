// The worker pool on onnxruntime kernels: without dropout every worker (the calling thread included) computes its
// microbatches' gradients through the training graph, and an update with 1, 2 and 3 workers equals the single-thread
// update bit for bit; with dropout, tfjs autograd on native products does, with the same identity. No leaks; a
// non-finite gradient from the graph is refused by the same NonFiniteError, nothing updated. Updates and scoring
// calls in turn score as one thread does.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trainingBatches } from "../../src/data/batches.ts";
import { overfitDocuments, overfitTokenizer } from "../../src/data/fixtures.ts";
import { PRESETS, resolveModelConfig, type ModelConfig } from "../../src/model/config.ts";
import { graphGradientRuns } from "../../src/model/graph_training.ts";
import { EpochSource } from "../../src/data/epoch_source.ts";
import type { WorkerPool } from "../../src/train/pool.ts";
import { NonFiniteError } from "../../src/train/non_finite.ts";
import { decoderAdapter } from "../../src/eval/passes/adapter.ts";
import { trainOptions } from "../../src/lab/config.ts";
import { Run, type RunSpec } from "../../src/lab/run.ts";
import { snapshotDifferences } from "../../src/lab/resume_check.ts";
import { initBackend, tf } from "../../src/util/backend.ts";
import { openKernels } from "../../src/node/native_kernels.ts";
import type { Engine } from "../../src/util/engine.ts";
import { startPool } from "../../src/node/pool.ts";
import { loadGraphBuilders } from "../../src/model/graph_builders.ts";

/** The onnxruntime engine every run and pool below computes on (each pool's workers open the same). */
let engine: Engine;
beforeAll(async () => {
  await initBackend("wasm");
  await loadGraphBuilders(); // openEngine's part, for the engine openKernels opens here
  engine = openKernels("onnxruntime");
});
const pools: WorkerPool[] = [];
afterAll(() => {
  pools.forEach((p) => p.close());
  openKernels("tfjs");
});

const tokenizer = overfitTokenizer();
const train = overfitDocuments(tokenizer).filter((d) => d.split === "train");

/** Three one-document microbatches per update, shuffled every epoch (as tests/node/pool.test.ts). */
function spec(config: ModelConfig, on: Engine = engine): RunSpec {
  const mbs = trainingBatches(train, { vocabSize: config.vocabSize, contextLength: config.contextLength }, "separate");
  return {
    config,
    tokenizer: tokenizer.toJSON(),
    options: trainOptions({ seed: 5, lr: 0.02, shuffle: true, microbatchesPerUpdate: 3, data: "overfit-fixture" }),
    data: (batches) => new EpochSource(mbs, 3, batches),
    engine: on,
  };
}

describe.each([
  ["no dropout: the training graph", resolveModelConfig({}, PRESETS.overfit), true],
  ["dropout 0.1: tfjs autograd on native products", resolveModelConfig({ dropout: 0.1 }, PRESETS.overfit), false],
])("updates on onnxruntime kernels, %s", (_what, config, graph) => {
  it("1, 2 and 3 workers give the single-thread weights, moments and streams bit for bit after 4 updates, without leaks", () => {
    const runs0 = graphGradientRuns();
    const reference = Run.create(spec(config));
    reference.train({ updates: 4 });
    const want = reference.snapshot();
    reference.dispose();
    expect(graphGradientRuns() - runs0).toBe(graph ? 12 : 0); // 4 updates × 3 microbatches on this thread
    for (const n of [1, 2, 3]) {
      const pool = startPool(n, config, engine);
      pools.push(pool);
      const run = Run.create(spec(config), undefined, pool);
      try {
        const tensors = tf.memory().numTensors;
        run.train({ updates: 4 });
        expect(tf.memory().numTensors).toBe(tensors);
        expect(pool.memory().every((m) => m.numTensors === pool.memory()[0].numTensors)).toBe(true);
        // a worker makes its tfjs model only for work on tfjs: on the graph path it holds no tensors at all
        expect(pool.memory().map((m) => m.numTensors > 0)).toEqual(pool.memory().map(() => !graph));
        expect(snapshotDifferences(want, run.snapshot()), `${n} workers`).toEqual([]);
      } finally {
        run.dispose();
      }
    }
  }, 120_000);

  it("updates and scores in turn on 2 and 3 workers as on one thread, bit for bit (each job reads the weights of its call)", () => {
    const batches = trainingBatches(train, { vocabSize: config.vocabSize, contextLength: config.contextLength }, "separate");
    const alternate = (pool?: WorkerPool) => {
      const run = Run.create(spec(config), undefined, pool);
      const adapter = decoderAdapter(run.model, { pool });
      const score = () => adapter.positionNlls?.(batches) ?? batches.map((b) => adapter.positionNll(b));
      try {
        const turns = [0, 1, 2].map(() => {
          run.update();
          return score();
        });
        // unchanged weights (the workers keep their copies), then weights assigned with no pool call between
        const again = score();
        run.model.assign(new Map([...run.model.read()].map(([n, w]) => [n, w.map((x) => x * 0.5)])));
        return [...turns, again, score()];
      } finally {
        run.dispose();
      }
    };
    const want = alternate();
    expect(want[3]).toEqual(want[2]);
    expect(want[4]).not.toEqual(want[3]);
    for (const n of [2, 3]) {
      const pool = startPool(n, config, engine);
      pools.push(pool);
      expect(alternate(pool), `${n} workers`).toEqual(want);
    }
  }, 120_000);
});

describe("the training graph's gradients in an update", () => {
  const config = resolveModelConfig({}, PRESETS.overfit);

  it("differ from tfjs autograd's in float32 rounding only: an update's loss and gradient norm within 1e-5 relative", () => {
    // one update: AdamW's first step moves a weight by ~lr·sign(gradient), so a near-zero gradient rounded to the
    // other sign would move later weights far more than rounding does; the step's loss and norm do not depend on it
    const onGraph = Run.create(spec(config));
    const a = onGraph.update();
    const onTfjs = Run.create(spec(config, openKernels("tfjs")));
    try {
      const b = onTfjs.update();
      expect(a.targets).toBe(b.targets);
      expect([a.loss, a.gradNorm]).not.toEqual([b.loss, b.gradNorm]); // two engines: rounding shows
      expect(Math.abs(a.loss - b.loss)).toBeLessThanOrEqual(1e-5 * b.loss);
      expect(Math.abs(a.gradNorm - b.gradNorm)).toBeLessThanOrEqual(1e-5 * b.gradNorm);
    } finally {
      openKernels("onnxruntime");
      onGraph.dispose();
      onTfjs.dispose();
    }
  });

  it("a NaN weight gives the same NonFiniteError, nothing updated", () => {
    const run = Run.create(spec(config));
    try {
      const weights = run.model.read();
      weights.get("wte")![0] = NaN;
      run.model.assign(weights);
      const before = run.snapshot();
      expect(() => run.update()).toThrow(NonFiniteError);
      expect(snapshotDifferences(before, run.snapshot()).filter((d) => !d.startsWith("rng"))).toEqual([]);
    } finally {
      run.dispose();
    }
  });
});
