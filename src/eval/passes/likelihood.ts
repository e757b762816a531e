// One graph-free likelihood evaluator for separate, padded and packed batches: sums each batch's masked
// NLL in float64 and merges token-weighted. Not training, not metrics beyond NLL/perplexity.
import { tf } from "../../util/backend.ts";
import type { Batch, Binding } from "../../data/batches.ts";
import type { Split } from "../../data/documents.ts";
import type { ScoringModel } from "../../model/scoring.ts";
import { merge, summary, meanNll, type MetricSummary } from "../metrics/summary.ts";

export interface Evaluation {
  metrics: MetricSummary;
  batches: number;
  /** Batches scored while a gradient tape was recording: always 0, or the evaluator refuses. */
  recordedGraphs: number;
}

/** Refuse a batch built for another split or another model binding. */
export function checkBatch(batch: Batch, split: Split, binding: Binding, index: number): void {
  if (batch.split !== split) throw new Error(`batch ${index} is declared ${batch.split}, evaluation expected ${split}`);
  if (batch.binding.vocabSize !== binding.vocabSize || batch.binding.contextLength !== binding.contextLength) {
    throw new Error(
      `batch ${index} is bound to vocab ${batch.binding.vocabSize}/context ${batch.binding.contextLength}, model has ${binding.vocabSize}/${binding.contextLength}`,
    );
  }
}

/** Σ over masked positions of a per-position NLL array, in float64. */
export function maskedSum(nll: Float64Array, mask: Float32Array): number {
  let s = 0;
  for (let i = 0; i < nll.length; i++) if (mask[i] !== 0) s += nll[i];
  return s;
}

/** Batches handed to one positionNlls call: enough to keep a pool's workers busy, few enough to bound memory. */
export const SCORED_TOGETHER = 32;

/** Score every masked target once; leaves the model's state bit-identical (checked). */
export function evaluateLikelihood(
  model: ScoringModel,
  split: Split,
  batches: readonly Batch[],
  onScored?: (batches: number) => void,
): Evaluation {
  if (batches.length === 0) throw new Error(`empty evaluation: no ${split} batches`);
  batches.forEach((b, i) => checkBatch(b, split, model.binding, i));
  // a tape that is recording here would mean we are inside someone's gradient computation
  const engineState = tf.engine().state as unknown as { gradientDepth: number };
  if (engineState.gradientDepth > 0) throw new Error("evaluation refused: called while a gradient tape is recording");
  const before = model.stateFingerprint();
  let metrics = summary(0, 0);
  for (let at = 0; at < batches.length; at += SCORED_TOGETHER) {
    const group = batches.slice(at, at + SCORED_TOGETHER);
    const nlls = model.positionNlls ? model.positionNlls(group) : group.map((b) => model.positionNll(b));
    if (nlls.length !== group.length) throw new Error(`${model.name} returned ${nlls.length} score arrays for ${group.length} batches`);
    // merged in batch order whoever computed each batch: the total is the same bit for bit
    group.forEach((b, i) => {
      metrics = merge(metrics, summary(maskedSum(nlls[i], b.mask), b.targetCount));
    });
    onScored?.(group.length);
  }
  const mean = meanNll(metrics);
  if (!Number.isFinite(mean)) throw new Error(`non-finite ${split} loss ${mean} from ${model.name}`);
  if (model.stateFingerprint() !== before) throw new Error(`evaluation changed the state of ${model.name} (weights, gradients or RNG)`);
  return { metrics, batches: batches.length, recordedGraphs: 0 };
}
