// The cyclic-permutation experiment: train a small decoder on 80 cycles for a fixed budget, score train and
// validation (test only on request) against count baselines and by position, and check an in-memory resume.
// A recipe over src/, not library code.
import { CYCLIC_DEFAULTS, type CyclicOptions } from "./options.ts";
export { CYCLIC_DEFAULTS, type CyclicOptions };
import { provenance } from "../src/util/runtime/provenance.ts";
import { checkOption } from "./option_catalogue.ts";
import { tfjsOnly } from "../src/util/backend.ts";
import type { Engine } from "../src/util/engine.ts";
import { ReplacementSource } from "../src/data/sampling.ts";
import { parameterCount, resolveModelConfig, type ModelConfig } from "../src/model/config.ts";
import { paddedBatches, type Batch, type Binding } from "../src/data/batches.ts";
import type { Document, Split } from "../src/data/documents.ts";
import type { SplitRows } from "../src/data/split_file.ts";
import { CYCLE_LENGTH, CYCLIC_VOCAB, ROW_LENGTH, cyclicDocuments, splitCyclicRows, taskEntropyByPosition } from "../src/data/cyclic.ts";
import { readCyclicSplitFile } from "../src/node/split_files.ts";
import { decoderAdapter, type ScoringModel } from "../src/eval/passes/adapter.ts";
import { evaluateLikelihood } from "../src/eval/passes/likelihood.ts";
import { record, summary, type MetricSummary } from "../src/eval/metrics/summary.ts";
import { allBaselines } from "../src/baselines/ngram.ts";
import { trainOptions } from "../src/lab/config.ts";
import { Run } from "../src/lab/run.ts";
import { resumeCheck } from "../src/lab/resume_check.ts";
import { everyAndLast } from "../src/train/loop.ts";
import { historyRecorder } from "../src/lab/history_events.ts";
import { learningRate } from "../src/train/schedule.ts";
import { thisThread, withPool, type PoolOpener, type WorkerPool } from "../src/train/pool.ts";

/**
 * Two layers, d_model 32, 2 heads, d_ff 64 (17,568 parameters): fixed before any run and not tuned. Ample
 * for the task: copying from one cycle back (position t − 3) takes a single head attending by position.
 */
export const CYCLIC_MODEL: ModelConfig = resolveModelConfig({
  vocabSize: CYCLIC_VOCAB,
  contextLength: ROW_LENGTH - 1,
  nLayers: 2,
  dModel: 32,
  nHeads: 2,
  dFF: 64,
  dropout: 0,
  tiedHead: true,
});

/** Input position 3 sees c0..c3 and predicts c0: from here on the target is determined by the context. */
export const FIRST_DETERMINED_POSITION = CYCLE_LENGTH - 1;

export function checkCyclicOptions(o: CyclicOptions): CyclicOptions {
  for (const k of ["seed", "splitSeed"] as const) if (!Number.isInteger(o[k])) throw new Error(`${k} must be an integer, got ${o[k]}`);
  for (const k of ["updates", "batchRows", "evalEvery"] as const)
    if (!Number.isInteger(o[k]) || o[k] < 1) throw new Error(`${k} must be a positive integer, got ${o[k]}`);
  checkOption("lr", o.lr);
  if (!(o.clipNorm > 0)) throw new Error(`clip norm must be > 0, got ${o.clipNorm}`);
  return o;
}

/** The run: a fresh model, Adam without weight decay, rows drawn with replacement from the "batches" stream. */
export function cyclicRun(
  o: CyclicOptions,
  train: readonly Document[],
  config: ModelConfig = CYCLIC_MODEL,
  pool?: WorkerPool,
  engine?: Engine,
): Run {
  const options = trainOptions({
    seed: o.seed,
    lr: o.lr,
    clipNorm: o.clipNorm,
    batchRows: o.batchRows,
    data: o.splitFile ? `cyclic split file ${o.splitFile}` : `cyclic split seed ${o.splitSeed}`,
  });
  return Run.create(
    { config, options, tokenizer: null, data: (batches) => new ReplacementSource(train, o.batchRows, bindingOf(config), batches), engine },
    undefined,
    pool,
  );
}

const bindingOf = (c: ModelConfig): Binding => ({ vocabSize: c.vocabSize, contextLength: c.contextLength });

/** Σ NLL and count per input position; rows hold one document from column 0, so column = position. */
function nllByPosition(model: ScoringModel, batches: readonly Batch[]): MetricSummary[] {
  const n = ROW_LENGTH - 1;
  const sums = new Float64Array(n),
    counts = new Array<number>(n).fill(0);
  for (const b of batches) {
    if (b.layout !== "padded") throw new Error("loss by position needs one document per row (padded layout)");
    const nll = model.positionNll(b);
    for (let i = 0; i < nll.length; i++)
      if (b.mask[i] !== 0) {
        sums[i % b.input.cols] += nll[i];
        counts[i % b.input.cols] += 1;
      }
  }
  return Array.from(sums, (s, t) => summary(s, counts[t]));
}

