// Benchmark, not a test: ms per training step and per scoring call of the medium config with 1 worker vs N, in
// interleaved pairs (the order alternating pair by pair), with each pair's ratio. Prints JSON.
// Usage: npx tsx bench/pool.ts [--workers 2] [--pairs 6] [--microbatches 2] [--rows 16] [--config medium]
import { parseArgs } from "node:util";
import { initBackend, tf } from "../src/util/backend.ts";
import { Rng } from "../src/util/primitives/rng.ts";
import { PRESETS, parameterCount, type ModelConfig } from "../src/model/config.ts";
import type { Batch } from "../src/data/batches.ts";
import { decoderAdapter } from "../src/eval/passes/adapter.ts";
import { EpochSource } from "../src/data/epoch_source.ts";
import { trainOptions } from "../src/lab/config.ts";
import { Run } from "../src/lab/run.ts";
import { snapshotDifferences } from "../src/lab/resume_check.ts";
import { startPool } from "../src/node/pool.ts";

/** Full rows of random tokens, one document per row (as bench/step.ts and the peer). */
function randomBatch(c: ModelConfig, rows: number, rng: Rng): Batch {
  const T = c.contextLength,
    n = rows * T;
  return {
    split: "train",
    binding: { vocabSize: c.vocabSize, contextLength: T },
    layout: "packed",
    input: {
      rows,
      cols: T,
      ids: Int32Array.from({ length: n }, () => rng.int(c.vocabSize)),
      docIds: Int32Array.from({ length: n }, (_, i) => Math.floor(i / T)),
    },
    targets: Int32Array.from({ length: n }, () => rng.int(c.vocabSize)),
    mask: new Float32Array(n).fill(1),
    targetCount: n,
    docIds: [],
  };
}

const { values } = parseArgs({
  options: {
    workers: { type: "string", default: "2" },
    pairs: { type: "string", default: "6" },
    microbatches: { type: "string", default: "2" },
    rows: { type: "string", default: "16" },
    config: { type: "string", default: "medium" },
    backend: { type: "string", default: "wasm" },
  },
});
const [workers, pairs, M, rows] = [values.workers, values.pairs, values.microbatches, values.rows].map(Number);
if (rows % M !== 0) throw new Error(`--rows ${rows} does not split into --microbatches ${M}`);
const config = PRESETS[values.config as keyof typeof PRESETS];
if (!config) throw new Error(`unknown --config ${values.config}: one of ${Object.keys(PRESETS).join(", ")}`);
const info = await initBackend(values.backend as "wasm");
const rng = Rng.fromSeed(1);
// an update is `rows` rows as M microbatches; three updates' worth, cycled
const microbatches = Array.from({ length: 3 * M }, () => randomBatch(config, rows / M, rng));
const spec = {
  config,
  options: trainOptions({ seed: 1, lr: 1e-3, microbatchesPerUpdate: M, data: "random tokens" }),
  tokenizer: null,
  data: () => new EpochSource(microbatches, M),
  engine: info,
};
const pool = startPool(workers, config, info);
const one = Run.create(spec),
  many = Run.create(spec, undefined, pool);
const timed = (f: () => void) => {
  const t = performance.now();
  f();
  return performance.now() - t;
};
/** Time f then g, or g then f on odd pairs (so drift in the machine's load favours neither), as [f ms, g ms]. */
const pair = (p: number, f: () => void, g: () => void): [number, number] => {
  if (p % 2 === 0) {
    const a = timed(f);
    return [a, timed(g)];
  }
  const b = timed(g);
  return [timed(f), b];
};
const row = ([a, b]: [number, number]) => ({ one_ms: +a.toFixed(1), many_ms: +b.toFixed(1), ratio: +(b / a).toFixed(3) });
for (let i = 0; i < 2; i++) {
  one.update();
  many.update();
} // warm-up: kernels compile in every thread

const scoring = Array.from({ length: 2 * workers }, () => randomBatch(config, rows / M, rng));
const scorers = [decoderAdapter(one.model), decoderAdapter(many.model, { pool })];
const score = (k: number) => (scorers[k].positionNlls ? scorers[k].positionNlls!(scoring) : scoring.map((b) => scorers[k].positionNll(b)));
score(0);
score(1);

const train: { one_ms: number; many_ms: number; ratio: number }[] = [];
const scores: typeof train = [];
for (let p = 0; p < pairs; p++) {
  train.push(
    row(
      pair(
        p,
        () => one.update(),
        () => many.update(),
      ),
    ),
  );
  scores.push(
    row(
      pair(
        p,
        () => score(0),
        () => score(1),
      ),
    ),
  );
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const differences = snapshotDifferences(one.snapshot(), many.snapshot()); // both ran the same updates: must be []
console.log(
  JSON.stringify(
    {
      config: values.config,
      parameters: parameterCount(config),
      backend: info.backend,
      workers,
      rows_per_update: rows,
      microbatches: M,
      training_step: { pairs: train, median_ratio: median(train.map((x) => x.ratio)) },
      scoring: { batches: scoring.length, rows_per_batch: rows / M, pairs: scores, median_ratio: median(scores.map((x) => x.ratio)) },
      bit_identical_after_all_updates: differences.length === 0,
      differences,
      tfjs: tf.version_core,
      node: process.version,
    },
    null,
    2,
  ),
);
one.dispose();
many.dispose();
pool.close();
