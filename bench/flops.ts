// Benchmark helper, not a benchmark: the floating-point operations of a decoder's matrix products per token of a
// full row, 2 per multiply-add, attention over the whole row (each query against all T keys: tinylab's graphs and
// the PyTorch peer both compute the masked half). Norms, GELU, softmax and the optimizer are left out, so a rate
// from these counts is the products' share of the work, comparable with a matrix product's own rate.
import type { ModelConfig } from "../src/model/config.ts";

/** One token's forward: per layer qkv (3d²), output projection (d²), the MLP (2·d·dFF), scores and ·v (2·T·d); the head (d·V). */
export function forwardFlopsPerToken(c: ModelConfig): number {
  const { dModel: d, dFF: f, nLayers: L, contextLength: T, vocabSize: V } = c;
  return 2 * (L * (4 * d * d + 2 * d * f + 2 * T * d) + d * V);
}

/** One trained token: the forward and a backward of twice its products (the inputs' gradients and the weights'). */
export const trainFlopsPerToken = (c: ModelConfig): number => 3 * forwardFlopsPerToken(c);
