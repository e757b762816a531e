// The training part every text recipe shares (train --text, train on a documents file, brown): a run through
// src/lab, the whole validation split scored every --eval-every updates, history.json and the loss curve kept
// across resumes, and a schedule whose length is an explicit option. Not evaluation after training (the recipes).
import type { Batch } from "../src/data/batches.ts";
import type { Document } from "../src/data/documents.ts";
import type { DataSource } from "../src/data/source.ts";
import type { TokenizerJSON } from "../src/data/tokenizer.ts";
import type { ModelConfig } from "../src/model/config.ts";
import { decoderAdapter, type ScoringModel } from "../src/eval/adapter.ts";
import { evaluateWindows } from "../src/eval/windowed.ts";
import { meanNll } from "../src/eval/summary.ts";
import { allBaselines } from "../src/baselines/ngram.ts";
import { openRun, saveState, type Store } from "../src/lab/checkpoint.ts";
import type { TrainOptions } from "../src/lab/config.ts";
import { HISTORY_FILE, lossPoints, resumeHistory, type History, type HistoryEntry } from "../src/lab/history.ts";
import type { Run } from "../src/lab/run.ts";
import type { StepResult } from "../src/train/trainer.ts";
import { learningRate } from "../src/train/schedule.ts";
import { lossCurve } from "../src/util/charts.ts";
import type { Rng } from "../src/util/rng.ts";
import type { WorkerPool } from "../src/train/pool.ts";

export const CURVE_FILE = "loss_curve.svg";

export interface TextRunSpec {
  /** Where updates and validation are computed (experiments/pool.ts); the caller opens and closes it. Absent: this thread. */
  pool?: WorkerPool;
  config: ModelConfig;
  options: TrainOptions;
  tokenizer: TokenizerJSON;
  train: readonly Document[];
  validation: readonly Document[];
  data: (batches: Rng) => DataSource<Batch>;
  /** Total updates to reach (may exceed a finished run's, to extend it when the schedule is unchanged). */
  updates: number;
  /** Score the whole validation split every N updates (and at 0 and the last update); absent: never. */
  evalEvery?: number;
  checkpointEvery?: number;
  /** Where the state (and, with evalEvery, history.json and loss_curve.svg) go; without it nothing is written. */
  store?: Store;
  resume: boolean;
  /** Stop after this update as an interruption would (tests the resume path). */
  stopAt?: number;
  shouldStop?: (done: number) => boolean;
  onDivergence: "warn" | "stop";
  warn: (line: string) => void;
  /** Every update, with its history entry (validation filled in when scored). */
  onUpdate?: (entry: HistoryEntry, r: StepResult) => void;
  onCheckpoint?: (step: number, where: string) => void;
  /** Once the run is open (fresh or resumed), before any scoring or training: where the recipe prints its plan. */
  onStart?: (run: Run) => void;
  curve: { title: string; note: string };
}

export interface TextRunResult {
  /** Open: the caller evaluates or saves it, then disposes of it. */
  run: Run;
  from: number;
  stopped: boolean;
  history: History;
  baselines: { name: string; validation_nll: number }[];
  trainSeconds: number;
  tokensSeen: number;
}

/** Whole-split validation: every target once, in windows of the context (stride = context), token-weighted. */
export function validationNll(model: ScoringModel, docs: readonly Document[]): { nll: number; targets: number } {
  const r = evaluateWindows(model, docs, model.binding.contextLength);
  return { nll: meanNll(r.metrics), targets: r.metrics.targets };
}

/** openRun, with the schedule's length named as the option to keep when a resume changes it. */
function open(spec: TextRunSpec) {
  try {
    return openRun({ config: spec.config, options: spec.options, tokenizer: spec.tokenizer, data: spec.data }, spec.store, spec.resume, spec.pool);
  } catch (err) {
    const m = /options\.schedule\.cosineSteps: checkpoint (\d+), this run (\d+)/.exec((err as Error).message);
    if (!m) throw err;
    throw new Error(`${(err as Error).message}. The schedule's length is --cosine-steps: it was ${m[1]} and is now ${m[2]}; to extend the run, raise --updates and pass --cosine-steps ${m[1]}`);
  }
}

