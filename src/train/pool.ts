// A data-parallel pool of model replicas behind two calls, per-microbatch gradients and per-batch scores, both
// returned in input order whatever the worker count. The calling thread is worker 0 and computes its own share.
// Not threads: the replicas (src/node/pool.ts over worker_threads, later Web Workers) implement `Replicas`.
import { parameterCount, type ModelConfig } from "../model/config.ts";
import type { ScoredBatch } from "../model/input.ts";
import type { RngState } from "../util/primitives/rng.ts";
import {
  paramView,
  shares,
  writeWeights,
  type Job,
  type Reply,
  type SharedBuffers,
  type WeightLayout,
  type WorkerMemory,
} from "./pool_protocol.ts";
import { ownedBy, ownerCheck, ownerSquares, ownerUpdate, owners, type ShardMemory } from "./shard_passes.ts";
import type { GradientShards, MicrobatchGradient, ProvidedGradients } from "./trainer.ts";

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
  /** Shared room for an update's per-microbatch gradients, and each parameter's owner (computed once). */
  private terms: Float32Array | undefined;
  private owner: number[] | undefined;
  /**
   * This thread's gradients of the last call, kept until the next: dropped as soon as copied, they made the next
   * training-graph run on this thread several times slower in CPU (bench/update.ts --workers 2), their memory handed
   * back by glibc and faulted in again (src/node/malloc_thresholds.ts, which now keeps freed memory, is the cure for
   * the runs' own output buffers; keeping these costs no more peak memory there, docs/benchmarks.md).
   */
  private readonly kept: { last: MicrobatchGradient[] } = { last: [] };
  /** The shared buffers each worker was last sent (it keeps them). */
  private sent: SharedBuffers[] = [];

  constructor(private readonly replicas: Replicas | null) {}

  /** Workers, the calling thread included. */
  get size(): number {
    return 1 + (this.replicas?.count ?? 0);
  }

  /**
   * Per-microbatch Σ-NLL gradients, in item order, at `weights` (parameter order). With other workers, each
   * microbatch's gradients are written into shared memory (the results' arrays are views of it, valid until the
   * next call) and left there for `shards`: each parameter's owner sums, checks and updates it where it lies.
   * `moments` are the optimizer's, packed in parameter order in shared memory (AdamW.moments()).
   */
  gradients(
    weights: readonly ArrayLike<number>[],
    items: readonly GradientItem[],
    local: (item: GradientItem) => MicrobatchGradient,
    moments: { m: Float32Array; v: Float32Array },
  ): ProvidedGradients {
    const r = this.live();
    if (!r || r.count === 0) return { results: items.map((item) => local(item)) };
    const { layout } = r;
    if (!(moments.m.buffer instanceof SharedArrayBuffer) || !(moments.v.buffer instanceof SharedArrayBuffer))
      throw new Error("the worker pool needs the optimizer's moments in shared memory");
    if (moments.m.length !== layout.total || moments.v.length !== layout.total)
      throw new Error(`the optimizer has ${moments.m.length} moments, the pool's model ${layout.total} parameters`);
    const terms = this.termsFor(items.length);
    const kept: MicrobatchGradient[] = [];
    const stored = this.map(
      weights,
      items,
      (item, index) => {
        const g = local(item);
        kept.push(g);
        if (g.grads.length !== layout.names.length)
          throw new Error(`gradients for ${g.grads.length} parameters, expected ${layout.names.length}`);
        g.grads.forEach((a, i) => {
          if (a.length !== layout.sizes[i])
            throw new Error(`gradient of "${layout.names[i]}" has ${a.length} values, expected ${layout.sizes[i]}`);
          paramView(terms, layout, i, index).set(a);
        });
        return { lossSum: g.lossSum, count: g.count };
      },
      (idx, held, w) => ({
        kind: "gradients",
        weights: held,
        ...this.unsent(w, { terms: terms.buffer as SharedArrayBuffer }),
        items: idx.map((i) => ({ index: i, ...items[i] })),
      }),
      (reply) => {
        if (reply.kind !== "gradients") return undefined;
        return reply.items.map(({ index, lossSum, count }) => [index, { lossSum, count }] as const);
      },
    );
    this.kept.last = kept;
    const mem: ShardMemory = { layout, weights: r.weights, terms, m: moments.m, v: moments.v };
    const results = stored.map(({ lossSum, count }, k) => ({
      lossSum,
      count,
      grads: layout.names.map((_, i) => paramView(terms, layout, i, k)),
    }));
    return { results, shards: this.shards(r, mem, items.length) };
  }

  /** Of `buffers`, those worker `w` was not last sent (recorded as sent). */
  private unsent(w: number, buffers: Required<SharedBuffers> | { terms: SharedArrayBuffer }): SharedBuffers {
    const had = (this.sent[w] ??= {});
    const out: SharedBuffers = {};
    for (const key of ["terms", "m", "v"] as const) {
      const b = (buffers as SharedBuffers)[key];
      if (b !== undefined && had[key] !== b) out[key] = had[key] = b;
    }
    return out;
  }

  /** Shared float32 room for `count` microbatches' gradients (grown, never shrunk). */
  private termsFor(count: number): Float32Array {
    const need = count * this.replicas!.layout.total;
    if (!this.terms || this.terms.length < need) this.terms = new Float32Array(new SharedArrayBuffer(4 * need));
    return this.terms;
  }

  /**
   * The owners of an update whose `count` microbatches' terms lie in `mem`: each worker runs shard_passes.ts on
   * the parameters `owners` gives it while this thread runs its own, and each result is placed by parameter index.
   * After the update the shared buffer holds the new weights, where the optimizer reads them (holdsWeights) or, given
   * arrays of its own (an engine whose tensors keep the arrays they are made from), copies them out.
   */
  private shards(r: Replicas, mem: ShardMemory, count: number): GradientShards {
    const { layout } = r;
    const params = ownedBy((this.owner ??= owners(layout.sizes, this.size)), this.size);
    const buffers = {
      terms: mem.terms.buffer as SharedArrayBuffer,
      m: mem.m.buffer as SharedArrayBuffer,
      v: mem.v.buffer as SharedArrayBuffer,
    };
    // each worker's values (one per parameter it owns) placed by parameter index
    const byParameter = <T>(perWorker: readonly (readonly T[] | undefined)[]): T[] => {
      const out = new Array<T>(layout.names.length);
      perWorker.forEach((values, w) => {
        if (params[w].length === 0) return;
        if (!values || values.length !== params[w].length)
          throw this.fail(`worker ${w} replied with ${values?.length ?? "no"} results for ${params[w].length} parameters`);
        params[w].forEach((i, j) => (out[i] = values[j]));
      });
      return out;
    };
    return {
      squaresAndMax: () =>
        byParameter(
          this.onOwners(
            params,
            (own, w) => ({ kind: "squares", count, ...this.unsent(w, buffers), params: own }),
            (own) => ownerSquares(mem, count, own),
            (reply) => (reply.kind === "squares" ? reply.values : undefined),
          ),
        ),
      check: (k) =>
        byParameter(
          this.onOwners(
            params,
            (own, w) => ({ kind: "check", count, ...this.unsent(w, buffers), params: own, k, decays: [...k.decays] }),
            (own) => ownerCheck(mem, count, own, k, k.decays),
            (reply) => (reply.kind === "check" ? reply.bad : undefined),
          ),
        ),
      update: (k, next) => {
        // the shared weights change under whatever the last write promised: every later job re-reads them
        this.writtenFor = undefined;
        this.written++;
        const done = this.onOwners(
          params,
          (own, w) => ({ kind: "update", count, ...this.unsent(w, buffers), params: own, k, decays: [...k.decays] }),
          (own) => ownerUpdate(mem, count, own, k, k.decays),
          (reply) => (reply.kind === "update" ? reply : undefined),
        );
        const wMax = byParameter(done.map((d) => d?.wMax));
        let mMax = 0,
          vMax = 0;
        for (const d of done) if (d) [mMax, vMax] = [Math.max(mMax, d.mMax), Math.max(vMax, d.vMax)];
        const weights = layout.names.map((_, i) => paramView(mem.weights, layout, i));
        if (next) weights.forEach((w, i) => next[i].set(w));
        return { wMax, mMax, vMax, weights: next ?? weights };
      },
      // the shared buffer holds the new weights until the next update or weights written for a job
      holdsWeights: true,
    };
  }

  /**
   * Worker w runs `job(params[w])` while this thread (worker 0) runs `local(params[0])`: each worker's result
   * (undefined for one that owns nothing). Any error closes the pool and reaches the caller.
   */
  private onOwners<T>(
    params: readonly number[][],
    job: (own: number[], worker: number) => Job,
    local: (own: number[]) => T,
    unpack: (r: Reply) => T | undefined,
  ): (T | undefined)[] {
    const r = this.live()!;
    for (let w = 1; w < params.length; w++) if (params[w].length > 0) r.send(w, job(params[w], w));
    const out: (T | undefined)[] = [];
    try {
      out.push(params[0].length > 0 ? local(params[0]) : undefined);
    } catch (err) {
      this.close(); // the others are still computing: stopping them is the only way to leave the pool consistent
      throw err;
    }
    for (let w = 1; w < params.length; w++) {
      if (params[w].length === 0) {
        out.push(undefined);
        continue;
      }
      const got = unpack(this.expect(r, w));
      if (got === undefined) throw this.fail(`worker ${w} answered an owner's job with another kind of reply`);
      out.push(got);
    }
    return out;
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
    local: (item: I, index: number) => O,
    job: (indices: number[], written: number, worker: number) => Job,
    unpack: (r: Reply) => (readonly [number, O])[] | undefined,
    same?: object,
  ): O[] {
    const r = this.live();
    if (!r || r.count === 0) return items.map((item, i) => local(item, i));
    const parts = shares(items.length, this.size);
    if (same === undefined || same !== this.writtenFor) {
      this.writtenFor = undefined; // a write that throws halfway leaves nothing to promise
      writeWeights(r.weights, r.layout, weights);
      this.written++;
      this.writtenFor = same;
    }
    for (let w = 1; w < parts.length; w++) if (parts[w].length > 0) r.send(w, job(parts[w], this.written, w));
    const out: (O | undefined)[] = new Array(items.length);
    try {
      for (const i of parts[0]) out[i] = local(items[i], i);
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
