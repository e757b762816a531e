// Benchmark: µs per matrix product on tfjs-wasm's kernels and on onnxruntime-node's (src/node/native_kernels.ts),
// interleaved shape by shape, for the products of the tiny and medium steps and a size sweep (where NATIVE_MIN_MACS
// comes from). Prints one JSON line per shape and engine; not a test.
// Usage: npx tsx bench/native_matmul.ts [--reps 200] [--only medium,tiny,square]   (times are CPU µs per call)
import { parseArgs } from "node:util";
import { initBackend, tf } from "../src/util/backend.ts";
import { openKernels } from "../src/node/native_kernels.ts";
import { batchMatMul } from "../src/util/wasm_matmul.ts";

const { values } = parseArgs({ options: { reps: { type: "string", default: "200" }, only: { type: "string" } } });
const reps = Number(values.reps);
await initBackend("wasm");

// [a shape, b shape]: medium (B 16, S 128, C 128, H 4, FF 512, V 512) and tiny (overfit: B 2, S 16, C 16) products
const SHAPES: [string, number[], number[]][] = [
  ["medium qkv", [2048, 128], [128, 384]],
  ["medium ff up", [2048, 128], [128, 512]],
  ["medium ff down", [2048, 512], [512, 128]],
  ["medium head", [2048, 128], [128, 512]],
  ["medium dW ff", [128, 2048], [2048, 512]],
  ["medium scores", [64, 128, 32], [64, 32, 128]],
  ["medium att·v", [64, 128, 128], [64, 128, 32]],
  ["tiny qkv", [32, 16], [16, 48]],
  ["tiny scores", [8, 16, 8], [8, 8, 16]],
  ...[4, 8, 16, 24, 32, 48, 64].map((n) => [`square ${n}`, [n, n], [n, n]] as [string, number[], number[]]),
];

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
/**
 * CPU µs per call of `f` on each engine (this process's user + system time: one thread computes, and on a shared
 * machine CPU time moves less than wall time): rounds of 10 calls alternating between them, the median round.
 */
function time(f: () => tf.Tensor): Record<string, number> {
  const rounds: Record<string, number[]> = { tfjs: [], onnxruntime: [] };
  for (let r = 0; r < Math.max(3, reps / 10) + 1; r++) {
    for (const kernels of ["tfjs", "onnxruntime"] as const) {
      openKernels(kernels, 0);
      const t0 = process.cpuUsage();
      for (let i = 0; i < 10; i++) f().dispose();
      const t = process.cpuUsage(t0);
      if (r > 0) rounds[kernels].push((t.user + t.system) / 10); // the first round warms up
    }
  }
  // the fastest round too: on a busy machine it is the least disturbed estimate of the kernel's own cost
  const min = (xs: number[]) => Math.min(...xs);
  return {
    tfjs_us: +median(rounds.tfjs).toFixed(1),
    onnxruntime_us: +median(rounds.onnxruntime).toFixed(1),
    tfjs_min_us: +min(rounds.tfjs).toFixed(1),
    onnxruntime_min_us: +min(rounds.onnxruntime).toFixed(1),
  };
}

for (const [name, as, bs] of SHAPES.filter(([n]) => !values.only || values.only.split(",").some((o) => n.startsWith(o)))) {
  const [a, b] = [tf.randomUniform(as), tf.randomUniform(bs)];
  const f = () => (as.length === 2 ? tf.matMul(a, b) : batchMatMul(a, b));
  const macs = as.slice(0, -1).reduce((x, y) => x * y, 1) * as[as.length - 1] * bs[bs.length - 1];
  const row: Record<string, unknown> = { shape: name, a: as, b: bs, macs };
  Object.assign(row, time(f));
  row.ratio = +((row.tfjs_us as number) / (row.onnxruntime_us as number)).toFixed(2);
  row.min_ratio = +((row.tfjs_min_us as number) / (row.onnxruntime_min_us as number)).toFixed(2);
  console.log(JSON.stringify({ engines: "wasm: tfjs vs onnxruntime", ...row }));
  tf.dispose([a, b]);
}
