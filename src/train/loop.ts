// A resumable training loop: updates from the optimizer's current step to a target, with a hook for saving state,
// over a data source whose position can be saved. Knows nothing about GPTs or files: the caller saves state.
import type { tf } from "../util/backend.ts";
import type { DataSource } from "../data/source.ts";
import type { Rng, RngState } from "../util/rng.ts";
import type { AdamW } from "./adamw.ts";
import { learningRate, type Schedule } from "./schedule.ts";
import { trainStep, type GradientProvider, type LossFn, type StepResult } from "./trainer.ts";

/** Defined in src/data/source.ts (data sits below train); re-exported as part of the loop's API. */
export type { DataSource };

export interface LoopArgs<B> {
  params: Map<string, tf.Variable>;
  lossFn: LossFn<B>;
  data: DataSource<B>;
  optimizer: AdamW;
  schedule: Schedule;
  clipNorm: number;
  /** Run until the optimizer has done this many updates in total. */
  updates: number;
  /** Call `onSave` after every `saveEvery` updates, and after the last one. */
  saveEvery?: number;
  onSave?: (step: number) => void;
  onUpdate?: (step: number, result: StepResult) => void;
  /** Who computes each update's per-microbatch gradients (default: this thread through `lossFn`). */
  gradients?: GradientProvider<B>;
}

/** The updates from the optimizer's step to `a.updates`, one per `next()`: the one loop both drivers below share. */
function* updatesOf<B>(a: LoopArgs<B>): Generator<number, void, void> {
  const from = a.optimizer.step;
  if (!Number.isInteger(a.updates) || a.updates < 1) throw new Error(`updates must be a positive integer, got ${a.updates}`);
  if (a.updates < from) throw new Error(`the optimizer is already at update ${from}, past the requested ${a.updates} updates`);
  const every = a.saveEvery ?? a.updates;
  if (!Number.isInteger(every) || every < 1) throw new Error(`save interval must be a positive integer, got ${every}`);
  for (let step = from + 1; step <= a.updates; step++) {
    const result = trainStep({ params: a.params, microbatches: a.data.next(), lossFn: a.lossFn, optimizer: a.optimizer, lr: learningRate(a.schedule, step), clipNorm: a.clipNorm, gradients: a.gradients });
    a.onUpdate?.(step, result);
    if (step % every === 0 || step === a.updates) a.onSave?.(step);
    yield step;
  }
}

/** Asked before each update with the updates done so far: true stops the loop there (between two whole updates). */
export type ShouldStop = (done: number) => boolean;

/**
 * Continue from `optimizer.step` (0 for a fresh run) to `updates`, or until `shouldStop` says so. Everything the
 * loop reads is in the optimizer, the data source and whatever the loss closure draws from, so a caller that saves
 * those in `onSave` and restores them can resume bit-identically. `to` is the last update done.
 */
export function trainLoop<B>(a: LoopArgs<B>, o: { shouldStop?: ShouldStop } = {}): { from: number; to: number; stopped: boolean } {
  const from = a.optimizer.step;
  if (o.shouldStop?.(from)) return { from, to: from, stopped: true };
  for (const step of updatesOf(a)) if (step < a.updates && o.shouldStop?.(step)) return { from, to: step, stopped: true };
  return { from, to: a.updates, stopped: false };
}

/** Hand control to the event loop (so signal handlers and timers run); setTimeout where setImmediate is absent. */
const yieldToEventLoop = (): Promise<void> => new Promise((r) => ((globalThis as { setImmediate?: (f: () => void) => void }).setImmediate ?? setTimeout)(r));

/**
 * The same loop, giving the event loop a turn at least every `yieldEveryMs` and stopping between two updates when
 * `shouldStop(updates done)` says so (e.g. after Ctrl-C). `to` is the last update done; every update is whole.
 */
export async function trainLoopAsync<B>(a: LoopArgs<B>, o: { shouldStop?: ShouldStop; yieldEveryMs?: number } = {}): Promise<{ from: number; to: number; stopped: boolean }> {
  const from = a.optimizer.step;
  const every = o.yieldEveryMs ?? 50;
  let last = performance.now();
  if (o.shouldStop?.(from)) return { from, to: from, stopped: true };
  for (const step of updatesOf(a)) {
    if (performance.now() - last >= every) {
      await yieldToEventLoop();
      last = performance.now();
    }
    if (step < a.updates && o.shouldStop?.(step)) return { from, to: step, stopped: true };
  }
  return { from, to: a.updates, stopped: false };
}

/** Position of an EpochSource: the epoch's order, how far into it, and the shuffling stream's state. */
export interface EpochCursor {
  epoch: number;
  position: number;
  order: number[];
  rng: RngState | null;
}

/**
 * Walks a fixed list of microbatches epoch by epoch, `perUpdate` at a time (an update may straddle two
 * epochs). With an Rng each epoch is a fresh shuffle; without one the order is the list's.
 */
export class EpochSource<B> implements DataSource<B, EpochCursor> {
  private epoch = 0;
  private position = 0;
  private order: number[];

  constructor(private readonly items: readonly B[], readonly perUpdate: number, private readonly rng?: Rng) {
    if (items.length === 0) throw new Error("a data source needs at least one microbatch");
    if (!Number.isInteger(perUpdate) || perUpdate < 1) throw new Error(`microbatches per update must be a positive integer, got ${perUpdate}`);
    this.order = this.newOrder();
  }

  private newOrder(): number[] {
    const identity = this.items.map((_, i) => i);
    return this.rng ? this.rng.shuffle(identity) : identity;
  }

  next(): B[] {
    const out: B[] = [];
    while (out.length < this.perUpdate) {
      if (this.position === this.order.length) {
        this.epoch += 1;
        this.position = 0;
        this.order = this.newOrder();
      }
      out.push(this.items[this.order[this.position++]]);
    }
    return out;
  }

  state(): EpochCursor {
    return { epoch: this.epoch, position: this.position, order: this.order.slice(), rng: this.rng ? this.rng.state() : null };
  }

  restore(c: EpochCursor): void {
    const n = this.items.length;
    const isPermutation = Array.isArray(c?.order) && c.order.length === n && new Set(c.order).size === n && c.order.every((i) => Number.isInteger(i) && i >= 0 && i < n);
    if (!isPermutation) throw new Error(`data cursor order is not a permutation of this source's ${n} microbatches`);
    if (!Number.isInteger(c.position) || c.position < 0 || c.position > n) throw new Error(`data cursor position ${c.position} is outside [0, ${n}]`);
    if (!Number.isInteger(c.epoch) || c.epoch < 0) throw new Error(`data cursor epoch must be a non-negative integer, got ${c.epoch}`);
    if ((c.rng === null) !== (this.rng === undefined)) throw new Error(`data cursor ${c.rng ? "has" : "lacks"} a shuffling stream but this source ${this.rng ? "shuffles" : "does not shuffle"}`);
    if (this.rng && c.rng) this.rng.load(c.rng);
    this.epoch = c.epoch;
    this.position = c.position;
    this.order = c.order.slice();
  }
}
