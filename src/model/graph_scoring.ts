// Per-position NLL of a batch, through the decoder's whole forward as one ONNX graph (onnx.ts's scoring form, the
// weights as inputs) where the model's engine runs graphs (onnxruntime kernels), else through tfjs. Not the loader
// (Node-only, src/node/onnxruntime.ts) and not evaluation: callers merge the numbers as they merge tfjs's.
import { readTensor } from "../util/backend.ts";
import type { GPT } from "./gpt.ts";
import { batchFeeds, cachedSession, weightFeeds, type GraphModel } from "./graph_session.ts";
import type { ScoredBatch } from "./input.ts";
import { positionNll } from "./loss.ts";
import { graphBuilders } from "./graph_builders.ts";
import { NLL } from "./onnx_names.ts";
import { usesCausalAttention } from "../util/engine.ts";

export { graphBuilds } from "./graph_session.ts";

/**
 * −ln p(target) per position of the batch at the model's current weights, in evaluation mode (no dropout), or
 * at `weights` (by parameter name), which only the graph can take: tfjs computes with the model's variables.
 */
export function scoreBatch(
  model: GPT,
  batch: ScoredBatch,
  weights?: ReadonlyMap<string, Float32Array>,
  runPositions?: number,
): Float64Array;
export function scoreBatch(
  model: GraphModel,
  batch: ScoredBatch,
  weights: ReadonlyMap<string, Float32Array>,
  runPositions?: number,
): Float64Array;
export function scoreBatch(
  model: GPT | GraphModel,
  batch: ScoredBatch,
  weights?: ReadonlyMap<string, Float32Array>,
  runPositions = SCORING_RUN_POSITIONS,
): Float64Array {
  const load = model.engine.graphs;
  if (!load && weights) throw new Error("scoreBatch: weights apart from the model's need the onnxruntime graph (kernels are tfjs)");
  if (!load) return Float64Array.from(readTensor(() => positionNll((model as GPT).forward(batch.input), batch.targets)));
  // onnxruntime's Attention, or tinylab's causal kernel (other sessions, through its addon) where the engine has it
  const causal = usesCausalAttention(model.engine, model.config);
  const run = cachedSession(causal ? model.engine.causalAttention!.graphs : load, "scoring", model, () =>
    graphBuilders().onnxModel(model.config, null, { scoring: true, weights: "inputs", causalAttention: causal }),
  );
  const weightsIn = weights ? weightFeeds(model, weights) : weightFeeds(model as GPT);
  const { rows, cols } = batch.input;
  const per = Math.max(1, Math.floor(runPositions / cols));
  const out = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r += per) {
    const part = rowRange(batch, r, Math.min(rows, r + per));
    out.set(run({ ...batchFeeds(model, part), ...weightsIn }, [NLL])[0], r * cols);
  }
  return out;
}

/**
 * Positions one scoring run takes at most (whole rows, at least one). Rows are scored independently, so the bits
 * do not depend on it; smaller runs keep a run's intermediates in cache. At xl (rows of 256, two workers, 8 rows a
 * call), runs of 2 rows scored 1–15% faster than runs of 4 and runs of 1 row 11–13% slower than runs of 2
 * (docs/native-kernels.md).
 */
export const SCORING_RUN_POSITIONS = 512;

/** Rows [from, to) of a batch, as views (the feeds copy what they need). */
function rowRange(batch: ScoredBatch, from: number, to: number): ScoredBatch {
  const { cols } = batch.input,
    a = from * cols,
    b = to * cols;
  if (from === 0 && b === batch.targets.length) return batch;
  const mask = batch.mask.subarray(a, b);
  return {
    input: { rows: to - from, cols, ids: batch.input.ids.subarray(a, b), docIds: batch.input.docIds.subarray(a, b) },
    targets: batch.targets.subarray(a, b),
    mask,
    targetCount: mask.reduce((n, m) => n + m, 0),
  };
}
