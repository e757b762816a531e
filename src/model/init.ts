// Parameter initialisation from an explicit seeded stream (GPT-2 style), as named Float32Arrays.
// Not tfjs: the same arrays feed the tfjs model, the float64 reference and checkpoints.
import type { Rng } from "../util/primitives/rng.ts";
import { parameterShapes, type ModelConfig } from "./config.ts";

/** Named parameter arrays in `parameterShapes` order. */
export type ParamArrays = Map<string, Float32Array>;

/** Std of weight matrices and embeddings (GPT-2's 0.02). */
const INIT_STD = 0.02;

/**
 * Draw every parameter from its own child stream of `rng` (named after the parameter), so adding
 * a parameter never shifts another's values. Gains are 1, biases 0; residual output projections are
 * scaled by 1/sqrt(2·layers) as in GPT-2.
 */
export function initParameters(config: ModelConfig, rng: Rng): ParamArrays {
  const out: ParamArrays = new Map();
  for (const [name, shape] of parameterShapes(config)) {
    const size = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(size);
    if (name.endsWith(".g")) data.fill(1);
    else if (shape.length >= 2) {
      const residual = name.endsWith("attn.wo") || name.endsWith("mlp.w2");
      const std = residual ? INIT_STD / Math.sqrt(2 * config.nLayers) : INIT_STD;
      const stream = rng.child(name);
      for (let i = 0; i < size; i++) data[i] = stream.normal() * std;
    }
    out.set(name, data);
  }
  return out;
}
