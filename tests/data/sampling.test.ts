// RandomWindows split into microbatches: the same windows drawn in the same order, cut into consecutive row
// blocks, so splitting an update (for --workers) changes nothing but how its rows are grouped.
import { describe, expect, it } from "vitest";
import { RandomWindows, ReplacementSource } from "../../src/data/sampling.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import type { Document } from "../../src/data/documents.ts";

const docs: Document[] = [
  { id: "a", split: "train", source: "s", ids: Array.from({ length: 40 }, (_, i) => 2 + (i % 7)) },
  { id: "b", split: "train", source: "s", ids: Array.from({ length: 9 }, (_, i) => 10 + i) },
  { id: "c", split: "train", source: "s", ids: Array.from({ length: 3 }, (_, i) => 20 + i) },
];
const binding = { vocabSize: 32, contextLength: 8 };

describe("RandomWindows microbatches", () => {
  it("cuts the same windows into consecutive row blocks, with the same stream state after", () => {
    const whole = new RandomWindows(docs, binding, 6, Rng.fromSeed(3));
    const split = new RandomWindows(docs, binding, 6, Rng.fromSeed(3), 3);
    for (let update = 0; update < 4; update++) {
      const [w] = whole.next();
      const parts = split.next();
      expect(parts).toHaveLength(3);
      expect(parts.every((p) => p.input.rows === 2)).toBe(true);
      const cat = (f: (b: typeof w) => Int32Array | Float32Array) => parts.flatMap((p) => [...f(p)]);
      expect(cat((b) => b.input.ids)).toEqual([...w.input.ids]);
      expect(cat((b) => b.targets)).toEqual([...w.targets]);
      expect(cat((b) => b.mask)).toEqual([...w.mask]);
      expect(parts.reduce((n, p) => n + p.targetCount, 0)).toBe(w.targetCount);
      expect(parts.every((p) => p.targetCount > 0)).toBe(true);
    }
    expect(split.state()).toEqual(whole.state());
  });

  it("refuses a split that does not divide the rows, by name", () => {
    expect(() => new RandomWindows(docs, binding, 6, Rng.fromSeed(1), 4)).toThrow(
      /microbatches per update must be a positive integer dividing the 6 rows, got 4/,
    );
    expect(() => new RandomWindows(docs, binding, 6, Rng.fromSeed(1), 0)).toThrow(/got 0/);
  });
});

describe("skip: a saved position replayed without building batches", () => {
  it("leaves each source's stream exactly where as many next() calls leave it (and then draws the same batches)", () => {
    const sources = (rng: Rng) => [
      new RandomWindows(docs, binding, 6, rng.child("w")),
      new RandomWindows(docs, binding, 6, rng.child("p"), 3),
      new ReplacementSource([docs[2], { ...docs[1], ids: docs[1].ids.slice(0, 8) }], 5, binding, rng.child("r")),
    ];
    for (const updates of [0, 1, 7, 50]) {
      const drawn = sources(Rng.fromSeed(9)),
        skipped = sources(Rng.fromSeed(9));
      drawn.forEach((d, i) => {
        for (let u = 0; u < updates; u++) d.next();
        skipped[i].skip(updates);
        expect(skipped[i].state()).toEqual(d.state());
        expect(skipped[i].next()).toEqual(d.next());
      });
    }
  });
});
