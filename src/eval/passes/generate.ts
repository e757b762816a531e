// Generation through ScoringModel.logProbs (so baselines generate too): greedy decoding, seeded sampling with
// temperature and top-k from an explicit Rng, and the greedy margin. Not scoring of given text (windowed.ts).
import type { Rng } from "../../util/primitives/rng.ts";
import type { ScoringModel } from "../../model/scoring.ts";

/** Greedy takes the top token (lowest id on ties); sampling draws from softmax(log p / temperature) over the top k. */
export type Decoding =
  { readonly kind: "greedy" } | { readonly kind: "sample"; readonly temperature: number; readonly topK?: number; readonly rng: Rng };

export interface GenerateOptions {
  readonly maxTokens: number;
  readonly decoding: Decoding;
  /** Stop after emitting this id (included in the output); null never stops early. */
  readonly stopToken?: number | null;
}

export interface Generation {
  readonly tokens: number[];
  /** ln p of each emitted token under the model (before temperature or top-k), one per token. */
  readonly logProbs: number[];
  readonly stopped: "stop-token" | "length";
}

/** ln p(v | context) for the next position, from the last `contextLength` ids of `context` (cropped on the left). */
export function nextLogProbs(model: ScoringModel, context: readonly number[]): Float32Array {
  if (context.length === 0) throw new Error("generation needs a non-empty context (at least BOS)");
  const { vocabSize: V, contextLength: T } = model.binding;
  if (model.nextLogProbs) return model.nextLogProbs(context.slice(-T));
  const ids = Int32Array.from(context.slice(-T));
  const lp = model.logProbs({ rows: 1, cols: ids.length, ids, docIds: new Int32Array(ids.length) });
  return lp.slice((ids.length - 1) * V, ids.length * V);
}

/** Indices of the k largest values, largest first (lower index first among equals). */
function topIndices(values: Float32Array, k: number): number[] {
  return Array.from(values.keys())
    .sort((a, b) => values[b] - values[a] || a - b)
    .slice(0, k);
}

/** Draw one token from log-probabilities with temperature and optional top-k, using only `rng`. */
export function sampleToken(logProbs: Float32Array, temperature: number, rng: Rng, topK?: number): number {
  if (!(Number.isFinite(temperature) && temperature > 0))
    throw new Error(`temperature must be finite and > 0 (use greedy for 0), got ${temperature}`);
  if (topK !== undefined && (!Number.isInteger(topK) || topK < 1 || topK > logProbs.length))
    throw new Error(`top-k must be an integer in [1, ${logProbs.length}], got ${topK}`);
  const keep = topIndices(logProbs, topK ?? logProbs.length);
  const scaled = keep.map((v) => logProbs[v] / temperature);
  const max = Math.max(...scaled);
  const weights = scaled.map((s) => Math.exp(s - max)); // float64, max-subtracted
  const total = weights.reduce((a, b) => a + b, 0);
  let u = rng.next() * total;
  for (let i = 0; i < keep.length; i++) {
    u -= weights[i];
    if (u < 0) return keep[i];
  }
  return keep[keep.length - 1]; // u landed on the rounding remainder
}

/** Continue `prompt` by up to maxTokens tokens. Deterministic for greedy; for sampling, a function of the Rng's state. */
export function generate(model: ScoringModel, prompt: readonly number[], opts: GenerateOptions): Generation {
  if (!Number.isInteger(opts.maxTokens) || opts.maxTokens < 0)
    throw new Error(`maxTokens must be a non-negative integer, got ${opts.maxTokens}`);
  const context = [...prompt];
  const tokens: number[] = [],
    logProbs: number[] = [];
  for (let t = 0; t < opts.maxTokens; t++) {
    const lp = nextLogProbs(model, context);
    const d = opts.decoding;
    const next = d.kind === "greedy" ? topIndices(lp, 1)[0] : sampleToken(lp, d.temperature, d.rng, d.topK);
    tokens.push(next);
    logProbs.push(lp[next]);
    context.push(next);
    if (opts.stopToken !== undefined && opts.stopToken !== null && next === opts.stopToken)
      return { tokens, logProbs, stopped: "stop-token" };
  }
  return { tokens, logProbs, stopped: "length" };
}

/** The greedy choice after `context` and its lead over the runner-up in logits (= in log-probabilities). */
export interface GreedyMargin {
  readonly token: number;
  readonly probability: number;
  readonly runnerUp: number;
  readonly runnerUpProbability: number;
  readonly margin: number;
}

export function greedyMargin(model: ScoringModel, context: readonly number[]): GreedyMargin {
  const lp = nextLogProbs(model, context);
  if (lp.length < 2) throw new Error("a greedy margin needs a vocabulary of at least two tokens");
  const [token, runnerUp] = topIndices(lp, 2);
  // log-softmax shifts every logit by the same logsumexp, so the difference of log-probs is the logit lead
  return {
    token,
    probability: Math.exp(lp[token]),
    runnerUp,
    runnerUpProbability: Math.exp(lp[runnerUp]),
    margin: lp[token] - lp[runnerUp],
  };
}
