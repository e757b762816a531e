// The split-file format: JSON {"train": [[ids…], …], "validation": […], "test": […]} of raw token rows,
// validated and turned into Documents (no BOS/EOS added); reading the file is src/node/split_files.ts. Not JSONL
// documents, not batching.
import { SPLITS, type Document, type Split } from "./documents.ts";

/** Rows of token ids per split, exactly as given in the file. */
export type SplitRows = Record<Split, number[][]>;

export interface SplitFileRules {
  /** Every id must be < vocabSize. */
  vocabSize: number;
  /** If set, every row must have exactly this many ids. */
  rowLength?: number;
  /** Refuse a row repeated inside one split too (a row in two splits is always refused). */
  uniqueWithinSplit?: boolean;
}

/** Check parsed JSON against the format; every error names the file, the split and the row. */
export function checkSplitRows(value: unknown, rules: SplitFileRules, where = "split file"): SplitRows {
  const { vocabSize, rowLength, uniqueWithinSplit = false } = rules;
  if (!Number.isInteger(vocabSize) || vocabSize <= 0)
    throw new Error(`${where}: vocabulary size must be a positive integer, got ${vocabSize}`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`${where}: expected a JSON object {"train": [...], "validation": [...], "test": [...]}`);
  }
  const obj = value as Record<string, unknown>;
  const unknown = Object.keys(obj).filter((k) => !(SPLITS as readonly string[]).includes(k));
  if (unknown.length > 0)
    throw new Error(`${where}: unknown key(s) ${unknown.map((k) => JSON.stringify(k)).join(", ")}; the keys are ${SPLITS.join(", ")}`);
  if (!("train" in obj)) throw new Error(`${where}: no "train" split`);
  const out = { train: [], validation: [], test: [] } as SplitRows;
  // a row's first location, so a duplicate's error can name both places
  const seen = new Map<string, { split: Split; index: number }>();
  for (const split of SPLITS) {
    const rows = obj[split];
    if (rows === undefined) continue;
    if (!Array.isArray(rows)) throw new Error(`${where}: "${split}" must be an array of rows, got ${typeof rows}`);
    rows.forEach((row: unknown, r) => {
      const at = `${where}: ${split} row ${r}`;
      if (!Array.isArray(row)) throw new Error(`${at} must be an array of token ids, got ${JSON.stringify(row)}`);
      if (rowLength !== undefined && row.length !== rowLength) throw new Error(`${at} has ${row.length} ids, expected ${rowLength}`);
      if (row.length < 2) throw new Error(`${at} has ${row.length} id(s): a row needs at least 2 (one context, one target)`);
      row.forEach((id: unknown, i) => {
        if (typeof id !== "number" || !Number.isInteger(id))
          throw new Error(`${at}, position ${i}: token id must be an integer, got ${JSON.stringify(id)}`);
        if (id < 0 || id >= vocabSize) throw new Error(`${at}, position ${i}: token id ${id} is outside [0, ${vocabSize})`);
      });
      const key = row.join(",");
      const first = seen.get(key);
      if (first && (first.split !== split || uniqueWithinSplit)) {
        throw new Error(
          `${at} [${key}] duplicates ${first.split} row ${first.index}${first.split === split ? "" : ": a row may appear in one split only"}`,
        );
      }
      if (!first) seen.set(key, { split, index: r });
      out[split].push(row as number[]);
    });
  }
  if (out.train.length === 0) throw new Error(`${where}: the "train" split is empty`);
  return out;
}

/** One Document per row, ids exactly as given; the id names split and row index. */
export function splitRowsToDocuments(rows: SplitRows, source = "split-file"): Document[] {
  return SPLITS.flatMap((split) => rows[split].map((ids, r) => ({ id: `${split}-${r}`, split, source, ids: ids.slice() })));
}

/** True if the text looks like the split-file format (a JSON object) rather than JSONL documents. */
export function looksLikeSplitFile(text: string): boolean {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith("{")) return false;
  try {
    const v = JSON.parse(trimmed) as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every(Array.isArray);
  } catch {
    return false; // a JSONL file of several objects is not one JSON value
  }
}
