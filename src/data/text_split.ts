// Plain text into documents, and a seeded train/validation/test split by document saved as a manifest with each
// document's sha256 (its format: text_manifest.ts), made once and verified on every later run. Pure: no file system
// (text_files.ts reads files).
import { Rng } from "../util/primitives/rng.ts";
import { sha256Hex } from "../util/primitives/sha256.ts";
import { refuse } from "../util/formats/schema.ts";
import { phase, type ProgressStream } from "../util/runtime/progress.ts";
import type { Split, TextDocument } from "./documents.ts";
import {
  MANIFEST_FILE,
  manifestBytes,
  manifestSha256,
  parseTextManifest,
  TEXT_MANIFEST_FORMAT,
  type TextManifest,
  type TextManifestDoc,
} from "./text_manifest.ts";

/** One document of a text input before the split; `file` is the file it came from (named when it changes). */
export interface TextSource {
  id: string;
  source: string;
  file: string;
  text: string;
}

/** What the split is made from: its own seed (never the training seed) and the held-out fractions. */
export interface TextSplitOptions {
  seed: number;
  validation: number;
  test: number;
}

/** Where a manifest is kept: the same shape as src/lab's Store, declared here because data sits below lab. */
export interface ManifestStore {
  read(name: string): Uint8Array | undefined;
  write(name: string, data: Uint8Array | string): void;
  where(name: string): string;
}

/**
 * Documents of one text: separated by blank lines (a line holding only spaces counts as blank), or one per
 * non-blank line with `onePerLine`. Ids are `<file>#<n>` (n from 1), the source is given.
 */
export function documentsOfText(text: string, file: string, source: string, onePerLine: boolean): TextSource[] {
  const body = text.replace(/^\ufeff/, "").replace(/\r\n?/g, "\n");
  const parts = onePerLine ? body.split("\n") : body.split(/\n[ \t]*\n/);
  const out: TextSource[] = [];
  const prefix = `${file}#`;
  // one loop, one object per document: a million one-line documents made three arrays of a million each
  for (const p of parts) {
    const t = p.trim();
    if (t.length > 0) out.push({ id: prefix + (out.length + 1), source, file, text: t });
  }
  return out;
}

/** Bytes of `s` in UTF-8 (a lone surrogate counts 3, as U+FFFD), without encoding it. */
function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a pair: 2 units, 4 bytes
      i++;
    } else n += 2;
  }
  return n;
}

/** The stream each source's documents are shuffled by: a child of the split seed named after the source. */
export type SplitStreams = (source: string) => string;
export const sourceStreams: SplitStreams = (source) => `source:${source}`;

/** Refuse fractions that are not two numbers in [0, 1) leaving something to train on. */
export function checkFractions(o: TextSplitOptions): void {
  for (const [name, f] of [
    ["--validation-fraction", o.validation],
    ["--test-fraction", o.test],
  ] as const) {
    if (!(f >= 0 && f < 1)) throw new Error(`${name} must be a number in [0, 1), got ${f}`);
  }
  if (o.validation + o.test >= 1)
    throw new Error(
      `--validation-fraction ${o.validation} + --test-fraction ${o.test} leave no training documents (their sum must be < 1)`,
    );
}

/**
 * Whole documents to splits. Within each source (visited in sorted order) the ids, sorted first so input order
 * cannot matter, are shuffled by the child stream `streams(source)` (`source:<name>`); the first round(n·validation) go to
 * validation, the next round(n·test) to test, the rest to train (a source of ≥ 3 documents gives each held-out
 * split with a fraction > 0 at least one, and keeps one for train).
 */
export function splitTexts(
  docs: readonly TextSource[],
  o: TextSplitOptions,
  sha: readonly string[] = docs.map((d) => sha256Hex(d.text)),
  streams: SplitStreams = sourceStreams,
): TextManifest {
  return splitInOrder(docs, o, sha, streams).manifest;
}

