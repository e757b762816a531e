// `tinylab train` as a recipe: the overfit model on the overfit fixture or a documents file, or a text model on
// your own text (split manifest, byte or BPE tokenizer), with validation history, saved state, exact resume and
// extension, and a model file, all through src/lab's driver (src/lab/validated_training.ts). Prints nothing itself.
import { parameterCount } from "../src/model/config.ts";
import { engineLabel } from "../src/util/engine.ts";
import { saveModel, STATE_FILE } from "../src/lab/store.ts";
import { workersFor } from "../src/train/pool.ts";
import { threadPools } from "../src/node/pool.ts";
import { tfjsOnly } from "../src/util/backend.ts";
import { trainOptions } from "../src/lab/config.ts";
import { HISTORY_FILE } from "../src/lab/history.ts";
import { BEST_MODEL_FILE } from "../src/lab/run_dir.ts";
import { selectionOf } from "../src/lab/run.ts";
import { sha256Hex } from "../src/util/primitives/sha256.ts";
import { phase, type Progress } from "../src/util/runtime/progress.ts";
import { CURVE_FILE, runSchedule, trainWithValidation } from "../src/lab/validated_training.ts";
import { TEXT_DEFAULTS, TRAIN_DEFAULTS, type TrainRunOptions } from "./train_options.ts";
import { documentData, smallSplitWarnings, textData, type TrainData } from "./train_data.ts";
export { TEXT_DEFAULTS, TRAIN_DEFAULTS, type TrainRunOptions };

export interface TrainRunResult {
  from: number;
  to: number;
  lastLoss: number;
  modelSha256?: string;
  /** Set when `shouldStop` ended the run early: the last whole update, and where its state was saved (if anywhere). */
  interrupted?: { at: number; state?: string };
  /** What `train.json` holds: data, split, tokenizer, config, options, the last validation and every baseline. */
  summary: Record<string, unknown>;
}

/**
 * Train (or resume, or extend) and save as asked; `log` receives every progress line, `warn` every warning.
 * `shouldStop` is asked between updates (Ctrl-C): the run then stops, its state saved when there is an output store.
 */
export async function runTraining(
  o: TrainRunOptions,
  print: (line: string) => void = console.log,
  warn: (line: string) => void = console.error,
  shouldStop?: () => boolean,
): Promise<TrainRunResult> {
  if (o.saveEvery !== undefined && !o.out) throw new Error("--save-every needs --out");
  if (!Number.isSafeInteger(o.seed)) throw new Error(`--seed must be an integer, got ${o.seed}`);
  const d = o.text ? textData(o) : documentData(o);
  return trainOn(d, { ...o, text: undefined }, !!o.text && smallSplitWarnings(d, o.text.split), print, warn, shouldStop);
}

/**
 * runTraining once the data is tokenized: `o` no longer holds the text (a 200 MB text is then not kept through the
 * run); `warnings` are --text's small-split warnings, false without --text.
 */
