// Benchmark: scoring tokens/s of the medium config on one thread for each scoring engine (tfjs's forward on
// tfjs-wasm's kernels, the same forward with native products, the whole ONNX graph), round-robin batch by batch in
// one process so a loaded machine slows all three alike; prints per-round ratios and medians as JSON. Not a test.
// Usage: npx tsx bench/score.ts [--rounds 9] [--rows 16]
import { parseArgs } from "node:util";
import { PRESETS } from "../src/model/config.ts";
import { GPT } from "../src/model/gpt.ts";
import { graphBuilds, scoreBatch } from "../src/model/graph_scoring.ts";
import { initParameters } from "../src/model/init.ts";
import type { ScoredBatch } from "../src/model/input.ts";
import { initBackend } from "../src/util/backend.ts";
import { engineRecord, type Engine } from "../src/util/engine.ts";
import { openKernels } from "../src/node/native_kernels.ts";
import { loadGraphBuilders } from "../src/model/graph_builders.ts";
import { Rng } from "../src/util/primitives/rng.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "9" }, rows: { type: "string", default: "16" } } });
const [rounds, rows] = [Number(values.rounds), Number(values.rows)];
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(rows) || rows < 1)
  throw new Error("--rounds and --rows must be positive integers");

await initBackend("wasm");
await loadGraphBuilders(); // openEngine's part, for the engines openKernels opens here
const config = PRESETS.medium,
  T = config.contextLength,
  rng = Rng.fromSeed("bench score");
const weights = initParameters(config, rng.child("params"));
const n = rows * T;
// full rows of random tokens, one document per row, as bench/step.ts and the peer score
const batch: ScoredBatch = {
  input: {
    rows,
    cols: T,
    ids: Int32Array.from({ length: n }, () => rng.int(config.vocabSize)),
    docIds: Int32Array.from({ length: n }, (_, i) => Math.floor(i / T)),
  },
  targets: Int32Array.from({ length: n }, () => rng.int(config.vocabSize)),
  mask: new Float32Array(n).fill(1),
  targetCount: n,
};

/** Each engine as an opening of the kernels (products-only: onnxruntime's engine without its graphs, as bench/step.ts), a model copy on each. */
const engines: Record<string, () => Engine> = {
  tfjs: () => openKernels("tfjs"),
  "onnxruntime-products": () => ({ ...openKernels("onnxruntime"), graphs: undefined }),
  "onnxruntime-graph": () => openKernels("onnxruntime"),
};
const models = Object.fromEntries(Object.entries(engines).map(([k, open]) => [k, new GPT(config, weights, open())]));
const ms: Record<string, number[]> = Object.fromEntries(Object.keys(engines).map((k) => [k, []]));
const sums: Record<string, number> = {};
let buildMs = 0;
for (let r = 0; r <= rounds; r++) {
  for (const [name, open] of Object.entries(engines)) {
    open(); // tfjs's products follow the engine opened last in this thread
    const b0 = graphBuilds(),
      t0 = performance.now();
    const nll = scoreBatch(models[name], batch);
    const t = performance.now() - t0;
    if (graphBuilds() > b0)
      buildMs = t; // the first graph call builds its session: reported apart, not timed as scoring
    else if (r > 0) ms[name].push(t); // round 0 warms every engine up
    sums[name] = nll.reduce((s, x) => s + x, 0);
  }
  if (r > 0) {
    const last = (k: string) => ms[k][ms[k].length - 1];
    console.error(
      JSON.stringify({
        round: r,
        ms: Object.fromEntries(Object.keys(ms).map((k) => [k, +last(k).toFixed(1)])),
        products_over_tfjs: +(last("tfjs") / last("onnxruntime-products")).toFixed(2),
        graph_over_tfjs: +(last("tfjs") / last("onnxruntime-graph")).toFixed(2),
        graph_over_products: +(last("onnxruntime-products") / last("onnxruntime-graph")).toFixed(2),
      }),
    );
  }
}
const graphEngine = openKernels("onnxruntime");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const tokensPerS = Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, Math.round((n / median(v)) * 1000)]));
console.log(
  JSON.stringify(
    {
      config: "medium",
      rows,
      tokens_per_batch: n,
      rounds,
      engine: { ...engineRecord(graphEngine), graph: graphEngine.graphs ? "registered" : "absent" },
      median_ms: Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, +median(v).toFixed(1)])),
      tokens_per_s: tokensPerS,
      graph_session_build_and_first_score_ms: +buildMs.toFixed(1),
      nll_sums: sums,
    },
    null,
    2,
  ),
);