/** splitTexts, and `order`: the manifest's k-th document is docs[order[k]]. */
function splitInOrder(
  docs: readonly TextSource[],
  o: TextSplitOptions,
  sha: readonly string[],
  streams: SplitStreams = sourceStreams,
): { manifest: TextManifest; order: number[] } {
  checkFractions(o);
  const order = sortedOrder(docs.map((d) => d.id));
  // positions in the sorted order, by source; a shuffle's permutation does not depend on what it shuffles
  const bySource = groupBy(
    order.map((_, at) => at),
    (at) => docs[order[at]].source,
  );
  const rng = Rng.fromSeed(o.seed);
  const split: Split[] = new Array(order.length);
  for (const source of [...bySource.keys()].sort()) {
    const members = bySource.get(source)!;
    const n = members.length;
    const take = (f: number) => (n >= 3 && f > 0 ? Math.max(1, Math.round(n * f)) : Math.round(n * f));
    const nVal = Math.min(take(o.validation), Math.max(0, n - 1));
    const nTest = Math.min(take(o.test), Math.max(0, n - 1 - nVal));
    rng
      .child(streams(source))
      .shuffle(members)
      .forEach((at, i) => (split[at] = i < nVal ? "validation" : i < nVal + nTest ? "test" : "train"));
  }
  const manifest: TextManifest = {
    format: TEXT_MANIFEST_FORMAT,
    seed: o.seed,
    fractions: { validation: o.validation, test: o.test },
    documents: order.map((i, at) => {
      const d = docs[i];
      return { id: d.id, source: d.source, file: d.file, split: split[at], sha256: sha[i], bytes: utf8Length(d.text) };
    }),
  };
  return { manifest, order };
}

/**
 * Indices of `ids` in ascending UTF-16 order (as `<` compares); an id given twice is refused. The indices are sorted,
 * not the ids through a map: a map of a million ids cost more than the sort itself.
 */
function sortedOrder(ids: readonly string[]): number[] {
  const order = Array.from({ length: ids.length }, (_, i) => i);
  order.sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0));
  for (let k = 1; k < order.length; k++) {
    if (ids[order[k]] === ids[order[k - 1]]) throw new Error(`text split: document id ${ids[order[k]]} appears twice`);
  }
  return order;
}

/** Items grouped by key, each group in input order, the keys in first-seen order: one pass, no copies. */
function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = out.get(k);
    if (group) group.push(item);
    else out.set(k, [item]);
  }
  return out;
}

/**
 * A saved manifest must be the split its own rule gives: splitTexts of these documents with its seed and
 * fractions. An edited one (a test document moved to train) would otherwise be trained on as it says.
 */
export function checkSplitRule(
  m: TextManifest,
  docs: readonly TextSource[],
  where: string,
  sha?: readonly string[],
  streams?: SplitStreams,
): void {
  const rule = splitTexts(docs, { seed: m.seed, validation: m.fractions.validation, test: m.fractions.test }, sha, streams).documents;
  const says = `not what --split-seed ${m.seed} --validation-fraction ${m.fractions.validation} --test-fraction ${m.fractions.test} gives`;
  m.documents.forEach((d, i) => {
    for (const k of ["id", "source", "file", "split", "sha256", "bytes"] as const) {
      if (d[k] !== rule[i][k]) refuse({ file: where }, `documents[${i}].${k}`, `is ${says} (${JSON.stringify(rule[i][k])})`, d[k]);
    }
  });
}

/**
 * The documents of each split in manifest order, after checking every one against `docs`: present, same sha256;
 * and no document the manifest does not list. A difference is refused naming the file and the manifest.
 */
