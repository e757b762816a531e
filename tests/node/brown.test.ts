// Contracts of the Brown corpus loader and its seeded, genre-stratified split (src/node/brown.ts): the text split by genre.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  BROWN_FRACTIONS,
  BROWN_GENRES,
  brownDir,
  brownSources,
  brownSplit,
  detag,
  genreStreams,
  loadBrown,
  type BrownDoc,
} from "../../src/node/brown.ts";
import { splitTexts } from "../../src/data/text_split.ts";
import { MANIFEST_FILE, parseTextManifest, type TextManifest } from "../../src/data/text_manifest.ts";
import { memoryStore } from "../../src/lab/store.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { sha256Hex } from "../../src/util/primitives/sha256.ts";

let docs: BrownDoc[];
let manifest: TextManifest;

/** The Brown split's manifest for `seed`, as brownSplit makes it. */
const splitBrown = (d: readonly BrownDoc[], seed: number) =>
  splitTexts(brownSources(d), { seed, ...BROWN_FRACTIONS }, undefined, genreStreams);

beforeAll(() => {
  docs = loadBrown();
  manifest = splitBrown(docs, 0);
});

describe("loadBrown", () => {
  it("has 500 documents in 15 genres, named as in the corpus's CONTENTS and consistent with cats.txt", () => {
    expect(docs.length).toBe(500);
    expect(new Set(docs.map((d) => d.genre)).size).toBe(15);
    const contents = readFileSync(join(brownDir(), "CONTENTS"), "utf8").split("LIST OF TEXTS")[0];
    const named = new Map([...contents.matchAll(/^([A-R])[.:] (.+?)\s*$/gm)].map((m) => [m[1].toLowerCase(), m[2]]));
    expect(named.size).toBe(15);
    for (const [letter, name] of Object.entries(BROWN_GENRES)) expect(name.toUpperCase()).toBe(named.get(letter));
    // cats.txt names each file's category in NLTK's words: one category per letter, 15 in all.
    const cat = new Map(
      readFileSync(join(brownDir(), "cats.txt"), "utf8")
        .trim()
        .split("\n")
        .map((l) => l.split(" ") as [string, string]),
    );
    const perLetter = new Map<string, Set<string>>();
    for (const d of docs) perLetter.set(d.genre, (perLetter.get(d.genre) ?? new Set()).add(cat.get(d.id)!));
    expect([...perLetter.values()].every((s) => s.size === 1)).toBe(true);
    expect(new Set([...perLetter.values()].map((s) => [...s][0])).size).toBe(15);
  });

  it("gives id, genre letter, source and untagged text", () => {
    for (const d of docs) {
      expect(d.id).toMatch(new RegExp(`^c${d.genre}\\d\\d$`));
      expect(d.source).toBe(BROWN_GENRES[d.genre]);
      expect(d.text.length).toBeGreaterThan(5000); // each Brown sample is ~2,000 words
      // No opening-quote marks, tabs or common tags left ("/in" alone is real text in cj76: "0F./in.").
      expect(d.text.match(/``|\/(nn|nns|at|jj|vbd)\b|\t/)?.[0], d.id).toBeUndefined();
    }
    expect(docs[0].text.startsWith("The Fulton County Grand Jury said Friday an investigation of Atlanta's recent primary election")).toBe(
      true,
    );
  });
});

describe("detag", () => {
  it("strips tags at the last slash and rebuilds spacing, quotes, headlines and paragraphs", () => {
    const raw = [
      "",
      "",
      "Merger/nn-hl proposed/vbn-hl ",
      "\tThe/at City/nn-tl of/in-tl Atlanta's/np$ jury/nn did/dod not/* say/vb ``/`` no/at ''/'' ,/, but/cc it's/pps+bez " +
        "1-1/2/cd miles/nns (/( about/rb 2/cd km/nns )/) ./.",
      "It/pps quoted/vbd Ivan/np Allen/np Jr./np ./.",
      "",
      "",
      "\tHe/pps said/vbd :/: ``/`` Call/vb it/ppo '/' bold/jj '/' ;/. the/at 10''/nn ''/'' bar/nn --/-- fine/jj ''/'' ./. ``/`` Why/wrb ''/'' ?/. ?/.",
      "",
      "",
    ].join("\n");
    expect(detag(raw)).toBe(
      "Merger proposed\n" +
        `The City of Atlanta's jury did not say "no," but it's 1-1/2 miles (about 2 km). It quoted Ivan Allen Jr.\n` +
        `He said: "Call it 'bold'; the 10'' bar -- fine." "Why?"`,
    );
  });
});

