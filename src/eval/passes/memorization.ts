// Canary memorization probe (after 000): insert a unique string into training with a repetition count, then
// measure the log-probability of its secret continuation given its prefix, greedy recovery, and how both grow
// with repetitions ("exposure by repetitions"). Not verbatim-overlap of free generations (verbatim.ts).
import type { TextDocument } from "../../data/documents.ts";
import type { ScoringModel } from "../../model/scoring.ts";
import { generate, nextLogProbs } from "./generate.ts";

export interface Canary {
  /** The full canary string, e.g. "<Q7|zebra|X9>". */
  readonly text: string;
  /** Copies inserted into training, each as its own training document. */
  readonly repetitions: number;
}

/**
 * Training documents plus `repetitions` copies of the canary as separate training documents (source
 * "canary", ids canary-0, canary-1, …). Refused when the canary already occurs in any document: in a
 * held-out one it would leak, in a training one the repetition count would be wrong.
 */
export function insertCanary(docs: readonly TextDocument[], canary: Canary): TextDocument[] {
  if (canary.text.length === 0) throw new Error("canary text is empty");
  if (!Number.isInteger(canary.repetitions) || canary.repetitions < 0)
    throw new Error(`canary repetitions must be a non-negative integer, got ${canary.repetitions}`);
  for (const d of docs) {
    if (d.text.includes(canary.text)) throw new Error(`canary already occurs in ${d.split} document "${d.id}"`);
    if (d.id.startsWith("canary-")) throw new Error(`document id "${d.id}" collides with canary ids`);
  }
  const copies = Array.from({ length: canary.repetitions }, (_, i): TextDocument => ({
    id: `canary-${i}`,
    split: "train",
    source: "canary",
    text: canary.text,
  }));
  return [...docs, ...copies];
}

/** ln p(continuation | prefix) summed over the continuation, with each token's term. */
export interface ContinuationScore {
  readonly logProb: number;
  readonly perToken: readonly number[];
  /** Whether every continuation token is the most probable one at its position (the first of equal maxima), as lm-evaluation-harness's is_greedy. */
  readonly greedy: boolean;
}

/** Whether `token` is the first most probable entry of the distribution row `lp[at, at + V)`. */
function isTop(lp: ArrayLike<number>, at: number, V: number, token: number): boolean {
  let best = 0;
  for (let v = 1; v < V; v++) if (lp[at + v] > lp[at + best]) best = v;
  return best === token;
}

/**
 * Log-probability of `continuation` after `prefix`. One forward pass when everything fits in the context;
 * otherwise one pass per continuation token with the context cropped on the left, as generation does.
 */
export function continuationLogProb(model: ScoringModel, prefix: readonly number[], continuation: readonly number[]): ContinuationScore {
  if (prefix.length === 0) throw new Error("continuation log-prob needs a non-empty prefix");
  if (continuation.length === 0) throw new Error("continuation log-prob needs a non-empty continuation");
  const { vocabSize: V, contextLength: T } = model.binding;
  const all = [...prefix, ...continuation];
  const perToken: number[] = [];
  let greedy = true;
  if (all.length - 1 <= T) {
    const ids = Int32Array.from(all.slice(0, -1));
    const lp = model.logProbs({ rows: 1, cols: ids.length, ids, docIds: new Int32Array(ids.length) }); // [cols·V]
    for (let j = 0; j < continuation.length; j++) {
      perToken.push(lp[(prefix.length - 1 + j) * V + continuation[j]]);
      greedy &&= isTop(lp, (prefix.length - 1 + j) * V, V, continuation[j]);
    }
  } else {
    for (let j = 0; j < continuation.length; j++) {
      const lp = nextLogProbs(model, all.slice(0, prefix.length + j));
      perToken.push(lp[continuation[j]]);
      greedy &&= isTop(lp, 0, V, continuation[j]);
    }
  }
  return { logProb: perToken.reduce((a, b) => a + b, 0), perToken, greedy };
}

/** Greedy continuation of the prefix for as many tokens as the secret has; recovered if identical. */
export function greedyRecovery(
  model: ScoringModel,
  prefix: readonly number[],
  secret: readonly number[],
): { recovered: boolean; matchedTokens: number; tokens: number[] } {
  const { tokens } = generate(model, prefix, { maxTokens: secret.length, decoding: { kind: "greedy" }, stopToken: null });
  let matched = 0;
  while (matched < secret.length && tokens[matched] === secret[matched]) matched++;
  return { recovered: matched === secret.length, matchedTokens: matched, tokens };
}

/** The probe for one model: log-prob of the secret given the prefix, and greedy recovery. */
export function canaryProbe(model: ScoringModel, prefix: readonly number[], secret: readonly number[]) {
  const score = continuationLogProb(model, prefix, secret);
  const recovery = greedyRecovery(model, prefix, secret);
  return {
    model: model.name,
    log_prob: score.logProb,
    per_token: score.perToken,
    recovered: recovery.recovered,
    matched_tokens: recovery.matchedTokens,
    greedy_tokens: recovery.tokens,
  };
}

/**
 * Exposure by repetitions as 000 defines it: the secret's continuation log-probability (and greedy recovery)
 * of a model fitted with the canary repeated r times, for each r (r = 0 is the model fitted without it).
 * This is a graded log-probability, not the rank-based exposure of Carlini et al.
 */
export function exposureByRepetitions(
  fit: (repetitions: number) => ScoringModel,
  prefix: readonly number[],
  secret: readonly number[],
  repetitions: readonly number[],
) {
  return repetitions.map((r) => ({ repetitions: r, ...canaryProbe(fit(r), prefix, secret) }));
}
