// Next-token calibration data: at every scored target, confidence = the top probability and correct = the
// top token equals the target, over the same strided windows as the likelihood. Not the calibration metrics
// themselves (calibration.ts) and not sampling (generate.ts).
import type { Document, Split } from "../../data/documents.ts";
import type { ScoringModel } from "../../model/scoring.ts";
import { brierDecomposition, calibrationReport, type BinOptions } from "../metrics/calibration.ts";
import { windowBatches } from "./windows.ts";
import { reasoned } from "../metrics/reasoned.ts";

/**
 * Fewest predictions for which an ECE is reported; below it the runner declines (002: ECE is biased by bin count
 * and sample size, so the harness returns the populated bins for the runner to decline on). 8 is the smallest
 * sample a reference publishes an ECE for (000's worked example: 0.305 over 8 predictions); with fewer, a single
 * prediction moves the ECE by more than 1/8, the size of the gaps it is meant to show.
 */
export const MIN_ECE_PREDICTIONS = 8;

/** Top token (lowest id on ties) and its log-probability in row `i` of a flat [positions·V] array. */
export function topOf(logProbs: Float32Array, i: number, vocab: number): { token: number; logProb: number } {
  let token = 0;
  let best = -Infinity;
  for (let v = 0; v < vocab; v++) {
    const lp = logProbs[i * vocab + v];
    if (lp > best) {
      best = lp;
      token = v;
    }
  }
  return { token, logProb: best };
}

export interface NextTokenPredictions {
  readonly split: Split;
  readonly stride: number;
  readonly confidences: number[];
  readonly correct: boolean[];
}

/** One prediction per scored target of `docs` (one split); the model's state is checked unchanged. */
export function nextTokenPredictions(
  model: ScoringModel,
  docs: readonly Document[],
  stride: number,
  opts: { rowsPerBatch?: number; onBatch?: () => void } = {},
): NextTokenPredictions {
  const V = model.binding.vocabSize;
  const { batches } = windowBatches(docs, model.binding, stride, opts.rowsPerBatch);
  const before = model.stateFingerprint();
  const confidences: number[] = [];
  const correct: boolean[] = [];
  for (const batch of batches) {
    const lp = model.logProbs(batch.input); // [rows·cols·V]
    if (lp.length !== batch.targets.length * V)
      throw new Error(`${model.name} returned ${lp.length} log-probs for ${batch.targets.length} positions × ${V}`);
    for (let i = 0; i < batch.targets.length; i++) {
      if (batch.mask[i] === 0) continue;
      const top = topOf(lp, i, V);
      // float32 log-softmax can give a hair above 0 for a certain token
      confidences.push(Math.min(1, Math.exp(top.logProb)));
      correct.push(top.token === batch.targets[i]);
    }
    opts.onBatch?.();
  }
  if (model.stateFingerprint() !== before) throw new Error(`next-token evaluation changed the state of ${model.name}`);
  return { split: docs[0].split, stride, confidences, correct };
}

/** Reliability table, ECE, Brier and its decomposition, plus top-1 accuracy (its Wilson interval is the report's). */
export function nextTokenCalibration(p: NextTokenPredictions, bins: BinOptions = {}) {
  const hits = p.correct.filter(Boolean).length;
  const report = calibrationReport(p.confidences, p.correct, bins);
  const n = p.correct.length;
  return {
    split: p.split,
    stride: p.stride,
    definition: "confidence = top next-token probability; correct = top token equals the target",
    accuracy: { correct: hits, predictions: n, ...reasoned("rate", n === 0 ? NaN : hits / n, "no predictions") },
    report: {
      ...report,
      ...reasoned(
        "ece",
        n >= MIN_ECE_PREDICTIONS ? report.ece : NaN,
        `declined: ${n} predictions, fewer than ${MIN_ECE_PREDICTIONS} (MIN_ECE_PREDICTIONS)`,
      ),
    },
    brier_decomposition: brierDecomposition(p.confidences, p.correct, bins),
  };
}
