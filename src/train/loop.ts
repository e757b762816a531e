// The training loop with hooks (minGPT's shape): updates from the optimizer's step to a target, an evaluation at
// declared updates, the state saved every N and when a stop ends the run early. Written once as a generator that
// yields between updates, drained on this thread (`drain`) or with event-loop turns between updates (`drainAsync`).
// Knows nothing about GPTs or files: the caller's hooks score and save.
import type { tf } from "../util/backend.ts";
import type { DataSource } from "../data/source.ts";
import type { AdamW } from "./adamw.ts";
import { learningRate, type Schedule } from "./schedule.ts";
import { trainStep, type GradientProvider, type LossFn, type StepResult } from "./trainer.ts";

/** What one update is made of. */
export interface LoopArgs<B> {
  params: Map<string, tf.Variable>;
  lossFn: LossFn<B>;
  data: DataSource<B>;
  optimizer: AdamW;
  schedule: Schedule;
  clipNorm: number;
  /** Who computes each update's per-microbatch gradients (default: this thread through `lossFn`). */
  gradients?: GradientProvider<B>;
}

/** The updates after which to evaluate; update 0 is asked once, before training, and only for a fresh run. */
export type EvaluateAt = (step: number) => boolean;

/** Every `every` updates (update 0 included) and at `last`: the schedule of --eval-every. */
export const everyAndLast =
  (every: number, last: number): EvaluateAt =>
  (step) =>
    step % every === 0 || step === last;

/** Exactly the updates listed (overfit's --checkpoints). */
export const atUpdates =
  (updates: readonly number[]): EvaluateAt =>
  (step) =>
    updates.includes(step);

export interface LoopPlan {
  /** Run until the optimizer has done this many updates in total, when nothing stops it first. */
  updates: number;
  /** Stop after this update as an interruption would (tests the resume path). */
  stopAt?: number;
  /** When onEvaluate runs; absent: never. */
  evaluateAt?: EvaluateAt;
  /** Save after every N updates and after the last one done; absent: after the last one. */
  saveEvery?: number;
}

/** Asked between updates with the updates done so far: true stops the loop there (between two whole updates). */
export type ShouldStop = (done: number) => boolean;

export interface LoopHooks<E> {
  /** Score the weights after update `step` (0: before any); what it returns reaches onUpdate. */
  onEvaluate?: (step: number) => E;
  /** Every update, with its evaluation when it had one (scored before this is called). */
  onUpdate?: (step: number, r: StepResult, evaluation: E | undefined) => void;
  /** Save the state after update `step`; `stopping`: the run stops here, between two saves. */
  onSave?: (step: number, stopping: boolean) => void;
  /** Asked between updates (Ctrl-C): true stops the run after a whole update, an interruption a resume continues. */
  shouldStop?: ShouldStop;
  /** Asked with shouldStop: true ends the run there as complete (patience spent), not as an interruption. */
  converged?: () => boolean;
}

export interface LoopResult {
  from: number;
  /** The last update done. */
  to: number;
  /** Ended before `updates` by shouldStop or stopAt: an interruption, which a resume continues. */
  stopped: boolean;
  /** Set when `converged` ended the run before `updates`: where it stopped. */
  earlyStop?: { at: number };
}

/** The loop itself: one `yield` after each whole update (and its hooks), where a driver may give the event loop a turn. */
export function* loopSteps<B, E>(a: LoopArgs<B>, plan: LoopPlan, hooks: LoopHooks<E> = {}): Generator<void, LoopResult, void> {
  const from = a.optimizer.step;
  if (!Number.isInteger(plan.updates) || plan.updates < 1) throw new Error(`updates must be a positive integer, got ${plan.updates}`);
  if (plan.updates < from) throw new Error(`the optimizer is already at update ${from}, past the requested ${plan.updates} updates`);
  const target = Math.min(plan.updates, plan.stopAt ?? plan.updates);
  const every = plan.saveEvery ?? target;
  if (from < target && (!Number.isInteger(every) || every < 1)) throw new Error(`save interval must be a positive integer, got ${every}`);
  const due = (step: number) => hooks.onEvaluate !== undefined && plan.evaluateAt !== undefined && plan.evaluateAt(step);
  if (from === 0 && due(0)) hooks.onEvaluate!(0);
  let saved = from;
  const save = (step: number, stopping: boolean) => {
    hooks.onSave!(step, stopping);
    saved = step;
  };
  const stop = (done: number) => hooks.converged?.() === true || (hooks.shouldStop?.(done) ?? false);
  let step = from;
  if (step < target && !stop(step)) {
    while (step < target) {
      step += 1;
      const result = trainStep({
        params: a.params,
        microbatches: a.data.next(),
        lossFn: a.lossFn,
        optimizer: a.optimizer,
        lr: learningRate(a.schedule, step),
        clipNorm: a.clipNorm,
        gradients: a.gradients,
      });
      hooks.onUpdate?.(step, result, due(step) ? hooks.onEvaluate!(step) : undefined);
      if (hooks.onSave && (step % every === 0 || step === target)) save(step, false);
      yield;
      if (step < target && stop(step)) break;
    }
  }
  const early = hooks.converged?.() === true;
  const stopped = !early && step < plan.updates;
  // a stop between two saves (Ctrl-C, stopAt, convergence) saves the state of the last whole update
  if (hooks.onSave && (stopped || early) && saved !== step) save(step, true);
  return { from, to: step, stopped, ...(early && step < plan.updates ? { earlyStop: { at: step } } : {}) };
}

/** Drain the loop on this thread (a run drains its own wrapper of `loopSteps` with `drain` or `drainAsync`). */
export const trainLoop = <B, E>(a: LoopArgs<B>, plan: LoopPlan, hooks?: LoopHooks<E>): LoopResult => drain(loopSteps(a, plan, hooks));

/** Any generator of steps drained on this thread. */
export function drain<R>(steps: Generator<void, R, void>): R {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Hand control to the event loop (so signal handlers and timers run); setTimeout where setImmediate is absent. */
const yieldToEventLoop = (): Promise<void> =>
  new Promise((r) => ((globalThis as { setImmediate?: (f: () => void) => void }).setImmediate ?? setTimeout)(r));

/** The same, giving the event loop a turn at least every `yieldEveryMs` between steps, so a signal handler can set shouldStop. */
export async function drainAsync<R>(steps: Generator<void, R, void>, yieldEveryMs = 50): Promise<R> {
  let last = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - last >= yieldEveryMs) {
      await yieldToEventLoop();
      last = performance.now();
    }
  }
}
