// The training part every text recipe shares (train --text, train on a documents file, brown): a run through
// src/lab, the whole validation split scored every --eval-every updates, history.json and the loss curve kept
// across resumes, and a schedule whose length is an explicit option. Not evaluation after training (the recipes).
import type { Batch } from "../src/data/batches.ts";
import type { Document } from "../src/data/documents.ts";
import type { DataSource } from "../src/data/source.ts";
import type { TokenizerJSON } from "../src/data/tokenizer.ts";
import type { TextDataProvenance } from "../src/data/text_split.ts";
import type { ModelConfig } from "../src/model/config.ts";
import { decoderAdapter, type ScoringModel } from "../src/eval/adapter.ts";
import { evaluateWindows } from "../src/eval/windowed.ts";
import { scoringStride } from "../src/eval/windows.ts";
import { meanNll } from "../src/eval/summary.ts";
import { allBaselines } from "../src/baselines/ngram.ts";
import { openRun, type Store } from "../src/lab/checkpoint.ts";
import { commitCheckpoint, CURVE_FILE, writeHistory as writeHistoryFiles } from "../src/lab/run_dir.ts";
import { ResumeMismatchError } from "../src/lab/state_file.ts";
import type { TrainOptions } from "../src/lab/config.ts";
import { STATE_FILE } from "../src/lab/checkpoint.ts";
import { HISTORY_FILE, lossPoints, resumeHistory, type History, type HistoryEntry } from "../src/lab/history.ts";
import type { Run } from "../src/lab/run.ts";
import type { DivergencePolicy } from "../src/lab/divergence.ts";
import type { StepResult } from "../src/train/trainer.ts";
import { learningRate } from "../src/train/schedule.ts";
import { lossCurve } from "../src/util/charts.ts";
import type { Rng } from "../src/util/rng.ts";
import type { WorkerPool } from "../src/train/pool.ts";

export { CURVE_FILE };

export interface TextRunSpec {
  /** Where updates and validation are computed (experiments/pool.ts); the caller opens and closes it. Absent: this thread. */
  pool?: WorkerPool;
  config: ModelConfig;
  options: TrainOptions;
  tokenizer: TokenizerJSON;
  train: readonly Document[];
  validation: readonly Document[];
  data: (batches: Rng) => DataSource<Batch>;
  /** What the model file records of the text trained on (train --text). */
  trainedOn?: TextDataProvenance;
  /** Total updates to reach (may exceed a finished run's, to extend it when the schedule is unchanged). */
  updates: number;
  /** Score the whole validation split every N updates (and at 0 and the last update); absent: never. */
  evalEvery?: number;
  checkpointEvery?: number;
  /** Where the state (and, with evalEvery, history.json and loss_curve.svg) go; without it nothing is written. */
  store?: Store;
  resume: boolean;
  /** Stop early after this many validation scorings in a row that do not beat the best (needs evalEvery). */
  patience?: number;
  /** Stop after this update as an interruption would (tests the resume path). */
  stopAt?: number;
  shouldStop?: (done: number) => boolean;
  onDivergence: DivergencePolicy;
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
  /** Set when --patience ended the run: the update it stopped at (a finished run, not an interruption). */
  earlyStop?: { at: number; patience: number };
}

/** Whole-split validation: every target once, at the scorers' one stride (the context), token-weighted. */
export function validationNll(model: ScoringModel, docs: readonly Document[]): { nll: number; targets: number } {
  const r = evaluateWindows(model, docs, scoringStride(undefined, model.binding.contextLength));
  return { nll: meanNll(r.metrics), targets: r.metrics.targets };
}

