// One optimizer update from microbatches (token-weighted gradient accumulation, global-norm clipping,
// non-finite refusal) and a loop with a step hook. Knows nothing about GPTs: it takes a loss closure.
import { tf } from "../util/backend.ts";
import type { AdamW } from "./adamw.ts";

/** What a loss closure returns for one microbatch: Σ NLL over its targets (a tfjs scalar) and their count. */
export interface LossTerms {
  sum: tf.Scalar;
  count: number;
}

export type LossFn<B> = (microbatch: B) => LossTerms;

/** Raised when a loss or gradient is not finite; nothing has been updated. */
export class NonFiniteError extends Error {
  constructor(readonly step: number, readonly what: string) {
    super(`non-finite ${what} at update ${step}; no parameter was updated`);
  }
}

export interface StepResult {
  /** Token-weighted mean loss over the whole update (Σ sums / Σ counts, in float64). */
  loss: number;
  lossSum: number;
  targets: number;
  /** Global gradient norm before clipping. */
  gradNorm: number;
  clipped: boolean;
}

/**
 * Accumulate gradients of Σ NLL over the microbatches, divide by the total target count (one
 * token-weighted mean for the update), clip to `clipNorm` by global norm, and apply the optimizer.
 */
export function trainStep<B>(args: {
  params: Map<string, tf.Variable>;
  microbatches: readonly B[];
  lossFn: LossFn<B>;
  optimizer: AdamW;
  lr: number;
  clipNorm: number;
}): StepResult {
  const { params, microbatches, lossFn, optimizer, lr, clipNorm } = args;
  if (microbatches.length === 0) throw new Error("an update needs at least one microbatch");
  const names = [...params.keys()];
  const vars = names.map((n) => params.get(n)!);
  const step = optimizer.step + 1;
  let acc: tf.Tensor[] | undefined;
  const sums: tf.Scalar[] = [];
  let targets = 0;
  try {
    for (const mb of microbatches) {
      let count = 0;
      const { value, grads } = tf.variableGrads(() => {
        const terms = lossFn(mb);
        count = terms.count;
        return terms.sum;
      }, vars);
      if (!(count > 0)) throw new Error(`a microbatch has ${count} targets; every microbatch must score at least one`);
      targets += count;
      sums.push(value);
      const g = vars.map((v) => grads[v.name]);
      if (acc) {
        const prev = acc;
        acc = tf.tidy(() => prev.map((a, i) => tf.add(a, g[i])));
        tf.dispose([...prev, ...g]);
      } else acc = g;
    }
    const grads = acc!;
    const total = targets;
    // one read for every loss sum and every per-parameter Σg², which gives the norm and non-finite detection
    const stats = tf.tidy(() => tf.concat([tf.stack(sums), tf.stack(grads.map((g) => tf.sum(tf.square(g))))]).dataSync());
    let lossSum = 0;
    for (let i = 0; i < sums.length; i++) lossSum += stats[i];
    if (!Number.isFinite(lossSum)) throw new NonFiniteError(step, "loss");
    let sq = 0;
    for (let i = 0; i < names.length; i++) {
      const s = stats[sums.length + i];
      if (!Number.isFinite(s)) throw new NonFiniteError(step, `gradient in parameter "${names[i]}"`);
      sq += s;
    }
    const gradNorm = Math.sqrt(sq) / total;
    // PyTorch's clip_grad_norm_: scale by max/(norm + 1e-6) only when that is below 1
    const coef = clipNorm / (gradNorm + 1e-6);
    const scale = (coef < 1 ? coef : 1) / total;
    const scaled = new Map(tf.tidy(() => grads.map((g, i) => [names[i], tf.mul(g, scale)] as [string, tf.Tensor])));
    optimizer.apply(scaled, lr);
    tf.dispose([...scaled.values()]);
    return { loss: lossSum / total, lossSum, targets: total, gradNorm, clipped: coef < 1 };
  } finally {
    tf.dispose([...sums, ...(acc ?? [])]);
  }
}
