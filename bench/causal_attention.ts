// Benchmark: the whole scoring run (src/model/onnx.ts's scoring form, the weights fed) on one thread, with onnxruntime's
// `Attention` through onnxruntime-node's binding against the same graph with tinylab's causal attention operator
// through tinylab's addon (native/tinylab_ort.c, src/node/causal_attention.ts): the two paths scoring takes on an engine
// without and with the addon. Interleaved rounds; both sides' NLLs compared. Prints one JSON line; not a test. The
// second row holds two documents, so the document mask is exercised.
// Usage: npx tsx bench/causal_attention.ts [--config xl] [--rows 2] [--rounds 10] [--runs 4]
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { parameterShapes, PRESETS } from "../src/model/config.ts";
import { attentionMask, positionsOf } from "../src/model/input.ts";
import { NLL, onnxModel } from "../src/model/onnx.ts";
import { causalAttention } from "../src/node/causal_attention.ts";
import { graphOptions, INTRA_OP_THREADS } from "../src/node/onnxruntime.ts";
import { raiseMallocThresholds } from "../src/node/malloc_thresholds.ts";
import { Rng } from "../src/util/primitives/rng.ts";
import { peerConfig } from "./configs.ts";

const { values } = parseArgs({
  options: {
    config: { type: "string", default: "xl" },
    rows: { type: "string", default: "2" },
    rounds: { type: "string", default: "10" },
    runs: { type: "string", default: "4" },
  },
});
const c = peerConfig(PRESETS.medium, values.config);
const [rows, rounds, runs] = [values.rows, values.rounds, values.runs].map(Number);
if (![rows, rounds, runs].every((n) => Number.isInteger(n) && n > 0))
  throw new Error("--rows, --rounds and --runs must be positive integers");

const require = createRequire(import.meta.url);
const { binding, initOrt } = require("onnxruntime-node/dist/binding.js");
const { Tensor } = require("onnxruntime-common");
initOrt();
raiseMallocThresholds();
const causal = causalAttention(INTRA_OP_THREADS);
if (typeof causal === "string") throw new Error(causal);

const T = c.contextLength,
  n = rows * T;
const rng = Rng.fromSeed(1);
const weights = parameterShapes(c).map(([name, shape]) => {
  const gain = name.endsWith(".g") ? 1 : 0;
  return { name, shape, data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => gain + (rng.next() - 0.5) * 0.2) };
});
const ids = Int32Array.from({ length: n }, () => Math.floor(rng.next() * c.vocabSize));
const docIds = Int32Array.from({ length: n }, (_, i) => (i >= T && i % T >= 100 ? 1 : 0)); // row 2: documents of 100 and T − 100
const input = { rows, cols: T, ids, docIds };
const int64 = (xs: Int32Array) => BigInt64Array.from(xs, (x) => BigInt(x));
const batch: { name: string; data: Float32Array | BigInt64Array; dims: number[] }[] = [
  { name: "input_ids", data: int64(ids), dims: [rows, T] },
  { name: "targets", data: int64(Int32Array.from({ length: n }, () => Math.floor(rng.next() * c.vocabSize))), dims: [rows, T] },
  { name: "position_ids", data: int64(positionsOf(input)), dims: [rows, T] },
  { name: "attention_bias", data: attentionMask(input), dims: [rows, 1, T, T] },
];
const feeds = [...batch, ...weights.map((w) => ({ name: w.name, data: w.data, dims: w.shape }))];

const bytes = onnxModel(c, null, { scoring: true, weights: "inputs" });
const session = new binding.InferenceSession();
session.loadModel(bytes.buffer, bytes.byteOffset, bytes.byteLength, graphOptions(INTRA_OP_THREADS));
const tensors = Object.fromEntries(
  feeds.map((f) => [f.name, new Tensor(f.data instanceof Float32Array ? "float32" : "int64", f.data, f.dims)]),
);
const runBinding = (): Float32Array => session.run(tensors, { [NLL]: null }, {})[NLL].data;
const custom = causal.graphs(onnxModel(c, null, { scoring: true, weights: "inputs", causalAttention: true }));
const graphFeeds = Object.fromEntries(
  feeds.map((f) => [
    f.name,
    f.data instanceof Float32Array
      ? { type: "float32" as const, data: f.data, dims: f.dims }
      : { type: "int64" as const, data: f.data, dims: f.dims },
  ]),
);
const runCustom = (): Float32Array => custom(graphFeeds, [NLL])[0];

const [a, b] = [runBinding(), runCustom()];
let maxDiff = 0,
  sumA = 0,
  sumB = 0;
for (let i = 0; i < a.length; i++) {
  maxDiff = Math.max(maxDiff, Math.abs(a[i] - b[i]));
  sumA += a[i];
  sumB += b[i];
}
const time = (run: () => unknown) => {
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) run();
  return (performance.now() - t0) / runs;
};
const ms = { binding: [] as number[], custom: [] as number[] },
  ratios: number[] = [];
for (let r = 0; r < rounds; r++) {
  // alternate which side goes first
  const [x, y] = r % 2 ? [time(runCustom), time(runBinding)] : [time(runBinding), time(runCustom)];
  const [tb, tc] = r % 2 ? [y, x] : [x, y];
  ms.binding.push(tb);
  ms.custom.push(tc);
  ratios.push(tc / tb);
}
const median = (xs: number[]) => {
  const s = [...xs].sort((p, q) => p - q);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
console.log(
  JSON.stringify({
    config: values.config,
    rows,
    onnxruntime_attention_ms: +median(ms.binding).toFixed(2),
    causal_attention_ms: +median(ms.custom).toFixed(2),
    ratio_median: +median(ratios).toFixed(3),
    ratios: ratios.map((r) => +r.toFixed(3)),
    max_abs_nll_difference: +maxDiff.toPrecision(2),
    nll_sum_onnxruntime: +sumA.toFixed(6),
    nll_sum_causal: +sumB.toFixed(6),
  }),
);
