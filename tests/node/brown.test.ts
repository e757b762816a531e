// Contracts of the Brown corpus loader and its seeded, genre-stratified split (src/node/brown.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BROWN_GENRES, brownDir, detag, loadBrown, readManifest, sha256Hex, splitBrown, verifyManifest, writeManifest,
  type BrownDoc, type SplitManifest,
} from "../../src/node/brown.ts";
import { Rng } from "../../src/util/rng.ts";

let docs: BrownDoc[];
let manifest: SplitManifest;
let tmp: string;

beforeAll(() => {
  docs = loadBrown();
  manifest = splitBrown(docs, { seed: 0 });
  tmp = mkdtempSync(join(tmpdir(), "brown-test-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("loadBrown", () => {
  it("has 500 documents in 15 genres, named as in the corpus's CONTENTS and consistent with cats.txt", () => {
    expect(docs.length).toBe(500);
    expect(new Set(docs.map((d) => d.genre)).size).toBe(15);
    const contents = readFileSync(join(brownDir(), "CONTENTS"), "utf8").split("LIST OF TEXTS")[0];
    const named = new Map([...contents.matchAll(/^([A-R])[.:] (.+?)\s*$/gm)].map((m) => [m[1].toLowerCase(), m[2]]));
    expect(named.size).toBe(15);
    for (const [letter, name] of Object.entries(BROWN_GENRES)) expect(name.toUpperCase()).toBe(named.get(letter));
    // cats.txt names each file's category in NLTK's words: one category per letter, 15 in all.
    const cat = new Map(readFileSync(join(brownDir(), "cats.txt"), "utf8").trim().split("\n").map((l) => l.split(" ") as [string, string]));
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
    expect(docs[0].text.startsWith("The Fulton County Grand Jury said Friday an investigation of Atlanta's recent primary election")).toBe(true);
  });
});

describe("detag", () => {
  it("strips tags at the last slash and rebuilds spacing, quotes, headlines and paragraphs", () => {
    const raw = [
      "", "",
      "Merger/nn-hl proposed/vbn-hl ",
      "\tThe/at City/nn-tl of/in-tl Atlanta's/np$ jury/nn did/dod not/* say/vb ``/`` no/at ''/'' ,/, but/cc it's/pps+bez " +
        "1-1/2/cd miles/nns (/( about/rb 2/cd km/nns )/) ./.",
      "It/pps quoted/vbd Ivan/np Allen/np Jr./np ./.",
      "", "",
      "\tHe/pps said/vbd :/: ``/`` Call/vb it/ppo '/' bold/jj '/' ;/. the/at 10''/nn ''/'' bar/nn --/-- fine/jj ''/'' ./. ``/`` Why/wrb ''/'' ?/. ?/.",
      "", "",
    ].join("\n");
    expect(detag(raw)).toBe(
      "Merger proposed\n" +
        `The City of Atlanta's jury did not say "no," but it's 1-1/2 miles (about 2 km). It quoted Ivan Allen Jr.\n` +
        `He said: "Call it 'bold'; the 10'' bar -- fine." "Why?"`,
    );
  });
});

describe("splitBrown", () => {
  it("holds out round(n/10) files per genre for val and for test, at least one each", () => {
    for (const genre of Object.keys(BROWN_GENRES)) {
      const n = docs.filter((d) => d.genre === genre).length;
      const k = Math.max(1, Math.round(n * 0.1));
      expect(sizes(manifest, genre), genre).toEqual({ train: n - 2 * k, val: k, test: k });
    }
  });

  it("is about 80/10/10 overall", () => {
    const n = sizes(manifest);
    expect(n.train + n.val + n.test).toBe(500);
    for (const [split, f] of [["train", 0.8], ["val", 0.1], ["test", 0.1]] as const) {
      expect(Math.abs(n[split] / 500 - f)).toBeLessThan(0.015);
    }
  });

  it("is stable: same seed same split, whatever the input order; another seed moves files", () => {
    expect(splitBrown(docs, { seed: 0 })).toEqual(manifest);
    expect(splitBrown(Rng.fromSeed("order").shuffle(docs), { seed: 0 })).toEqual(manifest);
    const other = splitBrown(docs, { seed: 1 });
    expect(other.documents.map((d) => d.split)).not.toEqual(manifest.documents.map((d) => d.split));
    expect(sizes(other)).toEqual(sizes(manifest));
  });

  it("records seed, fractions, provenance, sha256 and byte counts", () => {
    expect(manifest.seed).toBe(0);
    expect(manifest.fractions).toEqual([0.8, 0.1, 0.1]);
    expect(manifest.created_by).toMatch(/brown/);
    const d = manifest.documents[0];
    expect(d).toMatchObject({ id: "ca01", genre: "a", source: "Press: Reportage", sha256: sha256Hex(docs[0].text) });
    expect(d.bytes).toBe(Buffer.byteLength(docs[0].text, "utf8"));
  });

  it("refuses bad fractions", () => {
    expect(() => splitBrown(docs, { seed: 0, fractions: [0.8, 0.1, 0.2] })).toThrow(/summing to 1/);
    expect(() => splitBrown([docs[0], docs[0]], { seed: 0 })).toThrow(/duplicate document id ca01/);
  });
});

describe("manifest", () => {
  it("round-trips through a file and verifies against the corpus", () => {
    const path = join(tmp, "split.json");
    writeManifest(path, manifest);
    const back = readManifest(path);
    expect(back).toEqual(manifest);
    const parts = verifyManifest(back, docs);
    expect(parts.val.length).toBe(sizes(back).val);
    expect(new Set([...parts.train, ...parts.val, ...parts.test].map((d) => d.id)).size).toBe(500);
  });

  it("catches a modified or missing text and names the document", () => {
    const edited = docs.map((d) => (d.id === "cg12" ? { ...d, text: d.text.replace("the", "teh") } : d));
    expect(() => verifyManifest(manifest, edited)).toThrow(/document cg12 .*sha256/);
    expect(() => verifyManifest(manifest, docs.filter((d) => d.id !== "cr09"))).toThrow(/document cr09 is missing/);
  });

  it("readManifest refuses a malformed file", () => {
    const path = join(tmp, "bad.json");
    writeFileSync(path, JSON.stringify({ ...manifest, documents: [{ ...manifest.documents[0], split: "dev" }] }));
    expect(() => readManifest(path)).toThrow(/malformed document entry/);
  });
});

/** Documents per split, over one genre or all. */
function sizes(m: SplitManifest, genre?: string): Record<"train" | "val" | "test", number> {
  const n = { train: 0, val: 0, test: 0 };
  for (const d of m.documents) if (genre === undefined || d.genre === genre) n[d.split]++;
  return n;
}
