// Benchmark: median ms per training step (forward, backward, clip, AdamW), training and forward-only scoring
// tokens/s (and scoring's process CPU ms per call, all threads) and kernel dispatches per step, for the tiny,
// medium, large and xl configs (the last three the PyTorch peer's) on each backend. Prints JSON; not a test.
// Every result line names its engine (backend and who computes the matrix products: tfjs or onnxruntime) and
// who scores: onnxruntime kernels score through the whole ONNX graph; onnxruntime-products keeps scoring on tfjs
// with native products (the comparison the graph has to win, not a choice the CLI offers). `gradients` names who
// computed the training gradients in that line: onnxruntime-graph (the whole step as one ONNX graph) or tfjs.
// cpu_ms_per_step is the median CPU time of a step over every thread of the process (workers included).
// Usage: npx tsx bench/step.ts [--backends wasm,cpu] [--kernels tfjs,onnxruntime,onnxruntime-products] [--configs tiny,medium,large,xl] [--steps N] [--workers 1] [--microbatches N] [--gradcheck]
//        npx tsx bench/step.ts --profile [--configs medium]   one step's kernels: calls and ms per kernel name
//        npx tsx bench/step.ts --against DIR [--pairs N] ...   this tree and the checkout DIR in interleaved pairs
//        (each side in its own process, alternating), with the ratio this/DIR pair by pair
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { peerConfigs } from "./configs.ts";
import { forwardFlopsPerToken, trainFlopsPerToken } from "./flops.ts";

const { values } = parseArgs({
  options: {
    backends: { type: "string", default: "wasm,cpu" },
    kernels: { type: "string", default: "tfjs" },
    configs: { type: "string", default: "tiny,medium" },
    steps: { type: "string", default: "" },
    workers: { type: "string", default: "1" },
    microbatches: { type: "string", default: "" },
    gradcheck: { type: "boolean", default: false },
    profile: { type: "boolean", default: false },
    against: { type: "string" },
    pairs: { type: "string", default: "3" },
    src: { type: "string", default: resolve(import.meta.dirname, "..") },
  },
});

