// Reads a text input from disk: one UTF-8 file (documents split by blank lines, or one per line) or a directory
// of .txt files (one document per file, the sub-directory as its source). A file reader; the split is text_split.ts.
import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import {
  documentsOfText,
  rebuildRunSplit,
  splitTexts,
  verifyTextManifest,
  type TextSource,
  type TextSplitOptions,
} from "../data/text_split.ts";
import { manifestSha256, MANIFEST_FILE, type TextManifest } from "../data/text_manifest.ts";
import type { Split, TextDocument } from "../data/documents.ts";
import { FILE_LIMIT, MAX_FILE_BYTES } from "./files.ts";
import { readFileBytes, readFileText } from "./disk.ts";

/** A file's text, refused by name (`what` it is) when it is missing, not a regular file, too large, not UTF-8 or empty. */
function readUtf8(path: string, what = "text file"): string {
  const bytes = readFileBytes(path, what, Error, FILE_LIMIT);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    let line = 1;
    // the first line that does not decode, so the message points at it
    for (let start = 0; start <= bytes.length; line++) {
      const end = bytes.indexOf(10, start) === -1 ? bytes.length : bytes.indexOf(10, start);
      try {
        new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(start, end));
      } catch {
        break;
      }
      start = end + 1;
    }
    throw new Error(`${path} line ${line}: not valid UTF-8 (--text must be UTF-8 text)`);
  }
  return text;
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

/** The documents of `path`: a text file, or a directory of .txt files (ids are paths relative to it). */
export function readTextInput(path: string, onePerLine: boolean): TextSource[] {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new Error(`--text: not found: ${path}`);
  }
  if (!isDir) {
    const docs = documentsOfText(readUtf8(path), path, path.split(sep).pop()!, onePerLine);
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
  const docs: TextSource[] = [];
  for (const f of files) {
    const rel = relative(path, f).split(sep);
    const text = readUtf8(f)
      .replace(/^\ufeff/, "")
      .trim();
    if (text.length === 0) throw new Error(`${f}: empty (a document needs text)`);
    docs.push({ id: rel.join("/"), source: rel.length > 1 ? rel[rel.length - 2] : "(top level)", file: f, text });
  }
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
    const manifest = splitTexts(docs, o.split);
    return {
      bySplit: verifyTextManifest(manifest, docs, "--text", remedy),
      manifest,
      manifestSha256: manifestSha256(manifest),
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
    return { text: readUtf8(path, textOfRun), path };
  };
  const r = rebuildRunSplit(json, where, read, o.onePerLine);
  const files = [...new Set(r.manifest.documents.map((d) => d.file))];
  return {
    ...r,
    source: `run ${o.run} (its ${MANIFEST_FILE} over ${files.length === 1 ? files[0] : `${files.length} text files`})`,
  };
}
