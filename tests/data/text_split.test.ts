// The text split: documents from blank lines or lines, a seeded split by document (its own seed, input order
// irrelevant, stratified by source), the manifest verified and refused by file, and the fraction refusals.
import { describe, expect, it } from "vitest";
import { splitTexts, textSplit, verifyTextManifest } from "../../src/data/text_split.ts";
import { documentsOfText, type TextSource } from "../../src/data/text_documents.ts";
import { jsonSha256, manifestChunks, manifestSha256, manifestJsonPieces } from "../../src/data/text_manifest.ts";
import { sha256Hex } from "../../src/util/primitives/sha256.ts";

const docs = (n: number, source = "s"): TextSource[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `${source}/${i}.txt`,
    source,
    file: `/x/${source}/${i}.txt`,
    text: `document ${source} ${i}`,
  }));
const joined = (chunks: Uint8Array[]) => {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  chunks.reduce((at, c) => (out.set(c, at), at + c.length), 0);
  return out;
};
const memory = () => {
  const files = new Map<string, string>();
  return {
    files,
    read: (n: string) => (files.has(n) ? new TextEncoder().encode(files.get(n)) : undefined),
    write: (n: string, d: Uint8Array | string) => {
      files.set(n, typeof d === "string" ? d : new TextDecoder().decode(d));
    },
    where: (n: string) => `mem:${n}`,
  };
};

