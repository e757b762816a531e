// The training memory estimate: what one batch's forward and backward hold at once, from the model's shape and the
// batch's rows, checked before a run allocates anything and refused naming the option to lower. An upper estimate
// to stop runaways (a million rows, a 4096 context, a million-token vocabulary), not a profile of any engine.
import { parameterCount, type ModelConfig } from "../model/config.ts";

/**
 * 3 GiB: the wasm backend keeps every tensor in one 32-bit memory that ends at 4 GiB (past it: `memory access out
 * of bounds`), and the process, tfjs's temporaries and a worker's copy need the rest. The native backends have
 * more, but a run's numbers must not depend on which engine could hold it.
 */
export const MAX_TRAINING_BYTES = 3 * 2 ** 30;

/** The estimate's parts in bytes (float32 values × 4). */
export interface TrainingMemory {
  /** Weights, their gradients and AdamW's two moments. */
  weights: number;
  /** One row's activations kept for the backward pass, by what grows them. */
  perRow: { attention: number; logits: number; widths: number };
  total: number;
}

/**
 * Per row and layer: the residual stream, the norms, q/k/v, the attention output and their gradients (~16 values
 * per position of width C), the feed-forward's hidden values and gradients (~4 per position of width F), and the
 * attention scores, their softmax and its gradient (3 per head and pair of positions); per row, the logits, their
 * log-softmax and its gradient (3 per position and token id).
 */
export function trainingMemory(c: ModelConfig, batchRows: number): TrainingMemory {
  const { contextLength: T, vocabSize: V, dModel: C, dFF: F, nHeads: H, nLayers: L } = c;
  const perRow = { attention: 4 * L * 3 * H * T * T, logits: 4 * 3 * T * V, widths: 4 * L * T * (16 * C + 4 * F) };
  const weights = 4 * 4 * parameterCount(c);
  return { weights, perRow, total: weights + batchRows * (perRow.attention + perRow.logits + perRow.widths) };
}

const gib = (bytes: number): string =>
  bytes < 2 ** 30
    ? `${(bytes / 2 ** 20).toFixed(bytes < 10 * 2 ** 20 ? 2 : 0)} MiB`
    : `${(bytes / 2 ** 30).toFixed(bytes < 10 * 2 ** 30 ? 2 : 0)} GiB`;

/**
 * Refuse a run whose estimate passes MAX_TRAINING_BYTES, in one line naming --batch-rows and the shape option
 * that grows a row most (--context for attention, --vocab for the logits, the widths otherwise).
 */
export function checkTrainingMemory(c: ModelConfig, batchRows: number): void {
  const m = trainingMemory(c, batchRows);
  if (m.total <= MAX_TRAINING_BYTES) return;
  const { attention, logits, widths } = m.perRow;
  const row = attention + logits + widths;
  const by =
    attention >= logits && attention >= widths
      ? {
          what: `attention scores grow with the context squared: ${c.nLayers} layers × ${c.nHeads} heads × ${c.contextLength}² a row`,
          lower: "--context",
        }
      : logits >= widths
        ? { what: `the logits grow with the vocabulary: ${c.contextLength} positions × --vocab ${c.vocabSize} a row`, lower: "--vocab" }
        : {
            what: `activations grow with the widths: --d-model ${c.dModel}, --d-ff ${c.dFF} at ${c.contextLength} positions a row`,
            lower: "--d-model or --d-ff",
          };
  const fits = Math.floor((MAX_TRAINING_BYTES - m.weights) / row);
  // a row that costs a small share of the limit makes the row count the runaway; a costly one, the shape option
  const costly = row > MAX_TRAINING_BYTES / 64;
  const advice =
    fits < 1
      ? `lower ${by.lower} (not even one row fits)`
      : costly
        ? `give --batch-rows ${fits} or fewer, or lower ${by.lower}`
        : `give --batch-rows ${fits} or fewer`;
  throw new Error(
    `--batch-rows ${batchRows} at --context ${c.contextLength} needs an estimated ${gib(m.total)} to train (${gib(row)} a row${costly ? `; ${by.what}` : ""}), ` +
      `more than the ${gib(MAX_TRAINING_BYTES)} limit (MAX_TRAINING_BYTES); ${advice}`,
  );
}

/**
 * Scoring's limit: the same 3 GiB as training's (MAX_TRAINING_BYTES), for the same reason (wasm's one 32-bit
 * memory, and a score must not depend on which engine could hold it).
 */
export const MAX_SCORING_BYTES = MAX_TRAINING_BYTES;

/** The shape scoring memory grows with: a model file's config, or a model directory's (its feed-forward width as GPT-2's, 4 × the width). */
export type ScoringShape = Pick<ModelConfig, "contextLength" | "vocabSize" | "dModel" | "dFF" | "nHeads" | "nLayers">;

/**
 * What one batch's forward holds at once when nothing is kept for a backward pass, per row: every layer's
 * attention scores and their softmax (2 per head and pair of positions; a forward's temporaries live until its
 * batch is done), the logits and their log-softmax (2 per position and token id), and the widths (~8 values per
 * position of width C, ~2 of width F, per layer); plus the weights once.
 */
export function scoringMemory(c: ScoringShape, weightBytes: number, batchRows: number): TrainingMemory {
  const { contextLength: T, vocabSize: V, dModel: C, dFF: F, nHeads: H, nLayers: L } = c;
  const perRow = { attention: 4 * L * 2 * H * T * T, logits: 4 * 2 * T * V, widths: 4 * L * T * (8 * C + 2 * F) };
  return { weights: weightBytes, perRow, total: weightBytes + batchRows * (perRow.attention + perRow.logits + perRow.widths) };
}

/**
 * Refuse scoring `batchRows` rows at once when the estimate passes MAX_SCORING_BYTES, in one line naming
 * --batch-rows (the model's shape is its file's, not an option to lower), before a batch is built or scored.
 */
export function checkScoringMemory(c: ScoringShape, weightBytes: number, batchRows: number): void {
  const m = scoringMemory(c, weightBytes, batchRows);
  if (m.total <= MAX_SCORING_BYTES) return;
  const row = m.perRow.attention + m.perRow.logits + m.perRow.widths;
  const fits = Math.floor((MAX_SCORING_BYTES - m.weights) / row);
  throw new Error(
    `--batch-rows ${batchRows} at the model's context ${c.contextLength} and vocabulary ${c.vocabSize} needs an estimated ${gib(m.total)} to score (${gib(row)} a row), ` +
      `more than the ${gib(MAX_SCORING_BYTES)} limit (MAX_SCORING_BYTES); ${fits < 1 ? "not even one row of this model fits" : `give --batch-rows ${fits} or fewer`}`,
  );
}
