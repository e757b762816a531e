// The overfitting experiment: per seed, train on two documents and score both splits at fixed checkpoints,
// against count baselines, with every denominator explicit. A recipe over src/, not library code.
import { tf } from "../src/util/backend.ts";
import { Rng } from "../src/util/rng.ts";
import { provenance, round6, type Provenance } from "../src/util/provenance.ts";
import { resolveModelConfig, type ModelConfig } from "../src/model/config.ts";
import { initParameters } from "../src/model/init.ts";
import { GPT } from "../src/model/gpt.ts";
import { batchLoss } from "../src/model/loss.ts";
import { AdamW, DEFAULT_ADAMW } from "../src/train/adamw.ts";
import { trainStep } from "../src/train/trainer.ts";
import { overfitDocuments, overfitTokenizer, OVERFIT_VOCAB } from "../src/data/fixtures.ts";
import { packedBatches, paddedBatches, separateBatches, trainingBatches, type Batch, type Binding } from "../src/data/batches.ts";
import type { Document } from "../src/data/documents.ts";
import { decoderAdapter, type ScoringModel } from "../src/eval/adapter.ts";
import { evaluateLikelihood } from "../src/eval/likelihood.ts";
import { fromProbabilities, meanNll, merge, perplexity, record } from "../src/eval/summary.ts";
import { allBaselines } from "../src/baselines/ngram.ts";
import { seedSummary } from "../src/eval/seed_summary.ts";

export interface OverfitOptions {
  seeds: number[];
  updates: number;
  checkpoints: number[];
  lr: number;
  clipNorm: number;
}

export const OVERFIT_DEFAULTS: OverfitOptions = { seeds: [39, 40, 41], updates: 80, checkpoints: [0, 10, 20, 40, 80], lr: 0.02, clipNorm: 1 };

export const OVERFIT_MODEL: ModelConfig = resolveModelConfig({ vocabSize: OVERFIT_VOCAB, contextLength: 8, nLayers: 1, dModel: 8, nHeads: 2, dFF: 16, dropout: 0 });

type Split2 = { train: ReturnType<typeof record>; validation: ReturnType<typeof record> };

/** Resolve options, refusing checkpoints outside [0, updates] and empty seed lists. */
export function checkOverfitOptions(o: OverfitOptions): OverfitOptions {
  if (o.seeds.length === 0) throw new Error("at least one seed is needed");
  for (const s of o.seeds) if (!Number.isInteger(s)) throw new Error(`seeds must be integers, got ${s}`);
  if (!Number.isInteger(o.updates) || o.updates < 1) throw new Error(`updates must be a positive integer, got ${o.updates}`);
  for (const c of o.checkpoints) if (!Number.isInteger(c) || c < 0 || c > o.updates) throw new Error(`checkpoint ${c} is outside [0, ${o.updates}]`);
  if (!(o.lr > 0)) throw new Error(`learning rate must be > 0, got ${o.lr}`);
  const checkpoints = [...new Set(o.checkpoints)].sort((a, b) => a - b);
  return { ...o, checkpoints };
}

/** Scores of one adapter on both splits (packed layout; the layout comparison shows it does not matter). */
function scoreSplits(model: ScoringModel, data: Record<"train" | "validation", Batch[]>): Split2 {
  return { train: record(evaluateLikelihood(model, "train", data.train).metrics), validation: record(evaluateLikelihood(model, "validation", data.validation).metrics) };
}

/** Constructed probabilities, not decoder outputs, make the denominator visible. */
export function weightingProbe() {
  const short = fromProbabilities([0.5, 0.25]);
  const long = fromProbabilities([0.5, 0.5, 0.25, 0.5]);
  const all = merge(short, long);
  return {
    batch_targets: [short.targets, long.targets],
    batch_mean_nll: [meanNll(short), meanNll(long)],
    correct: { mean_nll: meanNll(all), perplexity: perplexity(all), targets: all.targets },
    wrong_unweighted_mean_nll: (meanNll(short) + meanNll(long)) / 2,
    wrong_mean_perplexity: (perplexity(short) + perplexity(long)) / 2,
  };
}

