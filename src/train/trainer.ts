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
  // gradients of Σ NLL accumulate in float64 on the JS side: one read per tensor per microbatch, no add kernels
  const acc = vars.map((v) => new Float64Array(v.size));
  let lossSum = 0;
  let targets = 0;
  for (const mb of microbatches) {
    let count = 0;
    const { value, grads } = tf.variableGrads(() => {
      const terms = lossFn(mb);
      count = terms.count;
      return terms.sum;
    }, vars);
    try {
      if (!(count > 0)) throw new Error(`a microbatch has ${count} targets; every microbatch must score at least one`);
      lossSum += value.dataSync()[0];
      vars.forEach((v, i) => {
        const g = grads[v.name].dataSync(), a = acc[i];
        for (let j = 0; j < a.length; j++) a[j] += g[j];
      });
      targets += count;
    } finally {
      tf.dispose([value, ...Object.values(grads)]);
    }
  }
  if (!Number.isFinite(lossSum)) throw new NonFiniteError(step, "loss");
  let sq = 0;
  acc.forEach((a, i) => {
    let s = 0;
    for (let j = 0; j < a.length; j++) s += a[j] * a[j];
    if (!Number.isFinite(s)) throw new NonFiniteError(step, `gradient in parameter "${names[i]}"`);
    sq += s;
  });
  const gradNorm = Math.sqrt(sq) / targets;
  // PyTorch's clip_grad_norm_: scale by max/(norm + 1e-6) only when that is below 1
  const coef = clipNorm / (gradNorm + 1e-6);
  optimizer.apply(new Map(names.map((n, i) => [n, acc[i]])), lr, (coef < 1 ? coef : 1) / targets);
  return { loss: lossSum / targets, lossSum, targets, gradNorm, clipped: coef < 1 };
}
