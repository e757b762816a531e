// The training every text recipe shares (train --text, train on a documents file, brown), as hooks on the run's
// loop (run.ts): the whole validation split scored every --eval-every updates, history.json and the loss curve
// kept across resumes, the state saved by the run directory's protocol. Not evaluation after training (the recipes).
import type { Batch } from "../data/batches.ts";
import type { Document } from "../data/documents.ts";
import type { DataSource } from "../data/source.ts";
import type { TokenizerJSON } from "../data/tokenizer.ts";
import type { TextDataProvenance } from "../data/text_split.ts";
import type { ModelConfig } from "../model/config.ts";
import { decoderAdapter, type ScoringModel } from "../eval/passes/adapter.ts";
import { evaluateWindows } from "../eval/passes/windowed.ts";
import { scoringStride } from "../eval/passes/windows.ts";
import { meanNll } from "../eval/metrics/summary.ts";
import { allBaselines } from "../baselines/ngram.ts";
import type { WorkerPool } from "../train/pool.ts";
import type { Engine } from "../util/engine.ts";
import type { StepResult } from "../train/trainer.ts";
import { learningRate } from "../train/schedule.ts";
import { lossCurve } from "../util/render/loss_curve.ts";
import { phase, type Progress, type ProgressStream } from "../util/runtime/progress.ts";
import type { Rng } from "../util/primitives/rng.ts";
import type { TrainOptions } from "./config.ts";
import type { DivergencePolicy } from "./divergence.ts";
import { everyAndLast } from "../train/loop.ts";
import { HISTORY_FILE, lossPoints, resumeHistory, type History, type HistoryEntry } from "./history.ts";
import { EVENTS_FILE, HistoryEvents } from "./history_events.ts";
import type { Run } from "./run.ts";
import { checkPlan, type TrainPlan, type Trained } from "./train_plan.ts";
import { commitState, CURVE_FILE, writeHistory as writeHistoryFiles, type HistoryFiles } from "./run_dir.ts";
import { ResumeMismatchError } from "./state_file.ts";
import { openRun, STATE_FILE, type Store } from "./store.ts";

export { CURVE_FILE };

export interface ValidatedRunSpec {
  /** Where updates and validation are computed (src/node/pool.ts); the caller opens and closes it. Absent: this thread. */
  pool?: WorkerPool;
  config: ModelConfig;
  options: TrainOptions;
  tokenizer: TokenizerJSON;
  train: readonly Document[];
  validation: readonly Document[];
  data: (batches: Rng) => DataSource<Batch>;
  /** What the model file records of the text trained on (train --text). */
  trainedOn?: TextDataProvenance;
  /** The engine the model computes on (the pool's threads open the same); absent: tfjs's own kernels. */
  engine?: Engine;
  /** Total updates to reach (may exceed a finished run's, to extend it when the schedule is unchanged). */
  updates: number;
  /** Score the whole validation split every N updates (and at 0 and the last update); absent: never. */
  evalEvery?: number;
  saveEvery?: number;
  /** Where the state (and, with evalEvery, history.json and loss_curve.svg) go; without it nothing is written. */
  store?: Store;
  /** Also write the history as a TensorBoard event file (EVENTS_FILE) beside history.json (needs evalEvery and a store). */
  tensorboard?: boolean;
  resume: boolean;
  /** Stop early after this many validation scorings in a row that do not beat the best (needs evalEvery). */
  patience?: number;
  /** Stop after this update as an interruption would (tests the resume path). */
  stopAt?: number;
  shouldStop?: (done: number) => boolean;
  onDivergence: DivergencePolicy;
  warn: (line: string) => void;
  /** Where a validation pass that outlasts a phase's quiet time (QUIET_MS) shows its progress (stderr); absent: nowhere. */
  progress?: ProgressStream;
  /** Every update, with its history entry (validation filled in when scored). */
  onUpdate?: (entry: HistoryEntry, r: StepResult) => void;
  /** After each periodic save of the state (not the one a stop writes), with where it went. */
  onSave?: (step: number, where: string) => void;
  /** Once the run is open (fresh or resumed), before any scoring or training: where the recipe prints its plan. */
  onStart?: (run: Run) => void;
  curve: { title: string; note: string };
}

