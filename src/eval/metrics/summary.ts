// Token-weighted metric summaries: a total NLL (float64) and a target count. Merging adds both; the mean and the
// perplexity are computed once, from the totals. Also per-sequence sums merged with compensated summation.
// Not an evaluator: no model here.
//
// One set of refusal rules, for every way a summary is made (summary, fromSequenceSums, fromProbabilities):
// - a count is a finite, non-negative integer;
// - an NLL is never NaN, and never below −FLOAT32_NLL_SLACK per target (a sign error: log p instead of −log p);
// - an NLL may be +∞: a target given probability 0 costs infinitely much, and is reported so, never clamped
//   (evaluators refuse a non-finite model loss themselves, naming the split);
// - zero targets with a non-zero NLL is refused; zero targets overall gives a NaN mean, not an error.

/** Sum of NLL (nats) over `targets` scored occurrences. Mean and perplexity are derived, never stored. */
export interface MetricSummary {
  readonly totalNll: number;
  readonly targets: number;
}

/** Per-target rounding allowance for NLLs computed in float32. */
export const FLOAT32_NLL_SLACK = 1e-6;

/** Apply the rules above to one (NLL, count) pair; `what` names it in the message. */
function check(nll: number, count: number, what: { nll: string; count: string; pair: string }): void {
  if (!Number.isFinite(count)) throw new Error(`${what.count} is not finite (${count})`);
  if (!Number.isInteger(count) || count < 0) throw new Error(`${what.count} must be a non-negative integer, got ${count}`);
  if (Number.isNaN(nll)) throw new Error(`${what.nll} is not finite (NaN)`);
  if (nll < -FLOAT32_NLL_SLACK * Math.max(1, count))
    throw new Error(`${what.nll} is negative (${nll}); it looks like log p instead of −log p (an NLL is −log p, not log p)`);
  if (count === 0 && nll !== 0) throw new Error(`${what.pair} has NLL ${nll} but zero tokens`);
}

export function summary(totalNll: number, targets: number): MetricSummary {
  check(totalNll, targets, { nll: "total NLL", count: "target count", pair: "a summary" });
  return { totalNll, targets };
}

/** Add numerators and denominators; never average means or perplexities. */
export function merge(a: MetricSummary, b: MetricSummary): MetricSummary {
  return summary(a.totalNll + b.totalNll, a.targets + b.targets);
}

export function mergeAll(items: readonly MetricSummary[]): MetricSummary {
  return items.reduce(merge, summary(0, 0));
}

/** Per-sequence NLL sums and token counts, each pair checked (naming its index), summed with compensation. */
export function fromSequenceSums(nllSums: readonly number[], tokenCounts: readonly number[]): MetricSummary {
  if (nllSums.length !== tokenCounts.length) throw new Error(`${nllSums.length} NLL sums but ${tokenCounts.length} token counts`);
  nllSums.forEach((nll, i) =>
    check(nll, tokenCounts[i], { nll: `NLL sum at index ${i}`, count: `token count at index ${i}`, pair: `sequence at index ${i}` }),
  );
  return summary(neumaierSum(nllSums), neumaierSum(tokenCounts));
}

/** Mean NLL in nats per target; NaN when nothing was scored. */
export function meanNll(s: MetricSummary): number {
  return s.targets === 0 ? NaN : s.totalNll / s.targets;
}

export function perplexity(s: MetricSummary): number {
  return Math.exp(meanNll(s));
}

/** From assigned probabilities: p = 0 gives infinite NLL (no clamp); p < 0, p > 1 or NaN is refused. */
export function fromProbabilities(probs: readonly number[]): MetricSummary {
  let total = 0;
  probs.forEach((p, i) => {
    if (typeof p !== "number" || Number.isNaN(p) || p < 0 || p > 1) throw new Error(`probability ${i} must be in [0, 1], got ${p}`);
    total += -Math.log(p);
  });
  return summary(total, probs.length);
}

/** The JSON record of a summary, with mean and perplexity computed once from the totals. */
export function record(s: MetricSummary): { nll: number; perplexity: number; targets: number; total_nll: number } {
  return { nll: meanNll(s), perplexity: perplexity(s), targets: s.targets, total_nll: s.totalNll };
}

/**
 * Compensated float64 summation (Neumaier's variant of Kahan). Unlike plain Kahan it also recovers the low
 * bits when a later term is larger than the running sum (1 + 1e100 + 1 − 1e100 gives 2, not 0).
 */
export function neumaierSum(values: Iterable<number>): number {
  let sum = 0;
  let compensation = 0;
  let naive = 0;
  for (const v of values) {
    naive += v;
    const t = sum + v;
    // Whichever operand is larger in magnitude keeps its bits; recover the other's lost low part.
    compensation += Math.abs(sum) >= Math.abs(v) ? sum - t + v : v - t + sum;
    sum = t;
  }
  // With an infinite or NaN term the compensation becomes Inf − Inf = NaN; the naive sum is right then.
  if (!Number.isFinite(naive)) return naive;
  return sum + compensation;
}
