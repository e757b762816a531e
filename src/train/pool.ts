// A data-parallel pool of model replicas behind two calls, per-microbatch gradients and per-batch scores, both
// returned in input order whatever the worker count. The calling thread is worker 0 and computes its own share.
// Not threads: the replicas (src/node/pool.ts over worker_threads, later Web Workers) implement `Replicas`.
import { parameterCount, type ModelConfig } from "../model/config.ts";
import type { ScoredBatch } from "../model/input.ts";
import type { RngState } from "../util/primitives/rng.ts";
import { shares, writeWeights, type Job, type Reply, type WeightLayout, type WorkerMemory } from "./pool_protocol.ts";
import type { MicrobatchGradient } from "./trainer.ts";

/**
 * Most workers a pool takes, this thread included. Each is a thread with its own engine and model copy, and
 * beyond the cores a thread only waits its turn while its memory still counts (docs/benchmarks.md).
 */
export const MAX_WORKERS = 16;

/** Workers 1..count: each holds an engine and a model copy, reads `weights` at each job, replies once per job. */
export interface Replicas {
  readonly count: number;
  /** Shared float32 weights in `layout` order, written before each job is sent. */
  readonly weights: Float32Array;
  readonly layout: WeightLayout;
  send(worker: number, job: Job): void;
  /** Block until `worker`'s reply to its last job. */
  receive(worker: number): Reply;
  /** Stop every worker; idempotent. */
  close(): void;
}

/** A microbatch with the dropout stream's state at its start (null when the model has no dropout). */
export interface GradientItem {
  batch: ScoredBatch;
  dropout: RngState | null;
}

export class WorkerPool {
  private closed = false;
  /** How many times the shared weights were written, and what the last scoring call said they stand for. */
  private written = 0;
  private writtenFor: object | undefined;

  constructor(private readonly replicas: Replicas | null) {}

  /** Workers, the calling thread included. */
  get size(): number {
    return 1 + (this.replicas?.count ?? 0);
  }

  /** Per-microbatch Σ-NLL gradients, in item order, at `weights` (parameter order). */
  gradients(
    weights: readonly ArrayLike<number>[],
    items: readonly GradientItem[],
    local: (item: GradientItem) => MicrobatchGradient,
  ): MicrobatchGradient[] {
    return this.map(
      weights,
      items,
      local,
      (idx, held) => ({ kind: "gradients", weights: held, items: idx.map((i) => ({ index: i, ...items[i] })) }),
      (r) => {
        if (r.kind !== "gradients") return undefined;
        return r.items.map(({ index, grads, lossSum, count }) => [index, { grads, lossSum, count }] as const);
      },
    );
  }

  /**
   * −ln p per position of each batch (as ScoringModel.positionNll), in batch order, at `weights`. `same` stands for
   * these weights' values: passing the object this pool was last given promises that nothing changed them since,
   * so the shared buffer and the workers' copies are not written again (a validation pass scores call after call
   * at one set of weights).
   */
  scores(
    weights: readonly ArrayLike<number>[],
    batches: readonly ScoredBatch[],
    local: (batch: ScoredBatch) => Float64Array,
    same?: object,
  ): Float64Array[] {
    return this.map(
      weights,
      batches,
      local,
      (idx, held) => ({ kind: "scores", weights: held, items: idx.map((i) => ({ index: i, batch: batches[i] })) }),
      (r) => {
        if (r.kind !== "scores") return undefined;
        return r.items.map(({ index, nll }) => [index, nll] as const);
      },
      same,
    );
  }

  /** Engine memory of each remote worker, worker 1 first (tests: no growth over many updates). */
  memory(): WorkerMemory[] {
    const r = this.live();
    if (!r) return [];
    const out: WorkerMemory[] = [];
    for (let w = 1; w <= r.count; w++) r.send(w, { kind: "memory" });
    for (let w = 1; w <= r.count; w++) {
      const reply = this.expect(r, w);
      if (reply.kind !== "memory") throw this.fail(`worker ${w} answered a memory query with "${reply.kind}"`);
      out.push({ numTensors: reply.numTensors, wasmBytes: reply.wasmBytes });
    }
    return out;
  }

  close(): void {
    this.closed = true;
    this.replicas?.close();
  }

  private live(): Replicas | null {
    if (this.closed) throw new Error("the worker pool is closed (an earlier error or the end of the run shut it down)");
    return this.replicas;
  }

  private fail(message: string): Error {
    this.close();
    return new Error(message);
  }