export function verifyTextManifest(
  m: TextManifest,
  docs: readonly TextSource[],
  where: string,
  remedy = "restore the file or start a new run in another directory",
  shaOf: readonly string[] = docs.map((d) => sha256Hex(d.text)),
): Record<Split, TextDocument[]> {
  const out: Record<Split, TextDocument[]> = { train: [], validation: [], test: [] };
  const fix = `(the split in ${where} was made from other text; ${remedy})`;
  const found = new Uint8Array(docs.length); // 1 once a manifest entry has claimed the document
  const at = positionsOf(m.documents, docs);
  m.documents.forEach((e, k) => {
    const i = at(e.id, k);
    if (i === undefined) throw new Error(`${e.file}: document ${e.id} of the split is missing ${fix}`);
    const d = docs[i],
      sha = shaOf[i];
    if (sha !== e.sha256)
      throw new Error(
        `${d.file} changed: document ${e.id} has sha256 ${sha.slice(0, 12)}…, the manifest says ${e.sha256.slice(0, 12)}… ${fix}`,
      );
    out[e.split].push({ id: d.id, split: e.split, source: d.source, text: d.text });
    found[i] = 1;
  });
  const extra = found.indexOf(0);
  if (extra >= 0) throw new Error(`${docs[extra].file} changed: document ${docs[extra].id} is not in the split ${fix}`);
  return out;
}

/** The documents of each split of a manifest just made from `docs` (its k-th document is docs[order[k]]). */
function splitDocuments(m: TextManifest, docs: readonly TextSource[], order: readonly number[]): Record<Split, TextDocument[]> {
  const out: Record<Split, TextDocument[]> = { train: [], validation: [], test: [] };
  m.documents.forEach((e, k) => {
    const d = docs[order[k]];
    out[e.split].push({ id: d.id, split: e.split, source: d.source, text: d.text });
  });
  return out;
}

/**
 * Where each manifest entry's document is in `docs`, by id. A manifest lists its documents in sorted id order, so
 * the sorted order of `docs` usually pairs them one to one with no map; otherwise (a document added or removed) a
 * map of ids answers. An id given twice in `docs` is refused either way.
 */
function positionsOf(entries: readonly TextManifestDoc[], docs: readonly TextSource[]): (id: string, k: number) => number | undefined {
  const order = sortedOrder(docs.map((d) => d.id));
  if (order.length === entries.length && entries.every((e, k) => e.id === docs[order[k]].id)) return (_, k) => order[k];
  const byId = new Map<string, number>();
  docs.forEach((d, i) => byId.set(d.id, i));
  return (id) => byId.get(id);
}

/** What a model trained on text records of its data (the model file's provenance `data`): enough to name it and to check it. */
export interface TextDataProvenance {
  kind: "text";
  manifest_sha256: string;
  split: TextSplitOptions;
  documents: Record<Split, number>;
  /** The text files, as train was given them. */
  files: string[];
}

/** `sha256`: the manifest's, when the caller has it already (textSplit returns it), else computed. */
export function textDataProvenance(m: TextManifest, sha256 = manifestSha256(m)): TextDataProvenance {
  const count = (s: Split) => m.documents.filter((d) => d.split === s).length;
  return {
    kind: "text",
    manifest_sha256: sha256,
    split: { seed: m.seed, validation: m.fractions.validation, test: m.fractions.test },
    documents: { train: count("train"), validation: count("validation"), test: count("test") },
    files: [...new Set(m.documents.map((d) => d.file))],
  };
}

/**
 * The documents a manifest was made from, re-read through `read` (a file's text by its path in the manifest):
 * a file whose every document has the id `<file>#<n>` is one text cut at blank lines (or, when that does not
 * reproduce its documents' sha256s, one document per line: `onePerLine` forces either); any other document is one
 * whole .txt file of a directory. `read` gives the text and the path it was read from (named if it changed);
 * verifyTextManifest then checks every sha256.
 */
export function sourcesOfManifest(
  m: TextManifest,
  read: (file: string, id: string) => { text: string; path: string },
  onePerLine?: boolean,
): TextSource[] {
  const byFile = groupBy(m.documents, (d) => d.file);
  const out: TextSource[] = [];
  for (const [file, entries] of byFile) {
    if (!entries.every((e) => e.id.startsWith(`${file}#`))) {
      for (const e of entries) {
        const r = read(file, e.id);
        out.push({ id: e.id, source: e.source, file: r.path, text: r.text.replace(/^\ufeff/, "").trim() });
      }
      continue;
    }
    const { text, path } = read(file, entries[0].id);
    const cut = (perLine: boolean) => documentsOfText(text, file, entries[0].source, perLine).map((d) => ({ ...d, file: path }));
    const sha = new Map(entries.map((e) => [e.id, e.sha256]));
    const matches = (docs: TextSource[]) => docs.length === entries.length && docs.every((d) => sha.get(d.id) === sha256Hex(d.text));
    const blank = cut(onePerLine ?? false);
    out.push(...(onePerLine === undefined && !matches(blank) && matches(cut(true)) ? cut(true) : blank));
  }
  return out;
}

