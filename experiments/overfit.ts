// The overfitting experiment: per seed, train on two documents and score both splits at fixed checkpoints,
// against count baselines, with every denominator explicit. A recipe over src/, not library code.
import { OVERFIT_DEFAULTS, type OverfitOptions } from "./options.ts";
export { OVERFIT_DEFAULTS, type OverfitOptions };
import { provenance, type Provenance } from "../src/util/runtime/provenance.ts";
import { checkOption } from "./option_catalogue.ts";
import { tfjsOnly } from "../src/util/backend.ts";
import type { Engine } from "../src/util/engine.ts";
import { PRESETS, type ModelConfig } from "../src/model/config.ts";
import type { GPT } from "../src/model/gpt.ts";
import { EpochSource } from "../src/data/epoch_source.ts";
import { overfitDocuments, overfitTokenizer } from "../src/data/fixtures.ts";
import { packedBatches, trainingBatches, type Batch, type Binding } from "../src/data/batches.ts";
import type { Document } from "../src/data/documents.ts";
import { decoderAdapter } from "../src/eval/passes/adapter.ts";
import {
  byDocument,
  layoutComparison,
  overfittingSignals,
  scoreSplits,
  TWO_DOCUMENTS_NOTE,
  weightingProbe,
  type Split2,
} from "./overfit/probes.ts";
import { checkpointBootstrap } from "./overfit/checkpoint_bootstrap.ts";
import { allBaselines } from "../src/baselines/ngram.ts";
import { seedSummary } from "./overfit/seed_summary.ts";
import { trainOptions } from "../src/lab/config.ts";
import { MIN_REPLICATES } from "../src/eval/metrics/intervals.ts";
import { Run, type RunSpec } from "../src/lab/run.ts";
import { saveModel, type Store } from "../src/lab/store.ts";
import { atUpdates } from "../src/train/loop.ts";
import { historyRecorder } from "../src/lab/history_events.ts";
import { learningRate } from "../src/train/schedule.ts";
import { thisThread, withPool, type PoolOpener, type WorkerPool } from "../src/train/pool.ts";

/** d_model 8, 2 heads, d_ff 16, 1 block, context 8, vocabulary 266, no dropout: the preset, defined once. */
export const OVERFIT_MODEL: ModelConfig = PRESETS.overfit;

/** Resolve options, refusing checkpoints outside [0, updates] and empty seed lists. */
export function checkOverfitOptions(o: OverfitOptions): OverfitOptions {
  if (o.seeds.length === 0) throw new Error("at least one seed is needed");
  for (const s of o.seeds) if (!Number.isSafeInteger(s)) throw new Error(`--seeds must be safe integers, got ${s}`);
  // a repeated seed is the same run twice: its SD would be computed over copies (e.g. 0.000000 "over 2 seeds")
  const repeated = o.seeds.find((s, i) => o.seeds.indexOf(s) !== i);
  if (repeated !== undefined) throw new Error(`--seeds: seed ${repeated} is given twice (got ${o.seeds.join(",")})`);
  if (!Number.isInteger(o.updates) || o.updates < 1) throw new Error(`updates must be a positive integer, got ${o.updates}`);
  for (const c of o.checkpoints)
    if (!Number.isInteger(c) || c < 0 || c > o.updates)
      throw new Error(`--checkpoints: checkpoint ${c} is outside [0, ${o.updates}] (--updates ${o.updates})`);
  checkOption("lr", o.lr);
  if (!Number.isInteger(o.replicates) || o.replicates < MIN_REPLICATES)
    throw new Error(`--replicates must be an integer ≥ ${MIN_REPLICATES} for a percentile interval, got ${o.replicates}`);
  if (!Number.isSafeInteger(o.bootstrapSeed)) throw new Error(`bootstrap seed must be a safe integer, got ${o.bootstrapSeed}`);
  const checkpoints = [...new Set(o.checkpoints)].sort((a, b) => a - b);
  return { ...o, checkpoints };
}

