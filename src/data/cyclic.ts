// The cyclic-permutation task: rows c0 c1 c2 c3 c0 c1 c2 c3 c0 for every ordered choice of 4 of 5 symbols,
// a seeded 80/20/20 split (its own seed) or one from a split file (read by src/node/split_files.ts). Not training (experiments/cyclic.ts).
import { Rng } from "../util/primitives/rng.ts";
import { SPLITS, type Document } from "./documents.ts";
import type { SplitRows } from "./split_file.ts";

/** Symbols 0..4; there is no BOS or EOS: a row is a raw token sequence. */
export const CYCLIC_VOCAB = 5;
export const CYCLE_LENGTH = 4;
/** Two full cycles and the first symbol again: 8 inputs predict the next 8 tokens. */
export const ROW_LENGTH = 2 * CYCLE_LENGTH + 1;
/** 5·4·3·2 ordered choices. */
export const CYCLIC_ROW_COUNT = 120;
export const CYCLIC_SPLIT_SIZES = { train: 80, validation: 20, test: 20 } as const;

/** Every cycle in lexicographic order of (c0, c1, c2, c3). */
export function cyclicRows(): number[][] {
  const rows: number[][] = [];
  const pick = (prefix: number[]): void => {
    if (prefix.length === CYCLE_LENGTH) {
      rows.push(Array.from({ length: ROW_LENGTH }, (_, i) => prefix[i % CYCLE_LENGTH]));
      return;
    }
    for (let s = 0; s < CYCLIC_VOCAB; s++) if (!prefix.includes(s)) pick([...prefix, s]);
  };
  pick([]);
  return rows;
}

/** A row of this task: 9 ids in [0, 5), the first four distinct, then repeating with period 4. */
export function isCyclicRow(row: readonly number[]): boolean {
  if (row.length !== ROW_LENGTH) return false;
  if (!row.every((v) => Number.isInteger(v) && v >= 0 && v < CYCLIC_VOCAB)) return false;
  if (new Set(row.slice(0, CYCLE_LENGTH)).size !== CYCLE_LENGTH) return false;
  return row.every((v, i) => v === row[i % CYCLE_LENGTH]);
}

/**
 * Shuffle all 120 rows with a stream from `splitSeed` alone and cut 80/20/20, so changing the training
 * seed never moves a row between splits.
 */
export function splitCyclicRows(splitSeed: number): SplitRows {
  if (!Number.isInteger(splitSeed)) throw new Error(`split seed must be an integer, got ${splitSeed}`);
  const shuffled = Rng.fromSeed(splitSeed).child("cyclic-split").shuffle(cyclicRows());
  const { train, validation } = CYCLIC_SPLIT_SIZES;
  return {
    train: shuffled.slice(0, train),
    validation: shuffled.slice(train, train + validation),
    test: shuffled.slice(train + validation),
  };
}

/** One Document per row, ids exactly the 9 tokens; the id names the cycle, which is unique. */
export function cyclicDocuments(rows: SplitRows): Document[] {
  return SPLITS.flatMap((split) =>
    rows[split].map((ids) => ({ id: `cycle-${ids.slice(0, CYCLE_LENGTH).join("")}`, split, source: "cyclic", ids: ids.slice() })),
  );
}

/**
 * The task's floor: the entropy (nats) of the next token at each input position when rows are drawn
 * uniformly from all 120 cycles. Positions 0, 1, 2 leave 4, 3, 2 equally likely symbols; from position 3
 * on (one full cycle seen) the target is determined, so the floor is 0.
 */
export function taskEntropyByPosition(rows: readonly number[][] = cyclicRows()): number[] {
  return Array.from({ length: ROW_LENGTH - 1 }, (_, t) => {
    // group rows by their prefix ids[0..t], then average the entropy of ids[t+1] within each group
    const groups = new Map<string, Map<number, number>>();
    for (const row of rows) {
      const key = row.slice(0, t + 1).join(",");
      const next = groups.get(key) ?? new Map<number, number>();
      next.set(row[t + 1], (next.get(row[t + 1]) ?? 0) + 1);
      groups.set(key, next);
    }
    let h = 0;
    for (const next of groups.values()) {
      for (const n of next.values()) h -= (n / rows.length) * Math.log(n / [...next.values()].reduce((a, b) => a + b, 0));
    }
    return h;
  });
}
