// Per-position NLL of a batch, through the decoder's whole forward as one ONNX graph (onnx.ts's scoring form) where
// the engine has a graph loader (onnxruntime kernels), else through tfjs. Not the loader (Node-only, registered
// by src/util/native_kernels.ts) and not evaluation: callers merge the numbers as before.
import { currentGraphLoader, readTensor, type GraphFeed, type GraphSession } from "../util/backend.ts";
import type { GPT } from "./gpt.ts";
import { attentionMask, checkModelInput, positionsOf, type ScoredBatch } from "./input.ts";
import { positionNll } from "./loss.ts";
import { ATTENTION_BIAS, INPUT_IDS, NLL, onnxModel, POSITION_IDS, TARGETS } from "./onnx.ts";

/** A session and the weights it was built from (a copy: the session is rebuilt when they no longer match). */
interface Built {
  weights: Float32Array[];
  run: GraphSession;
}
const built = new WeakMap<GPT, Built>();
let builds = 0;

/** Graph sessions built in this thread so far (tests and benches check a session is reused while weights stand). */
export const graphBuilds = (): number => builds;

const sameWeights = (a: Float32Array[], b: Float32Array[]) => a.length === b.length && a.every((x, i) => x.length === b[i].length && x.every((v, j) => Object.is(v, b[i][j])));

function session(model: GPT, load: (bytes: Uint8Array) => GraphSession): GraphSession {
  // the exact weights, compared value by value: cheaper than a digest and no counter can miss an assign
  const now = [...model.params.values()].map((v) => v.dataSync() as Float32Array);
  const have = built.get(model);
  if (have && sameWeights(have.weights, now)) return have.run;
  const weights = now.map((w) => Float32Array.from(w));
  const run = load(onnxModel(model.config, new Map([...model.params.keys()].map((n, i) => [n, weights[i]])), { scoring: true }));
  built.set(model, { weights, run });
  builds++;
  return run;
}

const int64 = (xs: Int32Array, dims: number[]): GraphFeed => ({ type: "int64", data: BigInt64Array.from(xs, (x) => BigInt(x)), dims });

/** −ln p(target) per position of the batch at the model's current weights, in evaluation mode (no dropout). */
export function scoreBatch(model: GPT, batch: ScoredBatch): Float64Array {
  const load = currentGraphLoader();
  if (!load) return Float64Array.from(readTensor(() => positionNll(model.forward(batch.input), batch.targets)));
  const { rows, cols, ids } = checkModelInput(batch.input, model.config);
  const feeds: Record<string, GraphFeed> = {
    [INPUT_IDS]: int64(ids, [rows, cols]),
    [ATTENTION_BIAS]: { type: "float32", data: attentionMask(batch.input), dims: [rows, 1, cols, cols] },
    [POSITION_IDS]: int64(positionsOf(batch.input), [rows, cols]),
    [TARGETS]: int64(batch.targets, [rows, cols]),
  };
  return Float64Array.from(session(model, load)(feeds, [NLL])[0]);
}