/** The run of one seed: each update accumulates the two training documents as two one-document microbatches. */
function overfitRun(seed: number, o: OverfitOptions, docs: Document[], binding: Binding, engine: Engine): RunSpec {
  const microbatches = trainingBatches(
    docs.filter((d) => d.split === "train"),
    binding,
    "separate",
  );
  const options = trainOptions({
    seed,
    lr: o.lr,
    clipNorm: o.clipNorm,
    microbatchesPerUpdate: microbatches.length,
    data: "overfit-fixture",
  });
  return {
    config: OVERFIT_MODEL,
    options,
    tokenizer: overfitTokenizer().toJSON(),
    data: () => new EpochSource(microbatches, microbatches.length),
    engine,
  };
}

/** What a live view is told as the experiment runs (the web page draws curves from it); the result is unchanged. */
export type OverfitProgress =
  | {
      kind: "setup";
      weighting_probe: ReturnType<typeof weightingProbe>;
      layout_comparison: ReturnType<typeof layoutComparison>;
      baselines: ({ name: string } & Split2)[];
      targets: { train: number; validation: number };
    }
  | { kind: "update"; seed: number; update: number; loss: number }
  | ({ kind: "checkpoint"; seed: number; update: number; validation_by_document: ReturnType<typeof byDocument> } & Split2);

/** One seed: train for `updates` through the lab's run, scoring at each checkpoint. */
function runSeed(
  seed: number,
  o: OverfitOptions,
  docs: Document[],
  binding: Binding,
  data: Record<"train" | "validation", Batch[]>,
  pool: WorkerPool,
  engine: Engine,
  onProgress?: (p: OverfitProgress) => void,
) {
  const run = Run.create(overfitRun(seed, o, docs, binding, engine), undefined, pool);
  const recorder = historyRecorder((step) => learningRate(run.spec.options.schedule, step));
  const checkpoints: ({ update: number; validation_by_document: ReturnType<typeof byDocument> } & Split2)[] = [];
  const trainLoss: number[] = [];
  const validation = docs.filter((d) => d.split === "validation");
  const adapter = decoderAdapter(run.model, { pool });
  const told = (c: (typeof checkpoints)[number]) => onProgress?.({ kind: "checkpoint", seed, ...c });
  run.train(
    { updates: o.updates, evaluateAt: atUpdates(o.checkpoints) },
    {
      onEvaluate: (update) => {
        checkpoints.push({ update, ...scoreSplits(adapter, data), validation_by_document: byDocument(adapter, validation, binding) });
        if (update === 0) {
          told(checkpoints[0]); // no update event comes before it
          recorder.initial(checkpoints[0].validation.nll);
        }
        return checkpoints[checkpoints.length - 1];
      },
      onUpdate: (update, r, scored) => {
        trainLoss.push(r.loss);
        recorder.update(update, r, scored?.validation);
        onProgress?.({ kind: "update", seed, update, loss: r.loss });
        if (scored) told(scored);
      },
    },
  );
  return { run, recorder, result: { seed, checkpoints, ...overfittingSignals(checkpoints), training_loss_by_update: trainLoss } };
}

export interface OverfitResult {
  experiment: "overfit";
  model_config: ModelConfig;
  options: OverfitOptions;
  data: {
    tokenizer: unknown;
    documents: { id: string; split: string; ids: number[]; targets: number }[];
    targets: { train: number; validation: number };
  };
  weighting_probe: ReturnType<typeof weightingProbe>;
  layout_comparison: ReturnType<typeof layoutComparison>;
  baselines: ({ name: string } & Split2)[];
  runs: ReturnType<typeof runSeed>["result"][];
  final_validation_seed_summary: ReturnType<typeof seedSummary>;
  multi_bootstrap: ReturnType<typeof checkpointBootstrap>;
  provenance: Provenance;
  saved_model?: { path: string; seed: number; update: number; model_sha256: string };
}

/** Where to save the first declared seed's model at the final update (never the best one: that would be selection). */
export type SaveTo = { store: Store; name: string };