export interface ValidatedRunResult extends Pick<Trained, "from" | "stopped" | "earlyStop"> {
  /** Open: the caller evaluates or saves it, then disposes of it. */
  run: Run;
  history: History;
  baselines: { name: string; validation_nll: number }[];
  trainSeconds: number;
  tokensSeen: number;
}

/**
 * Whole-split validation: every target once, at the scorers' one stride (the context), token-weighted; its
 * progress on `progress`, as `label`'s bar, when the pass is long enough to need it, or as ticks of the bar `shared`
 * gives for the pass's batch count (a caller's bar over several passes, which the caller ends).
 */
export function validationNll(
  model: ScoringModel,
  docs: readonly Document[],
  opts: { progress?: ProgressStream; label?: string; shared?: (batches: number) => Progress | undefined } = {},
): { nll: number; targets: number } {
  let bar: Progress | undefined;
  const r = evaluateWindows(model, docs, scoringStride(undefined, model.binding.contextLength), {
    onBatches: (n) => (bar = opts.shared ? opts.shared(n) : phase(opts.progress, opts.label ?? "validation", n, "batches")),
    onBatch: () => bar?.tick(),
  });
  if (!opts.shared) bar?.done();
  return { nll: meanNll(r.metrics), targets: r.metrics.targets };
}

/**
 * Each count baseline's whole-split validation NLL, under one progress bar over all their passes (each pass has the
 * split's batch count). Each pass lays its own windows, as the model's do: held from one pass to the next, a large
 * split's padded batches changed when the collector ran, and the peak with it (200 MB of text: 1.98–2.09 GB against
 * 1.74 GB).
 */
function baselineNlls(
  baselines: readonly ScoringModel[],
  docs: readonly Document[],
  progress?: ProgressStream,
): { name: string; validation_nll: number }[] {
  let bar: Progress | undefined;
  const shared = (batches: number) => (bar ??= phase(progress, "baselines", baselines.length * batches, "batches"));
  const out = baselines.map((b) => ({ name: b.name, validation_nll: validationNll(b, docs, { shared }).nll }));
  bar?.done();
  return out;
}

/** The schedule settings a recipe hands on unchanged from its options (train --text and brown alike). */
export type RunSchedule = Pick<
  ValidatedRunSpec,
  "updates" | "evalEvery" | "saveEvery" | "resume" | "patience" | "tensorboard" | "onDivergence"
>;

/** Exactly the RunSchedule fields of a recipe's options, by name. */
export const runSchedule = (o: RunSchedule): RunSchedule => ({
  updates: o.updates,
  evalEvery: o.evalEvery,
  saveEvery: o.saveEvery,
  resume: o.resume,
  patience: o.patience,
  tensorboard: o.tensorboard,
  onDivergence: o.onDivergence,
});

/** Options whose default a resume can move (it follows --updates, or the model), named as the flag to give with the run's value. */
const KEEP: Record<string, (was: unknown, now: unknown) => string> = {
  "options.schedule.cosineSteps": (was, now) =>
    `The schedule's length is --cosine-steps: it was ${was} and is now ${now}; to extend the run, raise --updates and pass --cosine-steps ${was}`,
  "options.microbatchesPerUpdate": (was, now) =>
    `The microbatches per update are --microbatches: it was ${was} and is now ${now}; to resume the run, pass --microbatches ${was}`,
};

/** openRun, with each option to keep named when a resume changes it. */
function open(spec: ValidatedRunSpec) {
  try {
    return openRun(
      {
        config: spec.config,
        options: spec.options,
        tokenizer: spec.tokenizer,
        data: spec.data,
        trainedOn: spec.trainedOn,
        engine: spec.engine,
      },
      spec.store,
      spec.resume,
      spec.pool,
      true,
    );
  } catch (err) {
    const hints =
      err instanceof ResumeMismatchError ? err.differences.flatMap((d) => (KEEP[d.path] ? [KEEP[d.path](d.saved, d.run)] : [])) : [];
    if (hints.length === 0) throw err;
    throw new Error(`${(err as Error).message}. ${hints.join(". ")}`);
  }
}

const finite = (h: History, where: string) => {
  const json = JSON.stringify(h, (k, v) => {
    if (typeof v === "number" && !Number.isFinite(v)) throw new Error(`${where}: ${k} is ${v}; refusing to write a non-finite value`);
    return v;
  });
  return json + "\n";
};

