// The model-adapter interface every scorer answers through (decoder, loaded checkpoint, baselines), and the
// decoder's adapter. Not metrics: adapters return per-position numbers; evaluators reduce them.
import { readTensor, tf } from "../util/backend.ts";
import type { Rng } from "../util/rng.ts";
import { Sha256 } from "../util/sha256.ts";
import type { Batch, Binding } from "../data/batches.ts";
import type { GPT } from "../model/gpt.ts";
import type { ModelInput } from "../model/input.ts";
import { positionNll } from "../model/loss.ts";

/** What evaluation asks of a model. */
export interface ScoringModel {
  readonly name: string;
  readonly binding: Binding;
  /** −ln p(target | document-local context) per position of the batch; only masked-in positions are read. */
  positionNll(batch: Batch): Float64Array;
  /** ln p(v | context) for every position and vocabulary entry, flat [rows·cols·vocab]. */
  logProbs(input: ModelInput): Float32Array;
  /** Digest of all state evaluation must leave untouched (weights, gradients, RNG states). */
  stateFingerprint(): string;
}

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
