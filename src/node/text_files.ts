// Reads a text input from disk: one UTF-8 file (documents split by blank lines, or one per line), read, decoded and
// cut (src/data/text_documents.ts) 1 MiB at a time, or a directory of .txt files (one document per file, the
// sub-directory as its source). A file reader; the split is src/data/text_split.ts.
import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { DocumentCutter, type TextSource } from "../data/text_documents.ts";
import { rebuildRunSplit } from "../data/text_rebuild.ts";
import { splitTexts, verifyTextManifest, type TextSplitOptions } from "../data/text_split.ts";
import { manifestSha256, MANIFEST_FILE, type TextManifest } from "../data/text_manifest.ts";
import type { Split, TextDocument } from "../data/documents.ts";
import { phase, type ProgressStream } from "../util/runtime/progress.ts";
import { FILE_LIMIT, MAX_FILE_BYTES } from "./files.ts";
import { readFileBytes, readFileChunks, readFileText } from "./disk.ts";
import { nodeSha256 } from "./sha256.ts";

const MIB = 2 ** 20;
/** Bytes read and decoded at a time: a 200 MB text is never one buffer beside its string, and its bar ticks per MiB. */
const CHUNK_BYTES = MIB;

/**
 * A file's text as UTF-8, decoded a chunk at a time and handed to `take` piece by piece; refused by name (`what` it
 * is) when it is missing, not a regular file, too large or not UTF-8 (naming the first line that does not decode). A
 * leading byte-order mark is dropped, as a whole-file TextDecoder drops it. `read` counts the bytes of each chunk,
 * with the file's size. Each chunk is decoded whole up to its last complete character, the rest carried to the next:
 * a decoder told `stream: true` leaves Node's fast UTF-8 path for ICU's, many times slower.
 */
function readUtf8(path: string, take: (text: string) => void, what = "text file", read?: (bytes: number, size: number) => void): void {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const decode = (bytes: Uint8Array) => {
    try {
      return decoder.decode(bytes);
    } catch {
      // the error path only: the whole file again, to name the line
      throw new Error(
        `${path} line ${firstBadLine(readFileBytes(path, what, Error, FILE_LIMIT))}: not valid UTF-8 (--text must be UTF-8 text)`,
      );
    }
  };
  let size = 0,
    first = true,
    carry = new Uint8Array(0); // a character cut off the last chunk's end (at most 3 bytes)
  for (const chunk of readFileChunks(path, what, FILE_LIMIT, CHUNK_BYTES, (bytes) => (size = bytes))) {
    read?.(chunk.length, size);
    let b = first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? chunk.subarray(3) : chunk;
    first = false;
    if (carry.length > 0) {
      // the carried character completed from this chunk's first bytes
      const head = Math.min(sequenceLength(carry[0]) - carry.length, b.length);
      const joined = new Uint8Array(carry.length + head);
      joined.set(carry);
      joined.set(b.subarray(0, head), carry.length);
      b = b.subarray(head);
      carry = joined;
      if (carry.length < sequenceLength(carry[0])) continue; // a chunk of a byte or two (never with 1 MiB chunks)
      take(decode(carry));
    }
    const end = completeEnd(b);
    take(decode(b.subarray(0, end)));
    carry = b.slice(end); // the chunk's buffer is reused
  }
  if (carry.length > 0) take(decode(carry)); // an incomplete character at the end: refused
}

/** Bytes of the UTF-8 sequence a byte starts (1 for a byte that starts none: the decoder refuses it). */
const sequenceLength = (x: number) => (x >= 0xf0 ? 4 : x >= 0xe0 ? 3 : x >= 0xc0 ? 2 : 1);

/** Where `b` can be cut without splitting a character: before a last sequence that runs past its end, else its end. */
function completeEnd(b: Uint8Array): number {
  for (let k = b.length - 1; k >= Math.max(0, b.length - 4); k--) {
    if ((b[k] & 0xc0) === 0x80) continue; // a continuation byte
    return k + sequenceLength(b[k]) > b.length ? k : b.length;
  }
  return b.length; // no start among the last four bytes: not UTF-8, which the decoder says
}

/** The whole text of a file (readUtf8's pieces joined). */
function readUtf8Text(path: string, what?: string): string {
  const pieces: string[] = [];
  readUtf8(path, (t) => pieces.push(t), what);
  return pieces.join("");
}

/** The 1-based number of the first line (bytes up to a newline) that is not valid UTF-8. */
function firstBadLine(bytes: Uint8Array): number {
  let line = 1;
  for (let start = 0; start <= bytes.length; line++) {
    const end = bytes.indexOf(10, start) === -1 ? bytes.length : bytes.indexOf(10, start);
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(start, end));
    } catch {
      break;
    }
    start = end + 1;
  }
  return line;
}

/** The read phase's bar over `bytes`, ticked per whole MiB read. */
function readBar(progress: ProgressStream | undefined, bytes: number) {
  const bar = phase(progress, "read", Math.ceil(bytes / MIB), "MiB");
  let read = 0,
    ticked = 0;
  return {
    add(n: number) {
      read += n;
      const whole = Math.floor(read / MIB);
      if (whole > ticked) bar?.tick(whole - ticked);
      ticked = Math.max(ticked, whole);
    },
    done() {
      bar?.tick(Math.ceil(bytes / MIB) - ticked);
      bar?.done();
    },
  };
}