function positiveInt(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got "${text}"`);
  return n;
}
const workers = positiveInt("workers", values.workers!);
// an update's rows as this many microbatches (default: one per worker), each worker taking its share in turn
const microbatches = values.microbatches ? positiveInt("microbatches", values.microbatches) : workers;
// the worker pool lands separately (bench/pool.ts); until it is wired here only one worker is meaningful
const stepsArg = values.steps ? positiveInt("steps", values.steps) : undefined;
const BENCH_KERNELS = ["tfjs", "onnxruntime", "onnxruntime-products"];
for (const k of values.kernels!.split(","))
  if (!BENCH_KERNELS.includes(k)) throw new Error(`--kernels: unknown kernels "${k}" (known: ${BENCH_KERNELS.join(", ")})`);
const BENCH_CONFIGS = ["tiny", "medium", "large", "xl"];
for (const c of values.configs!.split(","))
  if (!BENCH_CONFIGS.includes(c)) throw new Error(`--configs: unknown config "${c}" (known: ${BENCH_CONFIGS.join(", ")})`);

if (values.against) {
  interleave(resolve(values.against), positiveInt("pairs", values.pairs!));
} else {
  await benchHere(values.src!);
}

/** Alternate child processes of this tree and `other` (this one first), printing each pair's ratio as it lands. */
function interleave(other: string, pairs: number) {
  const here = resolve(import.meta.dirname, "..");
  const args = [
    "--backends",
    values.backends!,
    "--kernels",
    values.kernels!,
    "--configs",
    values.configs!,
    "--workers",
    values.workers!,
    ...(values.microbatches ? ["--microbatches", values.microbatches] : []),
    ...(stepsArg ? ["--steps", String(stepsArg)] : []),
  ];
  const runOnce = (src: string) => {
    // the script always comes from this tree; --src says which tree's src/ it imports
    const r = spawnSync(process.execPath, ["--import", "tsx", resolve(here, "bench/step.ts"), ...args, "--src", src], {
      encoding: "utf8",
      cwd: here,
    });
    if (r.status !== 0) throw new Error(`bench child for ${src} failed: ${r.stderr.trim().split("\n").slice(-3).join(" / ")}`);
    return JSON.parse(r.stdout).results as Record<string, number | string>[];
  };
  const all: unknown[] = [];
  for (let p = 0; p < pairs; p++) {
    const [a, b] = [runOnce(here), runOnce(other)];
    a.forEach((ra, i) => {
      const rb = b[i];
      const row = {
        pair: p + 1,
        backend: ra.backend,
        kernels: ra.kernels,
        engine: ra.engine,
        config: ra.config,
        ms_this: ra.ms_per_step,
        ms_other: rb.ms_per_step,
        step_ratio: +((ra.ms_per_step as number) / (rb.ms_per_step as number)).toFixed(3),
        cpu_ms_this: ra.cpu_ms_per_step,
        cpu_ms_other: rb.cpu_ms_per_step,
        cpu_ratio: +((ra.cpu_ms_per_step as number) / (rb.cpu_ms_per_step as number)).toFixed(3),
        load: +loadavg()[0].toFixed(1),
        eval_tokens_per_s_this: ra.eval_tokens_per_s,
        eval_tokens_per_s_other: rb.eval_tokens_per_s,
        eval_time_ratio: +((rb.eval_tokens_per_s as number) / (ra.eval_tokens_per_s as number)).toFixed(3),
        eval_cpu_ms_this: ra.eval_cpu_ms,
        eval_cpu_ms_other: rb.eval_cpu_ms,
        eval_cpu_ratio: +((ra.eval_cpu_ms as number) / (rb.eval_cpu_ms as number)).toFixed(3),
        kernel_calls_this: ra.kernel_calls_per_step,
        kernel_calls_other: rb.kernel_calls_per_step,
        same_weights: ra.weights_sha256 === rb.weights_sha256,
        same_eval_nll: ra.eval_nll_sum === rb.eval_nll_sum,
      };
      console.error(JSON.stringify(row));
      all.push(row);
    });
  }
  console.log(JSON.stringify({ this: here, other, pairs: all }, null, 2));
}

async function benchHere(src: string) {
  // every module of the measured tree is imported from `src`, so a second checkout can be measured by this script
  const mod = async <M>(path: string): Promise<M> => import(pathToFileURL(resolve(src, path)).href) as Promise<M>;
  // the Node edge's files sat in src/util and experiments/ in older trees
  const edge = (name: string, before: string) => (existsSync(resolve(src, `src/node/${name}`)) ? `src/node/${name}` : before);
  const backendModule = await mod<typeof import("../src/util/backend.ts")>("src/util/backend.ts");
  const { initBackend, readTensor, tf } = backendModule;
  const { Rng } = await mod<typeof import("../src/util/primitives/rng.ts")>("src/util/primitives/rng.ts");
  const { PRESETS, parameterCount } = await mod<typeof import("../src/model/config.ts")>("src/model/config.ts");
  const { positionNll } = await mod<typeof import("../src/model/loss.ts")>("src/model/loss.ts");
  const { EpochSource } = await mod<typeof import("../src/data/epoch_source.ts")>("src/data/epoch_source.ts");
  const { trainOptions } = await mod<typeof import("../src/lab/config.ts")>("src/lab/config.ts");
  const { Run } = await mod<typeof import("../src/lab/run.ts")>("src/lab/run.ts");
  const { startPool } =
    workers > 1 ? await mod<typeof import("../src/node/pool.ts")>(edge("pool.ts", "experiments/pool.ts")) : { startPool: undefined };
  // an older tree without the training graph trains on tfjs autograd
  const trainingGraph = existsSync(resolve(src, "src/model/graph_training.ts"))
    ? await mod<typeof import("../src/model/graph_training.ts")>("src/model/graph_training.ts")
    : undefined;
  const { decoderAdapter } = await mod<typeof import("../src/eval/passes/adapter.ts")>("src/eval/passes/adapter.ts");
  type ModelConfig = import("../src/model/config.ts").ModelConfig;
  type Batch = import("../src/data/batches.ts").Batch;
  type Rng = import("../src/util/primitives/rng.ts").Rng;

  const peer = peerConfigs(PRESETS.medium);
  const CONFIGS: Record<string, { config: ModelConfig; batch: number }> = {
    tiny: { config: PRESETS.overfit, batch: 2 },
    medium: { config: peer.medium, batch: 16 },
    large: { config: peer.large, batch: 8 },
    xl: { config: peer.xl, batch: 8 },
  };

  /** A batch of full rows of random tokens (as the peer's), one document per row. */
  function randomBatch(c: ModelConfig, rows: number, rng: Rng): Batch {
    const T = c.contextLength,
      n = rows * T;
    const ids = Int32Array.from({ length: n }, () => rng.int(c.vocabSize));
    const docIds = Int32Array.from({ length: n }, (_, i) => Math.floor(i / T));
    return {
      split: "train",
      binding: { vocabSize: c.vocabSize, contextLength: T },
      layout: "packed",
      input: { rows, cols: T, ids, docIds },
      targets: Int32Array.from({ length: n }, () => rng.int(c.vocabSize)),
      mask: new Float32Array(n).fill(1),
      targetCount: n,
      docIds: [],
    };
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  // Kernel dispatches are counted (and, with --profile, timed) by wrapping each registered kernel function of
  // the backend in place: no dataSync per kernel, as tf.profile does on wasm (it has no kernel timer).
  const kernelStats = new Map<string, { calls: number; ms: number }>();
  let timing = false;
  function wrapKernels(backend: string) {
    for (const k of tf.getKernelsForBackend(backend)) {
      const cfg = tf.getKernel(k.kernelName, backend) as { kernelFunc: (...a: unknown[]) => unknown } | undefined;
      if (!cfg || (cfg.kernelFunc as { wrapped?: boolean }).wrapped) continue;
      const f = cfg.kernelFunc;
      const stat = { calls: 0, ms: 0 };
      kernelStats.set(k.kernelName, stat);
      const w = (...a: unknown[]) => {
        stat.calls++;
        if (!timing) return f(...a);
        const t0 = performance.now();
        try {
          return f(...a);
        } finally {
          stat.ms += performance.now() - t0;
        }
      };
      (w as { wrapped?: boolean }).wrapped = true;
      cfg.kernelFunc = w;
    }
  }
  const totalCalls = () => [...kernelStats.values()].reduce((n, s) => n + s.calls, 0);
  const resetStats = () => kernelStats.forEach((s) => ((s.calls = 0), (s.ms = 0)));

  function benchConfig(name: string, steps: number, engine: import("../src/util/engine.ts").Engine) {
    const { config, batch } = CONFIGS[name];
    const rng = Rng.fromSeed(1);
    const batches = [0, 1, 2].map(() => randomBatch(config, batch, rng));
    // an update's rows are M microbatches of batch/M rows (by default M = the workers: one each), scored the same way;
    // more microbatches than workers hold fewer rows' activations at once, for more calls
    const M = microbatches;
    if (batch % M !== 0 || M % workers !== 0)
      throw new Error(
        `--microbatches ${M}: the ${name} batch of ${batch} rows does not split into ${M} microbatches shared evenly by ${workers} workers`,
      );
    const parts = (b: Batch): Batch[] =>
      M === 1 ? [b] : Array.from({ length: M }, (_, i) => randomBatch(config, batch / M, Rng.fromSeed(1000 * i + b.targets[0])));
    const micro = batches.flatMap(parts);
    const pool = startPool?.(workers, config, engine);
    // the lab's run (seed 1: init from the "init" stream), cycling over three fixed random batches
    const graphRuns = trainingGraph?.graphGradientRuns() ?? 0;
    const run = Run.create(
      {
        config,
        options: trainOptions({ seed: 1, lr: 1e-3, microbatchesPerUpdate: M, data: "random tokens" }),
        tokenizer: null,
        data: () => new EpochSource(micro, M),
        engine,
      },
      undefined,
      pool,
    );
    const adapter = decoderAdapter(run.model, { pool });
    const model = run.model;
    const times: number[] = [];
    let calls = 0,
      firstUpdateS = 0;
    const cpuTimes: number[] = [];
    for (let s = 0; s < steps + 2; s++) {
      resetStats();
      const t0 = performance.now(),
        c0 = process.cpuUsage();
      run.update();
      // CPU of every thread of the process (the pool's workers included): what a loaded machine disturbs least
      const cpu = process.cpuUsage(c0);
      if (s >= 2) cpuTimes.push((cpu.user + cpu.system) / 1000);
      // from the process's start: modules, engine, pool, model, then the first update with its graph sessions
      if (s === 0) firstUpdateS = process.uptime();
      if (s >= 2) times.push(performance.now() - t0); // two warm-up steps compile kernels
      calls = totalCalls();
    }
    // the weights after the timed updates: equal digests mean two kernel variants computed the same numbers
    // (of their bytes in parameter order, one parameter at a time: a model-sized copy here would sit in this
    // process's peak RSS, which bench/scale.sh compares with the peer's)
    const hash = createHash("sha256");
    for (const v of model.params.values()) {
      const w = v.dataSync() as Float32Array;
      hash.update(new Uint8Array(w.buffer, w.byteOffset, w.byteLength));
    }
    const weightsSha256 = hash.digest("hex").slice(0, 16);
    const evalTimes: number[] = [],
      evalCpu: number[] = [];
    let evalNll = 0,
      evalFirstMs = 0;
    // through the adapter, as evaluation scores: on onnxruntime kernels the first call also builds the graph's session
    for (let s = 0; s < Math.max(3, Math.min(steps, 10)) + 1; s++) {
      const t0 = performance.now(),
        c0 = process.cpuUsage();
      const nll: number[] =
        workers === 1
          ? [...adapter.positionNll(batches[s % 3])]
          : adapter.positionNlls!(micro.slice((s % 3) * M, ((s % 3) + 1) * M)).flatMap((x) => [...x]);
      if (s === 0) evalNll = nll.reduce((t: number, x: number) => t + x, 0); // float64 sum of float32 NLLs, in position order
      if (s === 0) evalFirstMs = performance.now() - t0;
      if (s >= 1) evalTimes.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      if (s >= 1) evalCpu.push((c.user + c.system) / 1000);
    }
    // the calling thread computes its share with every worker count: any graph run means the graph path ran
    const gradients = (trainingGraph?.graphGradientRuns() ?? 0) > graphRuns ? "onnxruntime-graph" : "tfjs";
    let profile: unknown, evalProfile: unknown;
    if (values.profile) {
      // one more update, then one more scoring forward, with every kernel timed
      const timed = (f: () => void) => {
        resetStats();
        timing = true;
        const t0 = performance.now();
        f();
        const wall = performance.now() - t0;
        timing = false;
        const rows = [...kernelStats].filter(([, s]) => s.calls > 0).sort((a, b) => b[1].ms - a[1].ms);
        const kernelMs = rows.reduce((t, [, s]) => t + s.ms, 0);
        return {
          step_ms: +wall.toFixed(1),
          kernel_ms: +kernelMs.toFixed(1),
          outside_kernels_ms: +(wall - kernelMs).toFixed(1),
          kernels: rows.map(([k, s]) => ({ kernel: k, calls: s.calls, ms: +s.ms.toFixed(2), share: +(s.ms / wall).toFixed(3) })),
        };
      };
      profile = timed(() => run.update());
      evalProfile = timed(() => readTensor(() => positionNll(model.forward(batches[0].input), batches[0].targets)));
    }
    run.dispose();
    pool?.close();
    const tokens = batch * config.contextLength;
    const ms = median(times),
      evalMs = median(evalTimes);
    const trainRate = (tokens / ms) * 1000,
      evalRate = (tokens / evalMs) * 1000; // tokens/s
    return {
      config: name,
      gradients,
      parameters: parameterCount(config),
      batch,
      ms_per_step: +ms.toFixed(3),
      cpu_ms_per_step: +median(cpuTimes).toFixed(1),
      train_tokens_per_s: Math.round(trainRate),
      // the products' rate (bench/flops.ts): the work a step's tokens take, whoever computes it, over its time
      train_gflop_s: +((trainRate * trainFlopsPerToken(config)) / 1e9).toFixed(1),
      eval_ms: +evalMs.toFixed(3),
      eval_first_ms: +evalFirstMs.toFixed(3),
      eval_tokens_per_s: Math.round(evalRate),
      eval_gflop_s: +((evalRate * forwardFlopsPerToken(config)) / 1e9).toFixed(1),
      forward_flops_per_token: forwardFlopsPerToken(config),
      // the process's CPU time (every thread) per scoring call: what a loaded machine disturbs least
      eval_cpu_ms: +median(evalCpu).toFixed(3),
      kernel_calls_per_step: calls,
      steps: times.length,
      first_update_s: +firstUpdateS.toFixed(2),
      weights_sha256: weightsSha256,
      eval_nll_sum: evalNll,
      ...(profile ? { profile, eval_profile: evalProfile } : {}),
    };
  }

  // a tree without native kernels (an older checkout) can still be measured on tfjs's
  const openKernels = async (kernels: string, base: import("../src/util/engine.ts").Engine) => {
    const native = edge("native_kernels.ts", "src/util/native_kernels.ts");
    if (kernels === "tfjs" && !existsSync(resolve(src, native))) return base;
    const engine = (await mod<typeof import("../src/node/native_kernels.ts")>(native)).openKernels(
      kernels === "tfjs" ? "tfjs" : "onnxruntime",
    );
    // a tree whose graph builders load with the engine (src/model/graph_builders.ts): loaded as its openEngine would
    if (engine.graphs && existsSync(resolve(src, "src/model/graph_builders.ts")))
      await (await mod<typeof import("../src/model/graph_builders.ts")>("src/model/graph_builders.ts")).loadGraphBuilders();
    // products only: the engine without its graphs, so scoring stays on tfjs's forward
    return kernels === "onnxruntime-products" ? { ...engine, graphs: undefined } : engine;
  };
  const results: Record<string, unknown>[] = [];
  for (const backend of values.backends!.split(",")) {
    for (const kernels of backend === "wasm" ? values.kernels!.split(",") : ["tfjs"]) {
      const info = await initBackend(backend as Parameters<typeof initBackend>[0]);
      const opened = await openKernels(kernels, info);
      wrapKernels(info.backend);
      const engine = {
        backend: info.backend,
        kernels,
        scoring: opened.graphs ? "onnxruntime-graph" : "tfjs",
        engine: kernels === "tfjs" ? info.backend : `${info.backend}+${kernels}`,
      };
      for (const name of values.configs!.split(",")) {
        // the cpu backend is far slower on medium: fewer steps there
        const steps = stepsArg ?? (name === "tiny" ? 300 : backend === "cpu" ? 3 : name === "medium" ? 10 : 5);
        results.push({ ...engine, workers, microbatches, ...benchConfig(name, steps, opened) });
        console.error(JSON.stringify({ ...results[results.length - 1], profile: undefined, eval_profile: undefined }));
      }
      if (values.gradcheck) {
        const { runGradcheck } = await mod<typeof import("../experiments/gradcheck.ts")>("experiments/gradcheck.ts");
        const t0 = performance.now();
        const report = runGradcheck("overfit", undefined, opened);
        results.push({ ...engine, gradcheck_overfit_seconds: +((performance.now() - t0) / 1000).toFixed(2), passed: report.passed });
      }
    }
  }
  console.log(JSON.stringify({ results, src, tfjs: tf.version_core, node: process.version }, null, 2));
}
