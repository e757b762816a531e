// trainStep: token-weighted accumulation, clipping, non-finite refusal, in-memory resume and no leaks.
import { describe, expect, it, beforeAll } from "vitest";
import { tf } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { PRESETS, resolveModelConfig } from "../../src/model/config.ts";
import { GPT } from "../../src/model/gpt.ts";
import { initParameters } from "../../src/model/init.ts";
import { batchLoss } from "../../src/model/loss.ts";
import { AdamW, DEFAULT_ADAMW } from "../../src/train/adamw.ts";
import { NonFiniteError } from "../../src/train/non_finite.ts";
import { trainStep } from "../../src/train/trainer.ts";
import { constantSchedule, learningRate } from "../../src/train/schedule.ts";
import { packedBatches, separateBatches, trainingBatches } from "../../src/data/batches.ts";
import { overfitDocuments } from "../../src/data/fixtures.ts";
import { decoderAdapter } from "../../src/eval/passes/adapter.ts";
import { evaluateLikelihood } from "../../src/eval/passes/likelihood.ts";
import { TEST_BACKENDS, leakedBy, maxAbsDiff, useBackend } from "../helpers.ts";

const binding = { vocabSize: 266, contextLength: 8 };
const train = overfitDocuments().filter((d) => d.split === "train");

function setup(seed = 39, config = PRESETS.overfit) {
  const model = new GPT(config, initParameters(config, Rng.fromSeed(seed).child("init")));
  const optimizer = new AdamW(model.params, DEFAULT_ADAMW);
  return {
    model,
    optimizer,
    dispose: () => {
      model.dispose();
      optimizer.dispose();
    },
  };
}

