// One microbatch's share of an update, whichever engine computed it (tfjs autograd in src/train, the ONNX
// training graph in src/model): what the trainer reduces in microbatch order.

/** Σ-NLL gradients (float32, parameter order), Σ NLL and the targets scored. */
export interface MicrobatchGradient {
  grads: Float32Array[];
  lossSum: number;
  count: number;
}

/** A microbatch with no target has no mean to contribute: refused, whichever path computes it. */
export function requireTargets(count: number): void {
  if (!(count > 0)) throw new Error(`a microbatch has ${count} targets; every microbatch must score at least one`);
}