describe("the Brown split", () => {
  it("holds out round(n/10) files per genre for validation and for test, at least one each", () => {
    for (const [genre, name] of Object.entries(BROWN_GENRES)) {
      const n = docs.filter((d) => d.genre === genre).length;
      const k = Math.max(1, Math.round(n * 0.1));
      expect(sizes(manifest, name), genre).toEqual({ train: n - 2 * k, validation: k, test: k });
    }
  });

  it("is about 80/10/10 overall", () => {
    const n = sizes(manifest);
    expect(n.train + n.validation + n.test).toBe(500);
    for (const [split, f] of [
      ["train", 0.8],
      ["validation", 0.1],
      ["test", 0.1],
    ] as const) {
      expect(Math.abs(n[split] / 500 - f)).toBeLessThan(0.015);
    }
  });

  it("is stable: same seed same split, whatever the input order; another seed moves files", () => {
    expect(splitBrown(docs, 0)).toEqual(manifest);
    expect(splitBrown(Rng.fromSeed("order").shuffle(docs), 0)).toEqual(manifest);
    const other = splitBrown(docs, 1);
    expect(other.documents.map((d) => d.split)).not.toEqual(manifest.documents.map((d) => d.split));
    expect(sizes(other)).toEqual(sizes(manifest));
  });

  it("shuffles each genre by its own stream `genre-<letter>`, and refuses a source that is no genre", () => {
    expect(genreStreams("Press: Reportage")).toBe("genre-a");
    expect(genreStreams("Humor")).toBe("genre-r");
    expect(() => genreStreams("Poetry")).toThrow('brown: "Poetry" is not a Brown genre');
    // the text split's default streams draw another split of the same documents: the stream name matters
    const byDefault = splitTexts(brownSources(docs), { seed: 0, ...BROWN_FRACTIONS });
    expect(byDefault.documents.map((d) => d.split)).not.toEqual(manifest.documents.map((d) => d.split));
  });

  it("records seed, fractions, sha256 and byte counts", () => {
    expect(manifest.seed).toBe(0);
    expect(manifest.fractions).toEqual({ validation: 0.1, test: 0.1 });
    const d = manifest.documents[0];
    expect(d).toMatchObject({ id: "ca01", source: "Press: Reportage", file: "ca01", sha256: sha256Hex(docs[0].text) });
    expect(d.bytes).toBe(Buffer.byteLength(docs[0].text, "utf8"));
  });
});

describe("manifest", () => {
  it("is written on first use and verified against the corpus after", () => {
    const store = memoryStore();
    const first = brownSplit(docs, store, 0);
    const saved = parseTextManifest(new TextDecoder().decode(store.read(MANIFEST_FILE)!), MANIFEST_FILE);
    expect(saved).toEqual(manifest);
    const again = brownSplit(docs, store, 0);
    expect(again).toEqual(first);
    expect(first.validation.length).toBe(sizes(manifest).validation);
    expect(new Set([...first.train, ...first.validation, ...first.test].map((d) => d.id)).size).toBe(500);
  });

  it("catches a modified or missing text and names the document", () => {
    const store = memoryStore();
    brownSplit(docs, store, 0);
    const edited = docs.map((d) => (d.id === "cg12" ? { ...d, text: d.text.replace("the", "teh") } : d));
    expect(() => brownSplit(edited, store, 0)).toThrow(/document cg12 has sha256/);
    expect(() =>
      brownSplit(
        docs.filter((d) => d.id !== "cr09"),
        store,
        0,
      ),
    ).toThrow(/document cr09 of the split is missing/);
    expect(() => brownSplit(docs, store, 1)).toThrow(/was made with --split-seed 0, this run asks for 1/);
  });
});

/** Documents per split, over one genre (by name) or all. */
function sizes(m: TextManifest, genre?: string): Record<"train" | "validation" | "test", number> {
  const n = { train: 0, validation: 0, test: 0 };
  for (const d of m.documents) if (genre === undefined || d.source === genre) n[d.split]++;
  return n;
}
