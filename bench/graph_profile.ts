// Benchmark: where one training-graph run (src/model/onnx_train.ts, the whole step's forward and backward) or, with
// `--graph scoring`, one scoring run (src/model/onnx.ts's scoring form: forward and per-position NLL) spends its time
// on onnxruntime-node, per ONNX op type and per node, from onnxruntime's own profiler, with the session
// options the engine uses (src/node/onnxruntime.ts graphOptions). Prints text; not a test.
// Usage: npx tsx bench/graph_profile.ts [--config xl] [--rows 4] [--runs 6] [--nodes 20] [--graph training|scoring]
//   --rows: one microbatch's rows (bench/step.ts's --workers 2 gives 4 rows per worker at large and xl, 8 at medium)
import { createRequire } from "node:module";
import { readFileSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parameterShapes, PRESETS } from "../src/model/config.ts";
import { DataType, encodeGraph, Graph, NLL, onnxModel, valueInfo } from "../src/model/onnx.ts";
import { gradName, LOSS_SUM, trainingModel } from "../src/model/onnx_train.ts";
import { graphOptions, INTRA_OP_THREADS, ONNXRUNTIME_VERSION } from "../src/node/onnxruntime.ts";
import { raiseMallocThresholds } from "../src/node/malloc_thresholds.ts";
import { Rng } from "../src/util/primitives/rng.ts";
import { peerConfig } from "./configs.ts";
import { forwardFlopsPerToken, trainFlopsPerToken } from "./flops.ts";

const { values } = parseArgs({
  options: {
    config: { type: "string", default: "xl" },
    rows: { type: "string", default: "4" },
    runs: { type: "string", default: "6" },
    nodes: { type: "string", default: "20" },
    graph: { type: "string", default: "training" },
  },
});
const c = peerConfig(PRESETS.medium, values.config);
const rows = Number(values.rows),
  runs = Number(values.runs),
  warm = 2;
if (!(Number.isInteger(rows) && rows > 0 && Number.isInteger(runs) && runs > warm))
  throw new Error(`--rows must be a positive integer and --runs an integer above ${warm}`);

// the binding src/node/onnxruntime.ts runs graphs through (its version checked there), here with onnxruntime's profiler on
const require = createRequire(import.meta.url);
const { binding, initOrt } = require("onnxruntime-node/dist/binding.js");
const { Tensor } = require("onnxruntime-common");
initOrt();
raiseMallocThresholds(); // as the engine's graph loader does: each run's outputs reuse freed memory instead of faulting it in
if (values.graph !== "training" && values.graph !== "scoring") throw new Error(`--graph: "${values.graph}", expected training or scoring`);
const scoring = values.graph === "scoring";
const bytes = scoring ? onnxModel(c, null, { scoring: true, weights: "inputs" }) : trainingModel(c);
const session = new binding.InferenceSession();
session.loadModel(bytes.buffer, bytes.byteOffset, bytes.byteLength, {
  ...graphOptions(INTRA_OP_THREADS),
  enableProfiling: true,
  profileFilePrefix: join(tmpdir(), "tinylab-graph-profile"),
});

const rng = Rng.fromSeed(1);
const T = c.contextLength,
  n = rows * T;
const ids = () =>
  new Tensor(
    "int64",
    BigInt64Array.from({ length: n }, () => BigInt(Math.floor(rng.next() * c.vocabSize))),
    [rows, T],
  );
const causal = new Float32Array(rows * T * T);
for (let r = 0; r < rows; r++) for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) causal[(r * T + i) * T + j] = -1e9;
const feeds: Record<string, unknown> = {
  input_ids: ids(),
  targets: ids(),
  position_ids: new Tensor(
    "int64",
    BigInt64Array.from({ length: n }, (_, i) => BigInt(i % T)),
    [rows, T],
  ),
  ...(scoring ? {} : { target_mask: new Tensor("float32", new Float32Array(n).fill(1), [rows, T]) }),
  attention_bias: new Tensor("float32", causal, [rows, 1, T, T]),
};
for (const [name, shape] of parameterShapes(c)) {
  const size = shape.reduce((a, b) => a * b, 1);
  const gain = name.endsWith(".g") ? 1 : 0;
  feeds[name] = new Tensor(
    "float32",
    Float32Array.from({ length: size }, () => gain + (rng.next() - 0.5) * 0.04),
    shape,
  );
}
const fetches = Object.fromEntries((scoring ? [NLL] : [LOSS_SUM, ...parameterShapes(c).map(([p]) => gradName(p))]).map((o) => [o, null]));
const cpu: number[] = [];
for (let r = 0; r < runs; r++) {
  const c0 = process.cpuUsage();
  session.run(feeds, fetches, {});
  const u = process.cpuUsage(c0);
  if (r >= warm) cpu.push((u.user + u.system) / 1000);
}
const file: string = session.endProfiling();
interface Event {
  cat: string;
  name: string;
  ts: number;
  dur: number;
  args?: { op_name?: string };
}
const events = JSON.parse(readFileSync(file, "utf8")) as Event[];
unlinkSync(file);
const timed = events.filter((e) => e.cat === "Session" && e.name === "model_run").slice(warm);
const from = timed[0].ts,
  k = timed.length;