/** Separate, padded and packed storage scoring the same validation targets with the same weights. */
export function layoutComparison(model: GPT, docs: Document[], binding: Binding) {
  const adapter = decoderAdapter(model);
  const layouts = { separate: separateBatches(docs, binding), padded: paddedBatches(docs, binding, docs.length), packed: packedBatches(docs, binding, docs.length) };
  const rows = Object.entries(layouts).map(([layout, batches]) => {
    const e = evaluateLikelihood(adapter, "validation", batches);
    return { layout, batches: e.batches, rows: batches.reduce((n, b) => n + b.input.rows, 0), targets: e.metrics.targets, nll: meanNll(e.metrics), recorded_graphs: e.recordedGraphs };
  });
  const nlls = rows.map((r) => r.nll);
  return { rows, largest_nll_difference: Math.max(...nlls) - Math.min(...nlls) };
}

/** One seed: train for `updates`, scoring at each checkpoint. */
function runSeed(seed: number, o: OverfitOptions, docs: Document[], binding: Binding, data: Record<"train" | "validation", Batch[]>) {
  const model = new GPT(OVERFIT_MODEL, initParameters(OVERFIT_MODEL, Rng.fromSeed(seed).child("init")));
  const optimizer = new AdamW(model.params, { ...DEFAULT_ADAMW, weightDecay: 0 });
  // each update accumulates the two training documents as two one-document microbatches
  const microbatches = trainingBatches(docs.filter((d) => d.split === "train"), binding, "separate");
  const lossFn = batchLoss(model, { train: false }); // dropout is 0 in this fixture
  const checkpoints: ({ update: number } & Split2)[] = [];
  const trainLoss: number[] = [];
  for (let update = 0; update <= o.updates; update++) {
    if (update > 0) trainLoss.push(trainStep({ params: model.params, microbatches, lossFn, optimizer, lr: o.lr, clipNorm: o.clipNorm }).loss);
    if (o.checkpoints.includes(update)) checkpoints.push({ update, ...scoreSplits(decoderAdapter(model), data) });
  }
  const at = (u: number) => checkpoints.find((c) => c.update === u);
  const intervals = [[20, 40], [40, 80]].filter(([a, b]) => at(a) && at(b)).map(([a, b]) => {
    const trainFell = at(b)!.train.nll < at(a)!.train.nll, validationRose = at(b)!.validation.nll > at(a)!.validation.nll;
    return { from: a, to: b, train_fell: trainFell, validation_rose: validationRose, overfitting_signal: trainFell && validationRose };
  });
  const best = checkpoints.reduce((b, c) => (c.validation.nll < b.validation.nll ? c : b));
  return { model, result: { seed, checkpoints, intervals, lowest_validation_checkpoint: best.update, training_loss_by_update: trainLoss } };
}

export interface OverfitResult {
  experiment: "overfit";
  model_config: ModelConfig;
  options: OverfitOptions;
  data: { tokenizer: unknown; documents: { id: string; split: string; ids: number[]; targets: number }[]; targets: { train: number; validation: number } };
  weighting_probe: ReturnType<typeof weightingProbe>;
  layout_comparison: ReturnType<typeof layoutComparison>;
  baselines: ({ name: string } & Split2)[];
  runs: ReturnType<typeof runSeed>["result"][];
  final_validation_seed_summary: ReturnType<typeof seedSummary>;
  provenance: Provenance;
}

/**
 * Run every seed; `keep(seed, model)` may take a trained model (e.g. to save it) before it is disposed,
 * and returns true if it took ownership.
 */
export function runOverfit(options: Partial<OverfitOptions> = {}, keep?: (seed: number, model: GPT) => boolean): OverfitResult {
  const o = checkOverfitOptions({ ...OVERFIT_DEFAULTS, ...options });
  const tokenizer = overfitTokenizer();
  const docs = overfitDocuments(tokenizer);
  const binding: Binding = { vocabSize: OVERFIT_MODEL.vocabSize, contextLength: OVERFIT_MODEL.contextLength };
  const bySplit = (s: "train" | "validation") => docs.filter((d) => d.split === s);
  const data = { train: packedBatches(bySplit("train"), binding, 2), validation: packedBatches(bySplit("validation"), binding, 2) };
  const initial = new GPT(OVERFIT_MODEL, initParameters(OVERFIT_MODEL, Rng.fromSeed(o.seeds[0]).child("init")));
  const layouts = layoutComparison(initial, bySplit("validation"), binding);
  initial.dispose();
  const runs = o.seeds.map((seed) => {
    const { model, result } = runSeed(seed, o, docs, binding, data);
    if (!keep?.(seed, model)) model.dispose();
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
      targets: { train: data.train.reduce((n, b) => n + b.targetCount, 0), validation: data.validation.reduce((n, b) => n + b.targetCount, 0) },
    },
    weighting_probe: weightingProbe(),
    layout_comparison: layouts,
    baselines: allBaselines(bySplit("train"), binding).map((b) => ({ name: b.name, ...scoreSplits(b, data) })),
    runs,
    final_validation_seed_summary: seedSummary(finals),
    provenance: provenance(),
  };
}

