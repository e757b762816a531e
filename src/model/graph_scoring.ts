// Per-position NLL of a batch, through the decoder's whole forward as one ONNX graph (onnx.ts's scoring form, the
// weights as inputs) where the model's engine runs graphs (onnxruntime kernels), else through tfjs. Not the loader
// (Node-only, src/node/onnxruntime.ts) and not evaluation: callers merge the numbers as they merge tfjs's.
import { readTensor } from "../util/backend.ts";
import type { GPT } from "./gpt.ts";
import { batchFeeds, cachedSession, weightFeeds } from "./graph_session.ts";
import type { ScoredBatch } from "./input.ts";
import { positionNll } from "./loss.ts";
import { graphBuilders } from "./graph_builders.ts";
import { NLL } from "./onnx_names.ts";

export { graphBuilds } from "./graph_session.ts";

/**
 * −ln p(target) per position of the batch at the model's current weights, in evaluation mode (no dropout), or
 * at `weights` (by parameter name), which only the graph can take: tfjs computes with the model's variables.
 */
export function scoreBatch(model: GPT, batch: ScoredBatch, weights?: ReadonlyMap<string, Float32Array>): Float64Array {
  const load = model.engine.graphs;
  if (!load && weights) throw new Error("scoreBatch: weights apart from the model's need the onnxruntime graph (kernels are tfjs)");
  if (!load) return Float64Array.from(readTensor(() => positionNll(model.forward(batch.input), batch.targets)));
  const run = cachedSession(load, "scoring", model, () =>
    graphBuilders().onnxModel(model.config, null, { scoring: true, weights: "inputs" }),
  );
  return Float64Array.from(run({ ...batchFeeds(model, batch), ...weightFeeds(model, weights) }, [NLL])[0]);
}
