// The overfit experiment's readings: a constructed case that shows the token-weighted denominator, three storage
// layouts scoring the same targets with the same weights, both splits and each document scored at a checkpoint,
// and the overfitting signal between checkpoints. Pure; experiments/overfit.ts runs them.
import { packedBatches, paddedBatches, separateBatches, type Batch, type Binding } from "../../src/data/batches.ts";
import type { Document } from "../../src/data/documents.ts";
import type { GPT } from "../../src/model/gpt.ts";
import { decoderAdapter, type ScoringModel } from "../../src/eval/passes/adapter.ts";
import { evaluateLikelihood } from "../../src/eval/passes/likelihood.ts";
import { fromProbabilities, meanNll, merge, perplexity, record } from "../../src/eval/metrics/summary.ts";

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
  const layouts = {
    separate: separateBatches(docs, binding),
    padded: paddedBatches(docs, binding, docs.length),
    packed: packedBatches(docs, binding, docs.length),
  };
  const rows = Object.entries(layouts).map(([layout, batches]) => {
    const e = evaluateLikelihood(adapter, "validation", batches);
    return {
      layout,
      batches: e.batches,
      rows: batches.reduce((n, b) => n + b.input.rows, 0),
      targets: e.metrics.targets,
      nll: meanNll(e.metrics),
      recorded_graphs: e.recordedGraphs,
    };
  });
  const nlls = rows.map((r) => r.nll);
  return { rows, largest_nll_difference: Math.max(...nlls) - Math.min(...nlls) };
}

export type Split2 = { train: ReturnType<typeof record>; validation: ReturnType<typeof record> };

/** Scores of one adapter on both splits (packed layout; the layout comparison shows it does not matter). */
export function scoreSplits(model: ScoringModel, data: Record<"train" | "validation", Batch[]>): Split2 {
  return {
    train: record(evaluateLikelihood(model, "train", data.train).metrics),
    validation: record(evaluateLikelihood(model, "validation", data.validation).metrics),
  };
}

/** Each validation document's (NLL sum, targets), one document per batch: the cells of the Multi-Bootstrap. */
export function byDocument(model: ScoringModel, docs: readonly Document[], binding: Binding) {
  return docs.map((d) => {
    const m = evaluateLikelihood(model, "validation", separateBatches([d], binding)).metrics;
    return { id: d.id, total_nll: m.totalNll, targets: m.targets };
  });
}

/** Between checkpoints 20→40 and 40→80 (where scored): did train fall while validation rose; and the lowest validation. */
export function overfittingSignals(checkpoints: readonly ({ update: number } & Split2)[]) {
  const at = (u: number) => checkpoints.find((c) => c.update === u);
  const intervals = [
    [20, 40],
    [40, 80],
  ]
    .filter(([a, b]) => at(a) && at(b))
    .map(([a, b]) => {
      const trainFell = at(b)!.train.nll < at(a)!.train.nll,
        validationRose = at(b)!.validation.nll > at(a)!.validation.nll;
      return { from: a, to: b, train_fell: trainFell, validation_rose: validationRose, overfitting_signal: trainFell && validationRose };
    });
  const best = checkpoints.reduce((b, c) => (c.validation.nll < b.validation.nll ? c : b));
  return { intervals, lowest_validation_checkpoint: best.update };
}

/** Said with every Multi-Bootstrap of the overfit fixture: its data part rests on two documents. */
export const TWO_DOCUMENTS_NOTE =
  "Only 2 validation documents: a document resample is one of 3 multisets ({abaa, abaa}, {abaa, baa}, {baa, baa}), so an interval over them would describe seed spread on this one split far more than data variation.";
