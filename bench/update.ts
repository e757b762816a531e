// Benchmark: CPU time of the calling thread's part of an update, `applyGradients` (the float64 reduction of the
// microbatch terms, global norm, AdamW's bound and update, the weights' assignment), at a config's size with two
// microbatch terms per parameter (as `--workers 2` hands it), and a digest of the weights after the updates (equal
// digests: the same numbers bit for bit). Prints one JSON line; not a test.
// With --workers N (≥ 2): whole updates of a run on a pool of N workers on onnxruntime kernels, each microbatch one
// short row (so the gradients are cheap and the update's own part shows), timing the part after the pool's
// gradients return (reduction, norm, AdamW, assignment: wall and every thread's CPU) and the whole update.
// Usage: npx tsx bench/update.ts [--config xl] [--updates 30] [--workers 1] [--src DIR]   (DIR: the checkout whose src/ is measured)
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { peerConfig } from "./configs.ts";
import { existsSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";

const { values } = parseArgs({
  options: {
    config: { type: "string", default: "xl" },
    updates: { type: "string", default: "30" },
    src: { type: "string", default: resolve(import.meta.dirname, "..") },
    workers: { type: "string", default: "1" },
  },
});
const src = values.src!;
const mod = async <M>(path: string): Promise<M> => import(pathToFileURL(resolve(src, path)).href) as Promise<M>;
const { initBackend } = await mod<typeof import("../src/util/backend.ts")>("src/util/backend.ts");
const { PRESETS } = await mod<typeof import("../src/model/config.ts")>("src/model/config.ts");
const { initParameters } = await mod<typeof import("../src/model/init.ts")>("src/model/init.ts");
const { GPT } = await mod<typeof import("../src/model/gpt.ts")>("src/model/gpt.ts");
const { AdamW } = await mod<typeof import("../src/train/adamw.ts")>("src/train/adamw.ts");
const { applyGradients } = await mod<typeof import("../src/train/trainer.ts")>("src/train/trainer.ts");
const { Rng } = await mod<typeof import("../src/util/primitives/rng.ts")>("src/util/primitives/rng.ts");
const { sha256Hex } = await mod<typeof import("../src/util/primitives/sha256.ts")>("src/util/primitives/sha256.ts");

const config = peerConfig(PRESETS.medium, values.config);
const updates = Number(values.updates);
if (!Number.isInteger(updates) || updates < 1) throw new Error(`--updates must be a positive integer, got "${values.updates}"`);

const workers = Number(values.workers);
if (!Number.isInteger(workers) || workers < 1) throw new Error(`--workers must be a positive integer, got "${values.workers}"`);
await initBackend("wasm");
if (workers > 1) {
  await onPool(workers);
  process.exit(0);
}
const model = new GPT(config, initParameters(config, Rng.fromSeed(1)));
const optimizer = new AdamW(model.params);
const names = [...model.params.keys()];
const rng = Rng.fromSeed(2);
const term = () => names.map((n) => Float32Array.from({ length: model.params.get(n)!.size }, () => rng.next() - 0.5));
const [a, b] = [term(), term()];
const cpu: number[] = [];
for (let u = 0; u < updates + 2; u++) {
  // fresh arrays at every update, as the graph hands its gradients out
  const results = [a, b].map((t) => ({ lossSum: 1, count: 2048, grads: t.map((g) => g.slice()) }));
  const c0 = process.cpuUsage();
  applyGradients({ names, results, optimizer, lr: 1e-3, clipNorm: 1 });
  const c = process.cpuUsage(c0);
  if (u >= 2) cpu.push((c.user + c.system) / 1000); // two warm-up updates compile the loops
}
const weights = [...model.read().values()];
const bytes = new Uint8Array(weights.reduce((n, w) => n + w.byteLength, 0));
weights.reduce((at, w) => (bytes.set(new Uint8Array(w.buffer, w.byteOffset, w.byteLength), at), at + w.byteLength), 0);
const sorted = [...cpu].sort((x, y) => x - y);
console.log(
  JSON.stringify({
    src,
    config: values.config,
    updates,
    cpu_ms_median: +sorted[Math.floor(sorted.length / 2)].toFixed(1),
    cpu_ms_min: +sorted[0].toFixed(1),
    weights_sha256: sha256Hex(bytes).slice(0, 16),
  }),
);

/** Whole updates on a pool of `n` workers: the part after the gradients return, and the whole update. */
async function onPool(n: number) {
  const { openKernels } = await mod<typeof import("../src/node/native_kernels.ts")>("src/node/native_kernels.ts");
  const { startPool } = await mod<typeof import("../src/node/pool.ts")>("src/node/pool.ts");
  const { Run } = await mod<typeof import("../src/lab/run.ts")>("src/lab/run.ts");
  const { trainOptions } = await mod<typeof import("../src/lab/config.ts")>("src/lab/config.ts");
  const { EpochSource } = await mod<typeof import("../src/data/epoch_source.ts")>("src/data/epoch_source.ts");
  const engine = openKernels("onnxruntime");
  // openEngine's part, for the engine openKernels opens here (a tree without the loader had the builders at hand)
  const builders = resolve(src, "src/model/graph_builders.ts");
  if (existsSync(builders))
    await (await mod<typeof import("../src/model/graph_builders.ts")>("src/model/graph_builders.ts")).loadGraphBuilders();
  const rng = Rng.fromSeed(3);
  const cols = 16;
  // one row of `cols` random tokens per microbatch, one microbatch per worker
  const micro = Array.from({ length: 3 * n }, () => ({
    split: "train" as const,
    binding: { vocabSize: config.vocabSize, contextLength: config.contextLength },
    layout: "packed" as const,
    input: { rows: 1, cols, ids: Int32Array.from({ length: cols }, () => rng.int(config.vocabSize)), docIds: new Int32Array(cols) },
    targets: Int32Array.from({ length: cols }, () => rng.int(config.vocabSize)),
    mask: new Float32Array(cols).fill(1),
    targetCount: cols,
    docIds: [],
  }));
  const pool = startPool(n, config, engine);
  const run = Run.create(
    {
      config,
      options: trainOptions({ seed: 1, lr: 1e-3, microbatchesPerUpdate: n, data: "random tokens" }),
      tokenizer: null,
      data: () => new EpochSource(micro, n),
      engine,
    },
    undefined,
    pool,
  );
  // this thread's CPU time in ms (Linux: the scheduler's ns count), which load disturbs far less than wall time
  const mainCpu = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  // the moment the pool's gradients come back: what follows is the update's own part
  let t1 = 0,
    m1 = 0,
    c1 = process.cpuUsage();
  const real = pool.gradients.bind(pool) as (...a: unknown[]) => unknown;
  (pool as { gradients: unknown }).gradients = (...a: unknown[]) => {
    const out = real(...a);
    t1 = performance.now();
    m1 = mainCpu();
    c1 = process.cpuUsage();
    return out;
  };
  const wall: number[] = [],
    cpu: number[] = [],
    whole: number[] = [],
    main: number[] = [],
    mainWhole: number[] = [];
  for (let u = 0; u < updates + 2; u++) {
    const t0 = performance.now(),
      m0 = mainCpu();
    run.update();
    const t2 = performance.now(),
      m2 = mainCpu(),
      c = process.cpuUsage(c1);
    if (u < 2) continue; // two warm-up updates compile the loops and build the graph's session
    wall.push(t2 - t1);
    cpu.push((c.user + c.system) / 1000);
    whole.push(t2 - t0);
    main.push(m2 - m1);
    mainWhole.push(m2 - m0);
  }
  const weights = [...run.model.read().values()];
  const bytes = new Uint8Array(weights.reduce((k, w) => k + w.byteLength, 0));
  weights.reduce((at, w) => (bytes.set(new Uint8Array(w.buffer, w.byteOffset, w.byteLength), at), at + w.byteLength), 0);
  run.dispose();
  pool.close();
  const med = (xs: number[]) => +[...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)].toFixed(1);
  console.log(
    JSON.stringify({
      src,
      config: values.config,
      workers: n,
      updates,
      update_wall_ms_median: med(wall),
      update_cpu_ms_median: med(cpu),
      update_main_cpu_ms_median: med(main),
      step_wall_ms_median: med(whole),
      step_main_cpu_ms_median: med(mainWhole),
      gradients_main_cpu_ms_median: med(mainWhole.map((x, i) => x - main[i])),
      load: +loadavg()[0].toFixed(1),
      weights_sha256: sha256Hex(bytes).slice(0, 16),
    }),
  );
}
