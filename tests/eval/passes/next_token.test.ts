// Next-token calibration data: confidence = top probability, correct = top token equals the target, one
// prediction per scored target, fed into the calibration report.
import { describe, expect, it } from "vitest";
import { addKBigram, baselineAdapter, fitCounts } from "../../../src/baselines/ngram.ts";
import type { Document } from "../../../src/data/documents.ts";
import { nextTokenCalibration, nextTokenPredictions, topOf } from "../../../src/eval/passes/next_token.ts";

describe("next-token predictions", () => {
  // add-one bigram over V = 4 fitted on 0→1 (×3) and 0→2 (×1): p(·|0) = (C + 1)/(4 + 4) = [1, 4, 2, 1]/8
  const train: Document[] = [
    { id: "a", split: "train", source: "s", ids: [0, 1] },
    { id: "b", split: "train", source: "s", ids: [0, 1] },
    { id: "c", split: "train", source: "s", ids: [0, 1] },
    { id: "d", split: "train", source: "s", ids: [0, 2] },
  ];
  const model = baselineAdapter("bigram", addKBigram(fitCounts(train, 4), 1), { vocabSize: 4, contextLength: 2 });

  it("takes the top probability as confidence and checks the top token against the target", () => {
    const val: Document[] = [
      { id: "v1", split: "validation", source: "s", ids: [0, 1] },
      { id: "v2", split: "validation", source: "s", ids: [0, 2] },
    ];
    const p = nextTokenPredictions(model, val, 1);
    expect(p.confidences).toHaveLength(2);
    p.confidences.forEach((c) => expect(c).toBeCloseTo(4 / 8, 6));
    expect(p.correct).toEqual([true, false]);
    const c = nextTokenCalibration(p, { bins: 5 });
    expect(c.accuracy).toEqual({ correct: 1, predictions: 2, rate: 0.5 });
    expect(c.report.populatedBins).toBe(1);
    expect(c.report.ece).toBeCloseTo(0, 6); // confidence 0.5, accuracy 0.5
    expect(c.report.brier).toBeCloseTo(0.25, 6);
  });

  it("makes one prediction per scored target at any stride", () => {
    const long: Document[] = [{ id: "l", split: "validation", source: "s", ids: [0, 1, 0, 2, 0, 1, 0] }];
    for (const s of [1, 2]) expect(nextTokenPredictions(model, long, s).confidences).toHaveLength(6);
  });

  it("breaks ties toward the lowest id", () => {
    expect(topOf(Float32Array.of(-1, -0.5, -0.5, -2), 0, 4)).toEqual({ token: 1, logProb: -0.5 });
  });
});
