// Token-weighted metric summaries: a total NLL (float64) and a target count; merging adds both and the mean
// and perplexity are recomputed from the totals. Not an evaluator: no model here.

/** Sum of NLL (nats) over `targets` scored occurrences. Mean and perplexity are derived, never stored. */
export interface MetricSummary {
  readonly totalNll: number;
  readonly targets: number;
}

/** Per-target rounding allowance for NLLs computed in float32. */
export const FLOAT32_NLL_SLACK = 1e-6;

export function summary(totalNll: number, targets: number): MetricSummary {
  if (!Number.isInteger(targets) || targets < 0) throw new Error(`target count must be a non-negative integer, got ${targets}`);
  // float32 log-softmax can return −1e-7 for a target of probability ≈ 1; anything below that is a sign error
  if (Number.isNaN(totalNll) || totalNll < -FLOAT32_NLL_SLACK * Math.max(1, targets)) throw new Error(`total NLL must be ≥ 0 (−log p, not log p), got ${totalNll}`);
  return { totalNll, targets };
}

/** Add numerators and denominators; never average means or perplexities. */
export function merge(a: MetricSummary, b: MetricSummary): MetricSummary {
  return summary(a.totalNll + b.totalNll, a.targets + b.targets);
}

export function mergeAll(items: readonly MetricSummary[]): MetricSummary {
  return items.reduce(merge, summary(0, 0));
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
