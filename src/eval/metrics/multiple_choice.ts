// Multiple-choice scoring by candidate log-likelihood: acc (summed) and acc_norm (per token), chance.
// Not a task loader or tokenizer: items arrive as token ids with the candidate boundary already fixed.

/** Per-token log-probabilities (each ≤ 0) of `continuation` given `context`, one per continuation token. */
export type ContinuationLogProbs = (context: readonly number[], continuation: readonly number[]) => readonly number[];

/** One question: the prompt is the shared context, each candidate a continuation, `gold` its index. */
export interface ChoiceItem {
  readonly prompt: readonly number[];
  readonly candidates: readonly (readonly number[])[];
  readonly gold: number;
}

/** Scores for one item. `perTokenLogLik` is the summed log-likelihood divided by the candidate's token
 *  count (lm-eval normalises by bytes instead; with one tokenizer, tokens are the unit we have). */
export interface ChoiceItemResult {
  readonly sumLogLik: readonly number[];
  readonly perTokenLogLik: readonly number[];
  readonly predicted: number;
  readonly predictedNorm: number;
  readonly correct: boolean;
  readonly correctNorm: boolean;
}

/** Aggregate over items; `chance` is the mean of 1/kᵢ, the expected accuracy of a uniform guess. */
export interface ChoiceResult {
  readonly items: readonly ChoiceItemResult[];
  readonly count: number;
  readonly acc: number;
  readonly accNorm: number;
  readonly chance: number;
}

function checkIds(where: string, ids: readonly number[]): void {
  if (ids.length === 0) throw new Error(`multiple choice: ${where} is empty`);
  ids.forEach((t, i) => {
    if (!Number.isInteger(t) || t < 0) throw new Error(`multiple choice: ${where} token ${i} is not a token id (${t})`);
  });
}

// Ties go to the lowest index, matching argmax; a scorer that ties everything thus always answers 0.
function argmax(xs: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i] > xs[best]) best = i;
  return best;
}

export function scoreMultipleChoice(items: readonly ChoiceItem[], logProbs: ContinuationLogProbs): ChoiceResult {
  const results = items.map((item, q): ChoiceItemResult => {
    checkIds(`item ${q} prompt`, item.prompt);
    const k = item.candidates.length;
    if (k < 2) throw new Error(`multiple choice: item ${q} has ${k} candidate(s); need at least 2`);
    if (!Number.isInteger(item.gold) || item.gold < 0 || item.gold >= k) {
      throw new Error(`multiple choice: item ${q} gold index ${item.gold} is out of range [0, ${k - 1}]`);
    }
    item.candidates.forEach((c, j) => checkIds(`item ${q} candidate ${j}`, c));
    const sumLogLik = item.candidates.map((cand, j) => {
      const lps = logProbs(item.prompt, cand);
      if (lps.length !== cand.length) {
        throw new Error(`multiple choice: scorer returned ${lps.length} log-probs for item ${q} candidate ${j} of ${cand.length} tokens`);
      }
      return lps.reduce((s, lp, t) => {
        // −Infinity (probability zero) is allowed; NaN and positive values are scorer bugs.
        if (Number.isNaN(lp) || lp > 0)
          throw new Error(`multiple choice: item ${q} candidate ${j} token ${t} has log-prob ${lp}; must be ≤ 0`);
        return s + lp;
      }, 0);
    });
    const perTokenLogLik = sumLogLik.map((s, j) => s / item.candidates[j].length);
    const predicted = argmax(sumLogLik);
    const predictedNorm = argmax(perTokenLogLik);
    return {
      sumLogLik,
      perTokenLogLik,
      predicted,
      predictedNorm,
      correct: predicted === item.gold,
      correctNorm: predictedNorm === item.gold,
    };
  });
  const n = results.length;
  const mean = (f: (r: ChoiceItemResult, i: number) => number) => (n === 0 ? NaN : results.reduce((s, r, i) => s + f(r, i), 0) / n);
  return {
    items: results,
    count: n,
    acc: mean((r) => Number(r.correct)),
    accNorm: mean((r) => Number(r.correctNorm)),
    chance: mean((_, i) => 1 / items[i].candidates.length),
  };
}
