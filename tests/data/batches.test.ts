// Tokenizer, documents and the three batch layouts: same targets, same NLL, refusals.
import { describe, expect, it, beforeAll } from "vitest";
import { readTensor } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { PRESETS } from "../../src/model/config.ts";
import { GPT } from "../../src/model/gpt.ts";
import { gradcheckParameters } from "../../src/model/gradcheck.ts";
import { positionNll } from "../../src/model/loss.ts";
import { ByteTokenizer } from "../../src/data/tokenizer.ts";
import { tokenizerFromJSON } from "../../src/data/load_tokenizer.ts";
import { encodeDocument, type Document } from "../../src/data/documents.ts";
import { packedBatches, paddedBatches, separateBatches, trainingBatches, type Batch } from "../../src/data/batches.ts";
import { overfitDocuments } from "../../src/data/fixtures.ts";
import { TEST_BACKENDS, useBackend } from "../helpers.ts";

const binding = { vocabSize: 266, contextLength: 8 };

describe("byte tokenizer", () => {
  it("BOS 0, EOS 1, byte b → b + 2; a document has one fewer target than ids", () => {
    const tok = new ByteTokenizer(266);
    const doc = encodeDocument(tok, { id: "d", split: "train", source: "s", text: "ab" });
    expect(doc.ids).toEqual([0, 99, 100, 1]);
    expect(tok.decode(tok.encode("héllo ✓"))).toBe("héllo ✓");
    expect([...tok.bytesOf(99)]).toEqual([97]);
    expect(tok.bytesOf(0).length + tok.bytesOf(1).length + tok.bytesOf(260).length).toBe(0);
  });
  it("refuses a vocabulary below 258 and round-trips through JSON", () => {
    expect(() => new ByteTokenizer(257)).toThrow(/≥ 258/);
    const back = tokenizerFromJSON(JSON.parse(JSON.stringify(new ByteTokenizer(300).toJSON())));
    expect(back.vocabSize).toBe(300);
    expect(back.encode("a")).toEqual([99]);
  });
});

describe("batch constructors", () => {
  const docs = overfitDocuments();
  const val = docs.filter((d) => d.split === "validation");

  it("the validation fixture: separate 2 batches, padded 1, packed 1 batch of two rows (5 + 4 > 8), 9 targets each", () => {
    const layouts = {
      separate: separateBatches(val, binding),
      padded: paddedBatches(val, binding, 2),
      packed: packedBatches(val, binding, 2),
    };
    expect(layouts.separate.length).toBe(2);
    expect(layouts.padded.length).toBe(1);
    expect(layouts.packed.length).toBe(1);
    expect(layouts.packed[0].input.rows).toBe(2);
    for (const batches of Object.values(layouts)) expect(batches.reduce((n, b) => n + b.targetCount, 0)).toBe(9);
  });

  it("packs several whole documents into one row when they fit, each target masked in exactly once", () => {
    const short: Document[] = ["a", "b", "ab"].map((t, i) =>
      encodeDocument(new ByteTokenizer(266), { id: `s${i}`, split: "train", source: "x", text: t }),
    );
    const [batch] = packedBatches(short, binding, 4);
    expect(batch.input.rows).toBe(1); // 2 + 2 + 3 = 7 ≤ 8
    expect([...batch.input.docIds]).toEqual([0, 0, 1, 1, 2, 2, 2]);
    expect([...batch.mask].reduce((a, b) => a + b, 0)).toBe(7);
  });

  it("refuses validation documents in training batches, over-long documents, mixed splits and no documents", () => {
    expect(() => trainingBatches(docs, binding, "separate")).toThrow(/refused document "validation-abaa": its split is validation/);
    const long = encodeDocument(new ByteTokenizer(266), { id: "long", split: "train", source: "x", text: "abcdefgh" });
    expect(() => separateBatches([long], binding)).toThrow(/"long" has 9 positions, more than the context length 8/);
    expect(() => paddedBatches(docs, binding, 2)).toThrow(/two splits/);
    expect(() => packedBatches([], binding, 2)).toThrow(/no documents/);
    expect(() => paddedBatches(val, binding, 0)).toThrow(/rows per batch/);
    expect(() => separateBatches([val[0], val[0]], binding)).toThrow(/appears twice/);
  });
});

describe.each(TEST_BACKENDS)("layout agreement on %s", (backend) => {
  beforeAll(() => useBackend(backend));
  /** Same float32 computation, different row placement: per-target NLLs agree to float32 rounding of O(5) values. */
  const LAYOUT_ATOL = 1e-6;

  it("separate, padded and packed give the same per-target NLL within 1e-6", () => {
    const config = PRESETS.overfit;
    const model = new GPT(config, gradcheckParameters(config, Rng.fromSeed(9)));
    const val = overfitDocuments().filter((d) => d.split === "validation");
    const perTarget = (batches: Batch[]) =>
      batches.flatMap((b) => {
        const nll = readTensor(() => positionNll(model.forward(b.input), b.targets));
        return [...nll].filter((_, i) => b.mask[i] === 1);
      });
    const sep = perTarget(separateBatches(val, binding));
    for (const other of [perTarget(paddedBatches(val, binding, 2)), perTarget(packedBatches(val, binding, 2))]) {
      expect(other.length).toBe(9);
      other.forEach((v, i) => expect(Math.abs(v - sep[i])).toBeLessThanOrEqual(LAYOUT_ATOL));
    }
    model.dispose();
  });
});
