// tfjs building blocks with hand-written gradients that avoid slow or missing kernels on wasm.
// Not layers with state: each function takes its weights as arguments.
import { tf } from "../util/backend.ts";
import { batchMatMul } from "../util/wasm_matmul.ts";
import { columnSum, gatherRows, scatterAddRows, splitHeads, swapLastTwo, swapMiddle, transpose2d } from "../util/wasm_kernels.ts";

type T = tf.Tensor;

/** Swap the last two axes with an explicit transpose (a JS copy on wasm for a matrix); differentiable. */
export function swapLast(x: T): T {
  if (x.rank === 2) return transposeMatrix(x);
  const r = x.rank;
  const perm = [...Array(r).keys()];
  [perm[r - 2], perm[r - 1]] = [perm[r - 1], perm[r - 2]];
  return tf.transpose(x, perm);
}

const transposeMatrix: (x: T) => T = tf.customGrad(((x: T) => ({
  value: transpose2d(x),
  gradFunc: (dy: T) => transpose2d(dy),
})) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (x: T) => T;

/** swapLast for use inside custom gradients (not taped): a JS copy on wasm. */
function swapLastNoGrad(x: T): T {
  return x.rank === 2 ? transpose2d(x) : swapLastTwo(x);
}

/**
 * a @ b (batched over leading axes) whose gradients are also plain matMuls of explicit transposes:
 * tfjs's own MatMul gradient passes transposeA/B, many times slower on wasm.
 */
export const matmul: (a: T, b: T) => T = tf.customGrad(((a: T, b: T, save: tf.GradSaveFunc) => {
  save([a, b]);
  return {
    value: batchMatMul(a, b),
    gradFunc: (dy: T, saved: T[]) => [
      batchMatMul(dy, swapLastNoGrad(saved[1])),
      a.rank === 2 ? weightGrad(saved[0], dy) : batchMatMul(swapLastNoGrad(saved[0]), dy),
    ],
  };
}) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (a: T, b: T) => T;

/**
 * A custom-gradient op from a forward that saves what its backward needs. Kernels inside the forward are
 * not taped (no per-kernel clones), so fusing a layer this way roughly halves its kernel count on wasm.
 */
function fused(f: (...args: T[]) => { value: T; gradFunc: (dy: T, saved: T[]) => T | T[] }): (...args: T[]) => T {
  return tf.customGrad(f as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (...args: T[]) => T;
}

/** x [..., in] @ w [in, out] + b [out], flattening the leading axes into one matMul. */
export const linear: (x: T, w: T, b: T) => T = fused((x: T, w: T, b: T, save?: T) => {
  const [inDim, outDim] = w.shape;
  const x2 = tf.reshape(x, [-1, inDim]);
  (save as unknown as tf.GradSaveFunc)([x2, w]);
  return {
    value: tf.reshape(tf.add(tf.matMul(x2, w), b), [...x.shape.slice(0, -1), outDim]),
    gradFunc: (dy: T, [xs, ws]: T[]) => {
      const dy2 = tf.reshape(dy, [-1, outDim]); // [N, out]
      return [tf.reshape(tf.matMul(dy2, transpose2d(ws)), x.shape), weightGrad(xs, dy2), columnSum(dy2)];
    },
  };
});

/**
 * xᵀ @ dy for x [N, in], dy [N, out]: the weight gradient of x @ w. XNNPACK packs its right operand afresh on
 * every call (a cost ∝ its size, comparable to the product itself for large operands), so the narrower of x and dy goes on the right:
 * for out > in, (dyᵀ @ x)ᵀ. Either way each entry is the same sum over N in the same order, so the bits agree.
 */
export function weightGrad(x: T, dy: T): T {
  const [inDim, outDim] = [x.shape[1] as number, dy.shape[1] as number];
  return outDim > inDim ? transpose2d(tf.matMul(transpose2d(dy), x)) : tf.matMul(transpose2d(x), dy);
}

/**
 * x [N, C] @ wᵀ for w [V, C] (the tied head, w the token embedding), with gradients dy @ w and dyᵀ @ x [V, C]:
 * no transpose of w on the way back and the narrow x as the packed right operand (see weightGrad).
 */
export const matmulTransposed: (x: T, w: T) => T = fused((x: T, w: T, save?: T) => {
  (save as unknown as tf.GradSaveFunc)([x, w]);
  return {
    value: tf.matMul(x, transpose2d(w)), // [N, V]
    gradFunc: (dy: T, [xs, ws]: T[]) => [tf.matMul(dy, ws), tf.matMul(transpose2d(dy), xs)],
  };
});

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
      value: gatherRows(w, ids),
      gradFunc: (dy: T, saved: T[]) => {
        const dy2 = tf.reshape(dy, [-1, width]) as tf.Tensor2D; // [N, width]
        const ids1 = saved[0] as tf.Tensor1D;
        // off wasm: oneHot(ids)ᵀ @ dy, which adds each id's rows in the same order as the scatter-add
        return scatterAddRows(dy2, ids1, rowsInTable, () => batchMatMul(transpose2d(oneHotFloat(ids1, rowsInTable)), dy2));
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]);
  return f(table) as tf.Tensor2D;
}

/** LayerNorm over the last axis with gain g and bias b (eps 1e-5, biased variance, as PyTorch). */
export const layerNorm: (x: T, g: T, b: T) => T = fused((x: T, g: T, b: T, save?: T) => {
  const centered = tf.sub(x, tf.mean(x, -1, true));
  const rstd = tf.rsqrt(tf.add(tf.mean(tf.square(centered), -1, true), LN_EPS)); // [..., 1]
  const xhat = tf.mul(centered, rstd);
  (save as unknown as tf.GradSaveFunc)([xhat, rstd, g]);
  return {
    value: tf.add(tf.mul(xhat, g), b),
    gradFunc: (dy: T, [xh, rs, gs]: T[]) => {
      const dxhat = tf.mul(dy, gs);
      // dx = rstd·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)), the LayerNorm backward over the normalised axis
      const dx = tf.mul(rs, tf.sub(tf.sub(dxhat, tf.mean(dxhat, -1, true)), tf.mul(xh, tf.mean(tf.mul(dxhat, xh), -1, true))));
      return [dx, columnSum(tf.mul(dy, xh)), columnSum(dy)];
    },
  };
});
export const LN_EPS = 1e-5;
/** The variance layerNorm divides by: mean of squares over C (biased, as PyTorch), not over C − 1. */
export const LN_VARIANCE = "biased";

/** The activation `gelu` computes: GPT-2's tanh approximation, not the exact erf form. */
export const ACTIVATION = "gelu_tanh";
const GELU_K = Math.sqrt(2 / Math.PI);
const GELU_C = 0.044715;

/** GELU in GPT-2's tanh form 0.5·x·(1 + tanh(k(x + c·x³))); the float64 reference computes the same formula. */
export const gelu: (x: T) => T = fused((x: T, save?: T) => {
  const t = tf.tanh(tf.mul(tf.add(x, tf.mul(tf.mul(tf.square(x), x), GELU_C)), GELU_K));
  (save as unknown as tf.GradSaveFunc)([x, t]);
  return {
    value: tf.mul(tf.mul(x, 0.5), tf.add(t, 1)),
    gradFunc: (dy: T, [xs, ts]: T[]) => {
      // d/dx = 0.5(1 + t) + 0.5·x·(1 − t²)·k·(1 + 3c·x²)
      const dt = tf.mul(tf.mul(tf.sub(1, tf.square(ts)), tf.add(tf.mul(tf.square(xs), 3 * GELU_C * GELU_K), GELU_K)), tf.mul(xs, 0.5));
      return tf.mul(dy, tf.add(tf.mul(tf.add(ts, 1), 0.5), dt));
    },
  };
});

/** How `attend` scales the scores q·kᵀ before the mask and softmax. */
export const ATTENTION_SCALE = "1/sqrt(d_head)";

/**
 * Causal multi-head self-attention before its output projection: q, k, v = x @ wqkv + bqkv as one product
 * (x [B, S, C], wqkv [C, 3C] with q|k|v column blocks, bqkv [3C]), softmax(q·kᵀ/√D + mask)·v with the additive
 * mask [B, 1, S, S], returned as [B, S, C] (heads concatenated). Hand-written backward.
 *
 * The same numbers as three separate linears: each entry of the packed product and of its weight gradient is
 * the same dot product; the input gradient is still three products summed as the tape summed them, (v + k) + q.
 */
export function attend(x: T, wqkv: T, bqkv: T, mask: T, nHeads: number): T {
  const [B, S, C] = x.shape;
  const D = C / nHeads,
    scale = 1 / Math.sqrt(D); // ATTENTION_SCALE
  // 4-D transposes only (JS row copies on wasm): tfjs-wasm's 5-D transpose (and a SplitV of packed qkv) is far slower per element
  const fromHeads = (h: T) => tf.reshape(swapMiddle(h as tf.Tensor4D), [B * S, C]); // [B·S, C]
  const f = fused((xIn: T, w: T, b: T, save?: T) => {
    const x2 = tf.reshape(xIn, [B * S, C]);
    const [qh, kh, vh] = splitHeads(tf.add(tf.matMul(x2, w), b), B, S, nHeads); // each [B, H, S, D]
    const att = tf.softmax(tf.add(tf.mul(batchMatMul(qh, swapLastNoGrad(kh)), scale), mask)); // [B, H, S, S]
    (save as unknown as tf.GradSaveFunc)([x2, w, qh, kh, vh, att]);
    return {
      value: tf.reshape(fromHeads(batchMatMul(att, vh)), [B, S, C]),
      gradFunc: (dy: T, [xs, ws, qs, ks, vs, as]: T[]) => {
        const dy4 = swapMiddle(tf.reshape(dy, [B, S, nHeads, D])); // [B, H, S, D]
        const dv = fromHeads(batchMatMul(swapLastNoGrad(as), dy4)); // [B·S, C]
        const datt = batchMatMul(dy4, swapLastNoGrad(vs));
        // softmax backward: ds = att ⊙ (datt − Σ_j datt·att); masked entries have att = 0 exactly
        const ds = tf.mul(tf.mul(as, tf.sub(datt, tf.sum(tf.mul(datt, as), -1, true))), scale);
        const [dq, dk] = [fromHeads(batchMatMul(ds, ks)), fromHeads(batchMatMul(swapLastNoGrad(ds), qs))]; // [B·S, C]
        const dqkv = tf.concat([dq, dk, dv], 1); // [B·S, 3C]
        const wT = transpose2d(ws); // [3C, C]: rows i·C… are block i's transposed weight
        const part = (d: T, i: number) => tf.matMul(d, tf.slice(wT, [i * C, 0], [C, C]));
        const dx = tf.add(tf.add(part(dv, 2), part(dk, 1)), part(dq, 0));
        return [tf.reshape(dx, [B, S, C]), weightGrad(xs, dqkv), columnSum(dqkv)];
      },
    };
  });
  return f(x, wqkv, bqkv);
}

/**
 * One-hot rows as float32. tfjs-wasm 4.22's OneHot writes integer ones into a float32 buffer (values
 * read as ~1e-45), so build it as int32 and cast.
 */
export function oneHotFloat(ids: tf.Tensor1D, depth: number): tf.Tensor2D {
  return tf.cast(tf.oneHot(ids, depth), "float32") as tf.Tensor2D;
}