/**
 * Run every seed; with `save`, the first declared seed's final model is written and its sha256 reported;
 * `onModel` sees each seed's trained model before it is disposed; `onProgress` sees the set-up blocks, each
 * update's loss and each checkpoint's scores as they are computed. The engine's `workers` threads (capped by the
 * two microbatches of an update) train and score; the result is the same bit for bit for any count.
 */
export function runOverfit(options: Partial<OverfitOptions> = {}, hooks: OverfitHooks & { openPool?: PoolOpener } = {}): OverfitResult {
  const train = overfitDocuments(overfitTokenizer()).filter((d) => d.split === "train").length;
  const engine = hooks.engine ?? tfjsOnly();
  return withPool(hooks.openPool ?? thisThread, engine.workers, train, OVERFIT_MODEL, (pool) =>
    overfitWith(pool, options, { ...hooks, engine }),
  );
}

type OverfitHooks = {
  /** The engine every run computes on, its workers included (its pool's threads open the same); absent: tfjs's own kernels. */
  engine?: Engine;
  save?: SaveTo;
  onModel?: (seed: number, model: GPT) => void;
  onProgress?: (p: OverfitProgress) => void;
  /** Each seed's training history (train loss, rate, gradient norm, validation NLL at the checkpoints) as a TensorBoard event file. */
  onEvents?: (seed: number, events: Uint8Array) => void;
};

function overfitWith(pool: WorkerPool, options: Partial<OverfitOptions>, hooks: OverfitHooks): OverfitResult {
  const { save, engine = tfjsOnly() } = hooks;
  const o = checkOverfitOptions({ ...OVERFIT_DEFAULTS, ...options });
  const tokenizer = overfitTokenizer();
  const docs = overfitDocuments(tokenizer);
  const binding: Binding = { vocabSize: OVERFIT_MODEL.vocabSize, contextLength: OVERFIT_MODEL.contextLength };
  const bySplit = (s: "train" | "validation") => docs.filter((d) => d.split === s);
  const data = { train: packedBatches(bySplit("train"), binding, 2), validation: packedBatches(bySplit("validation"), binding, 2) };
  const initial = Run.create(overfitRun(o.seeds[0], o, docs, binding, engine));
  const layouts = layoutComparison(initial.model, bySplit("validation"), binding);
  initial.dispose();
  const probe = weightingProbe();
  const baselines = allBaselines(bySplit("train"), binding).map((b) => ({ name: b.name, ...scoreSplits(b, data) }));
  const targets = {
    train: data.train.reduce((n, b) => n + b.targetCount, 0),
    validation: data.validation.reduce((n, b) => n + b.targetCount, 0),
  };
  hooks.onProgress?.({ kind: "setup", weighting_probe: probe, layout_comparison: layouts, baselines, targets });
  let saved: OverfitResult["saved_model"];
  const runs = o.seeds.map((seed, i) => {
    const { run, recorder, result } = runSeed(seed, o, docs, binding, data, pool, engine, hooks.onProgress);
    hooks.onEvents?.(seed, recorder.events());
    if (save && i === 0)
      saved = { path: save.store.where(save.name), seed, update: run.step, model_sha256: saveModel(run, save.store, save.name) };
    hooks.onModel?.(seed, run.model);
    run.dispose();
    return result;
  });
  const finals = runs.map((r) => r.checkpoints[r.checkpoints.length - 1].validation.nll);
  return {
    experiment: "overfit",
    model_config: OVERFIT_MODEL,
    options: o,
    data: {
      tokenizer: tokenizer.toJSON(),
      documents: docs.map((d) => ({ id: d.id, split: d.split, ids: d.ids, targets: d.ids.length - 1 })),
      targets,
    },
    weighting_probe: probe,
    layout_comparison: layouts,
    baselines,
    runs,
    final_validation_seed_summary: seedSummary(finals),
    multi_bootstrap: checkpointBootstrap(runs, o, TWO_DOCUMENTS_NOTE),
    provenance: { ...provenance(engine), workers: pool.size },
    ...(saved ? { saved_model: saved } : {}),
  };
}
