// One microbatch's Σ-NLL gradients through the training graph (onnx_train.ts: forward and backward as one ONNX
// graph) where the model's engine runs whole graphs (onnxruntime kernels) and the model has no dropout. Not the
// choice of path (src/lab/gradients.ts falls back to tfjs autograd) and not the reduction (src/train/trainer.ts).
import type { GPT } from "./gpt.ts";
import { batchFeeds, cachedSession, weightFeeds, type GraphModel } from "./graph_session.ts";
import type { ScoredBatch } from "./input.ts";
import { graphBuilders } from "./graph_builders.ts";
import { gradName, LOSS_SUM, TARGET_MASK } from "./onnx_names.ts";
import { requireTargets, type MicrobatchGradient } from "../util/microbatch.ts";

/** Which path computes training gradients now: the graph, or tfjs autograd (dropout, or no graph runtime). */
export type GradientPath = "onnxruntime-graph" | "tfjs";

/**
 * The graph has no dropout: a model with dropout keeps tfjs's autograd (its products still native under
 * onnxruntime kernels), whose masks come from the run's dropout stream.
 */
export const gradientPath = (model: GraphModel): GradientPath =>
  model.engine.graphs && model.config.dropout === 0 ? "onnxruntime-graph" : "tfjs";

let runs = 0;
/** Training-graph runs in this thread so far (benches and tests check the graph path ran). */
export const graphGradientRuns = (): number => runs;

/**
 * Gradients of Σ mask·NLL through the graph at the model's current weights, or at `weights` (by parameter name,
 * which only the graph can take); undefined where gradientPath is tfjs.
 */
export function graphGradient(model: GPT, batch: ScoredBatch, weights?: ReadonlyMap<string, Float32Array>): MicrobatchGradient | undefined;
export function graphGradient(
  model: GraphModel,
  batch: ScoredBatch,
  weights: ReadonlyMap<string, Float32Array>,
): MicrobatchGradient | undefined;
export function graphGradient(
  model: GPT | GraphModel,
  batch: ScoredBatch,
  weights?: ReadonlyMap<string, Float32Array>,
): MicrobatchGradient | undefined {
  const load = model.engine.graphs;
  if (!load || gradientPath(model) !== "onnxruntime-graph") {
    if (weights)
      throw new Error(
        "graphGradient: weights apart from the model's need the onnxruntime graph and no dropout (tfjs computes with the model's variables)",
      );
    return undefined;
  }
  requireTargets(batch.targetCount);
  const names = [...model.params.keys()];
  const run = cachedSession(load, "training", model, () => graphBuilders().trainingModel(model.config));
  const feeds = {
    ...batchFeeds(model, batch),
    [TARGET_MASK]: { type: "float32" as const, data: batch.mask, dims: [batch.input.rows, batch.input.cols] },
    ...(weights ? weightFeeds(model, weights) : weightFeeds(model as GPT)),
  };
  const [loss, ...grads] = run(feeds, [LOSS_SUM, ...names.map(gradName)]);
  runs++;
  return { lossSum: loss[0], grads: grads.map(ownBuffer), count: batch.targetCount };
}

/** The array itself when it is the whole of its own ArrayBuffer (a worker transfers each gradient's buffer), else a copy. */
const ownBuffer = (g: Float32Array): Float32Array =>
  g.byteOffset === 0 && g.byteLength === g.buffer.byteLength && g.buffer instanceof ArrayBuffer ? g : g.slice();