const nodes = events.filter((e) => e.cat === "Node" && e.name.endsWith("_kernel_time") && e.ts >= from);
const sum = (m: Map<string, number>, key: string, us: number) => m.set(key, (m.get(key) ?? 0) + us);
const byOp = new Map<string, number>(),
  count = new Map<string, number>(),
  byNode = new Map<string, number>();
for (const e of nodes) {
  sum(byOp, e.args?.op_name ?? "?", e.dur);
  sum(count, e.args?.op_name ?? "?", 1);
  sum(byNode, e.name.replace(/_kernel_time$/, ""), e.dur);
}
const total = nodes.reduce((t, e) => t + e.dur, 0);
const runUs = timed.reduce((t, e) => t + e.dur, 0) / k;
const gflops = (flops: number, us: number) => (flops / us / 1e3).toFixed(1);
const ms = (us: number) => (us / k / 1000).toFixed(2).padStart(9);
const median = [...cpu].sort((a, b) => a - b)[Math.floor(cpu.length / 2)];
console.log(
  `${values.config} ${values.graph} (${rows} rows × ${T}), onnxruntime-node ${ONNXRUNTIME_VERSION}, ${INTRA_OP_THREADS} intra-op thread: ` +
    `run ${(runUs / 1000).toFixed(2)} ms wall (mean of ${k}), ${median.toFixed(1)} ms CPU (median), kernels ${ms(total).trim()} ms`,
);
// the products' rate over the whole run, against one product of the run's largest shape alone on the same engine
const product = productRate(n, c.dModel, c.dFF);
console.log(
  `products: ${gflops(n * (scoring ? forwardFlopsPerToken(c) : trainFlopsPerToken(c)), runUs)} GFLOP/s over the run ` +
    `(bench/flops.ts); one [${n}, ${c.dModel}]·[${c.dModel}, ${c.dFF}] MatMul alone: ${gflops(2 * n * c.dModel * c.dFF, product)} GFLOP/s`,
);
console.log("op type                       ms/run  nodes  share");
for (const [op, us] of [...byOp].sort((a, b) => b[1] - a[1]))
  console.log(`${op.padEnd(24)}${ms(us)}  ${String(count.get(op)! / k).padStart(5)}  ${((100 * us) / total).toFixed(1).padStart(5)}%`);
console.log(`slowest ${values.nodes} nodes (ms/run):`);
for (const [name, us] of [...byNode].sort((a, b) => b[1] - a[1]).slice(0, Number(values.nodes))) console.log(`${ms(us)}  ${name}`);

/** Median µs of one [m, k]·[k, f] MatMul (its weight a graph input, as the decoder's) in a session of graphOptions. */
function productRate(m: number, kk: number, f: number): number {
  const g = new Graph();
  g.op("MatMul", ["a", "b"], "", {}, "y");
  const bytes = encodeGraph(
    g,
    [valueInfo("a", DataType.FLOAT, [m, kk]), valueInfo("b", DataType.FLOAT, [kk, f])],
    [valueInfo("y", DataType.FLOAT, [m, f])],
  );
  const s = new binding.InferenceSession();
  s.loadModel(bytes.buffer, bytes.byteOffset, bytes.byteLength, graphOptions(INTRA_OP_THREADS));
  const fill = (len: number) => Float32Array.from({ length: len }, () => rng.next() - 0.5);
  const feeds = { a: new Tensor("float32", fill(m * kk), [m, kk]), b: new Tensor("float32", fill(kk * f), [kk, f]) };
  const times: number[] = [];
  for (let r = 0; r < 30; r++) {
    const t0 = performance.now();
    s.run(feeds, { y: null }, {});
    if (r >= 3) times.push((performance.now() - t0) * 1000);
  }
  return times.sort((a, b) => a - b)[times.length >> 1];
}
