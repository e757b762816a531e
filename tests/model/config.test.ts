// The decoder config's size limits: a vocabulary, a context or a shape that would allocate past a stated limit
// is refused by name before anything is allocated (not "Invalid typed array length" from deep in the engine).
import { describe, expect, it } from "vitest";
import { MAX_CONTEXT_LENGTH, MAX_PARAMETERS, MAX_VOCAB_SIZE, parameterCount, PRESETS, resolveModelConfig } from "../../src/model/config.ts";

// V = T = 1024, C = 1024, F = 4096, tied head:
//   embeddings V·C + T·C + final LN 2C = 1,048,576 + 1,048,576 + 2,048 = 2,099,200
//   per block 4C² + 2CF + 9C + F = 4,194,304 + 8,388,608 + 9,216 + 4,096 = 12,596,224
//   10 blocks: 2,099,200 + 125,962,240 = 128,061,440 ≤ 2^27 = 134,217,728; 11 blocks: 140,657,664 > 2^27
const near = { vocabSize: 1024, contextLength: 1024, dModel: 1024, nHeads: 8, dFF: 4096 };

describe("model config size limits", () => {
  it("states its limits", () => {
    expect([MAX_VOCAB_SIZE, MAX_CONTEXT_LENGTH, MAX_PARAMETERS]).toEqual([2 ** 20, 4096, 2 ** 27]);
  });

  it("takes a model at the parameter limit and refuses one block more, counting as parameterCount does", () => {
    expect(parameterCount(resolveModelConfig({ ...near, nLayers: 10 }))).toBe(128_061_440);
    expect(() => resolveModelConfig({ ...near, nLayers: 11 })).toThrow(
      "model config has 140657664 parameters, more than the limit 134217728 (2^27) (vocabSize 1024, contextLength 1024, nLayers 11, dModel 1024, dFF 4096)",
    );
  });

  it.each<[Record<string, unknown>, string]>([
    [{ vocabSize: 1e14 }, "model config vocabSize must be ≤ 1048576 (2^20), got 100000000000000"],
    [{ vocabSize: 2 ** 20 + 1 }, "model config vocabSize must be ≤ 1048576 (2^20), got 1048577"],
    [{ contextLength: 4097 }, "model config contextLength must be ≤ 4096, got 4097"],
    [{ dModel: 2 ** 40, nHeads: 2 }, "more than the limit 134217728 (2^27)"],
    [
      { tiedHead: false, vocabSize: 2 ** 20, dModel: 128 },
      "parameters, more than the limit 134217728 (2^27) (vocabSize 1048576, contextLength 8, nLayers 1, dModel 128, dFF 16, untied head)",
    ],
  ])("refuses %j by name, before allocating", (overrides, message) => {
    expect(() => resolveModelConfig(overrides)).toThrow(message);
  });

  it("refuses a huge layer count at once (the count is closed-form, never a loop over the blocks)", () => {
    const t0 = performance.now();
    expect(() => resolveModelConfig({ nLayers: 1e15 })).toThrow(/nLayers 1000000000000000/);
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it("leaves the presets valid", () => {
    for (const c of Object.values(PRESETS)) expect(resolveModelConfig({}, c)).toEqual(c);
  });
});
