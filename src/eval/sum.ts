// Compensated float64 summation (Neumaier's variant of Kahan) for NLL totals and other long sums.
// Not a general reduction library: one function, sequential, no pairwise or exact (fsum) mode.

/**
 * Sums `values` with Neumaier compensation. Unlike plain Kahan it also recovers the low bits when a
 * later term is larger than the running sum (e.g. 1 + 1e100 + 1 − 1e100 gives 2, not 0).
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
