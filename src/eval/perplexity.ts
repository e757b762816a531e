// Corpus perplexity from per-sequence NLL sums and token counts: sums first, one exp at the end.
// Not a scorer: the model adapter produces the −log p sums; this only validates and aggregates them.
import { neumaierSum } from "./sum.ts";

/** Token-weighted likelihood summary. `meanNll` is nats per token; both are NaN at zero tokens. */
export interface PerplexityResult {
  readonly totalNll: number;
  readonly tokens: number;
  readonly meanNll: number;
  readonly perplexity: number;
}

export function perplexity(nllSums: readonly number[], tokenCounts: readonly number[]): PerplexityResult {
  if (nllSums.length !== tokenCounts.length) {
    throw new Error(`perplexity: ${nllSums.length} NLL sums but ${tokenCounts.length} token counts`);
  }
  for (let i = 0; i < nllSums.length; i++) {
    const nll = nllSums[i];
    const count = tokenCounts[i];
    if (!Number.isFinite(nll)) throw new Error(`perplexity: NLL sum at index ${i} is not finite (${nll})`);
    // The commonest adapter bug is a forgotten negation, which would give a perplexity below one.
    if (nll < 0) {
      throw new Error(`perplexity: NLL sum at index ${i} is negative (${nll}); it looks like log p instead of −log p`);
    }
    if (!Number.isFinite(count)) throw new Error(`perplexity: token count at index ${i} is not finite (${count})`);
    if (count < 0 || !Number.isInteger(count)) {
      throw new Error(`perplexity: token count at index ${i} must be a non-negative integer, got ${count}`);
    }
    if (count === 0 && nll !== 0) {
      throw new Error(`perplexity: sequence at index ${i} has NLL ${nll} but zero tokens`);
    }
  }
  const totalNll = neumaierSum(nllSums);
  const tokens = neumaierSum(tokenCounts);
  // Zero tokens is reported, not thrown: the caller decides whether an empty split is an error.
  const meanNll = tokens === 0 ? NaN : totalNll / tokens;
  return { totalNll, tokens, meanNll, perplexity: Math.exp(meanNll) };
}
