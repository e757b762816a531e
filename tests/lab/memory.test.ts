// The training memory estimate: its parts worked out by hand for the micro preset, and the refusal's advice checked
// against the estimate itself (the rows it offers fit, one more does not).
import { describe, expect, it } from "vitest";
import { PRESETS, resolveModelConfig } from "../../src/model/config.ts";
import {
  checkScoringMemory,
  checkTrainingMemory,
  MAX_SCORING_BYTES,
  MAX_TRAINING_BYTES,
  scoringMemory,
  trainingMemory,
} from "../../src/lab/memory.ts";

describe("training memory estimate", () => {
  it("adds the weights ×4 and each row's attention, logits and width terms, as worked out by hand", () => {
    // micro: V = T = C = 4, L = 1, H = 2, F = 8; 212 parameters (wte 16, wpe 16, one block 172, lnf 8)
    // attention 4 B × 1 layer × 3 × 2 heads × 4² = 384; logits 4 B × 3 × 4 × 4 = 192; widths 4 B × 1 × 4 × (16·4 + 4·8) = 1536
    const m = trainingMemory(PRESETS.micro, 2);
    expect(m).toEqual({
      weights: 16 * 212,
      perRow: { attention: 384, logits: 192, widths: 1536 },
      total: 16 * 212 + 2 * (384 + 192 + 1536),
    });
  });

  it("refuses past MAX_TRAINING_BYTES, offering the most rows that fit (and one more does not)", () => {
    const c = PRESETS.overfit;
    expect(() => checkTrainingMemory(c, 8)).not.toThrow();
    let message = "";
    try {
      checkTrainingMemory(c, 1_000_000);
    } catch (err) {
      message = (err as Error).message;
    }
    const fits = Number(/give --batch-rows (\d+) or fewer$/.exec(message)?.[1]);
    expect(fits).toBeGreaterThan(1);
    expect(trainingMemory(c, fits).total).toBeLessThanOrEqual(MAX_TRAINING_BYTES);
    expect(trainingMemory(c, fits + 1).total).toBeGreaterThan(MAX_TRAINING_BYTES);
    expect(() => checkTrainingMemory(c, fits)).not.toThrow();
  });

  it("names --context when attention grows a row most, and says when not even one row fits", () => {
    const wide = resolveModelConfig({ contextLength: 4096, nLayers: 8, nHeads: 8, dModel: 64, dFF: 64 });
    expect(() => checkTrainingMemory(wide, 1)).toThrow(/; lower --context \(not even one row fits\)$/);
  });
});

describe("scoring memory estimate", () => {
  it("is the forward's alone: a row of the overfit preset worked out by hand, and the refusal's advice fits exactly", () => {
    const c = PRESETS.overfit; // T 8, V 266, C 8, F 16, H 2, L 1
    // attention 4·L·2·H·T² = 4·1·2·2·64 = 1024; logits 4·2·T·V = 4·2·8·266 = 17024; widths 4·L·T·(8C + 2F) = 4·8·96 = 3072
    expect(scoringMemory(c, 1000, 10)).toEqual({
      weights: 1000,
      perRow: { attention: 1024, logits: 17024, widths: 3072 },
      total: 1000 + 10 * 21120,
    });
    const fits = Math.floor((MAX_SCORING_BYTES - 1000) / 21120);
    expect(() => checkScoringMemory(c, 1000, fits)).not.toThrow();
    expect(() => checkScoringMemory(c, 1000, fits + 1)).toThrow(
      `--batch-rows ${fits + 1} at the model's context 8 and vocabulary 266 needs an estimated 3.00 GiB to score (0.02 MiB a row), more than the 3.00 GiB limit (MAX_SCORING_BYTES); give --batch-rows ${fits} or fewer`,
    );
  });
});
