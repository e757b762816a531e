// Benchmark: the whole scoring run (src/model/onnx.ts's scoring form, the weights fed) on one thread, as tinylab runs
// it (onnxruntime-node's binding, each layer's `Attention` node) against the same graph with each `Attention`
// rewritten as its QKV product and a custom causal attention operator (bench/native/causal_attention.h) in sessions an
// addon of this bench opens on the same onnxruntime library (bench/native/ort_custom_attention.c, built by
// bench/custom_attention.sh, which passes its path). Interleaved rounds; both sides' NLLs compared. Prints one JSON
// line; not a test. The second row holds two documents, so the document mask is exercised.
// Usage: npx tsx bench/custom_attention.ts --addon FILE [--config xl] [--rows 2] [--rounds 10] [--runs 4]
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ModelProtoSchema, NodeProtoSchema, OperatorSetIdProtoSchema } from "onnx-buf";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { parameterShapes, PRESETS } from "../src/model/config.ts";
import { attentionMask, positionsOf } from "../src/model/input.ts";
import { NLL, onnxModel } from "../src/model/onnx.ts";
import { graphOptions, INTRA_OP_THREADS } from "../src/node/onnxruntime.ts";
import { raiseMallocThresholds } from "../src/node/malloc_thresholds.ts";
import { Rng } from "../src/util/primitives/rng.ts";
import { peerConfig } from "./configs.ts";

const { values } = parseArgs({
  options: {
    addon: { type: "string" },
    config: { type: "string", default: "xl" },
    rows: { type: "string", default: "2" },
    rounds: { type: "string", default: "10" },
    runs: { type: "string", default: "4" },
  },
});
const c = peerConfig(PRESETS.medium, values.config);
if (!values.addon) throw new Error("--addon: the addon's path is required (bash bench/custom_attention.sh builds it)");
const [rows, rounds, runs] = [values.rows, values.rounds, values.runs].map(Number);
if (![rows, rounds, runs].every((n) => Number.isInteger(n) && n > 0))
  throw new Error("--rows, --rounds and --runs must be positive integers");

const require = createRequire(import.meta.url);
const { binding, initOrt } = require("onnxruntime-node/dist/binding.js");
const { Tensor } = require("onnxruntime-common");
initOrt();
raiseMallocThresholds();
const addon = require(values.addon) as {
  open(bytes: Uint8Array): unknown;
  run(session: unknown, names: string[], arrays: ArrayBufferView[], dims: number[][], outputs: string[]): Float32Array[];
};

/** The scoring graph with each `Attention` (QKV product, bias, heads, causal core) as MatMul, Add and tinylab.CausalAttention. */
function withCustomAttention(bytes: Uint8Array): Uint8Array {
  const model = fromBinary(ModelProtoSchema, bytes);
  const graph = model.graph!;
  graph.node = graph.node.flatMap((n) => {
    if (n.opType !== "Attention") return [n];
    const [x, w, b, , , bias] = n.input;
    const [y] = n.output;
    const heads = n.attribute.find((a) => a.name === "num_heads")!;
    return [
      create(NodeProtoSchema, { opType: "MatMul", input: [x, w], output: [`${y}/qkv_product`], name: `${y}/qkv_product` }),
      create(NodeProtoSchema, { opType: "Add", input: [`${y}/qkv_product`, b], output: [`${y}/qkv`], name: `${y}/qkv` }),
      create(NodeProtoSchema, {
        opType: "CausalAttention",
        domain: "tinylab",
        input: [`${y}/qkv`, bias],
        output: [y],
        name: y,
        attribute: [heads],
      }),
    ];
  });
  model.opsetImport.push(create(OperatorSetIdProtoSchema, { domain: "tinylab", version: 1n }));
  return toBinary(ModelProtoSchema, model);
}

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

const product = onnxModel(c, null, { scoring: true, weights: "inputs" });
const session = new binding.InferenceSession();
session.loadModel(product.buffer, product.byteOffset, product.byteLength, graphOptions(INTRA_OP_THREADS));
const tensors = Object.fromEntries(
  feeds.map((f) => [f.name, new Tensor(f.data instanceof Float32Array ? "float32" : "int64", f.data, f.dims)]),
);
const runBinding = (): Float32Array => session.run(tensors, { [NLL]: null }, {})[NLL].data;
const custom = addon.open(withCustomAttention(product));
const [names, arrays, dims] = [feeds.map((f) => f.name), feeds.map((f) => f.data), feeds.map((f) => f.dims)];
const runCustom = (): Float32Array => addon.run(custom, names, arrays, dims, [NLL])[0];

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
    binding_attention_ms: +median(ms.binding).toFixed(2),
    custom_attention_ms: +median(ms.custom).toFixed(2),
    ratio_median: +median(ratios).toFixed(3),
    ratios: ratios.map((r) => +r.toFixed(3)),
    max_abs_nll_difference: +maxDiff.toPrecision(2),
    nll_sum_binding: +sumA.toFixed(6),
    nll_sum_custom: +sumB.toFixed(6),
  }),
);
