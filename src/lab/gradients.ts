// Where a training microbatch's gradients come from, chosen once for the calling thread and the pool's workers
// alike (so any worker count computes the same bits): the whole-step ONNX graph where the engine runs graphs and
// the model has no dropout, else tfjs autograd (with native products under onnxruntime kernels). Not the reduction.
import type { GPT } from "../model/gpt.ts";
import { gradientPath, graphGradient } from "../model/graph_training.ts";
import type { ScoredBatch } from "../model/input.ts";
import { batchLoss } from "../model/loss.ts";
import type { Rng } from "../util/primitives/rng.ts";
import { microbatchGradient, type MicrobatchGradient } from "../train/trainer.ts";

/**
 * Σ-NLL gradients of one microbatch at the model's current weights (or at `weights`, on the graph path only), in
 * training mode with this dropout stream.
 */
export function modelGradient(
  model: GPT,
  batch: ScoredBatch,
  dropoutRng: Rng,
  weights?: ReadonlyMap<string, Float32Array>,
): MicrobatchGradient {
  return (
    graphGradient(model, batch, weights) ??
    microbatchGradient([...model.params.values()], batchLoss(model, { train: true, dropoutRng }), batch)
  );
}

/**
 * `arrays` (parameter order) by name where the gradients come from the graph, which takes weights apart from the
 * model's (so a run feeds the optimizer's own arrays and copies nothing out of the engine); undefined on tfjs's path,
 * and for arrays in shared memory (the worker pool's buffer, where the optimizer reads the weights its owners
 * updated), which onnxruntime-node does not take as a feed: the graph then reads the model's variables in place,
 * which hold the same values.
 */
export function graphWeights(model: GPT, arrays: readonly Float32Array[]): Map<string, Float32Array> | undefined {
  if (gradientPath(model) !== "onnxruntime-graph") return undefined;
  const names = [...model.params.keys()];
  if (arrays.length !== names.length) throw new Error(`${arrays.length} weight arrays for ${names.length} parameters`);
  if (typeof SharedArrayBuffer === "function" && arrays.some((a) => a.buffer instanceof SharedArrayBuffer)) return undefined;
  return new Map(names.map((n, i) => [n, arrays[i]]));
}
