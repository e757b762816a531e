// Documents with an id, a split and a source, and their encoding into token ids (BOS + content + EOS).
// Not batching (batches.ts) and not file formats (src/node/files.ts).
import type { Tokenizer } from "./tokenizer.ts";

export type Split = "train" | "validation" | "test";
export const SPLITS: readonly Split[] = ["train", "validation", "test"];

/** A text document before encoding. */
export interface TextDocument {
  id: string;
  split: Split;
  source: string;
  text: string;
}

/** An encoded document: `ids` = BOS + content + EOS, so it supplies ids.length − 1 targets. */
export interface Document {
  id: string;
  split: Split;
  source: string;
  ids: number[];
}

export function checkSplit(value: unknown, where: string): Split {
  if (typeof value === "string" && (SPLITS as readonly string[]).includes(value)) return value as Split;
  throw new Error(`${where}: split must be one of ${SPLITS.join(", ")}, got ${JSON.stringify(value)}`);
}

/** Encode with a fixed tokenizer (never fitted here): BOS is context only, EOS is a target. */
export function encodeDocument(tokenizer: Tokenizer, doc: TextDocument): Document {
  checkSplit(doc.split, `document ${doc.id}`);
  return { id: doc.id, split: doc.split, source: doc.source, ids: [tokenizer.bos, ...tokenizer.encode(doc.text), tokenizer.eos] };
}

/** Number of next-token targets a document supplies. */
export function targetCount(doc: Document): number {
  return Math.max(0, doc.ids.length - 1);
}

/** Refuse duplicate ids within a collection and an id appearing in two splits. */
export function checkDocuments(docs: readonly Document[]): void {
  const seen = new Map<string, Split>();
  for (const d of docs) {
    if (seen.has(d.id)) throw new Error(`document id "${d.id}" appears twice (splits ${seen.get(d.id)} and ${d.split})`);
    seen.set(d.id, d.split);
    if (d.ids.length < 2) throw new Error(`document "${d.id}" has ${d.ids.length} ids: it needs at least BOS and one target`);
  }
}
