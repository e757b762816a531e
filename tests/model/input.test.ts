// Bad inputs are refused with an error naming the problem.
import { describe, expect, expectTypeOf, it } from "vitest";
import { PRESETS, resolveModelConfig } from "../../src/model/config.ts";
import { positionsOf, toModelInput, type ModelInput, type ScoredBatch } from "../../src/model/input.ts";
import type { Batch, BatchInput } from "../../src/data/batches.ts";

const c = PRESETS.overfit; // vocab 266, context 8

describe("model input validation", () => {
  it.each([
    ["negative ids", [[0, -1]], undefined, /negative token id -1/],
    ["ids ≥ vocab", [[0, 266]], undefined, /266 .*≥ vocabulary size 266/],
    ["non-integer ids", [[0, 1.5]], undefined, /not an integer: 1.5/],
    ["wrong rank (1)", [0, 1], undefined, /rank 2/],
    ["wrong rank (3)", [[[0]]], undefined, /rank 3/],
    ["a row longer than the context", [[0, 1, 2, 3, 4, 5, 6, 7, 8]], undefined, /row length 9 exceeds the context length 8/],
    ["an empty batch", [], undefined, /empty batch/],
    ["ragged rows", [[0, 1], [0]], undefined, /ragged/],
    [
      "mismatched document-id rows",
      [[0, 1]],
      [
        [0, 0],
        [0, 0],
      ],
      /document ids have 2 rows/,
    ],
    ["mismatched document-id length", [[0, 1]], [[0]], /document ids row 0 has 1 positions/],
  ])("refuses %s", (_what, ids, docs, message) => {
    expect(() => toModelInput(ids, docs, c)).toThrow(message);
  });

  it("positions restart at each document and padding sits at 0", () => {
    const input = toModelInput([[0, 99, 1, 0, 100, 0]], [[0, 0, 0, 1, 1, -1]], c);
    expect([...positionsOf(input)]).toEqual([0, 1, 2, 0, 1, 0]);
  });

  it("config overrides must name known keys with the right types", () => {
    expect(() => resolveModelConfig({ dModle: 8 })).toThrow(/unknown model config key "dModle"/);
    expect(() => resolveModelConfig({ dModel: "8" })).toThrow(/dModel" must be a number/);
    expect(() => resolveModelConfig({ dModel: 10, nHeads: 3 })).toThrow(/divisible/);
  });
});

describe("data batches as model inputs", () => {
  it("data's Batch is a ScoredBatch and its BatchInput a ModelInput (structurally: data sits below the model)", () => {
    expectTypeOf<Batch>().toExtend<ScoredBatch>();
    expectTypeOf<BatchInput>().toEqualTypeOf<ModelInput>();
  });
});