/**
 * A run's split rebuilt for scoring from its manifest's JSON and its text (`read`, see sourcesOfManifest), every
 * document's sha256 checked: the one rule the CLI (text_files.ts readRunText) and the lab page share.
 */
export function rebuildRunSplit(
  json: string,
  where: string,
  read: (file: string, id: string) => { text: string; path: string },
  onePerLine?: boolean,
) {
  const manifest = parseTextManifest(json, where);
  const bySplit = verifyTextManifest(
    manifest,
    sourcesOfManifest(manifest, read, onePerLine),
    where,
    "restore it, or score other documents with --data",
  );
  return { bySplit, manifest, manifestSha256: manifestSha256(manifest) };
}

/**
 * The split of `docs`: made and saved on first use, then verified; its options must equal the saved ones. Progress
 * (`progress`, as phase() shows it) counts the documents hashed; the manifest is written after the last.
 */
export function textSplit(
  docs: readonly TextSource[],
  store: ManifestStore,
  o: TextSplitOptions,
  progress?: ProgressStream,
  streams?: SplitStreams,
): { bySplit: Record<Split, TextDocument[]>; manifest: TextManifest; manifestSha256: string } {
  const where = store.where(MANIFEST_FILE);
  const saved = store.read(MANIFEST_FILE);
  const bar = phase(progress, "split", docs.length, "documents");
  // once: the split, its check and the verification all compare these
  const sha = docs.map((d) => {
    const h = sha256Hex(d.text);
    bar?.tick();
    return h;
  });
  bar?.done();
  return splitOf(docs, store, o, sha, where, saved, streams, progress);
}

function splitOf(
  docs: readonly TextSource[],
  store: ManifestStore,
  o: TextSplitOptions,
  sha: readonly string[],
  where: string,
  saved: Uint8Array | undefined,
  streams?: SplitStreams,
  progress?: ProgressStream,
) {
  let m: TextManifest;
  let written: string | undefined; // the sha256 of the manifest written now
  let order: number[] | undefined; // a split made now: its k-th document is docs[order[k]], so nothing needs verifying
  if (saved) {
    m = parseTextManifest(new TextDecoder().decode(saved), where);
    if (m.seed !== o.seed)
      throw new Error(`${where} was made with --split-seed ${m.seed}, this run asks for ${o.seed}; use another directory`);
    if (m.fractions.validation !== o.validation || m.fractions.test !== o.test) {
      throw new Error(
        `${where} was made with --validation-fraction ${m.fractions.validation} --test-fraction ${m.fractions.test}, this run asks for ${o.validation} and ${o.test}; use another directory`,
      );
    }
  } else {
    ({ manifest: m, order } = splitInOrder(docs, o, sha, streams));
    const counts = (s: Split) => m.documents.filter((d) => d.split === s).length;
    if (counts("validation") === 0)
      throw new Error(
        `the split leaves validation empty: ${docs.length} document(s), --validation-fraction ${o.validation} (give more documents, e.g. --one-per-line, or a larger fraction)`,
      );
    if (counts("train") === 0) throw new Error(`the split leaves train empty: ${docs.length} document(s)`);
    const bar = phase(progress, "manifest", m.documents.length, "documents");
    const { bytes, sha256 } = manifestBytes(m, bar && ((n) => bar.tick(n)));
    bar?.done();
    store.write(MANIFEST_FILE, bytes);
    written = sha256;
  }
  const bySplit = order ? splitDocuments(m, docs, order) : verifyTextManifest(m, docs, where, undefined, sha);
  if (saved) checkSplitRule(m, docs, where, sha, streams);
  return { bySplit, manifest: m, manifestSha256: written ?? manifestSha256(m) };
}
