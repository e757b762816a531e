// Benchmark: onnxruntime's MultiHeadAttention at xl's shape (6 heads of 64, rows of 256, q/k/v given: the QKV product
// left out) with the additive causal bias the scoring graph feeds, on one thread with the engine's session options,
// checked against a float64 reference. Prints one JSON line; bench/attention_core.sh runs it beside a C kernel.
// Usage: npx tsx bench/attention_core.ts [--rows 2]
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { MASKED } from "../src/model/input.ts";
import { DataType, encodeGraph, Graph, valueInfo } from "../src/model/onnx.ts";
import { graphOptions, INTRA_OP_THREADS } from "../src/node/onnxruntime.ts";
import { raiseMallocThresholds } from "../src/node/malloc_thresholds.ts";
import { Rng } from "../src/util/primitives/rng.ts";

const { values } = parseArgs({ options: { rows: { type: "string", default: "2" } } });
const B = Number(values.rows),
  S = 256,
  H = 6,
  D = 64,
  C = H * D;
if (!(Number.isInteger(B) && B > 0)) throw new Error(`--rows must be a positive integer, got "${values.rows}"`);

// the binding src/node/onnxruntime.ts runs graphs through (its version checked there)
const require = createRequire(import.meta.url);
const { binding, initOrt } = require("onnxruntime-node/dist/binding.js");
const { Tensor } = require("onnxruntime-common");
initOrt();
raiseMallocThresholds();

const rng = Rng.fromSeed(5);
const uniform = () => Float32Array.from({ length: B * S * C }, () => rng.next() * 2 - 1);
const [q, k, v] = [uniform(), uniform(), uniform()];
const bias = new Float32Array(B * S * S);
for (let b = 0; b < B; b++) for (let i = 0; i < S; i++) bias.fill(MASKED, (b * S + i) * S + i + 1, (b * S + i + 1) * S);

const g = new Graph(false, true);
g.contribOp("MultiHeadAttention", ["q", "k", "v", "", "", "bias"], "", { num_heads: H, scale: 1 / Math.sqrt(D) }, "y");
const qkv = (name: string) => valueInfo(name, DataType.FLOAT, [B, S, C]);
const bytes = encodeGraph(
  g,
  [qkv("q"), qkv("k"), qkv("v"), valueInfo("bias", DataType.FLOAT, [B, 1, S, S])],
  [valueInfo("y", DataType.FLOAT, [B, S, C])],
);
const session = new binding.InferenceSession();
session.loadModel(bytes.buffer, bytes.byteOffset, bytes.byteLength, graphOptions(INTRA_OP_THREADS));
const feeds = {
  q: new Tensor("float32", q, [B, S, C]),
  k: new Tensor("float32", k, [B, S, C]),
  v: new Tensor("float32", v, [B, S, C]),
  bias: new Tensor("float32", bias, [B, 1, S, S]),
};
const run = (): Float32Array => session.run(feeds, { y: null }, {}).y.data;

/** The largest |y − reference| over every output, the reference in float64 over the keys each query sees. */
function maxError(y: Float32Array): number {
  let worst = 0;
  const s = new Float64Array(S);
  for (let b = 0; b < B; b++)
    for (let h = 0; h < H; h++)
      for (let i = 0; i < S; i++) {
        const row = (t: number) => b * S * C + t * C + h * D;
        let mx = -Infinity,
          sum = 0;
        for (let j = 0; j <= i; j++) {
          let dot = 0;
          for (let d = 0; d < D; d++) dot += q[row(i) + d] * k[row(j) + d];
          s[j] = dot / Math.sqrt(D);
          mx = Math.max(mx, s[j]);
        }
        for (let j = 0; j <= i; j++) sum += s[j] = Math.exp(s[j] - mx);
        for (let d = 0; d < D; d++) {
          let out = 0;
          for (let j = 0; j <= i; j++) out += (s[j] / sum) * v[row(j) + d];
          worst = Math.max(worst, Math.abs(out - y[row(i) + d]));
        }
      }
  return worst;
}

const error = maxError(run());
const ms: number[] = [];
for (let r = 0; r < 15; r++) {
  const t0 = performance.now();
  for (let i = 0; i < 20; i++) run();
  ms.push((performance.now() - t0) / 20);
}
ms.sort((a, b) => a - b);
const full = 4 * B * H * S * S * D; // bench/flops.ts's count: both products over the whole row
console.log(
  JSON.stringify({
    kernel: "onnxruntime-mha",
    rows: B,
    ms_median: +ms[7].toFixed(3),
    ms_min: +ms[0].toFixed(3),
    full_row_gflop_s: +(full / ms[7] / 1e6).toFixed(1),
    max_abs_error_vs_float64: +error.toPrecision(2),
  }),
);