/** .txt files under `dir`, sorted by path so the order never depends on the file system. */
function txtFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...txtFiles(p));
    else if (entry.isFile() && entry.name.endsWith(".txt")) out.push(p);
  }
  return out.sort();
}

/**
 * The documents of `path`: a text file, or a directory of .txt files (ids are paths relative to it). A file is read
 * and cut into documents a chunk at a time, in time linear in its size; `progress` shows the MiB read.
 */
export function readTextInput(path: string, onePerLine: boolean, progress?: ProgressStream): TextSource[] {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new Error(`--text: not found: ${path}`);
  }
  if (!isDir) {
    const cutter = new DocumentCutter(path, path.split(sep).pop()!, onePerLine);
    let bar: ReturnType<typeof readBar> | undefined;
    readUtf8(
      path,
      (text) => cutter.push(text),
      undefined,
      (n, size) => (bar ??= readBar(progress, size)).add(n),
    );
    bar?.done();
    const docs = cutter.end();
    if (docs.length === 0) throw new Error(`${path}: no text (the file is empty or only blank lines)`);
    return docs;
  }
  const files = txtFiles(path);
  if (files.length === 0)
    throw new Error(`${path}: a directory with no .txt files (--text takes a UTF-8 file or a directory of .txt files)`);
  // all of them become one corpus: its total is bounded as one file is, before any is read
  const total = files.reduce((n, f) => n + statSync(f).size, 0);
  if (total > MAX_FILE_BYTES)
    throw new Error(`text directory ${path} has ${total} bytes of .txt files, more than the ${MAX_FILE_BYTES} (${FILE_LIMIT.label}) limit`);
  const bar = readBar(progress, total);
  const docs: TextSource[] = [];
  for (const f of files) {
    const rel = relative(path, f).split(sep);
    const pieces: string[] = [];
    readUtf8(
      f,
      (t) => pieces.push(t),
      undefined,
      (n) => bar.add(n),
    );
    const text = pieces
      .join("")
      .replace(/^\ufeff/, "")
      .trim();
    if (text.length === 0) throw new Error(`${f}: empty (a document needs text)`);
    docs.push({ id: rel.join("/"), source: rel.length > 1 ? rel[rel.length - 2] : "(top level)", file: f, text });
  }
  bar.done();
  return docs;
}

/** A run's split, rebuilt for scoring: the documents of each split (sha256-checked), the manifest and where it came from. */
export interface RunText {
  bySplit: Record<Split, TextDocument[]>;
  manifest: TextManifest;
  manifestSha256: string;
  /** How the data is named in reports, e.g. `run results/train (manifest.json, 122 documents of notice.txt)`. */
  source: string;
}

/**
 * The split a run trained on (`run`: its directory, whose manifest.json says which document went where) or the
 * split `train --text` makes of `text` with `split` (no run: the same pure rule, src/data/text_split.ts). With both,
 * the run's manifest over the text at `text` (the text moved). A changed or missing document is refused by file.
 */
export function readRunText(o: { run?: string; text?: string; onePerLine?: boolean; split: TextSplitOptions }): RunText {
  const remedy = "restore it, or score other documents with --data";
  if (o.run === undefined) {
    const docs = readTextInput(o.text!, o.onePerLine ?? false);
    const sha = docs.map((d) => nodeSha256.hex(d.text));
    const manifest = splitTexts(docs, o.split, sha);
    return {
      bySplit: verifyTextManifest(manifest, docs, "--text", remedy, sha),
      manifest,
      manifestSha256: manifestSha256(manifest, nodeSha256),
      source: `--text ${o.text} (split seed ${o.split.seed}, validation ${o.split.validation}, test ${o.split.test})`,
    };
  }
  const where = join(o.run, MANIFEST_FILE);
  // disk.ts's readers refuse a missing or irregular file; `what` says whose it is and, for a text, the fix
  const json = readFileText(where, `run manifest of --run ${o.run} (train --text writes ${MANIFEST_FILE} there)`, FILE_LIMIT);
  const textOfRun =
    o.text === undefined
      ? `text file of --run ${o.run} (pass --text PATH where the text is now)`
      : `text file of --run ${o.run} under --text ${o.text}`;
  const read = (file: string, id: string) => {
    // the manifest names each file as train was given it; --text says where the text is now
    const path = o.text === undefined ? file : id.startsWith(`${file}#`) ? o.text : join(o.text, id);
    return { text: readUtf8Text(path, textOfRun), path };
  };
  const r = rebuildRunSplit(json, where, read, o.onePerLine, nodeSha256);
  const files = [...new Set(r.manifest.documents.map((d) => d.file))];
  return {
    ...r,
    source: `run ${o.run} (its ${MANIFEST_FILE} over ${files.length === 1 ? files[0] : `${files.length} text files`})`,
  };
}
