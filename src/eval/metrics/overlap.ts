// N-gram overlap of generations with reference (training) sequences, by order, plus the n-gram
// helpers that diversity and contamination reuse. Not a memorization proof: pair it with canaries.

export type Token = string | number;

// JSON keys keep 1 and "1" apart and cannot be confused by separators inside string tokens.
const key = (gram: readonly Token[]): string => JSON.stringify(gram);

function checkOrder(n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new Error(`n-gram order must be a positive integer, got ${n}`);
}

/** Number of n-gram positions in a sequence (0 when it is shorter than n). */
export function ngramCount(sequence: readonly Token[], n: number): number {
  checkOrder(n);
  return Math.max(0, sequence.length - n + 1);
}

/** The distinct n-grams of one sequence, as opaque string keys. N-grams never span two sequences. */
export function ngramSet(sequence: readonly Token[], n: number): Set<string> {
  const out = new Set<string>();
  const count = ngramCount(sequence, n);
  for (let i = 0; i < count; i++) out.add(key(sequence.slice(i, i + n)));
  return out;
}

/** For each candidate, the fraction of its UNIQUE n-grams found in any reference sequence; 0 for a
 *  candidate shorter than n, as 000's ngram_overlap defines it (no n-gram, so none copied). */
export function ngramOverlaps(candidates: readonly (readonly Token[])[], references: readonly (readonly Token[])[], n: number): number[] {
  checkOrder(n);
  const grams = candidates.map((c) => ngramSet(c, n));
  const wanted = new Set<string>();
  for (const set of grams) for (const g of set) wanted.add(g);
  // Scan the (usually large) references once and keep only n-grams some candidate asked about.
  const found = new Set<string>();
  for (const ref of references) for (const g of ngramSet(ref, n)) if (wanted.has(g)) found.add(g);
  return grams.map((set) => {
    if (set.size === 0) return 0;
    let hits = 0;
    for (const g of set) if (found.has(g)) hits++;
    return hits / set.size;
  });
}

/** Mean overlap at one order over all `scored` generations (a generation without an n-gram counts 0, after 000);
 *  `withNgrams` of them have at least one n-gram. NaN only when there is no generation at all. */
export interface OrderOverlap {
  readonly n: number;
  readonly meanOverlap: number;
  readonly scored: number;
  readonly withNgrams: number;
}

export function overlapByOrder(
  generations: readonly (readonly Token[])[],
  references: readonly (readonly Token[])[],
  orders: readonly number[] = [1, 2, 3],
): OrderOverlap[] {
  return orders.map((n) => {
    // 000's overlap_report averages over every generation, a too-short one counting 0; withNgrams says how many had one
    const rates = ngramOverlaps(generations, references, n);
    const meanOverlap = rates.length === 0 ? NaN : rates.reduce((s, r) => s + r, 0) / rates.length;
    return { n, meanOverlap, scored: rates.length, withNgrams: generations.filter((g) => ngramCount(g, n) > 0).length };
  });
}
