// Diversity of a set of generations: distinct-n, unique whole sequences, mean pairwise n-gram Jaccard.
// Describes variation only; a perfectly diverse set can be uniformly wrong.
import { ngramCount, ngramSet, type Token } from "./overlap.ts";

type Generations = readonly (readonly Token[])[];

/** Unique n-grams across all generations over total n-gram positions; NaN when there are none. */
export function distinctN(generations: Generations, n: number): number {
  const unique = new Set<string>();
  let total = 0;
  for (const g of generations) {
    total += ngramCount(g, n);
    for (const gram of ngramSet(g, n)) unique.add(gram);
  }
  return total === 0 ? NaN : unique.size / total;
}

/** Fraction of generations that are distinct as whole sequences; NaN for an empty set. */
export function uniqueSequenceRatio(generations: Generations): number {
  if (generations.length === 0) return NaN;
  return new Set(generations.map((g) => JSON.stringify(g))).size / generations.length;
}

/** Mean Jaccard similarity of n-gram sets over all unordered pairs (default bigrams). Two empty sets
 *  count as identical (1); fewer than two generations gives NaN, since there is no pair. */
export function meanPairwiseJaccard(generations: Generations, n = 2): number {
  const sets = generations.map((g) => ngramSet(g, n));
  let total = 0;
  let pairs = 0;
  for (let a = 0; a < sets.length; a++) {
    for (let b = a + 1; b < sets.length; b++) {
      let shared = 0;
      for (const gram of sets[a]) if (sets[b].has(gram)) shared++;
      const union = sets[a].size + sets[b].size - shared;
      total += union === 0 ? 1 : shared / union;
      pairs++;
    }
  }
  return pairs === 0 ? NaN : total / pairs;
}
