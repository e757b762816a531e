// What a run trains by: the loop's plan (src/train/loop.ts) and the rules a run adds to it — the best-model rule,
// patience counted in scorings and the divergence guard — turned into the loop's hooks, and a non-finite error named
// with the option that sets the rate. Not the run (run.ts holds the model, optimizer, data and streams).
import type { LoopHooks, LoopPlan, LoopResult } from "../train/loop.ts";
import { NonFiniteError } from "../train/non_finite.ts";
import { learningRate, type Schedule } from "../train/schedule.ts";
import { divergence, divergenceStop, divergenceWarning, type DivergencePolicy } from "./divergence.ts";
import type { SelectedWeights } from "./state_file.ts";

/** What to train: the loop's plan (src/train/loop.ts) and the rules a run adds. */
export interface TrainPlan<E> extends LoopPlan {
  /** Stop after this many evaluations in a row that do not lower the best one (needs `select`). */
  patience?: number;
  /** The best-model rule: the weights with the lowest of these (a validation NLL) are kept; absent: none are. */
  select?: (evaluation: E) => number;
  /** What a finite but diverging loss does (divergence.ts): warn once (default) or stop the run. */
  onDivergence?: DivergencePolicy;
  /** Where the divergence warning goes (default: console.error). */
  warn?: (line: string) => void;
}

export type TrainHooks<E> = Omit<LoopHooks<E>, "converged">;

export interface Trained extends Omit<LoopResult, "earlyStop"> {
  /** Set when patience ended the run before `updates` (a finished run): where it stopped. */
  earlyStop?: { at: number; patience: number };
}

/** Refuse a plan the run cannot follow from `from`, before anything is printed or scored. */
export function checkPlan<E>(from: number, plan: Pick<TrainPlan<E>, "updates" | "patience" | "evaluateAt" | "select">): void {
  if (from > plan.updates) throw new Error(`the training state is at update ${from}, past --updates ${plan.updates}`);
  if (plan.patience !== undefined && (plan.evaluateAt === undefined || plan.select === undefined))
    throw new Error("--patience counts validation scorings: it needs --eval-every");
}

/** What the plan's rules read and change of a run. */
export interface PlanTarget {
  readonly vocabSize: number;
  /** The weights validation chose so far (patience counts the scorings since). */
  best(): Pick<SelectedWeights, "scoringsSince"> | undefined;
  /** A validation score of the current weights, for the best-model rule. */
  considerForBest(score: number): void;
  /** True the first time it is asked in a run: a diverging run would otherwise warn on every update. */
  firstWarning(): boolean;
}

/** The loop's hooks: the caller's, with the best-model rule on each evaluation, the divergence guard on each update, and patience. */
export function planHooks<E>(plan: TrainPlan<E>, hooks: TrainHooks<E>, run: PlanTarget): LoopHooks<E> {
  const { patience, select, onDivergence = "warn", warn = (line: string) => console.error(line) } = plan;
  return {
    ...hooks,
    onEvaluate:
      hooks.onEvaluate &&
      ((step) => {
        const e = hooks.onEvaluate!(step);
        if (select) run.considerForBest(select(e));
        return e;
      }),
    onUpdate: (step, r, e) => {
      const what = divergence(run.vocabSize, step, r.loss);
      if (what !== undefined && onDivergence === "stop") throw divergenceStop(what);
      if (what !== undefined && run.firstWarning()) warn(divergenceWarning(what));
      hooks.onUpdate?.(step, r, e);
    },
    converged: () => {
      const best = run.best();
      return patience !== undefined && best !== undefined && best.scoringsSince >= patience;
    },
  };
}

/**
 * A non-finite loss or gradient, said with the learning rate of the update that failed and the option that sets
 * it: the usual cause is a rate too large (--lr 1e30), which the trainer alone cannot name.
 */
export function namedDivergence(err: unknown, schedule: Schedule): unknown {
  if (!(err instanceof NonFiniteError) || err.step <= 1) return err; // at update 1 no rate has acted yet
  const named = new NonFiniteError(err.step, err.what);
  named.message = `${err.message} (update ${err.step - 1} moved the weights at learning rate ${learningRate(schedule, err.step - 1)}, from --lr ${schedule.lr}: the run diverged; a smaller --lr is the usual cure)`;
  return named;
}