const finite = (h: History, where: string) => {
  const json = JSON.stringify(h, (k, v) => {
    if (typeof v === "number" && !Number.isFinite(v)) throw new Error(`${where}: ${k} is ${v}; refusing to write a non-finite value`);
    return v;
  });
  return json + "\n";
};

export async function trainWithValidation(spec: TextRunSpec): Promise<TextRunResult> {
  const run = open(spec);
  try {
    const from = run.step;
    const store = spec.store;
    if (from > spec.updates) throw new Error(`the training state is at update ${from}, past --updates ${spec.updates}`);
    const history = resumeHistory(spec.resume ? store?.read(HISTORY_FILE) : undefined, from, store?.where(HISTORY_FILE) ?? HISTORY_FILE, store && spec.evalEvery !== undefined ? spec.warn : undefined);
    spec.onStart?.(run);
    const binding = { vocabSize: spec.config.vocabSize, contextLength: spec.config.contextLength };
    const scoreValidation = spec.evalEvery !== undefined && spec.validation.length > 0;
    // the count baselines, fitted on train, on the same validation targets: horizontal lines on the curve
    const baselines = scoreValidation ? allBaselines(spec.train, binding).map((b) => ({ name: b.name, validation_nll: validationNll(b, spec.validation).nll })) : [];
    const adapter = decoderAdapter(run.model, { pool: spec.pool });
    if (scoreValidation && from === 0) history.initial_validation_nll = validationNll(adapter, spec.validation).nll;
    const writeHistory = () => {
      if (!store || spec.evalEvery === undefined) return; // history.json and the curve are what --eval-every asks for
      store.write(HISTORY_FILE, finite(history, store.where(HISTORY_FILE)));
      store.write(CURVE_FILE, lossCurve(lossPoints(history), spec.curve.title, spec.curve.note, baselines.map((b) => ({ name: b.name, y: b.validation_nll }))));
    };
    const t0 = performance.now();
    let tokensSeen = 0;
    let stopped = false;
    const target = Math.min(spec.updates, spec.stopAt ?? spec.updates);
    if (from < target) {
      const span = await run.trainAsync(target, {
        checkpointEvery: spec.checkpointEvery, onDivergence: spec.onDivergence, warn: spec.warn,
        onUpdate: (step, r) => {
          tokensSeen += r.targets;
          const seconds = (performance.now() - t0) / 1000;
          const scored = scoreValidation && (step % spec.evalEvery! === 0 || step === spec.updates) ? validationNll(adapter, spec.validation) : undefined;
          const entry: HistoryEntry = {
            update: step, train_loss: r.loss, lr: learningRate(spec.options.schedule, step), grad_norm: r.gradNorm,
            validation_nll: scored?.nll ?? null, validation_targets: scored?.targets ?? null,
            tokens_per_second: tokensSeen / Math.max(seconds, 1e-9), wall_seconds: seconds,
          };
          history.entries.push(entry);
          if (scored) writeHistory();
          spec.onUpdate?.(entry, r);
        },
        // the history is written with the state, so a resume finds every update the state holds
        onCheckpoint: store ? (step) => { const where = saveState(run, store); writeHistory(); spec.onCheckpoint?.(step, where); } : undefined,
      }, spec.shouldStop);
      stopped = span.stopped || run.step < spec.updates;
      if (stopped && store) {
        saveState(run, store);
        writeHistory();
      }
    }
    writeHistory();
    return { run, from, stopped, history, baselines, trainSeconds: (performance.now() - t0) / 1000, tokensSeen };
  } catch (err) {
    run.dispose();
    throw err;
  }
}
