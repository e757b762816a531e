// Rounding of numbers for display (6 decimals, as every table prints them). Not for statistics or comparisons.

/** Round for display only: comparisons and statistics use unrounded values. */
export function round6(x: number): number {
  return Number.isFinite(x) ? Math.round(x * 1e6) / 1e6 : x;
}
