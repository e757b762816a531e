// AdamW's hyper-parameters and their defaults, apart from the optimizer so that option defaults can be shown
// (`tinylab --help`) without loading the engine. Not the optimizer (adamw.ts).

/** AdamW hyper-parameters; `decays(name, shape)` says which parameters get weight decay. */
export interface AdamWConfig {
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  decays: (name: string, shape: readonly number[]) => boolean;
}

export const DEFAULT_ADAMW: AdamWConfig = {
  beta1: 0.9,
  beta2: 0.999,
  eps: 1e-8,
  weightDecay: 0,
  // nanoGPT's rule: matrices and embeddings decay, vectors (biases, LayerNorm gains) do not
  decays: (_name, shape) => shape.length >= 2,
};
