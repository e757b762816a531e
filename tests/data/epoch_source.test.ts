// The epoch source: order, shuffling each epoch afresh, a saved cursor replayed exactly, and cursors refused
// that do not fit the source.
import { describe, expect, it } from "vitest";
import { Rng } from "../../src/util/primitives/rng.ts";
import { EpochSource, type EpochCursor } from "../../src/data/epoch_source.ts";

describe("EpochSource", () => {
  it("walks the list in order, perUpdate at a time, straddling epochs", () => {
    const src = new EpochSource(["a", "b", "c"], 2);
    expect([src.next(), src.next(), src.next()]).toEqual([
      ["a", "b"],
      ["c", "a"],
      ["b", "c"],
    ]);
    expect(src.state()).toEqual({ epoch: 1, position: 3, order: [0, 1, 2], rng: null });
  });

  it("shuffles each epoch afresh, every item once per epoch, and replays from a saved cursor", () => {
    const items = [0, 1, 2, 3, 4, 5, 6];
    const src = new EpochSource(items, 7, Rng.fromSeed(3));
    const epochs = [src.next(), src.next(), src.next()];
    for (const e of epochs) expect([...e].sort()).toEqual(items);
    expect(new Set(epochs.map((e) => e.join())).size).toBe(3); // 7! orders: three equal ones would be a bug
    const mid = new EpochSource(items, 3, Rng.fromSeed(3));
    mid.next();
    const cursor = JSON.parse(JSON.stringify(mid.state())) as EpochCursor; // through JSON, as in a file
    const expected = [mid.next(), mid.next(), mid.next()];
    const other = new EpochSource(items, 3, Rng.fromSeed(3));
    other.restore(cursor);
    expect([other.next(), other.next(), other.next()]).toEqual(expected);
  });

  it("refuses cursors that do not fit the source", () => {
    const plain = new EpochSource([1, 2, 3], 1);
    const shuffled = new EpochSource([1, 2, 3], 1, Rng.fromSeed(1));
    expect(() => plain.restore({ epoch: 0, position: 0, order: [0, 1, 1], rng: null })).toThrow(
      /not a permutation of this source's 3 microbatches/,
    );
    expect(() => plain.restore({ epoch: 0, position: 4, order: [0, 1, 2], rng: null })).toThrow(/position 4 is outside \[0, 3\]/);
    expect(() => plain.restore(shuffled.state())).toThrow(/has a shuffling stream but this source does not shuffle/);
    expect(() => shuffled.restore(plain.state())).toThrow(/lacks a shuffling stream but this source shuffles/);
    expect(() => shuffled.restore(new EpochSource([1, 2, 3], 1, Rng.fromSeed(2)).state())).toThrow(/rng state is for seed "2"/);
    expect(() => new EpochSource([], 1)).toThrow(/at least one microbatch/);
    expect(() => new EpochSource([1], 0)).toThrow(/microbatches per update must be a positive integer/);
  });
});