export async function trainWithValidation(spec: ValidatedRunSpec): Promise<ValidatedRunResult> {
  const run = open(spec);
  try {
    const from = run.step;
    const store = spec.store;
    const validate = spec.evalEvery !== undefined && spec.validation.length > 0;
    const plan: TrainPlan<{ nll: number; targets: number }> = {
      updates: spec.updates,
      stopAt: spec.stopAt,
      saveEvery: spec.saveEvery,
      patience: spec.patience,
      onDivergence: spec.onDivergence,
      warn: spec.warn,
      // a split with no documents has nothing to score: --eval-every then writes the history without validation
      evaluateAt: spec.evalEvery === undefined ? undefined : validate ? everyAndLast(spec.evalEvery, spec.updates) : () => false,
      select: (s) => s.nll,
    };
    checkPlan(from, plan); // before the plan is printed
    const history = resumeHistory(
      spec.resume ? store?.read(HISTORY_FILE) : undefined,
      from,
      store?.where(HISTORY_FILE) ?? HISTORY_FILE,
      store && spec.evalEvery !== undefined ? spec.warn : undefined,
    );
    const finishedAt = new Map<number, number>(); // update → wall-clock seconds, for the event file
    if (spec.tensorboard && (spec.evalEvery === undefined || !store))
      throw new Error("--tensorboard writes the history's event file into --out: it needs --out and --eval-every");
    const events =
      spec.tensorboard && store
        ? new HistoryEvents(spec.resume ? store.read(EVENTS_FILE) : undefined, from, (step) => finishedAt.get(step) ?? Date.now() / 1000)
        : undefined;
    spec.onStart?.(run);
    const binding = { vocabSize: spec.config.vocabSize, contextLength: spec.config.contextLength };
    // the count baselines, fitted on train, on the same validation targets: horizontal lines on the curve
    const baselines = validate ? baselineNlls(allBaselines(spec.train, binding), spec.validation, spec.progress) : [];
    const adapter = decoderAdapter(run.model, { pool: spec.pool });
    // history.json and the curve are what --eval-every asks for
    const historyFiles = (): HistoryFiles | undefined => {
      if (spec.evalEvery === undefined) return undefined;
      events?.sync(history);
      return {
        json: finite(history, store?.where(HISTORY_FILE) ?? HISTORY_FILE),
        curve: lossCurve(
          lossPoints(history),
          spec.curve.title,
          spec.curve.note,
          baselines.map((b) => ({ name: b.name, y: b.validation_nll })),
        ),
        events: events?.bytes(),
      };
    };
    const writeHistory = () => {
      const files = historyFiles();
      if (store && files) writeHistoryFiles(store, files);
    };
    const t0 = performance.now();
    let tokensSeen = 0;
    const driven = await run.trainAsync(plan, {
      onEvaluate: (step) => {
        const scored = validationNll(adapter, spec.validation, { progress: spec.progress });
        if (step === 0) history.initial_validation_nll = scored.nll;
        return scored;
      },
      onUpdate: (step, r, scored) => {
        tokensSeen += r.targets;
        const seconds = (performance.now() - t0) / 1000;
        const entry: HistoryEntry = {
          update: step,
          train_loss: r.loss,
          lr: learningRate(spec.options.schedule, step),
          grad_norm: r.gradNorm,
          validation_nll: scored?.nll ?? null,
          validation_targets: scored?.targets ?? null,
          tokens_per_second: tokensSeen / Math.max(seconds, 1e-9),
          wall_seconds: seconds,
        };
        history.entries.push(entry);
        if (events) finishedAt.set(step, Date.now() / 1000);
        if (scored) writeHistory();
        spec.onUpdate?.(entry, r);
      },
      // the protocol of src/lab/run_dir.ts: the history, then the state that points at it
      onSave:
        store &&
        ((step, stopping) => {
          commitState(store, run.stateChunks(), historyFiles());
          if (!stopping) spec.onSave?.(step, store.where(STATE_FILE));
        }),
      shouldStop: spec.shouldStop,
    });
    writeHistory();
    return {
      run,
      from,
      stopped: driven.stopped,
      earlyStop: driven.earlyStop,
      history,
      baselines,
      trainSeconds: (performance.now() - t0) / 1000,
      tokensSeen,
    };
  } catch (err) {
    run.dispose();
    throw err;
  }
}