/** openRun, with the schedule's length named as the option to keep when a resume changes it. */
function open(spec: TextRunSpec) {
  try {
    return openRun({ config: spec.config, options: spec.options, tokenizer: spec.tokenizer, data: spec.data, trainedOn: spec.trainedOn }, spec.store, spec.resume, spec.pool, true);
  } catch (err) {
    const length = err instanceof ResumeMismatchError ? err.differences.find((d) => d.path === "options.schedule.cosineSteps") : undefined;
    if (!length) throw err;
    throw new Error(`${(err as Error).message}. The schedule's length is --cosine-steps: it was ${length.checkpoint} and is now ${length.run}; to extend the run, raise --updates and pass --cosine-steps ${length.checkpoint}`);
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
    if (spec.patience !== undefined && spec.evalEvery === undefined) throw new Error("--patience counts validation scorings: it needs --eval-every");
    const history = resumeHistory(spec.resume ? store?.read(HISTORY_FILE) : undefined, from, store?.where(HISTORY_FILE) ?? HISTORY_FILE, store && spec.evalEvery !== undefined ? spec.warn : undefined);
    spec.onStart?.(run);
    const binding = { vocabSize: spec.config.vocabSize, contextLength: spec.config.contextLength };
    const scoreValidation = spec.evalEvery !== undefined && spec.validation.length > 0;
    // the count baselines, fitted on train, on the same validation targets: horizontal lines on the curve
    const baselines = scoreValidation ? allBaselines(spec.train, binding).map((b) => ({ name: b.name, validation_nll: validationNll(b, spec.validation).nll })) : [];
    const adapter = decoderAdapter(run.model, { pool: spec.pool });
    if (scoreValidation && from === 0) {
      history.initial_validation_nll = validationNll(adapter, spec.validation).nll;
      run.considerForBest(history.initial_validation_nll);
    }
    // history.json and the curve are what --eval-every asks for
    const historyFiles = () => (spec.evalEvery === undefined ? undefined : {
      json: finite(history, store?.where(HISTORY_FILE) ?? HISTORY_FILE),
      curve: lossCurve(lossPoints(history), spec.curve.title, spec.curve.note, baselines.map((b) => ({ name: b.name, y: b.validation_nll }))),
    });
    const writeHistory = () => {
      const files = historyFiles();
      if (store && files) writeHistoryFiles(store, files);
    };
    // the protocol of src/lab/run_dir.ts: the history, then the state that points at it
    const checkpoint = () => commitCheckpoint(store!, run.stateBytes(), historyFiles());
    const patienceSpent = () => spec.patience !== undefined && run.best !== undefined && run.best.scoringsSince >= spec.patience;
    const t0 = performance.now();
    let tokensSeen = 0;
    let stopped = false;
    const target = Math.min(spec.updates, spec.stopAt ?? spec.updates);
    if (from < target && !patienceSpent()) {
      const span = await run.trainAsync(target, {
        checkpointEvery: spec.checkpointEvery, onDivergence: spec.onDivergence, warn: spec.warn,
        onUpdate: (step, r) => {
          tokensSeen += r.targets;
          const seconds = (performance.now() - t0) / 1000;
          const scored = scoreValidation && (step % spec.evalEvery! === 0 || step === spec.updates) ? validationNll(adapter, spec.validation) : undefined;
          if (scored) run.considerForBest(scored.nll);
          const entry: HistoryEntry = {
            update: step, train_loss: r.loss, lr: learningRate(spec.options.schedule, step), grad_norm: r.gradNorm,
            validation_nll: scored?.nll ?? null, validation_targets: scored?.targets ?? null,
            tokens_per_second: tokensSeen / Math.max(seconds, 1e-9), wall_seconds: seconds,
          };
          history.entries.push(entry);
          if (scored) writeHistory();
          spec.onUpdate?.(entry, r);
        },
        onCheckpoint: store ? (step) => { checkpoint(); spec.onCheckpoint?.(step, store.where(STATE_FILE)); } : undefined,
      }, (done) => patienceSpent() || (spec.shouldStop?.(done) ?? false));
      stopped = !patienceSpent() && (span.stopped || run.step < spec.updates);
      // a stop between checkpoints (Ctrl-C, patience): the state of the last whole update
      if ((stopped || patienceSpent()) && store && run.step % (spec.checkpointEvery ?? spec.updates) !== 0) checkpoint();
    }
    writeHistory();
    const earlyStop = patienceSpent() && run.step < spec.updates ? { at: run.step, patience: spec.patience! } : undefined;
    return { run, from, stopped, history, baselines, trainSeconds: (performance.now() - t0) / 1000, tokensSeen, earlyStop };
  } catch (err) {
    run.dispose();
    throw err;
  }
}
