// A seeded train/validation/test split of a text input's documents (text_documents.ts cuts them), saved as a
// manifest with each document's sha256 (its format: text_manifest.ts), made once and verified on every later run.
// Pure: no file system (src/node/text_files.ts reads files); rebuilding a run's split for scoring is text_rebuild.ts.
import { Rng } from "../util/primitives/rng.ts";
import { jsSha256, type Sha256Hasher } from "../util/primitives/sha256.ts";
import { refuse } from "../util/formats/schema.ts";
import { phase, type ProgressStream } from "../util/runtime/progress.ts";
import type { Split, TextDocument } from "./documents.ts";
import { utf8Length, type TextSource } from "./text_documents.ts";
import {
  MANIFEST_FILE,
  manifestSha256,
  parseTextManifest,
  saveManifest,
  TEXT_MANIFEST_FORMAT,
  type ManifestStore,
  type TextManifest,
  type TextManifestDoc,
} from "./text_manifest.ts";

/** What the split is made from: its own seed (never the training seed) and the held-out fractions. */
export interface TextSplitOptions {
  seed: number;
  validation: number;
  test: number;
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
  sha: readonly string[] = docs.map((d) => jsSha256.hex(d.text)),
  streams: SplitStreams = sourceStreams,
): TextManifest {
  return splitInOrder(docs, o, sha, streams).manifest;
}

/** splitTexts, and `order`: the manifest's k-th document is docs[order[k]]. `bytes`: each text's UTF-8 length. */
function splitInOrder(
  docs: readonly TextSource[],
  o: TextSplitOptions,
  sha: readonly string[],
  streams: SplitStreams = sourceStreams,
  bytes: readonly number[] = docs.map((d) => utf8Length(d.text)),
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
      return { id: d.id, source: d.source, file: d.file, split: split[at], sha256: sha[i], bytes: bytes[i] };
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
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
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
  shaOf: readonly string[] = docs.map((d) => jsSha256.hex(d.text)),
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

/** What textSplit works with besides the documents and the store, each optional. */
export interface SplitWith {
  /** Where the phases show progress (the documents hashed, the manifest written), as phase() shows it. */
  progress?: ProgressStream;
  /** The shuffle streams by source (default sourceStreams). */
  streams?: SplitStreams;
  /** Who computes the sha256s (default the plain TypeScript one; the Node edge passes node:crypto's). */
  sha256?: Sha256Hasher;
}

/** Documents between two progress ticks while hashing: a tick per document cost a clock read each. */
const TICK_DOCUMENTS = 1024;

/**
 * The split of `docs`: made and saved on first use, then verified; its options must equal the saved ones. Progress
 * counts the documents hashed, then the manifest's documents written.
 */
export function textSplit(
  docs: readonly TextSource[],
  store: ManifestStore,
  o: TextSplitOptions,
  w: SplitWith = {},
): { bySplit: Record<Split, TextDocument[]>; manifest: TextManifest; manifestSha256: string } {
  const sha256 = w.sha256 ?? jsSha256;
  const where = store.where(MANIFEST_FILE);
  const saved = store.read(MANIFEST_FILE);
  const bar = phase(w.progress, "split", docs.length, "documents");
  // once, under the bar: the split, its check and the verification all compare these
  const sha = new Array<string>(docs.length);
  const bytes = new Array<number>(docs.length);
  for (let i = 0; i < docs.length; i++) {
    sha[i] = sha256.hex(docs[i].text);
    if (!saved) bytes[i] = utf8Length(docs[i].text); // a saved manifest's check computes its own
    if (i % TICK_DOCUMENTS === TICK_DOCUMENTS - 1) bar?.tick(TICK_DOCUMENTS);
  }
  bar?.tick(docs.length % TICK_DOCUMENTS);
  bar?.done();
  if (saved) return savedSplit(docs, o, sha, where, saved, w.streams, sha256);
  const { manifest: m, order } = splitInOrder(docs, o, sha, w.streams, bytes);
  const counts = (s: Split) => m.documents.filter((d) => d.split === s).length;
  if (counts("validation") === 0)
    throw new Error(
      `the split leaves validation empty: ${docs.length} document(s), --validation-fraction ${o.validation} (give more documents, e.g. --one-per-line, or a larger fraction)`,
    );
  if (counts("train") === 0) throw new Error(`the split leaves train empty: ${docs.length} document(s)`);
  const written = saveManifest(store, m, sha256, w.progress);
  // a split made now: its k-th document is docs[order[k]], so nothing needs verifying
  return { bySplit: splitDocuments(m, docs, order), manifest: m, manifestSha256: written };
}

/** The split a saved manifest holds, refused unless it has these options, these documents and its own rule's split. */
function savedSplit(
  docs: readonly TextSource[],
  o: TextSplitOptions,
  sha: readonly string[],
  where: string,
  saved: Uint8Array,
  streams: SplitStreams | undefined,
  sha256: Sha256Hasher,
) {
  const m = parseTextManifest(new TextDecoder().decode(saved), where);
  if (m.seed !== o.seed)
    throw new Error(`${where} was made with --split-seed ${m.seed}, this run asks for ${o.seed}; use another directory`);
  if (m.fractions.validation !== o.validation || m.fractions.test !== o.test) {
    throw new Error(
      `${where} was made with --validation-fraction ${m.fractions.validation} --test-fraction ${m.fractions.test}, this run asks for ${o.validation} and ${o.test}; use another directory`,
    );
  }
  const bySplit = verifyTextManifest(m, docs, where, undefined, sha);
  checkSplitRule(m, docs, where, sha, streams);
  return { bySplit, manifest: m, manifestSha256: manifestSha256(m, sha256) };
}