describe("text split", () => {
  it("documents: blank-line blocks (CRLF and spaces-only lines too) or one per non-blank line", () => {
    const text = "\ufeffone a\r\none b\r\n \r\ntwo\n\n\n\nthree\n";
    expect(documentsOfText(text, "f.txt", "f", false).map((d) => [d.id, d.text])).toEqual([
      ["f.txt#1", "one a\none b"],
      ["f.txt#2", "two"],
      ["f.txt#3", "three"],
    ]);
    expect(documentsOfText(text, "f.txt", "f", true).map((d) => d.text)).toEqual(["one a", "one b", "two", "three"]);
  });

  it("is a function of the documents and the split seed only: input order does not matter, another seed moves documents", () => {
    const all = [...docs(20, "a"), ...docs(10, "b")];
    const m = splitTexts(all, { seed: 3, validation: 0.1, test: 0.1 });
    expect(splitTexts([...all].reverse(), { seed: 3, validation: 0.1, test: 0.1 })).toEqual(m);
    const count = (s: string, src: string) => m.documents.filter((d) => d.split === s && d.source === src).length;
    // stratified: round(n · fraction) of each source, at least one of each held-out split for ≥ 3 documents
    expect([count("validation", "a"), count("test", "a"), count("train", "a")]).toEqual([2, 2, 16]);
    expect([count("validation", "b"), count("test", "b"), count("train", "b")]).toEqual([1, 1, 8]);
    const other = splitTexts(all, { seed: 4, validation: 0.1, test: 0.1 });
    expect(other.documents.map((d) => d.split)).not.toEqual(m.documents.map((d) => d.split));
  });

  it("verifies every document: a changed text is refused naming its file, an added one too", () => {
    const all = docs(10);
    const m = splitTexts(all, { seed: 0, validation: 0.2, test: 0 });
    expect(Object.values(verifyTextManifest(m, all, "mem:manifest.json")).flat()).toHaveLength(10);
    const edited = all.map((d, i) => (i === 4 ? { ...d, text: d.text + "!" } : d));
    expect(() => verifyTextManifest(m, edited, "mem:manifest.json")).toThrow(
      /^\/x\/s\/4\.txt changed: document s\/4\.txt has sha256 [0-9a-f]{12}…, the manifest says/,
    );
    expect(() => verifyTextManifest(m, [...all, ...docs(11).slice(10)], "m")).toThrow(
      /^\/x\/s\/10\.txt changed: document s\/10\.txt is not in the split/,
    );
  });

  it("verifies a manifest whose documents lost one (a map, not the sorted pairing) and refuses an id given twice", () => {
    const all = docs(10);
    const m = splitTexts(all, { seed: 0, validation: 0.2, test: 0 });
    expect(() => verifyTextManifest(m, all.slice(1), "m")).toThrow(/^\/x\/s\/0\.txt: document s\/0\.txt of the split is missing/);
    expect(() => splitTexts([...all, all[3]], { seed: 0, validation: 0.2, test: 0 })).toThrow(
      /^text split: document id s\/3\.txt appears twice$/,
    );
  });

  it("hashes the manifest's JSON a document at a time, to the same bytes as JSON.stringify at any indent", () => {
    const m = splitTexts([...docs(7, "a"), ...docs(3, 'é"q')], { seed: 1, validation: 0.2, test: 0.1 });
    const empty = { ...m, documents: [] };
    // more documents than one piece holds (DOCUMENTS_A_PIECE, 256): 600 are three pieces
    const many = splitTexts([...docs(590, "a"), ...docs(10, 'é"q')], { seed: 1, validation: 0.2, test: 0.1 });
    for (const x of [m, empty, many]) {
      for (const indent of [0, 1, 2]) expect([...manifestJsonPieces(x, indent)].join("")).toBe(JSON.stringify(x, null, indent));
      expect(jsonSha256(x, 0)).toBe(sha256Hex(JSON.stringify(x)));
      expect(jsonSha256(x, 1, "\n")).toBe(sha256Hex(JSON.stringify(x, null, 1) + "\n"));
    }
  });

  it("writes manifest.json's bytes a chunk at a time, exactly TextEncoder's of JSON.stringify, with their sha256", () => {
    // non-ASCII (2- and 4-byte UTF-8) and a lone surrogate (3 bytes, as U+FFFD) in ids and sources
    const m = splitTexts([...docs(5, "a"), ...docs(4, 'é"q'), ...docs(3, "𝄞\ud800")], { seed: 1, validation: 0.2, test: 0.1 });
    const many = splitTexts([...docs(590, "a"), ...docs(10, "𝄞\ud800")], { seed: 1, validation: 0.2, test: 0.1 });
    for (const x of [m, { ...m, documents: [] }, many]) {
      const whole = new TextEncoder().encode(JSON.stringify(x, null, 1) + "\n");
      // chunks of the default size, of a few KB (a piece of 256 documents widens the buffer) and of 64 bytes
      for (const size of [undefined, 4096, 64]) {
        const ticks: number[] = [];
        const chunks: Uint8Array[] = [];
        for (const c of manifestChunks(x, (n) => ticks.push(n), size)) chunks.push(c.slice()); // each view is valid until the next
        expect(joined(chunks)).toEqual(whole);
        expect(ticks.reduce((a, b) => a + b, 0)).toBe(x.documents.length); // every document counted once
      }
      expect(manifestSha256(x)).toBe(sha256Hex(whole));
    }
  });

  it("saves the same manifest.json, and says its sha256, through a store that writes chunks and one that takes it whole", () => {
    const all = [...docs(590, "a"), ...docs(10, 'é"q')];
    const whole = memory();
    const chunked = memory();
    const pieces: Uint8Array[] = [];
    const byChunks = {
      ...chunked,
      writeChunks: (name: string, cs: Iterable<Uint8Array>) => {
        for (const c of cs) pieces.push(c.slice());
        chunked.write(name, joined(pieces));
      },
    };
    const a = textSplit(all, whole, { seed: 1, validation: 0.2, test: 0.1 });
    const b = textSplit(all, byChunks, { seed: 1, validation: 0.2, test: 0.1 });
    expect(pieces.length).toBeGreaterThan(0);
    expect(chunked.files.get("manifest.json")).toBe(whole.files.get("manifest.json"));
    expect(b.manifestSha256).toBe(a.manifestSha256);
    expect(a.manifestSha256).toBe(sha256Hex(whole.files.get("manifest.json")!));
  });

  it("saves the manifest once, reuses it, and refuses another split seed or fraction by option name", () => {
    const store = memory();
    const first = textSplit(docs(10), store, { seed: 1, validation: 0.2, test: 0.1 });
    expect(store.files.has("manifest.json")).toBe(true);
    expect(textSplit(docs(10), store, { seed: 1, validation: 0.2, test: 0.1 }).bySplit).toEqual(first.bySplit);
    expect(() => textSplit(docs(10), store, { seed: 2, validation: 0.2, test: 0.1 })).toThrow(
      /made with --split-seed 1, this run asks for 2/,
    );
    expect(() => textSplit(docs(10), store, { seed: 1, validation: 0.3, test: 0.1 })).toThrow(
      /made with --validation-fraction 0\.2 --test-fraction 0\.1/,
    );
  });

  it("refuses fractions that leave nothing to train on or nothing to validate on", () => {
    expect(() => splitTexts(docs(5), { seed: 0, validation: 0.6, test: 0.4 })).toThrow(/leave no training documents/);
    expect(() => textSplit(docs(2), memory(), { seed: 0, validation: 0.1, test: 0 })).toThrow(
      /^the split leaves validation empty: 2 document\(s\)/,
    );
  });

  describe("a saved manifest that is not what it claims, refused in one line naming the file and the field", () => {
    const opts = { seed: 0, validation: 0.2, test: 0.2 };
    type M = ReturnType<typeof splitTexts>;
    const withManifest = (edit: (m: M) => unknown) => {
      const store = memory();
      const m = splitTexts(docs(10), opts);
      const edited = edit(structuredClone(m));
      store.files.set("manifest.json", typeof edited === "string" ? edited : JSON.stringify(edited, null, 1));
      return () => textSplit(docs(10), store, opts);
    };
    it("accepts the manifest as written (the control)", () => {
      expect(withManifest((m) => m)().bySplit.test).toHaveLength(2);
    });
    it.each<[string, (m: M) => unknown, RegExp]>([
      [
        "test documents moved to train (a fresh run printed 0 test documents before)",
        (m) => ({ ...m, documents: m.documents.map((d) => ({ ...d, split: d.split === "test" ? "train" : d.split })) }),
        /^mem:manifest\.json: documents\[\d+\]\.split: is not what --split-seed 0 --validation-fraction 0\.2 --test-fraction 0\.2 gives \("test"\) \(got "train"\)$/,
      ],
      [
        "a null document (a raw TypeError before)",
        (m) => ({ ...m, documents: [null, ...m.documents.slice(1)] }),
        /^mem:manifest\.json: documents\[0\]: must be an object, not null \(got null\)$/,
      ],
      [
        "no fractions (a raw TypeError before)",
        ({ fractions: _f, ...m }) => m,
        /^mem:manifest\.json: fractions: is missing \(got nothing\)$/,
      ],
      [
        'a seed written as a string ("made with --split-seed 0, this run asks for 0" before)',
        (m) => ({ ...m, seed: "0" }),
        /^mem:manifest\.json: seed: must be an integer, not a string \(got "0"\)$/,
      ],
      [
        "a document listed twice (reported as missing before)",
        (m) => ({ ...m, documents: [...m.documents.slice(0, 3), m.documents[2], ...m.documents.slice(4)] }),
        /^mem:manifest\.json: documents\[3\]\.id: is given twice \(also at documents\[2\]\) \(got "s\/2\.txt"\)$/,
      ],
      [
        "a key given twice",
        (m) => JSON.stringify(m).replace('"seed":0', '"seed":0,"seed":1'),
        /^mem:manifest\.json: not valid JSON: key "seed" is given twice \(seed\) at line 1, column \d+$/,
      ],
      [
        "a byte count that does not match the text",
        (m) => ({ ...m, documents: m.documents.map((d, i) => (i === 1 ? { ...d, bytes: d.bytes + 1 } : d)) }),
        /^mem:manifest\.json: documents\[1\]\.bytes: is not what .* gives \(\d+\) \(got \d+\)$/,
      ],
      [
        "a bad sha256",
        (m) => ({ ...m, documents: m.documents.map((d, i) => (i === 1 ? { ...d, sha256: "x" } : d)) }),
        /^mem:manifest\.json: documents\[1\]\.sha256: must be a sha256 in 64 lowercase hex digits \(got "x"\)$/,
      ],
      [
        "fractions leaving nothing to train on",
        (m) => ({ ...m, fractions: { validation: 0.5, test: 0.5 } }),
        /^mem:manifest\.json: fractions: must leave documents to train on/,
      ],
    ])("%s", (_, edit, expected) => {
      expect(withManifest(edit)).toThrow(expected);
    });
  });
});