  private expect(r: Replicas, w: number): Reply {
    const reply = r.receive(w);
    if (reply.kind === "error") throw this.fail(`worker ${w}: ${reply.message}`);
    return reply;
  }

  /**
   * Items i go to worker i mod N; this thread computes its own share while the others run, then each reply is
   * placed by item index, so the output order is the input order. Any error closes the pool and reaches the caller.
   * The weights are written unless `same` is what the last write stood for; each job names the write it reads.
   */
  private map<I, O>(
    weights: readonly ArrayLike<number>[],
    items: readonly I[],
    local: (item: I) => O,
    job: (indices: number[], written: number) => Job,
    unpack: (r: Reply) => (readonly [number, O])[] | undefined,
    same?: object,
  ): O[] {
    const r = this.live();
    if (!r || r.count === 0) return items.map(local);
    const parts = shares(items.length, this.size);
    if (same === undefined || same !== this.writtenFor) {
      this.writtenFor = undefined; // a write that throws halfway leaves nothing to promise
      writeWeights(r.weights, r.layout, weights);
      this.written++;
      this.writtenFor = same;
    }
    for (let w = 1; w < parts.length; w++) if (parts[w].length > 0) r.send(w, job(parts[w], this.written));
    const out: (O | undefined)[] = new Array(items.length);
    try {
      for (const i of parts[0]) out[i] = local(items[i]);
    } catch (err) {
      this.close(); // the others are still computing: stopping them is the only way to leave the pool consistent
      throw err;
    }
    for (let w = 1; w < parts.length; w++) {
      if (parts[w].length === 0) continue;
      const got = unpack(this.expect(r, w));
      if (!got || got.length !== parts[w].length)
        throw this.fail(`worker ${w} replied with ${got?.length ?? "no"} results for ${parts[w].length} items`);
      for (const [index, o] of got) {
        if (!parts[w].includes(index)) throw this.fail(`worker ${w} replied for item ${index}, which it was not given`);
        out[index] = o;
      }
    }
    return out as O[];
  }
}

/**
 * Opens a pool of `workers` (≥ 1, the calling thread included) for models of `config`: on Node, threads
 * (src/node/pool.ts); `thisThread` anywhere. `cores` is what the default count starts from. Recipes take
 * an opener, so they stay free of any thread API (the lab page runs them in a Web Worker).
 */
export interface PoolOpener {
  (workers: number, config: ModelConfig): WorkerPool;
  readonly cores: number;
}

/** The opener that starts nothing: this thread alone, whatever count is asked (the pool's size says 1). */
export const thisThread: PoolOpener = Object.assign(() => new WorkerPool(null), { cores: 1 });

/**
 * Below this much work per row (parameters × context, proportional to a row's multiply-adds) a thread's hand-off
 * costs more than it saves: on 2 cores the overfit model (2,808 × 8) runs slower on 2 threads than on 1, while the
 * medium config (875,264 × 128) runs faster. Only the default
 * count uses it: an explicit --workers is always honoured (and the result is the same bit for bit either way).
 */
export const MIN_THREAD_WORK = 1_000_000;

/** Is a row of this model enough work (parameters × context ≥ MIN_THREAD_WORK) for a second thread to pay? */
export const paysForThreads = (config: ModelConfig): boolean => parameterCount(config) * config.contextLength >= MIN_THREAD_WORK;

/** Workers a run uses: an asked count capped by the items one call can split; none asked: the cores (capped), or 1 for a model too small to pay for a thread. */
export function workersFor(asked: number | undefined, cores: number, perCall: number, config: ModelConfig): number {
  if (asked !== undefined) return cappedWorkers(asked, perCall);
  return paysForThreads(config) ? cappedWorkers(cores, perCall) : 1;
}

/** The asked count capped by the items one call can split (microbatches per update, batches scored). */
export const cappedWorkers = (asked: number, perCall: number): number => Math.max(1, Math.min(asked, perCall));

/** Run `f` on a pool from `open` (`workersFor` decides its size) and close the pool when `f` returns, throws or (for an async `f`) settles. */
export function withPool<T>(
  open: PoolOpener,
  asked: number | undefined,
  perCall: number,
  config: ModelConfig,
  f: (pool: WorkerPool) => T,
): T {
  const pool = open(workersFor(asked, open.cores, perCall, config), config);
  let later = false;
  try {
    const out = f(pool);
    if (out instanceof Promise) {
      later = true;
      return out.finally(() => pool.close()) as T;
    }
    return out;
  } finally {
    if (!later) pool.close();
  }
}
