// `tinylab train` as a recipe: the overfit model (or a shape given) on the overfit fixture or a documents file's
// train split, with checkpoints, exact resume and a model file, all through src/lab. Prints nothing itself.
import { trainingBatches } from "../src/data/batches.ts";
import { targetCount } from "../src/data/documents.ts";
import { overfitDocuments, overfitTokenizer } from "../src/data/fixtures.ts";
import { ByteTokenizer } from "../src/data/tokenizer.ts";
import { PRESETS, resolveModelConfig } from "../src/model/config.ts";
import { EpochSource } from "../src/train/loop.ts";
import { openRun, saveModel, saveState, STATE_FILE } from "../src/lab/checkpoint.ts";
import type { Rng } from "../src/util/rng.ts";
import { tf } from "../src/util/backend.ts";
import { cappedWorkers, openOnPool, startPool } from "./pool.ts";
import { trainOptions } from "../src/lab/config.ts";
import { TRAIN_DEFAULTS, type TrainRunOptions } from "./options.ts";
export { TRAIN_DEFAULTS, type TrainRunOptions };

export interface TrainRunResult {
  from: number;
  to: number;
  lastLoss: number;
  modelSha256?: string;
  /** Set when `shouldStop` ended the run early: the last whole update, and where its state was saved (if anywhere). */
  interrupted?: { at: number; state?: string };
}

/**
 * Train (or resume) and save as asked; `log` receives every progress line, `warn` every warning. `shouldStop` is
 * asked between updates (Ctrl-C): the run then stops, its state saved when there is a checkpoint store.
 */
export async function runTraining(
  o: TrainRunOptions, log: (line: string) => void = console.log, warn: (line: string) => void = console.error, shouldStop?: () => boolean,
): Promise<TrainRunResult> {
  if (o.checkpointEvery !== undefined && !o.checkpoints) throw new Error("--checkpoint-every needs --checkpoint-dir");
  if (!Number.isSafeInteger(o.seed)) throw new Error(`--seed must be an integer, got ${o.seed}`);
  const config = resolveModelConfig(o.modelConfig, PRESETS.overfit);
  const tokenizer = o.data ? new ByteTokenizer(config.vocabSize) : overfitTokenizer();
  const train = (o.data ? o.data.docs(tokenizer) : overfitDocuments(tokenizer)).filter((d) => d.split === "train");
  const source = o.data?.name ?? "overfit fixture";
  if (train.length === 0) throw new Error(`no train documents in ${source}`);
  const microbatches = trainingBatches(train, { vocabSize: config.vocabSize, contextLength: config.contextLength }, o.batchRows === 1 ? "separate" : "padded", o.batchRows);
  const options = trainOptions({
    seed: o.seed, lr: o.lr, warmup: o.warmup, cosineSteps: o.cosineSteps, minLr: o.minLr, clipNorm: o.clipNorm, weightDecay: o.weightDecay,
    microbatchesPerUpdate: o.microbatches, batchRows: o.batchRows, shuffle: o.shuffle, data: o.data?.identity ?? "overfit-fixture",
  });
  const data = (batches: Rng) => new EpochSource(microbatches, o.microbatches, o.shuffle ? batches : undefined);
  const workers = cappedWorkers(o.workers ?? 1, o.microbatches);
  const pool = startPool(workers, config, tf.getBackend());
  const run = openOnPool(pool, () => openRun({ config, options, tokenizer: tokenizer.toJSON(), data }, o.checkpoints, o.resume, pool));
  try {
    if (run.step > o.updates) throw new Error(`${o.checkpoints!.where(STATE_FILE)} is at update ${run.step}, past --updates ${o.updates}`);
    const targets = train.reduce((n, d) => n + targetCount(d), 0);
    log(`train: ${source}, ${train.length} training documents (${targets} targets) in ${microbatches.length} microbatches, ${o.microbatches} per update${o.shuffle ? ", shuffled each epoch" : ""}`);
    log(`  seed ${o.seed}, lr ${o.lr} (warmup ${o.warmup}, cosine ${o.cosineSteps}, min ${o.minLr}), clip ${o.clipNorm}, weight decay ${o.weightDecay}, dropout ${config.dropout}, backend ${run.provenance().backend}, workers ${workers}`);
    log(o.resume ? `  resumed from ${o.checkpoints!.where(STATE_FILE)} at update ${run.step}; running to update ${o.updates}` : `  updates 1..${o.updates}`);
    let lastLoss = NaN;
    const store = o.checkpoints;
    const span = await run.trainAsync(o.updates, {
      checkpointEvery: o.checkpointEvery, onDivergence: o.onDivergence, warn,
      onUpdate: (step, r) => {
        lastLoss = r.loss;
        if (step % o.logEvery === 0 || step === o.updates) log(`update ${String(step).padStart(5)}  loss ${r.loss.toFixed(6)}  grad-norm ${r.gradNorm.toFixed(4)}${r.clipped ? " (clipped)" : ""}`);
      },
      onCheckpoint: store ? (step) => log(`checkpoint update ${step} → ${saveState(run, store)}`) : undefined,
    }, shouldStop);
    if (span.stopped) return { from: span.from, to: span.to, lastLoss, interrupted: { at: run.step, state: store ? saveState(run, store) : undefined } };
    let modelSha256: string | undefined;
    if (o.saveModel) {
      modelSha256 = saveModel(run, o.saveModel.store, o.saveModel.name);
      log(`saved model (seed ${o.seed}, update ${run.step}) → ${o.saveModel.store.where(o.saveModel.name)}`);
      log(`model_sha256 ${modelSha256}`);
    }
    return { from: span.from, to: span.to, lastLoss, modelSha256 };
  } finally {
    run.dispose();
    pool.close();
  }
}
