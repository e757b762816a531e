// The split's manifest as a file format: its fields and schema, its identity (the sha256 of manifest.json as
// written), and its bytes made a document at a time so a million documents' JSON is never a string beside its
// bytes. Pure. Not how a split is made or checked against the texts (text_split.ts).
import { Sha256 } from "../util/primitives/sha256.ts";
import { arr, int, num, obj, oneOf, parseJsonFile, refine, str, type Schema } from "../util/formats/schema.ts";
import { SPLITS, type Split } from "./documents.ts";

export interface TextManifestDoc {
  id: string;
  source: string;
  file: string;
  split: Split;
  /** Hex sha256 of the text's UTF-8 bytes. */
  sha256: string;
  bytes: number;
}

export interface TextManifest {
  format: typeof TEXT_MANIFEST_FORMAT;
  seed: number;
  fractions: { validation: number; test: number };
  documents: TextManifestDoc[];
}

export const TEXT_MANIFEST_FORMAT = "tinylab-text-manifest/1";
export const MANIFEST_FILE = "manifest.json";

const MANIFEST_DOC = obj({
  id: str({ nonEmpty: true }),
  source: str(),
  file: str(),
  split: oneOf(SPLITS),
  sha256: str({ pattern: /^[0-9a-f]{64}$/, says: "a sha256 in 64 lowercase hex digits" }),
  bytes: int({ min: 0 }),
});

/** manifest.json: the split's own seed and fractions, and every document once (by id). */
export const MANIFEST_SCHEMA: Schema<TextManifest> = obj({
  format: oneOf([TEXT_MANIFEST_FORMAT] as const),
  seed: int(),
  fractions: refine(obj({ validation: num({ min: 0, below: 1 }), test: num({ min: 0, below: 1 }) }), (f) =>
    f.validation + f.test >= 1 ? ["", "must leave documents to train on (validation + test < 1)", f] : undefined,
  ),
  documents: arr(MANIFEST_DOC, { unique: "id" }),
});

/** Parse a manifest's JSON, checking it against its schema (not the texts: see verifyTextManifest). */
export function parseTextManifest(json: string, where: string): TextManifest {
  return parseJsonFile(json, MANIFEST_SCHEMA, where);
}

/** A manifest's identity: the sha256 of manifest.json as train writes it (`sha256sum DIR/manifest.json`). */
export function manifestSha256(m: TextManifest): string {
  return jsonSha256(m, 1, "\n");
}

const utf8 = new TextEncoder();
/** Documents JSON.stringify'd together in manifestJsonPieces: a call per document cost more than the JSON itself. */
const DOCUMENTS_A_PIECE = 256;

/**
 * manifest.json's bytes (`JSON.stringify(m, null, 1) + "\n"` in UTF-8) and their sha256, made in one pass a
 * document at a time: some 64 KB of JSON at a time is encoded and hashed, and the pieces joined once at the end, so
 * a million documents' JSON is never a string beside its bytes, nor encoded twice to be hashed. `tick` counts the
 * documents written.
 */
export function manifestBytes(m: TextManifest, tick?: (documents: number) => void): { bytes: Uint8Array; sha256: string } {
  const h = new Sha256();
  const chunks: Uint8Array[] = [];
  let batch: string[] = [],
    size = 0,
    total = 0;
  const flush = () => {
    const chunk = utf8.encode(batch.join(""));
    h.update(chunk);
    chunks.push(chunk);
    total += chunk.length;
    batch = [];
    size = 0;
  };
  for (const piece of manifestJsonPieces(m, 1, tick)) {
    batch.push(piece);
    if ((size += piece.length) >= 1 << 16) flush();
  }
  batch.push("\n");
  flush();
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks.splice(0)) {
    bytes.set(c, at);
    at += c.length;
  }
  return { bytes, sha256: h.digest() };
}

/**
 * The sha256 of `JSON.stringify(m, null, indent) + tail`, hashed a document at a time: a million documents' JSON is
 * a few hundred MB, built whole only where it is written. `tick` counts the documents hashed.
 */
export function jsonSha256(m: TextManifest, indent: number, tail = "", tick?: (documents: number) => void): string {
  const h = new Sha256();
  let batch: string[] = [],
    size = 0;
  // pieces are hashed some 64 KB at a time: one update per document would allocate its bytes each time
  for (const piece of manifestJsonPieces(m, indent, tick)) {
    batch.push(piece);
    if ((size += piece.length) < 1 << 16) continue;
    h.update(batch.join(""));
    batch = [];
    size = 0;
  }
  return h.update(batch.join("") + tail).digest();
}

/**
 * `JSON.stringify(m, null, indent)` in pieces that join to exactly it: the top-level fields as JSON.stringify
 * writes them, and the documents one by one, each nested one level deeper (JSON never holds a raw newline in a
 * string, so re-indenting at each newline is exact). `tick` is called with the documents of each piece.
 */
export function* manifestJsonPieces(m: TextManifest, indent: number, tick?: (documents: number) => void): Generator<string> {
  const pad = " ".repeat(indent);
  const nl = indent > 0 ? "\n" : "";
  const colon = indent > 0 ? ": " : ":";
  const nest = (json: string, depth: number) => (indent > 0 ? json.replaceAll("\n", `\n${pad.repeat(depth)}`) : json);
  const keys = Object.keys(m).filter((k) => m[k as keyof TextManifest] !== undefined);
  yield "{";
  for (const [n, k] of keys.entries()) {
    yield `${n > 0 ? "," : ""}${nl}${pad}${JSON.stringify(k)}${colon}`;
    const v = m[k as keyof TextManifest];
    if (k !== "documents" || !Array.isArray(v) || v.length === 0) {
      yield nest(JSON.stringify(v, null, indent), 1);
      continue;
    }
    yield "[";
    // a few hundred documents a piece: JSON.stringify of a slice is their pieces one level shallower, in brackets,
    // so one call and one re-indent serve them all
    for (let i = 0; i < v.length; i += DOCUMENTS_A_PIECE) {
      const slice = v.slice(i, i + DOCUMENTS_A_PIECE);
      const json = JSON.stringify(slice, null, indent);
      yield `${i > 0 ? "," : ""}${nest(json.slice(1, json.length - 1 - nl.length), 1)}`;
      tick?.(slice.length);
    }
    yield `${nl}${pad}]`;
  }
  yield keys.length > 0 ? `${nl}}` : "}";
}
