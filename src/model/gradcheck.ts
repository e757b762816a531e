// Finite-difference gradient check: the engine's analytic gradients of the token-weighted mean NLL (tfjs autograd,
// or the training graph where the engine runs graphs: graph_training.ts) against central differences of the
// float64 reference, for every coordinate of every parameter. Not a test runner.
import { tf } from "../util/backend.ts";
import type { Rng } from "../util/primitives/rng.ts";
import { parameterShapes, type ModelConfig } from "./config.ts";
import { GPT } from "./gpt.ts";
import { gradientPath, graphGradient, type GradientPath } from "./graph_training.ts";
import type { ParamArrays } from "./init.ts";
import type { ScoredBatch } from "./input.ts";
import { maskedNllSum } from "./loss.ts";
import { referenceLogits, referenceNll, toParams64, type Params64 } from "./reference.ts";
import type { Engine } from "../util/engine.ts";

/**
 * Tolerances, one place. The analytic side is float32: its gradients carry ~1e-7 relative rounding per op,
 * accumulated over a few dozen ops, so agreement to ~1e-5 relative (plus 1e-6 absolute, for coordinates
 * whose gradient is a cancellation of O(1) terms) is what a correct float32 engine gives on these sizes.
 * The float64 central difference is accurate to ~1e-9 (eps² truncation, 1e-16·L/eps rounding). A wrong
 * gradient (a missing term, a transposed weight, a leaking mask) is off by O(1) relative.
 */
export const GRADCHECK_EPS = 1e-6;
export const GRADCHECK_ATOL = 1e-6;
export const GRADCHECK_RTOL = 1e-4;

export interface TensorGradReport {
  name: string;
  size: number;
  maxAbsError: number;
  maxRelError: number;
  /** Flat index, analytic and numeric values of the coordinate with the largest tolerance ratio (closest to, or past, its bound). */
  worst: { index: number; analytic: number; numeric: number };
  /** |Δ| / (atol + rtol·|numeric|) at `worst`: at most 1 passes. */
  worstBoundRatio: number;
  /** The coordinate with the largest relative error (often another one: a near-zero gradient passes on atol). */
  maxRelAt: { index: number; analytic: number; numeric: number };
  passed: boolean;
}

export interface GradcheckReport {
  loss: number;
  coordinates: number;
  tensors: TensorGradReport[];
  passed: boolean;
  seconds: number;
  /** Who computed the analytic gradients. */
  gradients: GradientPath;
}

/** Parameters scaled up from a tiny init so that every coordinate has a gradient worth checking. */
export function gradcheckParameters(config: ModelConfig, rng: Rng): ParamArrays {
  const out: ParamArrays = new Map();
  for (const [name, shape] of parameterShapes(config)) {
    const stream = rng.child(name);
    const size = shape.reduce((a, b) => a * b, 1);
    const base = name.endsWith(".g") ? 1 : 0;
    out.set(
      name,
      Float32Array.from({ length: size }, () => base + 0.3 * stream.normal()),
    );
  }
  return out;
}

/** Σ mask·NLL / Σ mask over batches, in float64 via the reference. */
export function referenceMeanNll(config: ModelConfig, params: Params64, batches: readonly ScoredBatch[]): number {
  let sum = 0,
    count = 0;
  for (const b of batches) {
    const nll = referenceNll(referenceLogits(config, params, b.input), b.targets, config.vocabSize);
    for (let i = 0; i < nll.length; i++) sum += b.mask[i] * nll[i];
    count += b.targetCount;
  }
  return sum / count;
}

/** Check every coordinate; parameters are used as float32 by tfjs and widened exactly to float64 for the reference. */
export function gradcheck(config: ModelConfig, params: ParamArrays, batches: readonly ScoredBatch[], engine?: Engine): GradcheckReport {
  const t0 = performance.now();
  const model = new GPT(config, params, engine);
  const path = gradientPath(model);
  const analytic = path === "onnxruntime-graph" ? graphMeanGradient(model, batches) : tfjsMeanGradient(model, batches);
  model.dispose();
  const p64 = toParams64(params);
  const loss = referenceMeanNll(config, p64, batches);
  const tensors: TensorGradReport[] = [];
  for (const [name, values] of p64) {
    const g = analytic.get(name)!;
    let maxAbs = 0,
      maxRel = 0,
      worstRatio = -1;
    let worst = { index: 0, analytic: 0, numeric: 0 };
    let maxRelAt = worst;
    for (let i = 0; i < values.length; i++) {
      const keep = values[i];
      values[i] = keep + GRADCHECK_EPS;
      const up = referenceMeanNll(config, p64, batches);
      values[i] = keep - GRADCHECK_EPS;
      const down = referenceMeanNll(config, p64, batches);
      values[i] = keep;
      const numeric = (up - down) / (2 * GRADCHECK_EPS);
      const abs = Math.abs(g[i] - numeric);
      maxAbs = Math.max(maxAbs, abs);
      const rel = abs / Math.max(Math.abs(numeric), Math.abs(g[i]), Number.MIN_VALUE);
      if (rel > maxRel || i === 0) {
        maxRel = rel;
        maxRelAt = { index: i, analytic: g[i], numeric };
      }
      const ratio = abs / (GRADCHECK_ATOL + GRADCHECK_RTOL * Math.abs(numeric));
      if (ratio > worstRatio) {
        worstRatio = ratio;
        worst = { index: i, analytic: g[i], numeric };
      }
    }
    tensors.push({
      name,
      size: values.length,
      maxAbsError: maxAbs,
      maxRelError: maxRel,
      worst,
      worstBoundRatio: worstRatio,
      maxRelAt,
      passed: worstRatio <= 1,
    });
  }
  return {
    loss,
    coordinates: tensors.reduce((n, t) => n + t.size, 0),
    tensors,
    passed: tensors.every((t) => t.passed),
    seconds: (performance.now() - t0) / 1000,
    gradients: path,
  };
}

const countOf = (batches: readonly ScoredBatch[]) => batches.reduce((n, b) => n + b.targetCount, 0);

/** tfjs autograd of Σ mask·NLL over the batches ÷ their target count. */
function tfjsMeanGradient(model: GPT, batches: readonly ScoredBatch[]): Map<string, ArrayLike<number>> {
  const count = countOf(batches);
  const vars = [...model.params.values()];
  const gradTensors = tf.tidy(() => {
    const loss = () => tf.div(tf.addN(batches.map((b) => maskedNllSum(model.forward(b.input), b.targets, b.mask))), count) as tf.Scalar;
    const { grads } = tf.variableGrads(loss, vars);
    return vars.map((v) => grads[v.name]);
  });
  const names = [...model.params.keys()];
  const out = new Map(gradTensors.map((g, i) => [names[i], Float32Array.from(g.dataSync() as Float32Array)]));
  tf.dispose(gradTensors);
  return out;
}

/** The training graph's Σ-NLL gradient per batch, summed in float64 in batch order (as applyGradients) ÷ the target count. */
function graphMeanGradient(model: GPT, batches: readonly ScoredBatch[]): Map<string, ArrayLike<number>> {
  const count = countOf(batches);
  const sums = [...model.params.values()].map((v) => new Float64Array(v.size));
  for (const b of batches)
    graphGradient(model, b)!.grads.forEach((g, i) =>
      g.forEach((x, j) => {
        sums[i][j] += x;
      }),
    );
  return new Map([...model.params.keys()].map((n, i) => [n, sums[i].map((x) => x / count)]));
}