function score(model: ScoringModel, split: Split, batches: readonly Batch[]) {
  const byPosition = nllByPosition(model, batches);
  const determined = byPosition.slice(FIRST_DETERMINED_POSITION).reduce((a, b) => summary(a.totalNll + b.totalNll, a.targets + b.targets));
  return {
    name: model.name,
    ...record(evaluateLikelihood(model, split, batches).metrics),
    by_position: byPosition.map(record),
    determined_positions: record(determined),
  };
}

export type Score = ReturnType<typeof score>;
export type CyclicResult = ReturnType<typeof runCyclic>;

/**
 * Train for `updates`, then score every requested split with the decoder and each baseline. The engine's `workers`
 * is capped by the one microbatch of an update, so this runs on one thread; it is taken so every training command has it.
 */
export function runCyclic(
  options: Partial<CyclicOptions> = {},
  hooks: { engine?: Engine; openPool?: PoolOpener; onEvents?: (events: Uint8Array) => void } = {},
) {
  const engine = hooks.engine ?? tfjsOnly();
  return withPool(hooks.openPool ?? thisThread, engine.workers, 1, CYCLIC_MODEL, (pool) =>
    cyclicWith(pool, engine, options, hooks.onEvents),
  );
}

/** `onEvents` receives the training history (loss, rate, gradient norm, validation NLL at the evaluations) as a TensorBoard event file. */
function cyclicWith(pool: WorkerPool, engine: Engine, options: Partial<CyclicOptions>, onEvents?: (events: Uint8Array) => void) {
  const t0 = performance.now();
  const o = checkCyclicOptions({ ...CYCLIC_DEFAULTS, ...options });
  const rows: SplitRows = o.splitFile ? readCyclicSplitFile(o.splitFile) : splitCyclicRows(o.splitSeed);
  if (o.finalTest && rows.test.length === 0) throw new Error("--final-test asked for, but the test split is empty");
  const docs = cyclicDocuments(rows);
  const binding = bindingOf(CYCLIC_MODEL);
  const docsOf = (split: Split) => docs.filter((d) => d.split === split);
  const train = docsOf("train");
  // the test rows are batched only for a final report; otherwise nothing below can reach them
  const splits: Split[] = o.finalTest ? ["train", "validation", "test"] : ["train", "validation"];
  const batchesOf = (split: Split) => paddedBatches(docsOf(split), binding, 64);
  const evalBatches = { train: batchesOf("train"), validation: batchesOf("validation") };

  const run = cyclicRun(o, train, CYCLIC_MODEL, pool, engine);
  // evaluation must leave every stream where it was: the adapter's fingerprint covers both
  const adapter = decoderAdapter(run.model, { rngs: [run.batches, run.dropout], pool });
  try {
    const quick = (split: "train" | "validation") => record(evaluateLikelihood(adapter, split, evalBatches[split]).metrics).nll;
    const checkpoints: { update: number; train: number; validation: number }[] = [];
    const steps: { loss: number; grad_norm: number; clipped: boolean }[] = [];
    const recorder = historyRecorder((step) => learningRate(run.spec.options.schedule, step));
    const validationTargets = evalBatches.validation.reduce((n, b) => n + b.targetCount, 0);
    run.train(
      { updates: o.updates, evaluateAt: everyAndLast(o.evalEvery, o.updates) },
      {
        onEvaluate: (update) => {
          checkpoints.push({ update, train: quick("train"), validation: quick("validation") });
          if (update === 0) recorder.initial(checkpoints[0].validation);
          return { nll: checkpoints[checkpoints.length - 1].validation, targets: validationTargets };
        },
        onUpdate: (step, r, scored) => {
          steps.push({ loss: r.loss, grad_norm: r.gradNorm, clipped: r.clipped });
          recorder.update(step, r, scored);
        },
      },
    );
    onEvents?.(recorder.events());
    const scorers = [adapter, ...allBaselines(train, binding)];
    const scored = Object.fromEntries(splits.map((split) => [split, scorers.map((m) => score(m, split, batchesOf(split)))])) as Partial<
      Record<Split, Score[]>
    >;
    const resume = resumeCheck(run);
    const adamw = run.spec.options.adamw;
    return {
      experiment: "cyclic" as const,
      model_config: CYCLIC_MODEL,
      parameters: parameterCount(CYCLIC_MODEL),
      options: o,
      optimizer: {
        name: "Adam (AdamW with weight decay 0)",
        beta1: adamw.beta1,
        beta2: adamw.beta2,
        eps: adamw.eps,
        weight_decay: adamw.weightDecay,
      },
      data: {
        split_from: o.splitFile ? `file ${o.splitFile}` : `seeded shuffle, split seed ${o.splitSeed}`,
        rows: { train: rows.train.length, validation: rows.validation.length, test: rows.test.length },
        targets_per_row: ROW_LENGTH - 1,
        split_rows: rows,
      },
      first_determined_position: FIRST_DETERMINED_POSITION,
      task_entropy_by_position: taskEntropyByPosition(),
      training: { steps, checkpoints, clipped_updates: steps.filter((x) => x.clipped).length },
      scored_splits: splits,
      scores: scored,
      resume_check: resume,
      seconds: (performance.now() - t0) / 1000,
      provenance: { ...provenance(engine), workers: pool.size },
    };
  } finally {
    run.dispose();
  }
}
