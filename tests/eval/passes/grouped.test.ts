// Perplexity grouped by (split, source) through the window path: 000's grouped table from its smoothed
// bigram, stride invariance of a bigram, counts beside every number, and group bytes against documents.
import { describe, expect, it } from "vitest";
import type { Document } from "../../../src/data/documents.ts";
import { addKBigram, baselineAdapter, fitCounts } from "../../../src/baselines/ngram.ts";
import { groupBpb, groupRecord, groupWindows } from "../../../src/eval/passes/grouped.ts";
import { evaluateWindows } from "../../../src/eval/passes/windowed.ts";
import { ByteTokenizer } from "../../../src/data/tokenizer.ts";

// 000's four records (tokens[0] is context only), fitted on the two training records with smoothing 0.1, V = 7
const records: Document[] = [
  { id: "r0", split: "train", source: "prose", ids: [0, 1, 2, 1, 3, 1, 2] },
  { id: "r1", split: "train", source: "code", ids: [0, 4, 5, 4, 6, 4] },
  { id: "r2", split: "validation", source: "prose", ids: [0, 1, 3, 1, 2, 1] },
  { id: "r3", split: "test", source: "code", ids: [0, 5, 4, 6, 4, 5] },
];

function table(contextLength: number, stride: number) {
  const binding = { vocabSize: 7, contextLength };
  const bigram = baselineAdapter("bigram 0.1", addKBigram(fitCounts(records.slice(0, 2), 7), 0.1), binding);
  const results = (["train", "validation", "test"] as const).map((s) =>
    evaluateWindows(
      bigram,
      records.filter((r) => r.split === s),
      stride,
    ),
  );
  return groupWindows(results).map(groupRecord);
}

describe("perplexity by (split, source)", () => {
  it("reproduces 000's grouped table (tokens, nll, ppl)", () => {
    const rows = table(8, 4);
    const get = (split: string, source: string) => rows.find((r) => r.split === split && r.source === source)!;
    // printed: ('test','code') 5, 1.1925, 3.295; ('train','code') 5, 0.7129, 2.040; ('train','prose') 6, 0.6857, 1.985; ('validation','prose') 5, 0.7096, 2.033
    for (const [split, source, tokens, nll, ppl] of [
      ["test", "code", 5, 1.1925, 3.295],
      ["train", "code", 5, 0.7129, 2.04],
      ["train", "prose", 6, 0.6857, 1.985],
      ["validation", "prose", 5, 0.7096, 2.033],
    ] as const) {
      const r = get(split, source);
      expect(r.targets).toBe(tokens);
      expect(r.nll).toBeCloseTo(nll, 4);
      expect(r.perplexity).toBeCloseTo(ppl, 3);
      expect(r).toMatchObject({ documents: 1, stride: 4 });
    }
  });

  it("gives a bigram the same numbers at any stride: it only ever reads the previous token", () => {
    const a = table(8, 8),
      b = table(3, 1);
    a.forEach((r, i) => {
      expect(b[i].targets).toBe(r.targets);
      expect(b[i].total_nll).toBeCloseTo(r.total_nll, 12);
      expect(b[i].windows).toBeGreaterThan(r.windows);
    });
  });

  it("refuses to group results of different strides", () => {
    const binding = { vocabSize: 7, contextLength: 4 };
    const bigram = baselineAdapter("b", addKBigram(fitCounts(records.slice(0, 2), 7), 1), binding);
    const v = records.filter((r) => r.split === "validation");
    expect(() => groupWindows([evaluateWindows(bigram, v, 2), evaluateWindows(bigram, v, 4)])).toThrow(/different strides/);
  });

  it("sums window bytes to the documents' scored bytes, and refuses a mismatch", () => {
    const tok = new ByteTokenizer();
    const docs: Document[] = ["the cat — sat", "a dog “ran”"].map((t, i) => ({
      id: `d${i}`,
      split: "validation",
      source: "s",
      ids: [0, ...tok.encode(t), 1],
    }));
    const model = baselineAdapter("uniform", () => 1 / tok.vocabSize, { vocabSize: tok.vocabSize, contextLength: 5 });
    const [g] = groupWindows([evaluateWindows(model, docs, 2, { tokenizer: tok })]);
    const b = groupBpb(g, docs, tok);
    expect(b.bytes).toBe(new TextEncoder().encode("the cat — sata dog “ran”").length);
    expect(b.chars).toBe(Array.from("the cat — sata dog “ran”").length);
    expect(b.bits_per_byte).toBeCloseTo((b.targets * Math.log(tok.vocabSize)) / (Math.LN2 * b.bytes), 9);
    const [noBytes] = groupWindows([evaluateWindows(model, docs, 2)]);
    expect(() => groupBpb(noBytes, docs, tok)).toThrow(/bytes/);
  });
});
