// The split's manifest as a file format: its fields and schema, its identity (the sha256 of manifest.json as
// written), and its bytes made a few hundred documents at a time and written through a store a chunk at a time, so
// a million documents' JSON is never one string nor whole in memory. Pure. Not how a split is made or checked
// against the texts (text_split.ts).
import { jsSha256, type Sha256Hasher } from "../util/primitives/sha256.ts";
import { joinChunks } from "../util/primitives/bytes.ts";
import { phase, type ProgressStream } from "../util/runtime/progress.ts";
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

/** Where a manifest is kept: the same shape as src/lab's Store, declared in src/data because data sits below lab. */
export interface ManifestStore {
  read(name: string): Uint8Array | undefined;
  write(name: string, data: Uint8Array | string): void;
  writeChunks?(name: string, chunks: Iterable<Uint8Array>): void;
  where(name: string): string;
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
export function manifestSha256(m: TextManifest, sha256: Sha256Hasher = jsSha256): string {
  return jsonSha256(m, 1, "\n", undefined, sha256);
}

const utf8 = new TextEncoder();
/** Documents written together in one piece of manifestJsonPieces: a piece per document cost more than its JSON. */
const DOCUMENTS_A_PIECE = 256;

/** Bytes of manifest.json encoded at a time into one reused buffer (a piece longer than a third of it widens it). */
const CHUNK_BYTES = 1 << 20;

/**
 * manifest.json's bytes (`JSON.stringify(m, null, 1) + "\n"` in UTF-8) a chunk at a time, each a view of one reused
 * buffer, valid until the next is asked for: a million documents' JSON (a few hundred MB) is never whole in memory, and
 * no fresh memory is touched for it (first touching that much memory cost more than making the JSON).
 * `tick` counts the documents written.
 */
export function* manifestChunks(m: TextManifest, tick?: (documents: number) => void, chunkBytes = CHUNK_BYTES): Generator<Uint8Array> {
  let buffer = new Uint8Array(chunkBytes),
    at = 0;
  const pieces = manifestJsonPieces(m, 1, tick);
  for (let next = pieces.next(), piece = ""; ; next = pieces.next()) {
    piece = next.done ? "\n" : next.value;
    // UTF-8 takes at most 3 bytes per UTF-16 unit
    if (at + 3 * piece.length > buffer.length && at > 0) {
      yield buffer.subarray(0, at);
      at = 0;
    }
    if (3 * piece.length > buffer.length) buffer = new Uint8Array(3 * piece.length);
    at += utf8.encodeInto(piece, buffer.subarray(at)).written;
    if (next.done) break;
  }
  yield buffer.subarray(0, at);
}

/**
 * The sha256 of `JSON.stringify(m, null, indent) + tail`, hashed a few hundred documents at a time: a million
 * documents' JSON is a few hundred MB, built whole only where it is written. `tick` counts the documents hashed.
 */
export function jsonSha256(
  m: TextManifest,
  indent: number,
  tail = "",
  tick?: (documents: number) => void,
  sha256: Sha256Hasher = jsSha256,
): string {
  const h = sha256.create();
  for (const piece of manifestJsonPieces(m, indent, tick)) h.update(piece);
  h.update(tail);
  return h.digest();
}

/**
 * `JSON.stringify(m, null, indent)` in pieces that join to exactly it: the top-level fields as JSON.stringify writes
 * them, then the documents a few hundred to a piece, each written field by field in TextManifestDoc's order (the
 * order splitTexts and the schema give every document), its strings escaped by JSON.stringify itself. `tick` is
 * called with the documents of each piece.
 */
export function* manifestJsonPieces(m: TextManifest, indent: number, tick?: (documents: number) => void): Generator<string> {
  const pad = " ".repeat(indent);
  const nl = indent > 0 ? "\n" : "";
  const colon = indent > 0 ? ": " : ":";
  const nest = (json: string) => (indent > 0 ? json.replaceAll("\n", `\n${pad}`) : json);
  const keys = Object.keys(m).filter((k) => m[k as keyof TextManifest] !== undefined);
  yield "{";
  for (const [n, k] of keys.entries()) {
    yield `${n > 0 ? "," : ""}${nl}${pad}${JSON.stringify(k)}${colon}`;
    const v = m[k as keyof TextManifest];
    if (k !== "documents" || !Array.isArray(v) || v.length === 0) {
      yield nest(JSON.stringify(v, null, indent));
      continue;
    }
    const doc = documentWriter(indent);
    yield "[";
    for (let i = 0; i < v.length; i += DOCUMENTS_A_PIECE) {
      const end = Math.min(i + DOCUMENTS_A_PIECE, v.length);
      const piece: string[] = [];
      for (let j = i; j < end; j++) piece.push(doc(v[j]));
      yield `${i > 0 ? "," : ""}${piece.join(",")}`;
      tick?.(end - i);
    }
    yield `${nl}${pad}]`;
  }
  yield keys.length > 0 ? `${nl}}` : "}";
}

/**
 * One document's JSON as JSON.stringify(documents, null, indent) writes it inside the manifest (two levels deep).
 * The source, file and split of consecutive documents are mostly the same: their JSON is kept from the last one.
 */
function documentWriter(indent: number): (d: TextManifestDoc) => string {
  const pad = " ".repeat(indent);
  const nl = indent > 0 ? "\n" : "";
  const colon = indent > 0 ? ": " : ":";
  const open = `${nl}${pad}${pad}{`;
  const close = `${nl}${pad}${pad}}`;
  const key = (k: string, first = false) => `${first ? "" : ","}${nl}${pad}${pad}${pad}${JSON.stringify(k)}${colon}`;
  const [id, source, file, split, sha256, bytes] = [key("id", true), key("source"), key("file"), key("split"), key("sha256"), key("bytes")];
  const last = (): ((s: string) => string) => {
    let was: string | undefined,
      json = "";
    return (s) => (s === was ? json : ((was = s), (json = JSON.stringify(s))));
  };
  const [sourceJson, fileJson, splitJson] = [last(), last(), last()];
  return (d) =>
    `${open}${id}${JSON.stringify(d.id)}${source}${sourceJson(d.source)}${file}${fileJson(d.file)}${split}${splitJson(d.split)}${sha256}${JSON.stringify(d.sha256)}${bytes}${JSON.stringify(d.bytes)}${close}`;
}

/** Write manifest.json a chunk at a time where the store can (else whole), hashing each chunk on the way; its sha256. */
export function saveManifest(store: ManifestStore, m: TextManifest, sha256: Sha256Hasher, progress?: ProgressStream): string {
  const bar = phase(progress, "manifest", m.documents.length, "documents");
  const h = sha256.create();
  function* hashed() {
    for (const chunk of manifestChunks(m, bar && ((n) => bar.tick(n)))) {
      h.update(chunk);
      yield chunk;
    }
  }
  if (store.writeChunks) store.writeChunks(MANIFEST_FILE, hashed());
  else store.write(MANIFEST_FILE, joinChunks(hashed(), { reused: true })); // a chunk is valid until the next is made
  bar?.done();
  return h.digest();
}
