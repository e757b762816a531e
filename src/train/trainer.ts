// One optimizer update from microbatches: per-microbatch gradients (this thread, or a GradientProvider such as
// the worker pool), reduced in microbatch order in float64, non-finite refusal, global-norm clipping, AdamW.
// Knows nothing about GPTs: it takes a loss closure.
import { tf } from "../util/backend.ts";
import type { AdamW, UpdatePasses } from "./adamw.ts";
import { requireTargets, type MicrobatchGradient } from "../util/microbatch.ts";
import { NonFiniteError } from "./non_finite.ts";
import { squaresAndMax } from "./gradient_terms.ts";

/** What a loss closure returns for one microbatch: Σ NLL over its targets (a tfjs scalar) and their count. */
export interface LossTerms {
  sum: tf.Scalar;
  count: number;
}

export type LossFn<B> = (microbatch: B) => LossTerms;

export interface StepResult {
  /** Token-weighted mean loss over the whole update (Σ sums / Σ counts, in float64). */
  loss: number;
  lossSum: number;
  targets: number;
  /** Global gradient norm before clipping. */
  gradNorm: number;
  clipped: boolean;
}

export type { MicrobatchGradient } from "../util/microbatch.ts";

/**
 * An update's gradient terms left with the workers that own their parameters (the worker pool's shards): each
 * owner sums its parameters' terms and runs AdamW's passes on them, this thread combines what they return.
 */
export interface GradientShards extends UpdatePasses {
  /** squaresAndMax of each parameter's terms (parameter order), each computed by the parameter's owner. */
  squaresAndMax(): readonly { squares: number; maxAbs: number }[];
}

/** An update's per-microbatch results in microbatch order and, where the terms stay with their owners, those owners. */
export interface ProvidedGradients {
  results: MicrobatchGradient[];
  shards?: GradientShards;
}

/**
 * Where an update's per-microbatch gradients come from: this thread (`localGradients`) or a pool of replicas
 * (src/train/pool.ts). Whatever computes them, results come back in microbatch order.
 */
export type GradientProvider<B> = (microbatches: readonly B[]) => ProvidedGradients;

/** Σ-NLL gradients of one microbatch with respect to `vars`, copied out of the engine. */
export function microbatchGradient<B>(vars: readonly tf.Variable[], lossFn: LossFn<B>, mb: B): MicrobatchGradient {
  let count = 0;
  const { value, grads } = tf.variableGrads(() => {
    const terms = lossFn(mb);
    count = terms.count;
    return terms.sum;
  }, vars as tf.Variable[]);
  try {
    requireTargets(count);
    // dataSync may hand back engine-owned storage (cpu backend): copy before the tensor is disposed
    return { lossSum: value.dataSync()[0], grads: vars.map((v) => Float32Array.from(grads[v.name].dataSync() as Float32Array)), count };
  } finally {
    tf.dispose([value, ...Object.values(grads)]);
  }
}

/** Each microbatch in order on this thread: the single-thread path. */
export const localGradients = <B>(params: Map<string, tf.Variable>, lossFn: LossFn<B>): GradientProvider<B> => {
  const vars = [...params.values()];
  return (microbatches) => ({ results: microbatches.map((mb) => microbatchGradient(vars, lossFn, mb)) });
};

/**
 * Reduce per-microbatch results in their order (float64, re-added wherever read: no model-sized accumulator),
 * divide by the total target count (one token-weighted mean for the update), refuse non-finite values, clip to `clipNorm` by global norm and apply the optimizer.
 * With `shards`, each parameter's owner sums its terms and updates it; the norm is still added here in parameter
 * order from each parameter's squares, so the update is the same bit for bit.
 */
export function applyGradients(args: {
  names: readonly string[];
  results: readonly MicrobatchGradient[];
  optimizer: AdamW;
  lr: number;
  clipNorm: number;
  shards?: GradientShards;
}): StepResult {
  const { names, results, optimizer, lr, clipNorm, shards } = args;
  const step = optimizer.step + 1;
  if (results.length === 0) throw new Error("an update needs at least one microbatch");
  // per parameter, its microbatches' gradients in microbatch order (never arrival order): summed in float64 in
  // that order wherever they are read, so the sum is the same bit for bit whoever computed each term
  const terms = names.map((name, i) =>
    results.map((r) => {
      if (r.grads.length !== names.length) throw new Error(`gradients for ${r.grads.length} parameters, expected ${names.length}`);
      const g = r.grads[i];
      if (g.length !== results[0].grads[i].length)
        throw new Error(`gradient of "${name}" has ${g.length} values, expected ${results[0].grads[i].length}`);
      return g;
    }),
  );
  let lossSum = 0;
  let targets = 0;
  for (const r of results) {
    lossSum += r.lossSum;
    targets += r.count;
  }
  if (!Number.isFinite(lossSum)) throw new NonFiniteError(step, "loss");
  let sq = 0,
    maxAbs = 0;
  const perParameter = shards ? shards.squaresAndMax() : terms.map(squaresAndMax);
  if (perParameter.length !== names.length) throw new Error(`squares of ${perParameter.length} parameters, expected ${names.length}`);
  perParameter.forEach((s, i) => {
    if (!Number.isFinite(s.squares)) throw new NonFiniteError(step, `gradient in parameter "${names[i]}"`);
    sq += s.squares;
    maxAbs = Math.max(maxAbs, s.maxAbs);
  });
  const gradNorm = Math.sqrt(sq) / targets;
  // PyTorch's clip_grad_norm_: scale by max/(norm + 1e-6) only when that is below 1
  const coef = clipNorm / (gradNorm + 1e-6);
  const gradScale = (coef < 1 ? coef : 1) / targets;
  if (shards) optimizer.applyPasses(shards, lr, gradScale, maxAbs);
  else optimizer.apply(new Map(names.map((n, i) => [n, terms[i]])), lr, gradScale, maxAbs);
  return { loss: lossSum / targets, lossSum, targets, gradNorm, clipped: coef < 1 };
}

/**
 * One update: gradients of Σ NLL per microbatch (from `gradients`, default this thread through `lossFn`), then
 * `applyGradients`. The same microbatches give the same update bit for bit whichever provider computed them.
 */
export function trainStep<B>(args: {
  params: Map<string, tf.Variable>;
  microbatches: readonly B[];
  lossFn: LossFn<B>;
  optimizer: AdamW;
  lr: number;
  clipNorm: number;
  gradients?: GradientProvider<B>;
}): StepResult {
  const { params, microbatches, lossFn, optimizer, lr, clipNorm } = args;
  if (microbatches.length === 0) throw new Error("an update needs at least one microbatch");
  const { results, shards } = (args.gradients ?? localGradients(params, lossFn))(microbatches);
  if (results.length !== microbatches.length) throw new Error(`${results.length} gradient results for ${microbatches.length} microbatches`);
  return applyGradients({ names: [...params.keys()], results, optimizer, lr, clipNorm, shards });
}
