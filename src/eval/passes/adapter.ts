// The decoder's model adapter (tfjs decoder in evaluation mode behind ScoringModel). Not the interface itself
// (src/model/scoring.ts, re-exported here) and not metrics: adapters return per-position numbers.
import { float32View, readTensor, tf } from "../../util/backend.ts";
import type { Rng } from "../../util/primitives/rng.ts";
import { Sha256 } from "../../util/primitives/sha256.ts";
import type { GPT } from "../../model/gpt.ts";
import { scoreBatch } from "../../model/graph_scoring.ts";
import type { ScoredBatch } from "../../model/input.ts";
import type { ScoringModel } from "../../model/scoring.ts";
import type { WorkerPool } from "../../train/pool.ts";

export type { ScoringModel };

/**
 * Adapter over the tfjs decoder in evaluation mode (no dropout, no gradient tape). With a pool of more than one
 * worker, `positionNlls` splits whole batches across it at the model's current weights.
 */
export function decoderAdapter(
  model: GPT,
  opts: { name?: string; watched?: Map<string, tf.Tensor>; rngs?: Rng[]; pool?: WorkerPool } = {},
): ScoringModel {
  // on onnxruntime kernels the whole forward runs as one ONNX graph, else on tfjs (graph_scoring.ts)
  const one = (batch: ScoredBatch) => scoreBatch(model, batch);
  const pool = opts.pool;
  const same = sameWeights(model);
  return {
    name: opts.name ?? "decoder",
    binding: { vocabSize: model.config.vocabSize, contextLength: model.config.contextLength },
    positionNll: one,
    ...(pool && pool.size > 1 ? { positionNlls: (batches: readonly ScoredBatch[]) => scoreOnPool(model, pool, batches, same()) } : {}),
    logProbs: (input) => readTensor(() => tf.logSoftmax(model.forward(input))),
    stateFingerprint: () => {
      const h = new Sha256();
      for (const [name, v] of [...model.params, ...(opts.watched ?? new Map())]) {
        h.update(name);
        // hashed before any other tfjs call: no model-sized copy per digest
        const data = v.dtype === "float32" ? float32View(v) : v.dataSync();
        h.update(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      }
      for (const r of opts.rngs ?? []) h.update(JSON.stringify(r.state()));
      return h.digest();
    },
  };
}

/**
 * The batches split across the pool at the model's weights, read in place (float32View: no copy out of the engine);
 * on the graph this thread feeds those very arrays. `same` stands for the weights' values (sameWeights).
 */
function scoreOnPool(model: GPT, pool: WorkerPool, batches: readonly ScoredBatch[], same: object): Float64Array[] {
  const weights = [...model.params.values()].map(float32View);
  const fed = model.engine.graphs ? new Map([...model.params.keys()].map((n, i) => [n, weights[i]])) : undefined;
  return pool.scores(weights, batches, (batch) => scoreBatch(model, batch, fed), same);
}

/**
 * One object per set of values of the model's weights: the same object while every variable still holds the engine
 * data it held at the last call (tfjs changes a variable only by assign, which gives it new data), a new one after.
 */
function sameWeights(model: GPT): () => object {
  let last: { held: object[]; key: object } | undefined;
  return () => {
    const held = [...model.params.values()].map((v) => v.dataId as object);
    if (!last || held.some((d, i) => d !== last!.held[i])) last = { held, key: {} };
    return last.key;
  };
}
