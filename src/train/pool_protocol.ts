// The worker pool's protocol, pure so a Node worker_threads pool and a browser Web Worker pool share it: the
// assignment rule, the shared weight layout, and the job and reply messages. Not threads (src/node/pool.ts).
import type { ModelConfig } from "../model/config.ts";
import type { ScoredBatch } from "../model/input.ts";
import type { RngState } from "../util/primitives/rng.ts";
import type { EngineRecord } from "../util/engine.ts";
import type { StepConstants } from "./adamw_update.ts";

/** Worker of item `index` among `workers` (worker 0 is the calling thread): round robin, fixed by the inputs. */
export const workerOf = (index: number, workers: number): number => index % workers;

/** Item indices per worker, each list ascending. */
export function shares(count: number, workers: number): number[][] {
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`a pool needs a positive integer number of workers, got ${workers}`);
  const out: number[][] = Array.from({ length: workers }, () => []);
  for (let i = 0; i < count; i++) out[workerOf(i, workers)].push(i);
  return out;
}

/** Where each parameter lives in the shared float32 weight buffer: parameter order, packed end to end. */
export interface WeightLayout {
  names: string[];
  sizes: number[];
  offsets: number[];
  total: number;
}

export function weightLayout(entries: readonly (readonly [string, number])[]): WeightLayout {
  const offsets: number[] = [];
  let total = 0;
  for (const [, size] of entries) {
    offsets.push(total);
    total += size;
  }
  return { names: entries.map(([n]) => n), sizes: entries.map(([, s]) => s), offsets, total };
}

/**
 * Parameter i's values in an array packed in layout order (weights, moments), or in block `k` of an array holding
 * several such blocks one after another (an update's per-microbatch gradients): a view, not a copy.
 */
export const paramView = (packed: Float32Array, layout: WeightLayout, i: number, k = 0): Float32Array =>
  packed.subarray(k * layout.total + layout.offsets[i], k * layout.total + layout.offsets[i] + layout.sizes[i]);

/** Copy weights (parameter order) into the shared view. */
export function writeWeights(view: Float32Array, layout: WeightLayout, weights: readonly ArrayLike<number>[]): void {
  if (weights.length !== layout.names.length) throw new Error(`${weights.length} weight arrays for ${layout.names.length} parameters`);
  weights.forEach((w, i) => {
    if (w.length !== layout.sizes[i])
      throw new Error(`parameter "${layout.names[i]}" has ${w.length} values, the pool expects ${layout.sizes[i]}`);
    // an array that is already this parameter's place in the buffer (the optimizer's weights as the update left them)
    if (w instanceof Float32Array && w.buffer === view.buffer && w.byteOffset === view.byteOffset + 4 * layout.offsets[i]) return;
    view.set(w, layout.offsets[i]);
  });
}

/** Named copies out of the shared view (copies: the buffer is overwritten at the next update). */
export function readWeights(view: Float32Array, layout: WeightLayout): Map<string, Float32Array> {
  return new Map(layout.names.map((n, i) => [n, paramView(view, layout, i).slice()]));
}

/** What a worker is started with (once per pool). */
export interface WorkerInit {
  config: ModelConfig;
  layout: WeightLayout;
  /** Float32 weights, `layout.total` of them, written by the calling thread before each job. */
  weights: SharedArrayBuffer;
  /** The calling thread's engine (its backend and who multiplies): each replica opens the same one. */
  engine: EngineRecord;
}

/**
 * The update's shared buffers (gradient terms, AdamW's moments), each sent with a job only when it is not the one
 * this worker was last sent: a worker keeps what it was sent (a buffer received anew is a new object to its heap).
 */
export interface SharedBuffers {
  terms?: SharedArrayBuffer;
  m?: SharedArrayBuffer;
  v?: SharedArrayBuffer;
}

/**
 * An owner's part of an update (src/train/shard_passes.ts): its parameters (by index) over the terms of the last
 * gradients job's `count` microbatches, the moments and the weights in shared memory.
 */
export interface ShardJob extends SharedBuffers {
  params: number[];
  count: number;
}

/**
 * A job for one worker: its share of an update's microbatches or of a scoring call, by item index, at the weights
 * of the caller's `weights`-th write to the shared buffer (a worker re-reads them only when that number moved).
 * A gradients job writes microbatch `index`'s gradients into `terms` at index·layout.total (layout order); the
 * owners' jobs then sum, check and apply them where they lie.
 */
export type Job =
  | ({
      kind: "gradients";
      weights: number;
      items: { index: number; batch: ScoredBatch; dropout: RngState | null }[];
    } & SharedBuffers)
  | { kind: "scores"; weights: number; items: { index: number; batch: ScoredBatch }[] }
  | ({ kind: "squares" } & ShardJob)
  | ({ kind: "check"; k: StepConstants; decays: number[] } & ShardJob)
  | ({ kind: "update"; k: StepConstants; decays: number[] } & ShardJob)
  | { kind: "memory" };

/** Engine memory of a worker: live tensors, and the wasm heap size when the backend has one (else null). */
export interface WorkerMemory {
  numTensors: number;
  wasmBytes: number | null;
}

export type Reply =
  | { kind: "gradients"; items: { index: number; lossSum: number; count: number }[] }
  | { kind: "squares"; values: { squares: number; maxAbs: number }[] }
  | { kind: "check"; bad: [number, number, number][] }
  | { kind: "update"; wMax: number[]; mMax: number; vMax: number }
  | { kind: "scores"; items: { index: number; nll: Float64Array }[] }
  | ({ kind: "memory" } & WorkerMemory)
  | { kind: "ready" }
  | { kind: "error"; message: string };

/** Shared Int32 slots per worker w: [2w] counts replies posted (waited on), [2w + 1] is 1 once the worker has exited. */
export const SIGNAL_SLOTS = 2;
