// Documents files: JSONL, one document per line, given as text or as token ids, encoded with a fixed
// tokenizer. Not batching (batches.ts) and not the split-file format of raw rows (split_file.ts).
//
// Each non-blank line is one JSON object with exactly these keys:
//   {"id": "doc-1", "split": "train", "source": "wiki", "text": "Hello"}     text: encoded as BOS + tokens + EOS
//   {"id": "doc-2", "split": "test",  "source": "wiki", "ids": [0, 74, 1]}  ids: the sequence exactly as scored
// `source` may be omitted (it defaults to the file's name). An `ids` row is taken as given, with no BOS or EOS
// added: ids[0] is context only and every later id is a target, so it needs at least two ids, each an integer
// in [0, vocabulary size). Text and id rows may be mixed. Ids must be unique across the whole file.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { checkSplit, encodeDocument, type Document } from "./documents.ts";
import type { Tokenizer } from "./tokenizer.ts";

const KEYS = new Set(["id", "split", "source", "text", "ids"]);

/** Parse one line into a Document; `at` names the file and line in every error. */
function parseLine(line: string, at: string, tokenizer: Tokenizer, defaultSource: string): Document {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch (err) {
    throw new Error(`${at}: not valid JSON (${(err as Error).message})`);
  }
  if (typeof row !== "object" || row === null || Array.isArray(row)) throw new Error(`${at}: expected a JSON object {"id", "split", "source", "text" or "ids"}`);
  const r = row as Record<string, unknown>;
  const unknown = Object.keys(r).filter((k) => !KEYS.has(k));
  if (unknown.length > 0) throw new Error(`${at}: unknown key ${unknown.map((k) => JSON.stringify(k)).join(", ")} (keys are id, split, source, text or ids)`);
  if (typeof r.id !== "string" || r.id.length === 0) throw new Error(`${at}: "id" must be a non-empty string`);
  const split = checkSplit(r.split, at);
  const source = r.source ?? defaultSource;
  if (typeof source !== "string") throw new Error(`${at}: "source" must be a string`);
  const hasText = Object.hasOwn(r, "text"), hasIds = Object.hasOwn(r, "ids");
  if (hasText === hasIds) throw new Error(`${at}: give exactly one of "text" and "ids"`);
  if (hasText) {
    if (typeof r.text !== "string") throw new Error(`${at}: "text" must be a string`);
    return encodeDocument(tokenizer, { id: r.id, split, source, text: r.text });
  }
  if (!Array.isArray(r.ids)) throw new Error(`${at}: "ids" must be an array of token ids`);
  if (r.ids.length < 2) throw new Error(`${at}: "ids" has ${r.ids.length} id(s); a document needs a context id and at least one target`);
  r.ids.forEach((v, i) => {
    if (typeof v !== "number" || !Number.isInteger(v)) throw new Error(`${at}: ids[${i}] is not an integer: ${JSON.stringify(v)}`);
    if (v < 0 || v >= tokenizer.vocabSize) throw new Error(`${at}: ids[${i}] = ${v} is outside the vocabulary [0, ${tokenizer.vocabSize})`);
  });
  return { id: r.id, split, source, ids: r.ids as number[] };
}

/** Parse JSONL text; `where` (usually the path) prefixes every error, which also names the line. */
export function parseDocumentsJsonl(text: string, tokenizer: Tokenizer, where: string): Document[] {
  const docs: Document[] = [];
  const lineOf = new Map<string, number>();
  const source = basename(where);
  text.replace(/^\ufeff/, "").split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "") return;
    const at = `${where} line ${i + 1}`;
    const doc = parseLine(line, at, tokenizer, source);
    const first = lineOf.get(doc.id);
    if (first !== undefined) throw new Error(`${at}: document id "${doc.id}" already used on line ${first}`);
    lineOf.set(doc.id, i + 1);
    docs.push(doc);
  });
  if (docs.length === 0) throw new Error(`${where}: no documents (expected one JSON object per line)`);
  return docs;
}

export function readDocumentsFile(path: string, tokenizer: Tokenizer): Document[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(code === "ENOENT" ? `documents file not found: ${path}` : `cannot read documents file ${path}: ${(err as Error).message}`);
  }
  return parseDocumentsJsonl(text, tokenizer, path);
}
