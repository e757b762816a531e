// The worker pool: an update with 1, 2 and 3 workers equals the single-thread update bit for bit (weights,
// AdamW moments, streams; with and without dropout), scores are the same in batch order, workers do not grow
// over 500 updates, and a worker's error closes the pool and reaches the caller with its message.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend, tf, tfjsOnly } from "../../src/util/backend.ts";
import { paddedBatches, trainingBatches } from "../../src/data/batches.ts";
import { overfitDocuments, overfitTokenizer } from "../../src/data/fixtures.ts";
import { PRESETS, resolveModelConfig, type ModelConfig } from "../../src/model/config.ts";
import { EpochSource } from "../../src/data/epoch_source.ts";
import { NonFiniteError } from "../../src/train/non_finite.ts";
import type { WorkerPool } from "../../src/train/pool.ts";
import { trainOptions } from "../../src/lab/config.ts";
import { Run, type RunSpec } from "../../src/lab/run.ts";
import { decoderAdapter } from "../../src/eval/passes/adapter.ts";
import { evaluateLikelihood } from "../../src/eval/passes/likelihood.ts";
import { snapshotDifferences } from "../../src/lab/resume_check.ts";
import { startPool } from "../../src/node/pool.ts";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

beforeAll(() => initBackend("wasm"));

const tokenizer = overfitTokenizer();
const docs = overfitDocuments(tokenizer);
const train = docs.filter((d) => d.split === "train");

/** Three one-document microbatches per update (≥ 3, so three workers each get one), shuffled every epoch. */
function spec(config: ModelConfig, perUpdate = 3): RunSpec {
  const binding = { vocabSize: config.vocabSize, contextLength: config.contextLength };
  // one row per train document; an update of 3 straddles epochs (EpochSource), so it holds 3 microbatches
  const mbs = trainingBatches(train, binding, "separate");
  return {
    config,
    tokenizer: tokenizer.toJSON(),
    options: trainOptions({ seed: 5, lr: 0.02, shuffle: true, microbatchesPerUpdate: perUpdate, data: "overfit-fixture" }),
    data: (batches) => new EpochSource(mbs, perUpdate, batches),
  };
}

// starting a replica costs about a second (tsx, tfjs, wasm), so tests share one pool per size and config
const pools = new Map<string, WorkerPool>();
const pool = (n: number, config: ModelConfig, fresh = false): WorkerPool => {
  const key = `${n} ${JSON.stringify(config)}`;
  if (fresh || !pools.has(key)) pools.set(fresh ? `${key} ${pools.size}` : key, startPool(n, config, tfjsOnly()));
  return fresh ? [...pools.values()].at(-1)! : pools.get(key)!;
};
afterAll(() => pools.forEach((p) => p.close()));

describe.each([
  ["no dropout", resolveModelConfig({}, PRESETS.overfit)],
  ["dropout 0.1", resolveModelConfig({ dropout: 0.1 }, PRESETS.overfit)],
])("updates on the pool, %s", (_what, config) => {
  it("1, 2 and 3 workers give today's single-thread weights, moments and streams bit for bit after 4 updates", () => {
    const reference = Run.create(spec(config));
    reference.train({ updates: 4 });
    const want = reference.snapshot();
    reference.dispose();
    for (const n of [1, 2, 3]) {
      const run = Run.create(spec(config), undefined, pool(n, config));
      try {
        run.train({ updates: 4 });
        expect(run.pool!.size).toBe(n);
        expect(snapshotDifferences(want, run.snapshot())).toEqual([]);
      } finally {
        run.dispose();
      }
    }
  });
});

