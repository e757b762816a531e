// Count baselines fitted on training documents only: uniform, add-one unigram, add-k bigram and the
// unigram-prior bigram, scored through the same ScoringModel interface as the decoder.
import type { Binding } from "../data/batches.ts";
import type { Document } from "../data/documents.ts";
import type { ModelInput, ScoredBatch } from "../model/input.ts";
import type { ScoringModel } from "../model/scoring.ts";

/** Transition and target counts from training documents, never across a document boundary. */
export interface Counts {
  vocab: number;
  /** C[v]: occurrences of v as a target (BOS is context only, so it is never counted). */
  unigram: Float64Array;
  /** C[u·V + v]: transitions u → v inside one document. */
  bigram: Float64Array;
  /** C[u] = Σ_v C[u·V + v]. */
  context: Float64Array;
  targets: number;
}

/** Most entries of the V × V bigram table a caller should ask for (2^26 float64s, 512 MiB): a 50,257-token vocabulary needs 2.5·10^9. */
export const MAX_BASELINE_TABLE = 2 ** 26;

export function fitCounts(docs: readonly Document[], vocab: number): Counts {
  const unigram = new Float64Array(vocab),
    bigram = new Float64Array(vocab * vocab),
    context = new Float64Array(vocab);
  let targets = 0;
  for (const d of docs) {
    if (d.split !== "train") throw new Error(`baselines are fitted on training documents only; "${d.id}" is ${d.split}`);
    for (let t = 0; t + 1 < d.ids.length; t++) {
      const u = d.ids[t],
        v = d.ids[t + 1];
      if (u >= vocab || v >= vocab || u < 0 || v < 0) throw new Error(`document "${d.id}" has id outside [0, ${vocab})`);
      unigram[v] += 1;
      bigram[u * vocab + v] += 1;
      context[u] += 1;
      targets += 1;
    }
  }
  return { vocab, unigram, bigram, context, targets };
}

/** A conditional distribution over the next token given only the previous one. */
export type BigramProb = (u: number, v: number) => number;

export const uniform =
  (vocab: number): BigramProb =>
  () =>
    1 / vocab;

/** Add-one unigram: (C_v + 1)/(N + V). */
export function unigram(c: Counts): BigramProb {
  return (_u, v) => (c.unigram[v] + 1) / (c.targets + c.vocab);
}

/** Add-k bigram: (C_uv + k)/(C_u + kV); k = 1 is add-one. */
export function addKBigram(c: Counts, k = 1): BigramProb {
  if (!(k > 0)) throw new Error(`add-k smoothing needs k > 0, got ${k}`);
  return (u, v) => (c.bigram[u * c.vocab + v] + k) / (c.context[u] + k * c.vocab);
}

/**
 * Unigram-prior bigram. Without `lam`: (C_uv + kV·p_uni(v))/(C_u + kV), i.e. interpolation with the
 * per-context weight C_u/(C_u + kV). With `lam`: lam·add-k + (1 − lam)·p_uni (lam 0 the unigram, 1 plain add-k).
 */
export function unigramPriorBigram(c: Counts, k = 1, lam?: number): BigramProb {
  const uni = unigram(c),
    addK = addKBigram(c, k);
  if (lam !== undefined) {
    if (!(lam >= 0 && lam <= 1)) throw new Error(`lam must be in [0, 1], got ${lam}`);
    return (u, v) => lam * addK(u, v) + (1 - lam) * uni(u, v);
  }
  return (u, v) => (c.bigram[u * c.vocab + v] + k * c.vocab * uni(u, v)) / (c.context[u] + k * c.vocab);
}

/** Wrap a next-token distribution as a ScoringModel: position t is scored from input id t alone. */
export function baselineAdapter(name: string, prob: BigramProb, binding: Binding): ScoringModel {
  const V = binding.vocabSize;
  return {
    name,
    binding,
    positionNll: (batch: ScoredBatch) => {
      const out = new Float64Array(batch.targets.length);
      for (let i = 0; i < out.length; i++) if (batch.mask[i] !== 0) out[i] = -Math.log(prob(batch.input.ids[i], batch.targets[i]));
      return out;
    },
    logProbs: (input: ModelInput) => {
      const out = new Float32Array(input.ids.length * V);
      for (let i = 0; i < input.ids.length; i++) for (let v = 0; v < V; v++) out[i * V + v] = Math.log(prob(input.ids[i], v));
      return out;
    },
    stateFingerprint: () => name, // fitted counts are never mutated after fitting
  };
}

/**
 * Default smoothing k of the bigram baselines: 1 (add-one), the value 001 publishes exact bigram numbers for, so
 * results stay comparable with them. 000 and 004 use k = 0.1 in their examples (004: unigram-prior 3.6688 vs plain
 * add-0.1 3.6882); pass it with --smoothing 0.1. λ has no default: the unigram-prior bigram uses 004's per-context
 * weight C_u/(C_u + kV) unless a fixed mixture weight is given.
 */
export const DEFAULT_SMOOTHING_K = 1;

/** Every baseline, fitted on `train`, under the names used in reports (the names carry k and any λ). */
export function allBaselines(train: readonly Document[], binding: Binding, k = DEFAULT_SMOOTHING_K, lam?: number): ScoringModel[] {
  const c = fitCounts(train, binding.vocabSize);
  return [
    baselineAdapter("uniform", uniform(binding.vocabSize), binding),
    baselineAdapter("unigram (add-one)", unigram(c), binding),
    baselineAdapter(`bigram (add-${k})`, addKBigram(c, k), binding),
    baselineAdapter(`unigram-prior bigram (k=${k}${lam === undefined ? "" : `, λ=${lam}`})`, unigramPriorBigram(c, k, lam), binding),
  ];
}
