// The decoder's model adapter (tfjs decoder in evaluation mode behind ScoringModel). Not the interface itself
// (src/model/scoring.ts, re-exported here) and not metrics: adapters return per-position numbers.
import { readTensor, tf } from "../util/backend.ts";
import type { Rng } from "../util/rng.ts";
import { Sha256 } from "../util/sha256.ts";
import type { GPT } from "../model/gpt.ts";
import { positionNll } from "../model/loss.ts";
import type { ScoringModel } from "../model/scoring.ts";

export type { ScoringModel };

/** Adapter over the tfjs decoder in evaluation mode (no dropout, no gradient tape). */
export function decoderAdapter(model: GPT, opts: { name?: string; watched?: Map<string, tf.Tensor>; rngs?: Rng[] } = {}): ScoringModel {
  return {
    name: opts.name ?? "decoder",
    binding: { vocabSize: model.config.vocabSize, contextLength: model.config.contextLength },
    positionNll: (batch) => Float64Array.from(readTensor(() => positionNll(model.forward(batch.input), batch.targets))),
    logProbs: (input) => readTensor(() => tf.logSoftmax(model.forward(input))),
    stateFingerprint: () => {
      const h = new Sha256();
      for (const [name, v] of [...model.params, ...(opts.watched ?? new Map())]) {
        h.update(name);
        const data = v.dataSync() as Float32Array;
        h.update(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      }
      for (const r of opts.rngs ?? []) h.update(JSON.stringify(r.state()));
      return h.digest();
    },
  };
}
