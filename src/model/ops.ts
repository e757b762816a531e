// tfjs building blocks with hand-written gradients that avoid slow or missing kernels on wasm.
// Not layers with state: each function takes its weights as arguments.
import { tf } from "../util/backend.ts";

type T = tf.Tensor;

/** Swap the last two axes with an explicit Transpose kernel. */
export function swapLast(x: T): T {
  const r = x.rank;
  const perm = [...Array(r).keys()];
  [perm[r - 2], perm[r - 1]] = [perm[r - 1], perm[r - 2]];
  return tf.transpose(x, perm);
}

/**
 * a @ b (batched over leading axes) whose gradients are also plain matMuls of explicit transposes:
 * tfjs's own MatMul gradient passes transposeA/B, 10–40× slower on wasm.
 */
export const matmul: (a: T, b: T) => T = tf.customGrad(((a: T, b: T, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: tf.matMul(a, b),
    gradFunc: (dy: T, saved: T[]) => [tf.matMul(dy, swapLast(saved[1])), tf.matMul(swapLast(saved[0]), dy)],
  };
}) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (a: T, b: T) => T;

/** x [..., in] @ w [in, out] + b [out], flattening the leading axes into one matMul. */
export function linear(x: T, w: T, b?: T): T {
  const [inDim, outDim] = w.shape;
  const lead = x.shape.slice(0, -1);
  const y = matmul(tf.reshape(x, [-1, inDim]), w);
  return tf.reshape(b ? tf.add(y, b) : y, [...lead, outDim]);
}

/**
 * Row lookup table[ids] with gradient oneHot(ids)ᵀ @ dy: wasm has no UnsortedSegmentSum, which is
 * the gradient tfjs registers for gather.
 */
export function embed(table: T, ids: tf.Tensor1D): tf.Tensor2D {
  const [rowsInTable, width] = table.shape;
  const f = tf.customGrad(((w: T, save: tf.GradSaveFunc) => {
    // tensors only captured by a closure are disposed before backprop: ids must be saved
    save([ids]);
    return {
      value: tf.gather(w, ids),
      gradFunc: (dy: T, saved: T[]) => {
        const onehotT = swapLast(oneHotFloat(saved[0] as tf.Tensor1D, rowsInTable)); // [rowsInTable, N]
        return matmul(onehotT, tf.reshape(dy, [-1, width]));
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return f(table) as tf.Tensor2D;
}

/** LayerNorm over the last axis with gain g and bias b (eps 1e-5, biased variance, as PyTorch). */
export function layerNorm(x: T, g: T, b: T): T {
  const mean = tf.mean(x, -1, true);
  const centered = tf.sub(x, mean);
  const variance = tf.mean(tf.square(centered), -1, true);
  return tf.add(tf.mul(tf.mul(centered, tf.rsqrt(tf.add(variance, LN_EPS))), g), b);
}
export const LN_EPS = 1e-5;

/** GELU in GPT-2's tanh form; the float64 reference computes the same formula. */
export function gelu(x: T): T {
  const inner = tf.mul(tf.add(x, tf.mul(tf.mul(tf.square(x), x), 0.044715)), Math.sqrt(2 / Math.PI));
  return tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(inner), 1));
}

/**
 * One-hot rows as float32. tfjs-wasm 4.22's OneHot writes integer ones into a float32 buffer (values
 * read as ~1e-45), so build it as int32 and cast.
 */
export function oneHotFloat(ids: tf.Tensor1D, depth: number): tf.Tensor2D {
  return tf.cast(tf.oneHot(ids, depth), "float32") as tf.Tensor2D;
}