async function trainOn(
  d: TrainData,
  o: TrainRunOptions,
  warnings: string[] | false,
  print: (line: string) => void,
  warn: (line: string) => void,
  shouldStop?: () => boolean,
): Promise<TrainRunResult> {
  // the updates' bar on o.progress; a line printed to the same terminal first erases it, and its next tick redraws it
  let bar: Progress | undefined;
  const log = (line: string) => {
    bar?.clear();
    print(line);
  };
  // what the data is, as soon as it is known: a fresh run speaks before its engine builds the model; a resume only once
  // its state is accepted, so a refused resume stays its one line
  const describe = () => {
    if (warnings) for (const line of warnings) warn(line);
    log(d.describe);
  };
  if (!o.resume) describe();
  const options = trainOptions({
    seed: o.seed,
    lr: o.lr,
    warmup: o.warmup,
    cosineSteps: o.cosineSteps,
    minLr: o.minLr,
    clipNorm: o.clipNorm,
    weightDecay: o.weightDecay,
    microbatchesPerUpdate: d.microbatches,
    batchRows: o.batchRows,
    shuffle: warnings ? true : o.shuffle,
    data: d.identity,
  });
  if (o.evalEvery !== undefined && d.validation.length === 0) throw new Error(`--eval-every: the data has no validation documents`);
  const store = o.out;
  const engine = o.engine ?? tfjsOnly();
  const openPool = threadPools(engine);
  const workers = workersFor(engine.workers, openPool.cores, options.microbatchesPerUpdate, d.config);
  const pool = openPool(workers, d.config);
  const r = await trainWithValidation({
    engine,
    pool,
    config: d.config,
    options,
    tokenizer: d.tokenizer.toJSON(),
    train: d.train,
    validation: d.validation,
    data: d.source,
    trainedOn: d.trainedOn,
    ...runSchedule(o),
    store,
    shouldStop,
    warn: (line) => {
      bar?.clear();
      warn(line);
    },
    progress: o.progress,
    curve: {
      title: `training and validation loss (${parameterCount(d.config).toLocaleString("en-US")} parameters)`,
      note: "train loss: each update's own batch; validation: the whole split, every target once (stride = context)",
    },
    onUpdate: (e, s) => {
      bar?.tick(1, { loss: s.loss.toFixed(3) });
      const v = e.validation_nll === null ? "" : `  validation ${e.validation_nll.toFixed(6)}`;
      if (e.update % o.logEvery === 0 || e.update === o.updates || v)
        log(
          `update ${String(e.update).padStart(5)}  loss ${s.loss.toFixed(6)}  grad-norm ${s.gradNorm.toFixed(4)}${s.clipped ? " (clipped)" : ""}${v}`,
        );
    },
    onSave: (step, where) => log(`saved state at update ${step} → ${where}`),
    onStart: (run) => {
      if (o.resume) describe();
      log(
        `  seed ${o.seed}, lr ${o.lr} (warmup ${o.warmup}, cosine ${o.cosineSteps}, min ${o.minLr}), clip ${o.clipNorm}, weight decay ${o.weightDecay}, dropout ${d.config.dropout}, backend ${engineLabel({ ...run.provenance(), attention: run.model.engine.attention, workers }, d.config)}`,
      );
      const resumed = () =>
        run.step === 0
          ? `  nothing saved in ${store!.where(STATE_FILE)} yet: starting at update 0`
          : `  resumed from ${store!.where(STATE_FILE)} at update ${run.step}`;
      log(o.resume ? `${resumed()}; running to update ${o.updates}` : `  updates 1..${o.updates}`);
      bar = phase(o.progress, "train", o.updates - run.step, "updates");
    },
  }).catch((err) => {
    bar?.clear();
    pool.close();
    throw err;
  });
  bar?.done();
  const { run } = r;
  try {
    const lastLoss = r.history.entries.at(-1)?.train_loss ?? NaN;
    const last = [...r.history.entries].reverse().find((e) => e.validation_nll !== null);
    const summary = {
      data: d.describe,
      split: d.split ?? null,
      model_config: d.config,
      parameters: parameterCount(d.config),
      tokenizer: d.tokenizer.toJSON().kind,
      options: run.spec.options,
      updates: o.updates,
      resumed_from: r.from,
      workers,
      validation: last ? { update: last.update, nll: last.validation_nll, targets: last.validation_targets } : null,
      initial_validation_nll: r.history.initial_validation_nll,
      best: run.best ? { ...selectionOf(run.best), file: store ? store.where(BEST_MODEL_FILE) : null } : null,
      early_stop: r.earlyStop ?? null,
      baselines: r.baselines,
      files: store
        ? {
            state: store.where(STATE_FILE),
            history: o.evalEvery !== undefined ? store.where(HISTORY_FILE) : null,
            curve: o.evalEvery !== undefined ? store.where(CURVE_FILE) : null,
          }
        : null,
    };
    if (r.stopped) return { from: r.from, to: run.step, lastLoss, interrupted: { at: run.step, state: store?.where(STATE_FILE) }, summary };
    let modelSha256: string | undefined;
    if (o.saveModel) {
      modelSha256 = saveModel(run, o.saveModel.store, o.saveModel.name);
      log(`saved model (seed ${o.seed}, update ${run.step}) → ${o.saveModel.store.where(o.saveModel.name)}`);
      log(`model_sha256 ${modelSha256}`);
    }
    // the selected weights beside the last ones, after them: a kill between the two resumes and writes both again
    const best = store ? run.bestModelBytes() : undefined;
    if (best && store) {
      store.write(BEST_MODEL_FILE, best);
      log(`saved model selected on validation (update ${run.best!.update}) → ${store.where(BEST_MODEL_FILE)}`);
    }
    return {
      from: r.from,
      to: run.step,
      lastLoss,
      modelSha256,
      summary: { ...summary, model_sha256: modelSha256 ?? null, best_model_sha256: best ? sha256Hex(best) : null },
    };
  } finally {
    run.dispose();
    pool.close();
  }
}
