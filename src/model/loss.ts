// Next-token negative log-likelihood on tfjs: per position and masked sums. Not reduction policy (that is
// the caller's: sums and counts are merged in float64 outside tfjs).
import { tf } from "../util/backend.ts";
import type { ForwardMode, GPT } from "./gpt.ts";
import type { ScoredBatch } from "./input.ts";
import { oneHotFloat } from "./ops.ts";

/** −log softmax(logits)[target] per position, [rows·cols]; logsumexp for stability, softmax − onehot backward. */
export function positionNll(logits: tf.Tensor3D, targets: Int32Array): tf.Tensor1D {
  const [B, S, V] = logits.shape;
  const onehot = oneHotFloat(tf.tensor1d(targets, "int32"), V); // [N, V]
  const f = tf.customGrad(((x: tf.Tensor, save: tf.GradSaveFunc) => {
    const flat = tf.reshape(x, [B * S, V]);
    const lse = tf.logSumExp(flat, -1, true); // [N, 1]
    save([flat, lse, onehot]);
    return {
      value: tf.reshape(tf.sub(lse, tf.sum(tf.mul(flat, onehot), -1, true)), [B * S]),
      gradFunc: (dy: tf.Tensor, [fl, l, oh]: tf.Tensor[]) =>
        tf.reshape(tf.mul(tf.sub(tf.exp(tf.sub(fl, l)), oh), tf.reshape(dy, [B * S, 1])), [B, S, V]),
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return f(logits) as tf.Tensor1D;
}

/** Σ mask·nll over positions, a scalar (the numerator of a token-weighted mean). */
export function maskedNllSum(logits: tf.Tensor3D, targets: Int32Array, mask: Float32Array): tf.Scalar {
  return tf.sum(tf.mul(positionNll(logits, targets), tf.tensor1d(mask, "float32")));
}

/** The trainer's loss closure for a batch: Σ NLL over its masked targets and their count. */
export function batchLoss(model: GPT, mode: ForwardMode): (batch: ScoredBatch) => { sum: tf.Scalar; count: number } {
  return (batch) => ({ sum: maskedNllSum(model.forward(batch.input, mode), batch.targets, batch.mask), count: batch.targetCount });
}
