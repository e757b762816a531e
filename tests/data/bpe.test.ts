// Contracts of the byte-level BPE (src/data/bpe.ts) and the tokenizer loader (src/data/load_tokenizer.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BpeTokenizer, bpeSample, splitChunks, trainBpe } from "../../src/data/bpe.ts";
import { brownDir, detag } from "../../src/node/brown.ts";
import { tokenizerFromJSON } from "../../src/data/load_tokenizer.ts";
import { ByteTokenizer } from "../../src/data/tokenizer.ts";
import { Rng } from "../../src/util/primitives/rng.ts";

const utf8 = new TextEncoder();
const str = (tok: BpeTokenizer, id: number): string => new TextDecoder().decode(tok.bytesOf(id));

// A few real files keep training fast (~100 KB) while giving realistic merges.
const TRAIN_IDS = ["ca01", "cb02", "cd03", "cf04", "cg05", "cj06", "ck07", "cn08", "cp09", "cr01"];
const HELD_OUT_ID = "cl01";
let texts: string[];
let heldOut: string;
let tok: BpeTokenizer;

beforeAll(() => {
  const read = (id: string) => detag(readFileSync(join(brownDir(), id), "utf8"));
  texts = TRAIN_IDS.map(read);
  heldOut = read(HELD_OUT_ID);
  tok = trainBpe(texts, 600);
});

/** Random well-formed text: code points drawn from ASCII, Latin, CJK, emoji and punctuation blocks. */
function randomText(rng: Rng, length: number): string {
  const blocks: [number, number][] = [
    [0x20, 0x7e],
    [0x0a, 0x0a],
    [0xa0, 0x24f],
    [0x4e00, 0x9fff],
    [0x1f300, 0x1faff],
    [0x2000, 0x206f],
    [0x10000, 0x10ffff],
  ];
  let s = "";
  for (let i = 0; i < length; i++) {
    const [lo, hi] = blocks[rng.int(blocks.length)];
    s += String.fromCodePoint(lo + rng.int(hi - lo + 1));
  }
  return s;
}

const SAMPLES = [
  "",
  "Hello, world!  It's 2024.\n\n\tIndented   spaces ",
  "“Curly quotes” and ‘single’ — em dash… café naïve",
  "日本語のテキスト、中文文本。한국어",
  "emoji 😀👍🏽 family 👨‍👩‍👧 flags 🇫🇷",
  "\u0000\u0001\u007f control bytes \r\n",
];

describe("splitChunks", () => {
  it("covers the text exactly and keeps a word's leading space with it", () => {
    expect(splitChunks("Hello, world!  It's 42\n\n ok")).toEqual(["Hello", ",", " world", "!", " ", " It", "'s", " 42", "\n\n", " ok"]);
    const rng = Rng.fromSeed("chunks");
    for (let i = 0; i < 50; i++) {
      const t = randomText(rng, 40);
      expect(splitChunks(t).join("")).toBe(t);
    }
  });
});

describe("BpeTokenizer round trip", () => {
  it("decode(encode(t)) === t for samples, Brown text and seeded random Unicode", () => {
    for (const t of [...SAMPLES, heldOut]) expect(tok.decode(tok.encode(t))).toBe(t);
    const rng = Rng.fromSeed("roundtrip");
    for (let i = 0; i < 200; i++) {
      const t = randomText(rng, 1 + rng.int(60));
      expect(tok.decode(tok.encode(t))).toBe(t);
    }
  });

  it("replaces a lone surrogate by U+FFFD, as UTF-8 (TextEncoder) must", () => {
    expect(tok.decode(tok.encode("a\ud800b"))).toBe("a\ufffdb");
  });

  it("bytesOf over the ids concatenates to the text's UTF-8 bytes", () => {
    for (const t of [...SAMPLES, heldOut.slice(0, 5000)]) {
      const bytes = tok.encode(t).flatMap((id) => Array.from(tok.bytesOf(id)));
      expect(bytes).toEqual(Array.from(utf8.encode(t)));
    }
  });

  it("compresses held-out English below one token per byte", () => {
    const ids = tok.encode(heldOut);
    expect(ids.length).toBeLessThan(0.7 * utf8.encode(heldOut).length);
    expect(ids.every((id) => id >= 2 && id < tok.vocabSize)).toBe(true);
  });
});

