// The scoring interface every scorer answers through (the decoder's adapter, a loaded checkpoint, baselines).
// Not an implementation and not metrics: adapters return per-position numbers; evaluators reduce them.
import type { ModelConfig } from "./config.ts";
import type { ModelInput, ScoredBatch } from "./input.ts";

/** What a scorer was built for; evaluation refuses batches bound to another vocabulary or context. */
export type ScoringBinding = Pick<ModelConfig, "vocabSize" | "contextLength">;

/** What evaluation asks of a model. */
export interface ScoringModel {
  readonly name: string;
  readonly binding: ScoringBinding;
  /** −ln p(target | document-local context) per position of the batch; only masked-in positions are read. */
  positionNll(batch: ScoredBatch): Float64Array;
  /**
   * Optional: positionNll of each batch, in batch order, computed together (e.g. split across a worker pool);
   * each result equals positionNll of that batch bit for bit.
   */
  positionNlls?(batches: readonly ScoredBatch[]): Float64Array[];
  /** ln p(v | context) for every position and vocabulary entry, flat [rows·cols·vocab]. */
  logProbs(input: ModelInput): Float32Array;
  /**
   * Optional: ln p(v | context) for the position after `context` (1 to contextLength ids), what logProbs' last row
   * gives, computed faster (e.g. an ONNX decoder's KV cache across the steps of one generation).
   */
  nextLogProbs?(context: readonly number[]): Float32Array;
  /** Digest of all state evaluation must leave untouched (weights, gradients, RNG states). */
  stateFingerprint(): string;
}
