// Divergence that stays finite: --lr 1e6 on the overfit run climbs to ~1e12 nats without a NaN. The run warns
// once (not on every update) with the threshold 3 × ln V stated, or stops before that update is checkpointed.
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/util/backend.ts";
import { trainingBatches } from "../../src/data/batches.ts";
import { overfitDocuments, overfitTokenizer } from "../../src/data/fixtures.ts";
import { PRESETS } from "../../src/model/config.ts";
import { EpochSource } from "../../src/data/epoch_source.ts";
import { trainOptions } from "../../src/lab/config.ts";
import { Run, type RunSpec } from "../../src/lab/run.ts";
import { DivergenceError, divergence, divergenceThreshold } from "../../src/lab/divergence.ts";

beforeAll(() => initBackend("wasm"));

function spec(lr: number): RunSpec {
  const config = PRESETS.overfit;
  const train = overfitDocuments(overfitTokenizer()).filter((d) => d.split === "train");
  const mbs = trainingBatches(train, { vocabSize: config.vocabSize, contextLength: config.contextLength }, "separate");
  return {
    config,
    tokenizer: overfitTokenizer().toJSON(),
    options: trainOptions({ seed: 39, lr, microbatchesPerUpdate: 2, data: "overfit-fixture" }),
    data: () => new EpochSource(mbs, 2),
  };
}

describe("divergence", () => {
  it("states its threshold: 3 × ln V (16.75 nats for V = 266), and nothing below it", () => {
    expect(divergenceThreshold(266)).toBeCloseTo(3 * Math.log(266), 12);
    expect(divergence(266, 5, 16.7)).toBeUndefined();
    expect(divergence(266, 5, 17)).toBe("update 5: training loss 17.00 exceeds 3 × ln V = 16.75 (V = 266): the run is diverging");
  });

  it("warns once on a finite divergence (--lr 1e6), and never at the default learning rate", () => {
    const warnings: string[] = [];
    const run = Run.create(spec(1e6));
    run.train({ updates: 30, warn: (l) => warnings.push(l) });
    run.dispose();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^warning: update \d+: training loss .* exceeds 3 × ln V = 16\.75 \(V = 266\): the run is diverging; lower --lr, or pass --on-divergence stop$/,
    );
    const calm: string[] = [];
    const ok = Run.create(spec(0.02));
    ok.train({ updates: 80, warn: (l) => calm.push(l) });
    ok.dispose();
    expect(calm).toEqual([]);
  });

  it("with the stop policy, ends the run at the first diverging update before its state is saved", () => {
    const saves: number[] = [];
    const run = Run.create(spec(1e6));
    try {
      expect(() => run.train({ updates: 30, onDivergence: "stop", saveEvery: 1 }, { onSave: (s) => saves.push(s) })).toThrow(
        DivergenceError,
      );
      expect(saves).toEqual(Array.from({ length: run.step - 1 }, (_, i) => i + 1)); // every update before the crossing, not it
    } finally {
      run.dispose();
    }
  });
});