describe("merges never cross chunk boundaries", () => {
  it("every chunk boundary is a token boundary", () => {
    for (const t of [heldOut, ...SAMPLES]) {
      const tokenEnds = new Set<number>();
      let at = 0;
      for (const id of tok.encode(t)) tokenEnds.add((at += tok.bytesOf(id).length));
      at = 0;
      for (const c of splitChunks(t)) expect(tokenEnds.has((at += utf8.encode(c).length))).toBe(true);
    }
  });

  it("no learned token joins two words: a space appears only first, or in an all-whitespace token", () => {
    for (let id = 258; id < tok.vocabSize; id++) {
      const s = str(tok, id); // Brown is ASCII, so every token decodes to whole characters
      expect(/^\s+$/.test(s) || !/\s/.test(s.slice(1)), JSON.stringify(s)).toBe(true);
    }
  });
});

describe("trainBpe", () => {
  it("works out the first merges of a toy text by hand", () => {
    // "aaabdaaabac" is one chunk; ids are byte + 2 (a=99, b=100, c=101, d=102).
    // Pair counts: aa 4, ab 2, bd da ba ac 1 each → merge 258 = (a,a); "aaab" → [aa, a, b].
    // Now [258 99 100 102 258 99 100 99 101]: (258,99) 2 and (99,100) 2 tie → lower first id: 259 = (a,b).
    // Now [258 259 102 258 259 99 101]: (258,259) 2 → 260. Encoding gives [260, d, 260, a, c].
    const t = trainBpe(["aaabdaaabac"], 261, { minCount: 1 });
    expect(t.mergeList()).toEqual([
      [99, 99],
      [99, 100],
      [258, 259],
    ]);
    expect(t.encode("aaabdaaabac")).toEqual([260, 102, 260, 99, 101]);
  });

  it("learns word pieces without crossing words on a second toy", () => {
    // Chunks: "low", " lower", " lowest", " newer", " wider", " new". Count-3 pairs: (e,r), (l,o), (o,w),
    // (w,e); lowest first id is e (103) → "er". Then w·e drops to 1 (only "lowest"); (l,o) 3 → "lo",
    // (lo,w) 3 → "low". Left at 2: (space,n), (space,low), (n,e), (e,w); lowest pair is (32+2, n) → " n".
    const t = trainBpe(["low lower lowest newer wider new"], 262, { minCount: 1 });
    expect(t.mergeList().map((_, r) => str(t, 258 + r))).toEqual(["er", "lo", "low", " n"]);
  });

  it("matches a naive trainer that recounts every pair at every step", () => {
    // The incremental counts are the fast path; this reference rescans all chunks per merge.
    const sub = texts.slice(0, 2);
    const freq = new Map<string, number>();
    for (const t of sub) for (const c of splitChunks(t)) freq.set(c, (freq.get(c) ?? 0) + 1);
    let words = [...freq].map(([c, n]) => ({ ids: Array.from(utf8.encode(c), (b) => b + 2), n }));
    const merges: [number, number][] = [];
    for (let id = 258; id < 358; id++) {
      const counts = new Map<string, number>();
      for (const w of words)
        for (let i = 0; i + 1 < w.ids.length; i++) {
          const k = `${w.ids[i]},${w.ids[i + 1]}`;
          counts.set(k, (counts.get(k) ?? 0) + w.n);
        }
      const [a, b] = [...counts]
        .map(([k, n]) => [...k.split(",").map(Number), n])
        .sort((x, y) => y[2] - x[2] || x[0] - y[0] || x[1] - y[1])[0];
      merges.push([a, b]);
      words = words.map(({ ids, n }) => {
        const out: number[] = [];
        for (let i = 0; i < ids.length; i++) {
          if (ids[i] === a && ids[i + 1] === b) (out.push(id), i++);
          else out.push(ids[i]);
        }
        return { ids: out, n };
      });
    }
    expect(trainBpe(sub, 358).mergeList()).toEqual(merges);
  });

  it("is deterministic and independent of the order of the training texts", () => {
    const sub = texts.slice(0, 4);
    const a = trainBpe(sub, 400).toJSON();
    expect(trainBpe(sub, 400).toJSON()).toEqual(a);
    expect(trainBpe([...sub].reverse(), 400).toJSON()).toEqual(a);
  });

  it("respects vocab limits", () => {
    expect(() => trainBpe(texts, 257)).toThrow(/≥ 258/);
    expect(() => trainBpe(texts, 300.5)).toThrow(/integer/);
    const none = trainBpe(texts, 258);
    expect(none.vocabSize).toBe(258);
    expect(none.encode("héllo")).toEqual(new ByteTokenizer().encode("héllo"));
    expect(() => trainBpe(["abab"], 300)).toThrow(/too large/);
    expect(tok.vocabSize).toBe(600);
    for (const id of [0, 1, 600, -1, 2.5]) expect(tok.bytesOf(id).length).toBe(0);
    expect(tok.decode([0, ...tok.encode("hi"), 1, 9999])).toBe("hi");
  });
});