describe("the pool", () => {
  const config = resolveModelConfig({}, PRESETS.overfit);

  it("changes the update when a worker computes at other weights (so the identity above can fail)", () => {
    const reference = Run.create(spec(config));
    reference.train({ updates: 2 });
    const run = Run.create(spec(config), undefined, pool(2, config));
    try {
      // worker 1 gets microbatch 1; hand it weights nudged by one ulp-scale step
      const p = run.pool!;
      const real = p.gradients.bind(p);
      p.gradients = (w, items, local, moments) =>
        real(
          w.map((a) => Float32Array.from(a, (x) => x * (1 + 1e-3))),
          items,
          local,
          moments,
        );
      run.train({ updates: 2 });
      expect(snapshotDifferences(reference.snapshot(), run.snapshot()).length).toBeGreaterThan(0);
    } finally {
      delete (run.pool as { gradients?: unknown }).gradients; // the shared pool's own method again
      reference.dispose();
      run.dispose();
    }
  });

  it("scores every batch as the calling thread does, in batch order, with 1, 2 and 3 workers", () => {
    const run = Run.create(spec(config));
    try {
      run.train({ updates: 3 });
      const binding = { vocabSize: config.vocabSize, contextLength: config.contextLength };
      const batches = paddedBatches(
        docs.map((d) => ({ ...d, split: "validation" as const })),
        binding,
        1,
      );
      const alone = decoderAdapter(run.model);
      const want = batches.map((b) => alone.positionNll(b));
      const wantEval = evaluateLikelihood(alone, "validation", batches).metrics;
      for (const n of [1, 2, 3]) {
        const scorer = decoderAdapter(run.model, { pool: pool(n, config) });
        expect(scorer.positionNlls !== undefined).toBe(n > 1); // one worker: the calling thread's positionNll alone
        expect(scorer.positionNlls?.(batches) ?? batches.map((b) => scorer.positionNll(b))).toEqual(want);
        expect(evaluateLikelihood(scorer, "validation", batches).metrics).toEqual(wantEval);
      }
    } finally {
      run.dispose();
    }
  });

  it("leaves no tensors and no wasm-heap growth in its workers over 500 updates", () => {
    const tiny = resolveModelConfig({ dModel: 8, nHeads: 2, dFF: 16 }, PRESETS.overfit);
    const p = pool(2, tiny);
    const run = Run.create(spec(tiny, 2), undefined, p);
    try {
      run.train({ updates: 20 }); // warm: the heap grows to its working size in the first updates
      const before = p.memory();
      const mainBefore = tf.memory().numTensors;
      run.train({ updates: 520 });
      const after = p.memory();
      expect(after.map((m) => m.numTensors)).toEqual(before.map((m) => m.numTensors));
      expect(after.map((m) => m.wasmBytes)).toEqual(before.map((m) => m.wasmBytes));
      expect(before[0].wasmBytes).toBeGreaterThan(0); // the heap size was really read
      expect(tf.memory().numTensors).toBe(mainBefore);
    } finally {
      run.dispose();
    }
  }, 120_000);

  it("a worker's error closes the pool and reaches the caller with its message", () => {
    const p = pool(2, config, true);
    const run = Run.create(spec(config), undefined, p);
    try {
      const bad = { ...run.data.next()[0] };
      bad.input = { ...bad.input, ids: bad.input.ids.map(() => 10_000) }; // outside the vocabulary: refused by the model
      const ok = run.data.next()[0];
      const w = [...run.model.params.values()].map((v) => v.dataSync() as Float32Array);
      // item 1 (the bad one) goes to worker 1
      expect(() => p.scores(w, [ok, bad], (b) => decoderAdapter(run.model).positionNll(b))).toThrow(/^worker 1: .*10000/);
      expect(() => p.scores(w, [ok, ok], (b) => decoderAdapter(run.model).positionNll(b))).toThrow(/pool is closed/);
    } finally {
      run.dispose();
    }
  });

  it.each(["caught", "uncaught"])(
    "the process exits after a worker's error (%s), the message reaching the caller",
    (mode) => {
      const script = fileURLToPath(new URL("./pool_error.ts", import.meta.url));
      const r = spawnSync(process.execPath, ["--import", "tsx", script, mode], { encoding: "utf8", timeout: 60_000 });
      expect(r.error).toBeUndefined(); // no timeout: no thread kept the process alive
      if (mode === "caught") {
        expect([r.status, r.stderr]).toEqual([0, ""]);
        expect(r.stdout).toBe("caught: worker 1: token id 10000 at row 0, position 0 is ≥ vocabulary size 266\n");
      } else {
        // non-zero: 7 here, as for any uncaught error once tfjs-wasm's emscripten handler (which rethrows) is installed
        expect(r.status).not.toBe(0);
        expect(r.stderr).toMatch(/Error: worker 1: token id 10000 at row 0, position 0 is ≥ vocabulary size 266/);
      }
    },
    70_000,
  );

  it("a worker's non-finite loss surfaces as the same NonFiniteError as on one thread, nothing updated", () => {
    const run = Run.create(spec(config), undefined, pool(2, config));
    try {
      const before = run.snapshot();
      const p = run.pool!;
      const real = p.gradients.bind(p);
      // worker 1 computes microbatch 1 at weights with a NaN in them; this thread's share stays finite
      p.gradients = (w, items, local, moments) =>
        real(
          w.map((a, k) => (k === 0 ? Float32Array.from(a).fill(NaN, 0, 1) : a)),
          items,
          local,
          moments,
        );
      let err: unknown;
      try {
        run.update();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(NonFiniteError);
      expect((err as Error).message).toBe("non-finite loss at update 1; no parameter was updated");
      expect(snapshotDifferences(before, run.snapshot()).filter((d) => !d.startsWith("rng"))).toEqual([]);
    } finally {
      delete (run.pool as { gradients?: unknown }).gradients; // the shared pool's own method again
      run.dispose();
    }
  });
});
