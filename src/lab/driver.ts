// The one training driver: a Run from its step to a target, scoring at declared updates (onEvaluate) and saving
// state every `saveEvery` (onSave), stopped by patience, by shouldStop (Ctrl-C) or by divergence, and keeping the
// weights the scores select. Knows no file and no metric: the hooks do (validated_training.ts, the recipes).
import type { ShouldStop } from "../train/loop.ts";
import type { StepResult } from "../train/trainer.ts";
import type { DivergencePolicy } from "./divergence.ts";
import type { Run, RunHooks } from "./run.ts";

/** The updates after which to evaluate; update 0 is asked once, before training, and only for a fresh run. */
export type EvaluateAt = (step: number) => boolean;

/** Every `every` updates (update 0 included) and at `last`: the schedule of --eval-every. */
export const everyAndLast = (every: number, last: number): EvaluateAt => (step) => step % every === 0 || step === last;

/** Exactly the updates listed (overfit's --checkpoints). */
export const atUpdates = (updates: readonly number[]): EvaluateAt => (step) => updates.includes(step);

export interface DrivePlan<E> {
  /** The updates the run is to reach in total: where it ends when nothing stops it. */
  updates: number;
  /** Stop after this update as an interruption would (tests the resume path). */
  stopAt?: number;
  /** When onEvaluate runs; absent: never. */
  evaluateAt?: EvaluateAt;
  /** Save after every N updates and after the last one done; absent: after the last one. */
  saveEvery?: number;
  /** Stop after this many evaluations in a row that do not lower the best one (needs `select`). */
  patience?: number;
  /** The best-model rule: the weights with the lowest of these (a validation NLL) are kept; absent: none are. */
  select?: (evaluation: E) => number;
  /** What a finite but diverging loss does (divergence.ts); default: warn once. */
  onDivergence?: DivergencePolicy;
  warn?: (line: string) => void;
}

export interface DriveHooks<E> {
  /** Score the weights after update `step` (0: before any); what it returns reaches onUpdate and `select`. */
  onEvaluate?: (step: number) => E;
  /** Every update, with its evaluation when it had one (scored before this is called). */
  onUpdate?: (step: number, r: StepResult, evaluation: E | undefined) => void;
  /** Write the state after update `step`; `stopping`: the run stops here, between two saves. */
  onSave?: (step: number, stopping: boolean) => void;
  /** Asked between updates (Ctrl-C): true stops the run after a whole update. */
  shouldStop?: ShouldStop;
}

export interface Driven {
  from: number;
  /** The last update done. */
  to: number;
  /** Ended before `updates` by shouldStop or stopAt: an interruption, which a resume continues. */
  stopped: boolean;
  /** Set when patience ended the run before `updates` (a finished run): where it stopped. */
  earlyStop?: { at: number; patience: number };
}

/** Refuse a plan the run cannot follow from `from`, before anything is printed or scored. */
export function checkPlan<E>(from: number, plan: Pick<DrivePlan<E>, "updates" | "patience" | "evaluateAt" | "select">): void {
  if (from > plan.updates) throw new Error(`the training state is at update ${from}, past --updates ${plan.updates}`);
  if (plan.patience !== undefined && (plan.evaluateAt === undefined || plan.select === undefined)) throw new Error("--patience counts validation scorings: it needs --eval-every");
}

/** Drive `run` to `plan.updates` on this thread, the hooks called in place (overfit, cyclic). */
export function drive<E>(run: Run, plan: DrivePlan<E>, hooks: DriveHooks<E> = {}): Driven {
  const d = prepare(run, plan, hooks);
  if (d.from < d.target) run.train(d.target, d.runHooks, d.shouldStop);
  return d.finish();
}

/** The same, giving the event loop a turn between updates so a signal handler can set shouldStop (train, brown). */
export async function driveAsync<E>(run: Run, plan: DrivePlan<E>, hooks: DriveHooks<E> = {}): Promise<Driven> {
  const d = prepare(run, plan, hooks);
  if (d.from < d.target) await run.trainAsync(d.target, d.runHooks, d.shouldStop);
  return d.finish();
}

/** What both drivers share: the initial evaluation, the loop's hooks, the stop rule and the closing save. */
function prepare<E>(run: Run, plan: DrivePlan<E>, hooks: DriveHooks<E>) {
  const from = run.step;
  checkPlan(from, plan);
  const due = (step: number) => hooks.onEvaluate !== undefined && plan.evaluateAt !== undefined && plan.evaluateAt(step);
  const evaluate = (step: number): E => {
    const e = hooks.onEvaluate!(step);
    if (plan.select) run.considerForBest(plan.select(e));
    return e;
  };
  if (from === 0 && due(0)) evaluate(0);
  let saved = from;
  const save = (step: number, stopping: boolean) => {
    hooks.onSave!(step, stopping);
    saved = step;
  };
  const runHooks: RunHooks = {
    saveEvery: plan.saveEvery, onDivergence: plan.onDivergence, warn: plan.warn,
    onSave: hooks.onSave && ((step) => save(step, false)),
    onUpdate: (step, r) => {
      const e = due(step) ? evaluate(step) : undefined;
      hooks.onUpdate?.(step, r, e);
    },
  };
  const patienceSpent = () => plan.patience !== undefined && run.best !== undefined && run.best.scoringsSince >= plan.patience;
  const finish = (): Driven => {
    const early = patienceSpent();
    const stopped = !early && run.step < plan.updates;
    // a stop between two saves (Ctrl-C, stopAt, patience) saves the state of the last whole update
    if (hooks.onSave && (stopped || early) && saved !== run.step) save(run.step, true);
    const earlyStop = early && run.step < plan.updates ? { at: run.step, patience: plan.patience! } : undefined;
    return { from, to: run.step, stopped, ...(earlyStop ? { earlyStop } : {}) };
  };
  return {
    from, target: Math.min(plan.updates, plan.stopAt ?? plan.updates), runHooks, finish,
    shouldStop: (done: number) => patienceSpent() || (hooks.shouldStop?.(done) ?? false),
  };
}
