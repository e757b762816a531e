// The adapter of another library's causal LM (a Hugging Face directory's ONNX decoder) behind ScoringModel, so the
// whole harness scores it unchanged: the graph fed by its own input names, its float32 logits turned into a float64
// log-softmax. Pure (the session is handed in). Not the directory's reader (src/node/model_dir.ts) and not metrics.
import type { GraphFeed, GraphSession } from "../../util/engine.ts";
import { USE_CACHE_BRANCH, type GraphInfo, type HfModelConfig } from "../../model/hf_dir.ts";
import { checkModelInput, positionsOf, type ModelInput, type ScoredBatch } from "../../model/input.ts";
import { ATTENTION_MASK, INPUT_IDS, LOGITS, pastName, POSITION_IDS, presentName } from "../../model/onnx_names.ts";
import type { ScoringModel } from "../../model/scoring.ts";

/** A graph's model: ScoringModel whose nextLogProbs reuses the KV cache of the previous call when `ids` extends its ids. */
export interface GraphModel extends ScoringModel {
  nextLogProbs(ids: readonly number[]): Float32Array;
}

const int64 = (xs: ArrayLike<number>, dims: number[]): GraphFeed => ({
  type: "int64",
  data: BigInt64Array.from(Array.from(xs), (x) => BigInt(x)),
  dims,
});

/** Refuse a row holding two documents, or padding before its text: one document per row, right-padded, is what an attention_mask can say. */
function checkRows(input: ModelInput): void {
  const { rows, cols, docIds } = input;
  for (let r = 0; r < rows; r++) {
    const first = docIds[r * cols];
    for (let c = 1; c < cols; c++) {
      const d = docIds[r * cols + c];
      if (d >= 0 && d !== first)
        throw new Error(
          `row ${r} holds ${first < 0 ? "padding before a document" : "two documents"}; another library's graph takes one document per row, right-padded`,
        );
    }
  }
}

/** ln softmax of one row of float32 logits in float64 (max-shifted). */
export function logSoftmax64(z: Float32Array): Float64Array {
  let max = -Infinity;
  for (const v of z) if (v > max) max = v;
  let sum = 0;
  for (const v of z) sum += Math.exp(v - max);
  const lse = max + Math.log(sum);
  // a plain loop: Float64Array.from with a map function calls it per element through the iterator, several times slower
  const out = new Float64Array(z.length);
  for (let i = 0; i < z.length; i++) out[i] = z[i] - lse;
  return out;
}

/**
 * `session` runs `info`'s graph; `fingerprint` names what the model is (its files' digest): the session keeps no
 * state a scoring could change, so the fingerprint is constant.
 */
export function graphAdapter(session: GraphSession, info: GraphInfo, config: HfModelConfig, name: string, fingerprint: string): GraphModel {
  const binding = { vocabSize: config.vocabSize, contextLength: config.contextLength };
  const V = config.vocabSize,
    H = config.nHeads,
    D = config.headDim;
  const takes = new Set(info.inputs.map((v) => v.name));
  const presents = Array.from({ length: info.cacheLayers }, (_, l) => [presentName(l, "key"), presentName(l, "value")]).flat();
  const cacheOut = info.cacheLayers > 0 && presents.every((p) => info.outputs.some((o) => o.name === p));

  /** The logits [rows, cols, V] (and the presents, when asked) of ids after `past` cached positions. */
  function run(
    ids: ArrayLike<number>,
    rows: number,
    cols: number,
    mask: ArrayLike<number>,
    positions: ArrayLike<number>,
    past: Float32Array[] | null,
    pastLen: number,
    withPresents: boolean,
  ): Float32Array[] {
    const feeds: Record<string, GraphFeed> = { [INPUT_IDS]: int64(ids, [rows, cols]) };
    if (takes.has(ATTENTION_MASK)) feeds[ATTENTION_MASK] = int64(mask, [rows, pastLen + cols]);
    if (takes.has(POSITION_IDS)) feeds[POSITION_IDS] = int64(positions, [rows, cols]);
    if (takes.has(USE_CACHE_BRANCH)) feeds[USE_CACHE_BRANCH] = { type: "bool", data: Uint8Array.of(pastLen > 0 ? 1 : 0), dims: [1] };
    for (let l = 0; l < info.cacheLayers; l++) {
      (["key", "value"] as const).forEach((kv, j) => {
        feeds[pastName(l, kv)] = { type: "float32", data: past ? past[2 * l + j] : new Float32Array(0), dims: [rows, H, pastLen, D] };
      });
    }
    const out = session(feeds, withPresents ? [LOGITS, ...presents] : [LOGITS]);
    if (out[0].length !== rows * cols * V)
      throw new Error(`${name}: the graph gave ${out[0].length} logits for ${rows}×${cols} positions of a ${V}-token vocabulary`);
    return out;
  }

  function logits(input: ModelInput): Float32Array {
    checkModelInput(input, binding);
    checkRows(input);
    const mask = Int32Array.from(input.docIds, (d) => (d >= 0 ? 1 : 0));
    return run(input.ids, input.rows, input.cols, mask, positionsOf(input), null, 0, false)[0];
  }

  // the KV cache of the last generated sequence: its ids and each layer's present key and value
  let cached: { ids: number[]; kv: Float32Array[] } | null = null;

  return {
    name,
    binding,
    positionNll(batch: ScoredBatch): Float64Array {
      const z = logits(batch.input);
      const nll = new Float64Array(batch.mask.length);
      for (let i = 0; i < nll.length; i++) {
        if (batch.mask[i] === 0) continue;
        nll[i] = -logSoftmax64(z.subarray(i * V, (i + 1) * V))[batch.targets[i]];
      }
      return nll;
    },
    logProbs(input: ModelInput): Float32Array {
      const z = logits(input),
        out = new Float32Array(z.length);
      for (let i = 0; i < z.length; i += V) out.set(logSoftmax64(z.subarray(i, i + V)), i);
      return out;
    },
    nextLogProbs(ids: readonly number[]): Float32Array {
      if (ids.length === 0 || ids.length > config.contextLength)
        throw new Error(`${name}: next-token context of ${ids.length} ids, expected 1 to ${config.contextLength}`);
      checkModelInput({ rows: 1, cols: ids.length, ids: Int32Array.from(ids), docIds: new Int32Array(ids.length) }, binding);
      const reuse = cacheOut && cached !== null && cached.ids.length < ids.length && cached.ids.every((id, i) => id === ids[i]);
      const pastLen = reuse ? cached!.ids.length : 0;
      const fresh = ids.slice(pastLen);
      const positions = fresh.map((_, i) => pastLen + i);
      const out = run(fresh, 1, fresh.length, new Array(ids.length).fill(1), positions, reuse ? cached!.kv : null, pastLen, cacheOut);
      if (cacheOut) cached = { ids: [...ids], kv: out.slice(1) };
      return new Float32Array(logSoftmax64(out[0].subarray((fresh.length - 1) * V, fresh.length * V)));
    },
    stateFingerprint: () => fingerprint,
  };
}
