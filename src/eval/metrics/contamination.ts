// Contamination audit: word n-gram (default 13-gram) overlap of each evaluation item with a training
// corpus, flagged ids, and the score on the full versus the filtered set. Exact matching only:
// paraphrases, translations and corpus text not passed in are invisible to it.
import { ngramSet } from "./overlap.ts";

/** Words for shingling: lowercase (via upper-then-lower, so "ß" folds to "ss" as Unicode casefold
 *  does), then maximal runs of letters, digits and "_"; everything else separates words. */
export function wordTokens(text: string): string[] {
  return (
    text
      .toUpperCase()
      .toLowerCase()
      .match(/[\p{L}\p{N}_]+/gu) ?? []
  );
}

/** One evaluation item; `text` should already join question, answer and any context to scan. */
export interface AuditItem {
  readonly id: string;
  readonly text: string;
}

/** Per item: `hasNgrams` false means too short to audit (not "clean"); then overlap is 0 and it is
 *  never flagged. `overlap` is the fraction of the item's unique n-grams found in training. */
export interface ItemContamination {
  readonly id: string;
  readonly hasNgrams: boolean;
  readonly ngrams: number;
  readonly matched: number;
  readonly overlap: number;
  readonly flagged: boolean;
}

export interface ContaminationAudit {
  readonly n: number;
  readonly threshold: number;
  readonly items: readonly ItemContamination[];
  readonly flaggedIds: readonly string[];
  readonly flaggedFraction: number;
  readonly unauditable: number;
}

/** Flags an item when it shares at least one n-gram with training and overlap ≥ threshold; the
 *  default threshold 0 therefore flags any shared n-gram, as the reference audit does. */
export function contaminationAudit(
  items: readonly AuditItem[],
  trainingDocs: Iterable<string>,
  opts: { n?: number; threshold?: number } = {},
): ContaminationAudit {
  const n = opts.n ?? 13;
  const threshold = opts.threshold ?? 0;
  if (!(threshold >= 0 && threshold <= 1)) throw new Error(`contamination: threshold must be in [0, 1], got ${threshold}`);
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(item.id)) throw new Error(`contamination: duplicate item id "${item.id}"`);
    seen.add(item.id);
  }
  const itemGrams = items.map((item) => ngramSet(wordTokens(item.text), n));
  const wanted = new Set<string>();
  for (const grams of itemGrams) for (const g of grams) wanted.add(g);
  // Stream the corpus once, keeping only n-grams that some item contains: memory stays O(items).
  const found = new Set<string>();
  for (const doc of trainingDocs) for (const g of ngramSet(wordTokens(doc), n)) if (wanted.has(g)) found.add(g);

  const rows = items.map((item, i) => {
    const grams = itemGrams[i];
    let matched = 0;
    for (const g of grams) if (found.has(g)) matched++;
    const overlap = grams.size === 0 ? 0 : matched / grams.size;
    return { id: item.id, hasNgrams: grams.size > 0, ngrams: grams.size, matched, overlap, flagged: matched > 0 && overlap >= threshold };
  });
  const flaggedIds = rows.filter((r) => r.flagged).map((r) => r.id);
  return {
    n,
    threshold,
    items: rows,
    flaggedIds,
    flaggedFraction: items.length === 0 ? NaN : flaggedIds.length / items.length,
    unauditable: rows.filter((r) => !r.hasNgrams).length,
  };
}

/** Mean item score over `count` items (NaN when count is 0). */
export interface ScoreSummary {
  readonly count: number;
  readonly mean: number;
}

/** Reports a per-item score on the full set and with flagged items removed, so the changed
 *  denominator is visible next to the headline. */
export function fullVsFiltered(
  scores: readonly { id: string; score: number }[],
  flaggedIds: Iterable<string>,
): { full: ScoreSummary; filtered: ScoreSummary; removed: number } {
  const ids = new Set<string>();
  scores.forEach(({ id, score }, i) => {
    if (ids.has(id)) throw new Error(`fullVsFiltered: duplicate item id "${id}" at index ${i}`);
    if (!Number.isFinite(score)) throw new Error(`fullVsFiltered: score for item "${id}" is not finite (${score})`);
    ids.add(id);
  });
  const flagged = new Set(flaggedIds);
  // A flagged id with no score means the audit and the scores describe different item sets.
  for (const id of flagged) if (!ids.has(id)) throw new Error(`fullVsFiltered: flagged id "${id}" has no score`);
  const summary = (xs: number[]): ScoreSummary => ({
    count: xs.length,
    mean: xs.length === 0 ? NaN : xs.reduce((s, x) => s + x, 0) / xs.length,
  });
  const kept = scores.filter((s) => !flagged.has(s.id)).map((s) => s.score);
  return { full: summary(scores.map((s) => s.score)), filtered: summary(kept), removed: scores.length - kept.length };
}
