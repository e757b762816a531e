// Bits per byte: 004's arithmetic fence, and byte/character accounting checked against the raw text
// (BOS, EOS and the first token excluded) for the byte tokenizer and a trained BPE tokenizer.
import { describe, expect, it } from "vitest";
import { bitsPerByte, bitsPerChar, bpbRecord, scoredBytes, scoredChars } from "../../../src/eval/metrics/bpb.ts";
import { encodeDocument } from "../../../src/data/documents.ts";
import { ByteTokenizer } from "../../../src/data/tokenizer.ts";
import { trainBpe } from "../../../src/data/bpe.ts";

const utf8Length = (s: string) => new TextEncoder().encode(s).length;

describe("bits per byte arithmetic", () => {
  it("reproduces 004's fence: 3.0 nats/token at 2.19 bytes/token is 3.0/(ln 2 · 2.19) = 1.9763 bits per byte", () => {
    // from totals: 1000 targets, 3000 nats, 2190 bytes → 3000 / (0.693147 · 2190) = 1.97628…
    expect(bitsPerByte(3000, 2190)).toBeCloseTo(1.9763, 4);
    expect(bpbRecord(3000, 1000, 2190, 2190)).toMatchObject({ bytes_per_target: 2.19, nats_per_target: 3 });
  });

  it("gives NaN with no bytes and refuses non-integer counts", () => {
    expect(bitsPerByte(1, 0)).toBeNaN();
    expect(bitsPerChar(1, 0)).toBeNaN();
    expect(() => bitsPerByte(1, 2.5)).toThrow(/byte count/);
    expect(() => bitsPerChar(1, -1)).toThrow(/character count/);
  });
});

describe("scored bytes and characters", () => {
  const byte = new ByteTokenizer();
  const texts = ["hello world", "“It is a very dull” — he said", "naïve café ☕", "x"];

  it("counts the UTF-8 bytes of the text for BOS + text + EOS (BOS is the unscored first token, EOS has 0 bytes)", () => {
    for (const text of texts) {
      const d = encodeDocument(byte, { id: "d", split: "validation", source: "s", text });
      expect(scoredBytes(byte, d.ids)).toBe(utf8Length(text));
      expect(scoredChars(byte, d.ids)).toBe(Array.from(text).length);
    }
    // curly quotes and the em dash are 3 bytes each, so bytes and characters differ: say which
    const t = texts[1];
    expect(utf8Length(t) - Array.from(t).length).toBe(3 * 2);
  });

  it("excludes the first token's bytes when the sequence starts with content (no BOS)", () => {
    for (const text of texts) {
      const ids = byte.encode(text);
      expect(scoredBytes(byte, ids)).toBe(utf8Length(text) - byte.bytesOf(ids[0]).length);
    }
  });

  it("holds for a BPE tokenizer whose tokens span several bytes", () => {
    const bpe = trainBpe(["the cat sat on the mat; the cat sat", "“quoted” — dashes “quoted” — "], 264);
    for (const text of ["the cat sat on the mat", "“quoted” — the cat"]) {
      const ids = bpe.encode(text);
      expect(ids.length).toBeLessThan(utf8Length(text)); // merges happened
      expect(scoredBytes(bpe, ids)).toBe(utf8Length(text) - bpe.bytesOf(ids[0]).length);
      expect(scoredBytes(bpe, [bpe.bos, ...ids, bpe.eos])).toBe(utf8Length(text));
      expect(scoredChars(bpe, [bpe.bos, ...ids, bpe.eos])).toBe(Array.from(text).length);
    }
  });
});
