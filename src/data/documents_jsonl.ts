// The documents-file format (JSONL, one document per line, text or token ids) parsed from bytes or text in memory.
// Pure, so the core and the browser page can parse a file they were handed; reading it from disk is files.ts.
//
// Each non-blank line is one JSON object with exactly these keys:
//   {"id": "doc-1", "split": "train", "source": "wiki", "text": "Hello"}     text: encoded as BOS + tokens + EOS
//   {"id": "doc-2", "split": "test",  "source": "wiki", "ids": [0, 74, 1]}  ids: the sequence exactly as scored
// `source` may be omitted (it defaults to the file's name). An `ids` row is taken as given, with no BOS or EOS
// added: ids[0] is context only and every later id is a target, so it needs at least two ids, each an integer
// in [0, vocabulary size). Text and id rows may be mixed. Ids must be unique across the whole file.
//
// The file must be UTF-8 (a byte sequence that is not is refused, naming the line, never replaced by U+FFFD) and
// its strings hold no lone surrogates (a JSON "\ud800" escape), which no UTF-8 text can encode.
import { checkSplit, encodeDocument, type Document } from "./documents.ts";
import type { Tokenizer } from "./tokenizer.ts";

const KEYS = new Set(["id", "split", "source", "text", "ids"]);

/**
 * How a text row becomes ids when they are not a tinylab tokenizer's BOS + tokens + EOS: another model's tokenizer
 * under a scoring convention (src/eval/passes/convention.ts). `vocabSize` bounds the id rows.
 */
export interface TextEncoding {
  vocabSize: number;
  encodeText(text: string): number[];
}

const encodeRow = (
  tokenizer: Tokenizer | TextEncoding,
  d: { id: string; split: Document["split"]; source: string; text: string },
): Document =>
  "encodeText" in tokenizer
    ? { id: d.id, split: d.split, source: d.source, ids: tokenizer.encodeText(d.text) }
    : encodeDocument(tokenizer, d);

/**
 * Longest line, in bytes (and in UTF-16 units for text already in memory), checked before it is parsed: parsing
 * and encoding a line costs many times its size (its string, the parsed object, one JS number per token).
 * 8 MiB is ~8M tokens per document, far past any context here (≤ 4096 positions, scored in windows).
 */
export const MAX_LINE_BYTES = 8 * 2 ** 20;
/** One line of the format, shown when a file is not JSONL at all (e.g. plain text). */
const FORMAT_HINT =
  'a documents file has one JSON object per line: {"id": "...", "split": "train|validation|test", "source": "...", "text": "..."}';
const LONE_SURROGATE = /\p{Cs}/u;

/** Parse one line into a Document; `at` names the file and line in every error. */
function parseLine(line: string, at: string, tokenizer: Tokenizer | TextEncoding, defaultSource: string, first: boolean): Document {
  const hint = first ? `; ${FORMAT_HINT}` : "";
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch (err) {
    throw new Error(`${at}: not valid JSON (${(err as Error).message})${hint}`);
  }
  if (typeof row !== "object" || row === null || Array.isArray(row))
    throw new Error(`${at}: expected a JSON object {"id", "split", "source", "text" or "ids"}${hint}`);
  const r = row as Record<string, unknown>;
  for (const key of ["id", "source", "text"]) {
    const v = r[key];
    const m = typeof v === "string" ? LONE_SURROGATE.exec(v) : null;
    if (m)
      throw new Error(
        `${at}: "${key}" holds a lone surrogate U+${m[0].charCodeAt(0).toString(16).toUpperCase()} at index ${m.index} (a "\\u${m[0].charCodeAt(0).toString(16)}" escape?), which is not text`,
      );
  }
  const unknown = Object.keys(r).filter((k) => !KEYS.has(k));
  if (unknown.length > 0)
    throw new Error(`${at}: unknown key ${unknown.map((k) => JSON.stringify(k)).join(", ")} (keys are id, split, source, text or ids)`);
  if (typeof r.id !== "string" || r.id.length === 0) throw new Error(`${at}: "id" must be a non-empty string`);
  const split = checkSplit(r.split, at);
  const source = r.source ?? defaultSource;
  if (typeof source !== "string") throw new Error(`${at}: "source" must be a string`);
  const hasText = Object.hasOwn(r, "text"),
    hasIds = Object.hasOwn(r, "ids");
  if (hasText === hasIds) throw new Error(`${at}: give exactly one of "text" and "ids"`);
  if (hasText) {
    if (typeof r.text !== "string") throw new Error(`${at}: "text" must be a string`);
    return encodeRow(tokenizer, { id: r.id, split, source, text: r.text });
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
export function parseDocumentsJsonl(text: string, tokenizer: Tokenizer | TextEncoding, where: string): Document[] {
  const docs: Document[] = [];
  const lineOf = new Map<string, number>();
  const source = baseName(where);
  text
    .replace(/^\ufeff/, "")
    .split("\n")
    .forEach((raw, i) => {
      const at = `${where} line ${i + 1}`;
      if (raw.length > MAX_LINE_BYTES)
        throw new Error(`${at}: ${raw.length} characters, more than the ${MAX_LINE_BYTES} (8 MiB) a line may hold`);
      const line = raw.trim();
      if (line === "") return;
      const doc = parseLine(line, at, tokenizer, source, docs.length === 0);
      const first = lineOf.get(doc.id);
      if (first !== undefined) throw new Error(`${at}: document id "${doc.id}" already used on line ${first}`);
      lineOf.set(doc.id, i + 1);
      docs.push(doc);
    });
  if (docs.length === 0) throw new Error(`${where}: no documents (expected one JSON object per line)`);
  return docs;
}

/** Check each line's length and the UTF-8, then parse; `where` (the path or the dropped file's name) names every error. */
export function parseDocumentsBytes(bytes: Uint8Array, tokenizer: Tokenizer | TextEncoding, where: string): Document[] {
  const lines = lineStarts(bytes);
  lines.forEach((start, i) => {
    const length = (lines[i + 1] ?? bytes.length + 1) - 1 - start;
    if (length > MAX_LINE_BYTES)
      throw new Error(`${where} line ${i + 1}: ${length} bytes, more than the ${MAX_LINE_BYTES} (8 MiB) a line may hold`);
  });
  const fatal = new TextDecoder("utf-8", { fatal: true });
  let text: string;
  try {
    text = fatal.decode(bytes);
  } catch {
    // find the first line that is not UTF-8 (the file-wide decode says only that one is somewhere)
    lines.forEach((start, i) => {
      try {
        fatal.decode(bytes.subarray(start, (lines[i + 1] ?? bytes.length + 1) - 1));
      } catch {
        throw new Error(`${where} line ${i + 1}: not valid UTF-8 (a documents file must be UTF-8 text)`);
      }
    });
    throw new Error(`${where}: not valid UTF-8`);
  }
  return parseDocumentsJsonl(text, tokenizer, where);
}

/** Byte offset where each line starts (lines end at "\n"). */
function lineStarts(bytes: Uint8Array): number[] {
  const starts = [0];
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) starts.push(i + 1);
  return starts;
}

/** The last path segment, as node:path basename gives it for the paths used here (no node: import in the core). */
function baseName(where: string): string {
  return (
    where
      .replace(/[\\/]+$/, "")
      .split(/[\\/]/)
      .pop() ?? where
  );
}