describe("JSON", () => {
  it("round-trips through toJSON / JSON text / fromJSON and tokenizerFromJSON", () => {
    const json = JSON.parse(JSON.stringify(tok.toJSON()));
    expect(json.kind).toBe("bpe");
    expect(json.merges.length).toBe(600 - 258);
    for (const back of [BpeTokenizer.fromJSON(json), tokenizerFromJSON(json)]) {
      expect(back.vocabSize).toBe(600);
      expect(back.encode(heldOut)).toEqual(tok.encode(heldOut));
    }
  });

  it("fromJSON refuses malformed input with a clear reason", () => {
    const ok = {
      kind: "bpe",
      vocabSize: 260,
      merges: [
        [99, 99],
        [258, 99],
      ],
    };
    expect(BpeTokenizer.fromJSON(ok).vocabSize).toBe(260);
    const bad: [unknown, RegExp][] = [
      [null, /must be an object/],
      [[1, 2], /must be an object/],
      [{ ...ok, kind: "byte" }, /kind "bpe"/],
      [{ ...ok, vocabSize: 100 }, /≥ 258/],
      [{ ...ok, merges: "x" }, /array/],
      [{ ...ok, vocabSize: 261 }, /needs 3 merges, got 2/],
      [
        {
          ...ok,
          merges: [
            [99, 99],
            [259, 99],
          ],
        },
        /merge 1 .*id 259 is not a byte or an earlier merge/,
      ],
      [
        {
          ...ok,
          merges: [
            [0, 99],
            [258, 99],
          ],
        },
        /merge 0 .*id 0/,
      ],
      [
        {
          ...ok,
          merges: [
            [99, 99],
            [99, 99],
          ],
        },
        /merge 1 .*repeats merge 0/,
      ],
      [{ ...ok, merges: [[99, 99], [258]] }, /expected a pair/],
      [
        {
          ...ok,
          merges: [
            [99, 99],
            [258, 1.5],
          ],
        },
        /id 1.5/,
      ],
    ];
    for (const [json, msg] of bad) expect(() => BpeTokenizer.fromJSON(json)).toThrow(msg);
  });

  it("tokenizerFromJSON dispatches on kind and refuses the rest", () => {
    const byte = tokenizerFromJSON({ kind: "byte", vocabSize: 258 });
    expect(byte).toBeInstanceOf(ByteTokenizer);
    expect(byte.encode("A")).toEqual([67]);
    expect(() => tokenizerFromJSON({ kind: "byte", vocabSize: 10 })).toThrow(/≥ 258/);
    expect(() => tokenizerFromJSON({ kind: "wordpiece", vocabSize: 300 })).toThrow(/unknown tokenizer kind "wordpiece"/);
    expect(() => tokenizerFromJSON("bpe")).toThrow(/must be an object/);
    expect(() => tokenizerFromJSON(null)).toThrow(/got null/);
  });
});

describe("bpeSample", () => {
  const docs = Array.from({ length: 50 }, (_, i) => `document ${i} `.repeat(1 + (i % 7)));
  const total = docs.reduce((n, d) => n + d.length, 0);

  it("keeps every text when they fit the budget", () => {
    const s = bpeSample(docs, Rng.fromSeed(1), total);
    expect(s).toEqual({ texts: docs, chars: total, of: total });
  });

  it("above the budget takes whole documents in a seeded order, the last cut, in input order", () => {
    const budget = Math.floor(total / 3);
    const a = bpeSample(docs, Rng.fromSeed(1), budget);
    expect(a.chars).toBe(budget);
    expect(a.of).toBe(total);
    expect(a.texts.reduce((n, t) => n + t.length, 0)).toBe(budget);
    // every sampled text is a document or (one of them) a prefix of one, and they keep the input's order
    const at = a.texts.map((t) => docs.findIndex((d) => d.startsWith(t)));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((x, y) => x - y)).toEqual(at);
    expect(a.texts.filter((t) => !docs.includes(t)).length).toBeLessThanOrEqual(1);
    // the seed is passed in: the same seed gives the same sample, another seed another one
    expect(bpeSample(docs, Rng.fromSeed(1), budget)).toEqual(a);
    expect(bpeSample(docs, Rng.fromSeed(2), budget).texts).not.toEqual(a.texts);
  });

  it("never cuts a surrogate pair in half", () => {
    const s = bpeSample(["😀😀😀😀", "😀😀😀😀"], Rng.fromSeed(0), 5);
    expect(s.texts.join("")).not.toMatch(/[\ud800-\udbff]$/);
    expect(s.chars).toBe(4);
  });
});