describe.each(TEST_BACKENDS)("trainer on %s", (backend) => {
  beforeAll(() => useBackend(backend));

  it("two one-document microbatches give the update of one token-weighted mean over all 9 targets", () => {
    const a = setup(),
      b = setup();
    const ra = trainStep({
      params: a.model.params,
      microbatches: separateBatches(train, binding),
      lossFn: batchLoss(a.model, { train: false }),
      optimizer: a.optimizer,
      lr: 0.02,
      clipNorm: 1,
    });
    const rb = trainStep({
      params: b.model.params,
      microbatches: packedBatches(train, binding, 2),
      lossFn: batchLoss(b.model, { train: false }),
      optimizer: b.optimizer,
      lr: 0.02,
      clipNorm: 1,
    });
    expect(ra.targets).toBe(9);
    expect(Math.abs(ra.loss - rb.loss)).toBeLessThan(1e-6);
    expect(Math.abs(ra.gradNorm - rb.gradNorm) / rb.gradNorm).toBeLessThan(1e-5);
    for (const [name, w] of a.model.read()) expect(maxAbsDiff(w, b.model.read().get(name)!)).toBeLessThan(1e-6);
    a.dispose();
    b.dispose();
  });

  it("clips by global norm: a tiny clip limit marks the step clipped", () => {
    const s = setup();
    const r = trainStep({
      params: s.model.params,
      microbatches: trainingBatches(train, binding, "packed", 2),
      lossFn: batchLoss(s.model, { train: false }),
      optimizer: s.optimizer,
      lr: 0.02,
      clipNorm: 1e-3,
    });
    expect(r.clipped).toBe(true);
    expect(r.gradNorm).toBeGreaterThan(1e-3);
    s.dispose();
  });

  it("a non-finite loss stops training, names the step and parameter, and updates nothing", () => {
    const s = setup();
    const before = s.model.read();
    const wte = s.model.p("wte");
    const poisoned = (batch: Parameters<ReturnType<typeof batchLoss>>[0]) => {
      const terms = batchLoss(s.model, { train: false })(batch);
      return { sum: tf.mul(terms.sum, tf.div(tf.sum(wte), 0)) as tf.Scalar, count: terms.count }; // ×(±∞)
    };
    expect(() =>
      trainStep({
        params: s.model.params,
        microbatches: separateBatches(train, binding),
        lossFn: poisoned,
        optimizer: s.optimizer,
        lr: 0.02,
        clipNorm: 1,
      }),
    ).toThrow(NonFiniteError);
    try {
      trainStep({
        params: s.model.params,
        microbatches: separateBatches(train, binding),
        lossFn: poisoned,
        optimizer: s.optimizer,
        lr: 0.02,
        clipNorm: 1,
      });
    } catch (e) {
      expect((e as Error).message).toMatch(/non-finite (loss|gradient in parameter "\S+") at update 1; no parameter was updated/);
    }
    for (const [name, w] of s.model.read()) expect(w).toEqual(before.get(name));
    expect(s.optimizer.step).toBe(0);
    s.dispose();
  });

  it("a non-finite gradient names the first non-finite parameter", () => {
    const s = setup();
    const wpe = s.model.p("wpe");
    const lossFn = (batch: Parameters<ReturnType<typeof batchLoss>>[0]) => {
      const terms = batchLoss(s.model, { train: false })(batch);
      // sqrt has an infinite derivative at 0: a finite loss with an infinite gradient in wpe only
      return { sum: tf.add(terms.sum, tf.sum(tf.sqrt(tf.mul(wpe, 0)))) as tf.Scalar, count: terms.count };
    };
    expect(() =>
      trainStep({
        params: s.model.params,
        microbatches: separateBatches(train, binding),
        lossFn,
        optimizer: s.optimizer,
        lr: 0.02,
        clipNorm: 1,
      }),
    ).toThrow(/non-finite gradient in parameter "wpe" at update 1/);
    s.dispose();
  });

  it("resume in memory: snapshot weights, moments, step and RNG; step; restore; step again → bit-identical", () => {
    const config = resolveModelConfig({ dropout: 0.1 }, PRESETS.overfit); // dropout makes the RNG state matter
    const s = setup(40, config);
    const dropoutRng = Rng.fromSeed(40).child("dropout");
    const lossFn = batchLoss(s.model, { train: true, dropoutRng });
    const step = () =>
      trainStep({
        params: s.model.params,
        microbatches: separateBatches(train, binding),
        lossFn,
        optimizer: s.optimizer,
        lr: 0.02,
        clipNorm: 1,
      });
    for (let i = 0; i < 3; i++) step();
    const snap = { weights: s.model.read(), adam: s.optimizer.state(), rng: dropoutRng.state() };
    step();
    const first = s.model.read();
    s.model.assign(snap.weights);
    s.optimizer.restore(snap.adam);
    dropoutRng.load(snap.rng);
    step();
    for (const [name, w] of s.model.read()) expect(Buffer.from(w.buffer).equals(Buffer.from(first.get(name)!.buffer))).toBe(true);
    s.dispose();
  });

  it("no tensor leaks over 200 training steps and over an evaluation", () => {
    const s = setup();
    const microbatches = separateBatches(train, binding);
    const lossFn = batchLoss(s.model, { train: false });
    trainStep({ params: s.model.params, microbatches, lossFn, optimizer: s.optimizer, lr: 0.02, clipNorm: 1 }); // warm up kernels
    expect(
      leakedBy(() => {
        for (let i = 0; i < 200; i++)
          trainStep({ params: s.model.params, microbatches, lossFn, optimizer: s.optimizer, lr: 0.02, clipNorm: 1 });
      }),
    ).toBe(0);
    const val = packedBatches(
      overfitDocuments().filter((d) => d.split === "validation"),
      binding,
      2,
    );
    expect(leakedBy(() => evaluateLikelihood(decoderAdapter(s.model), "validation", val))).toBe(0);
    s.dispose();
  });
});

describe("learning-rate schedule", () => {
  it("constant, warmup and cosine", () => {
    expect(learningRate(constantSchedule(0.02), 57)).toBe(0.02);
    const s = { lr: 1, warmup: 10, cosineSteps: 110, minLr: 0.1 };
    expect(learningRate(s, 5)).toBe(0.5);
    expect(learningRate(s, 10)).toBe(1);
    expect(learningRate(s, 60)).toBeCloseTo(0.55, 12); // halfway: 0.1 + 0.45·(1 + cos(π/2))
    expect(learningRate(s, 110)).toBeCloseTo(0.1, 12);
  });
});
