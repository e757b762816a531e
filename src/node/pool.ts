// The worker pool on Node: `workers − 1` worker_threads replicas (src/node/pool_worker.ts, compiled or through
// tsx) behind src/train/pool.ts, the calling thread blocking on Atomics.wait for replies so training stays
// synchronous. Not the protocol (src/train/pool_protocol.ts) nor the assignment or reduction (src/train/pool.ts).
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import type { ModelConfig } from "../model/config.ts";
import { parameterShapes } from "../model/config.ts";
import { MAX_WORKERS, WorkerPool, type PoolOpener, type Replicas } from "../train/pool.ts";
import { engineRecord, type EngineRecord } from "../util/engine.ts";
import { SIGNAL_SLOTS, weightLayout, type Job, type Reply, type WorkerInit } from "../train/pool_protocol.ts";

// Compiled (dist/src/node/pool.js), the worker is its compiled sibling. From source, the worker runs the
// compiled copy when bin/fresh.js finds it current, else the source through tsx (whose loader slows each thread's start).
const COMPILED = !import.meta.url.endsWith(".ts");
const ENTRY = new URL(COMPILED ? "./pool_worker.js" : "./pool_worker.ts", import.meta.url).href;
const FRESH = new URL("../../bin/fresh.js", import.meta.url).href;
const BUILT_ENTRY = new URL("../../dist/src/node/pool_worker.js", import.meta.url).href;
// tsx's ESM api by file (its CommonJS build mis-resolves its own loader when imported from a worker)
const TSX = pathToFileURL(join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/esm/api/index.mjs")).href;
const LOAD = COMPILED
  ? `import(${JSON.stringify(ENTRY)})`
  : `import(${JSON.stringify(FRESH)}).then((b) => b.isFresh() ? import(${JSON.stringify(BUILT_ENTRY)})
      : import(${JSON.stringify(TSX)}).then((m) => { m.register(); return import(${JSON.stringify(ENTRY)}); }))`;

// Loads the entry; a failure to load is posted as an error reply, and the thread's exit is flagged in shared
// memory, so the caller never waits on a thread that is gone.
const BOOT = `
const { workerData } = require("node:worker_threads");
const { port, signal, index } = workerData;
const bump = () => { Atomics.add(signal, ${SIGNAL_SLOTS} * index, 1); Atomics.notify(signal, ${SIGNAL_SLOTS} * index); };
process.on("exit", () => { Atomics.store(signal, ${SIGNAL_SLOTS} * index + 1, 1); bump(); });
${LOAD}
  .catch((err) => { port.postMessage({ kind: "error", message: "could not start: " + (err && err.stack || err) }); bump(); });
`;

class ThreadReplicas implements Replicas {
  readonly weights: Float32Array;
  readonly layout;
  private readonly signal: Int32Array;
  private readonly threads: { worker: Worker; port: MessagePort }[] = [];
  private closed = false;

  constructor(
    readonly count: number,
    config: ModelConfig,
    engine: EngineRecord,
  ) {
    this.layout = weightLayout(parameterShapes(config).map(([n, shape]) => [n, shape.reduce((a, b) => a * b, 1)] as const));
    const shared = new SharedArrayBuffer(4 * this.layout.total);
    this.weights = new Float32Array(shared);
    this.signal = new Int32Array(new SharedArrayBuffer(4 * SIGNAL_SLOTS * (count + 1)));
    const init: WorkerInit = { config, layout: this.layout, weights: shared, engine: engineRecord(engine) };
    for (let w = 1; w <= count; w++) {
      const { port1, port2 } = new MessageChannel();
      const worker = new Worker(BOOT, {
        eval: true,
        workerData: { init, port: port2, signal: this.signal, index: w },
        transferList: [port2],
      });
      worker.unref(); // a pool left open never keeps the process alive
      this.threads.push({ worker, port: port1 });
    }
  }

  send(w: number, job: Job): void {
    if (this.closed) throw new Error("the worker pool is closed");
    this.threads[w - 1].port.postMessage(job);
  }

  receive(w: number): Reply {
    const { port } = this.threads[w - 1];
    const at = SIGNAL_SLOTS * w;
    for (;;) {
      const seen = Atomics.load(this.signal, at);
      const got = receiveMessageOnPort(port);
      if (got) return got.message as Reply;
      if (Atomics.load(this.signal, at + 1) === 1) {
        const last = receiveMessageOnPort(port);
        return last ? (last.message as Reply) : { kind: "error", message: "its thread exited without replying" };
      }
      Atomics.wait(this.signal, at, seen, 1000);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const { worker, port } of this.threads) {
      port.close();
      void worker.terminate();
    }
  }
}

/**
 * A pool of `workers` (≥ 1; 1 is this thread alone) for models of `config` on `engine` (each replica opens the same),
 * each replica started and checked ready before this returns. Close it when the run ends (also on error).
 */
export function startPool(workers: number, config: ModelConfig, engine: EngineRecord): WorkerPool {
  if (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS)
    throw new Error(`--workers must be an integer in [1, ${MAX_WORKERS}] (MAX_WORKERS), got ${workers}`);
  if (workers === 1) return new WorkerPool(null);
  const replicas = new ThreadReplicas(workers - 1, config, engine);
  try {
    for (let w = 1; w < workers; w++) {
      const r = replicas.receive(w);
      if (r.kind !== "ready")
        throw new Error(`worker ${w}: ${r.kind === "error" ? r.message : `answered "${r.kind}" before it was ready`}`);
    }
  } catch (err) {
    replicas.close();
    throw err;
  }
  return new WorkerPool(replicas);
}

/** Pools of threads on `engine`: what the CLI hands to recipes that take a PoolOpener. */
export const threadPools = (engine: EngineRecord): PoolOpener =>
  Object.assign((workers: number, config: ModelConfig) => startPool(workers, config, engine), { cores: availableParallelism() });