/** The readable table printed on stdout (values rounded to 6 decimals for display only). */
export function formatOverfit(r: OverfitResult): string {
  const f = (x: number) => round6(x).toFixed(6);
  const lines: string[] = [];
  const w = r.weighting_probe;
  lines.push(`overfit: ${r.options.seeds.length} seeds × ${r.options.updates} updates, lr ${r.options.lr}, backend ${r.provenance.backend}, targets train ${r.data.targets.train} / validation ${r.data.targets.validation}`);
  lines.push("", "weighting probe (constructed probabilities [0.5, 0.25] and [0.5, 0.5, 0.25, 0.5]):");
  lines.push(`  correct merged mean ${f(w.correct.mean_nll)} nats, perplexity ${f(w.correct.perplexity)} over ${w.correct.targets} targets`);
  lines.push(`  wrong unweighted mean ${f(w.wrong_unweighted_mean_nll)}, wrong mean perplexity ${f(w.wrong_mean_perplexity)}`);
  lines.push("", `layouts at seed ${r.options.seeds[0]}'s initial weights, validation:`);
  for (const l of r.layout_comparison.rows) lines.push(`  ${l.layout.padEnd(8)} batches ${l.batches} rows ${l.rows} targets ${l.targets} NLL ${f(l.nll)} recorded graphs ${l.recorded_graphs}`);
  lines.push(`  largest NLL difference ${r.layout_comparison.largest_nll_difference.toExponential(3)}`);
  lines.push("", "baselines (fitted on train):                 train NLL (ppl)              validation NLL (ppl)");
  for (const b of r.baselines) lines.push(`  ${b.name.padEnd(30)} ${f(b.train.nll)} (${f(b.train.perplexity).padStart(11)})   ${f(b.validation.nll)} (${f(b.validation.perplexity).padStart(11)})   [${b.train.targets}/${b.validation.targets} targets]`);
  for (const run of r.runs) {
    lines.push("", `seed ${run.seed}:  update   train NLL (ppl)            validation NLL (ppl)`);
    for (const c of run.checkpoints) lines.push(`  ${String(c.update).padStart(12)}   ${f(c.train.nll)} (${f(c.train.perplexity).padStart(10)})   ${f(c.validation.nll)} (${f(c.validation.perplexity).padStart(10)})`);
    for (const i of run.intervals) lines.push(`  ${i.from}→${i.to}: training ${i.train_fell ? "fell" : "did not fall"}, validation ${i.validation_rose ? "rose" : "did not rise"}`);
    lines.push(`  lowest validation NLL among checkpoints: update ${run.lowest_validation_checkpoint}`);
  }
  const s = r.final_validation_seed_summary;
  lines.push("", `final validation NLL over ${s.count} seeds: mean ${f(s.mean)}, sample SD ${f(s.sample_sd)}, min ${f(s.min)}, max ${f(s.max)}`);
  lines.push(`  ${s.interpretation}`);
  return lines.join("\n");
}

/** Training and validation NLL against update, one line pair per seed, baselines as horizontal lines. */
export async function overfitFigure(r: OverfitResult): Promise<string> {
  const { lineChart } = await import("../src/util/charts.ts");
  const { PALETTE } = await import("../src/util/svg.ts");
  const series = r.runs.flatMap((run, i) => [
    { name: `seed ${run.seed} train`, points: run.checkpoints.map((c) => [c.update, c.train.nll] as [number, number]), color: PALETTE[i % PALETTE.length], marker: true },
    { name: `seed ${run.seed} validation`, points: run.checkpoints.map((c) => [c.update, c.validation.nll] as [number, number]), color: PALETTE[i % PALETTE.length], dash: "6 4", marker: true },
  ]);
  const refLines = r.baselines.map((b) => ({ name: b.name.replace(/ \(.*\)$/, ""), y: b.validation.nll, color: "#888888", dash: "2 3" }));
  return lineChart({ title: "Overfitting: training vs validation NLL by update (baselines: validation)", xLabel: "update", yLabel: "NLL (nats per target)", series, refLines });
}
