// McNemar's test of two classifiers scored on the same items, by the exact binomial on the discordant pairs.
// Pure arithmetic; not a bootstrap (multi_bootstrap.ts) and not an interval for either accuracy (intervals.ts).
import { MIN_INTERVAL_DOCUMENTS, tooFewDocuments } from "./intervals.ts";

export interface McNemar {
  /** Items only A got right, items only B got right. */
  readonly a_only: number;
  readonly b_only: number;
  /** Two-sided exact p: 2 · P(X ≤ min) for X ~ Binomial(a_only + b_only, 1/2), capped at 1; 1 with no discordant pair. */
  readonly p_two_sided: number;
  readonly test: string;
}

/**
 * Exact for any count (no χ² approximation): the binomial terms are summed from their logarithms, so large
 * discordant counts neither underflow 2^−n nor overflow a binomial coefficient.
 */
export function mcnemarExact(aOnly: number, bOnly: number): McNemar {
  for (const [name, v] of [
    ["a_only", aOnly],
    ["b_only", bOnly],
  ] as const) {
    if (!Number.isInteger(v) || v < 0) throw new Error(`mcnemar: ${name} must be a non-negative integer, got ${v}`);
  }
  const n = aOnly + bOnly,
    k = Math.min(aOnly, bOnly);
  let logTerm = -n * Math.LN2,
    tail = 0; // ln P(X = 0)
  for (let i = 0; i <= k; i++) {
    tail += Math.exp(logTerm);
    logTerm += Math.log((n - i) / (i + 1)); // P(X = i + 1) / P(X = i)
  }
  return {
    a_only: aOnly,
    b_only: bOnly,
    p_two_sided: n === 0 ? 1 : Math.min(1, 2 * tail),
    test: "McNemar, exact binomial (two-sided) on the discordant pairs",
  };
}

/** McNemar over items drawn from `documents` documents, its p-value withheld (null, and why) under MIN_INTERVAL_DOCUMENTS. */
export type GatedMcNemar = McNemar | (Omit<McNemar, "p_two_sided"> & { readonly p_two_sided: null; readonly p_reason: string });

export function gatedMcNemar(aOnly: number, bOnly: number, documents: number): GatedMcNemar {
  const m = mcnemarExact(aOnly, bOnly);
  return documents < MIN_INTERVAL_DOCUMENTS ? { ...m, p_two_sided: null, p_reason: tooFewDocuments(documents) } : m;
}
