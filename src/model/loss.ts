// Next-token negative log-likelihood on tfjs: per position and masked sums. Not reduction policy (that is
// the caller's: sums and counts are merged in float64 outside tfjs).
import { tf } from "../util/backend.ts";
import type { Batch } from "../data/batches.ts";
import type { ForwardMode, GPT } from "./gpt.ts";
import { oneHotFloat } from "./ops.ts";

/** −log softmax(logits)[target] per position, [rows·cols]; uses logsumexp for stability. */
export function positionNll(logits: tf.Tensor3D, targets: Int32Array): tf.Tensor1D {
  const [B, S, V] = logits.shape;
  const flat = tf.reshape(logits, [B * S, V]);
  const picked = tf.sum(tf.mul(flat, oneHotFloat(tf.tensor1d(targets, "int32"), V)), -1); // [N]
  return tf.sub(tf.logSumExp(flat, -1), picked) as tf.Tensor1D;
}

/** Σ mask·nll over positions, a scalar (the numerator of a token-weighted mean). */
export function maskedNllSum(logits: tf.Tensor3D, targets: Int32Array, mask: Float32Array): tf.Scalar {
  return tf.sum(tf.mul(positionNll(logits, targets), tf.tensor1d(mask, "float32")));
}

/** The trainer's loss closure for a batch: Σ NLL over its masked targets and their count. */
export function batchLoss(model: GPT, mode: ForwardMode): (batch: Batch) => { sum: tf.Scalar; count: number } {
  return (batch) => ({ sum: maskedNllSum(model.forward(batch.input, mode), batch.targets, batch.mask), count: batch.targetCount });
}
