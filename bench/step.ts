// Benchmark: median ms per training step (forward, backward, clip, AdamW) for the tiny and medium configs on
// each backend, eval tokens/s, and the wall time of the overfit gradient check. Prints JSON; not a test.
// Usage: npx tsx bench/step.ts [--backends cpu,wasm] [--configs tiny,medium] [--steps N]
import { parseArgs } from "node:util";
import { initBackend, readTensor, tf, type BackendChoice } from "../src/util/backend.ts";
import { Rng } from "../src/util/rng.ts";
import { PRESETS, parameterCount, type ModelConfig } from "../src/model/config.ts";
import { positionNll } from "../src/model/loss.ts";
import { EpochSource } from "../src/train/loop.ts";
import { trainOptions } from "../src/lab/config.ts";
import { Run } from "../src/lab/run.ts";
import type { Batch } from "../src/data/batches.ts";
import { runGradcheck } from "../experiments/gradcheck.ts";

const CONFIGS: Record<string, { config: ModelConfig; batch: number }> = {
  tiny: { config: PRESETS.overfit, batch: 2 },
  medium: { config: PRESETS.medium, batch: 16 },
};

/** A batch of full rows of random tokens (as the peer's), one document per row. */
function randomBatch(c: ModelConfig, rows: number, rng: Rng): Batch {
  const T = c.contextLength, n = rows * T;
  const ids = Int32Array.from({ length: n }, () => rng.int(c.vocabSize));
  const docIds = Int32Array.from({ length: n }, (_, i) => Math.floor(i / T));
  return {
    split: "train", binding: { vocabSize: c.vocabSize, contextLength: T }, layout: "packed",
    input: { rows, cols: T, ids, docIds }, targets: Int32Array.from({ length: n }, () => rng.int(c.vocabSize)),
    mask: new Float32Array(n).fill(1), targetCount: n, docIds: [],
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function benchConfig(name: string, steps: number) {
  const { config, batch } = CONFIGS[name];
  const rng = Rng.fromSeed(1);
  const batches = [0, 1, 2].map(() => randomBatch(config, batch, rng));
  // the lab's run (seed 1: init from the "init" stream), cycling over three fixed random batches
  const run = Run.create({ config, options: trainOptions({ seed: 1, lr: 1e-3, data: "random tokens" }), tokenizer: null, data: () => new EpochSource(batches, 1) });
  const model = run.model;
  const times: number[] = [];
  for (let s = 0; s < steps + 2; s++) {
    const t0 = performance.now();
    run.update();
    if (s >= 2) times.push(performance.now() - t0); // two warm-up steps compile kernels
  }
  const evalTimes: number[] = [];
  for (let s = 0; s < Math.max(3, Math.min(steps, 10)); s++) {
    const t0 = performance.now();
    readTensor(() => positionNll(model.forward(batches[s % 3].input), batches[s % 3].targets));
    evalTimes.push(performance.now() - t0);
  }
  run.dispose();
  const tokens = batch * config.contextLength;
  const ms = median(times);
  return { config: name, parameters: parameterCount(config), batch, ms_per_step: +ms.toFixed(3), train_tokens_per_s: Math.round((tokens / ms) * 1000), eval_tokens_per_s: Math.round((tokens / median(evalTimes)) * 1000), steps: times.length };
}

const { values } = parseArgs({ options: { backends: { type: "string", default: "wasm,cpu" }, configs: { type: "string", default: "tiny,medium" }, steps: { type: "string", default: "" } } });
const results: unknown[] = [];
for (const backend of values.backends!.split(",")) {
  const info = await initBackend(backend as BackendChoice);
  for (const name of values.configs!.split(",")) {
    // the cpu backend is ~15× slower on medium: fewer steps there
    const steps = values.steps ? Number(values.steps) : name === "tiny" ? 300 : backend === "cpu" ? 3 : 10;
    results.push({ backend: info.backend, ...benchConfig(name, steps) });
    console.error(JSON.stringify(results[results.length - 1]));
  }
  const t0 = performance.now();
  const report = runGradcheck("overfit");
  results.push({ backend: info.backend, gradcheck_overfit_seconds: +((performance.now() - t0) / 1000).toFixed(2), passed: report.passed });
  console.error(JSON.stringify(results[results.length - 1]));
}
console.log(JSON.stringify({ results, tfjs: tf.version_core, node: process.version }, null, 2));
