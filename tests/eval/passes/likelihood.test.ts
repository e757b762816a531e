// The token-weighted summary, the graph-free evaluator and its refusals.
import { describe, expect, it, beforeAll } from "vitest";
import { tf } from "../../../src/util/backend.ts";
import { Rng } from "../../../src/util/primitives/rng.ts";
import { PRESETS, resolveModelConfig } from "../../../src/model/config.ts";
import { GPT } from "../../../src/model/gpt.ts";
import { initParameters } from "../../../src/model/init.ts";
import { batchLoss } from "../../../src/model/loss.ts";
import { packedBatches, separateBatches } from "../../../src/data/batches.ts";
import { overfitDocuments } from "../../../src/data/fixtures.ts";
import { decoderAdapter } from "../../../src/eval/passes/adapter.ts";
import { evaluateLikelihood } from "../../../src/eval/passes/likelihood.ts";
import { fromProbabilities, meanNll, merge, perplexity, summary } from "../../../src/eval/metrics/summary.ts";
import { useBackend } from "../../helpers.ts";

const binding = { vocabSize: 266, contextLength: 8 };
const docs = overfitDocuments();
const val = docs.filter((d) => d.split === "validation");
const train = docs.filter((d) => d.split === "train");

describe("metric summary", () => {
  it("probability 0 gives infinite NLL and perplexity; invalid probabilities are refused", () => {
    const s = fromProbabilities([0.5, 0]);
    expect(meanNll(s)).toBe(Infinity);
    expect(perplexity(s)).toBe(Infinity);
    expect(() => fromProbabilities([-0.1])).toThrow(/probability 0 must be in \[0, 1\], got -0.1/);
    expect(() => fromProbabilities([1.5])).toThrow(/got 1.5/);
    expect(() => fromProbabilities([NaN])).toThrow(/got NaN/);
  });

  it("merge adds totals; zero targets give NaN; log p instead of −log p is refused", () => {
    const m = merge(summary(2, 1), summary(4, 3));
    expect(meanNll(m)).toBe(1.5);
    expect(meanNll(summary(0, 0))).toBeNaN();
    expect(() => summary(-3, 2)).toThrow(/−log p, not log p/);
  });
});

describe("likelihood evaluator", () => {
  beforeAll(() => useBackend("wasm"));

  it("leaves non-zero gradients, weights and the dropout RNG bit-identical; 0 recorded graphs", () => {
    const config = resolveModelConfig({ dropout: 0.2 }, PRESETS.overfit);
    const model = new GPT(config, initParameters(config, Rng.fromSeed(39).child("init")));
    const dropoutRng = Rng.fromSeed(1).child("dropout");
    // real, non-zero gradients held by the caller (as an accumulating trainer would)
    const vars = [...model.params.values()];
    const grads = tf.variableGrads(
      () => batchLoss(model, { train: true, dropoutRng })(packedBatches(train, binding, 2)[0]).sum,
      vars,
    ).grads;
    const watched = new Map(vars.map((v) => [v.name, grads[v.name]]));
    expect(Math.abs(tf.tidy(() => tf.sum(tf.abs(watched.get(vars[0].name)!)).dataSync()[0]))).toBeGreaterThan(0);
    const gradBytes = [...watched.values()].map((g) => Buffer.from((g.dataSync() as Float32Array).buffer).toString("hex"));
    const rngBefore = JSON.stringify(dropoutRng.state());
    const adapter = decoderAdapter(model, { watched, rngs: [dropoutRng] });
    const e = evaluateLikelihood(adapter, "validation", packedBatches(val, binding, 2));
    expect(e.recordedGraphs).toBe(0);
    expect(e.batches).toBe(1);
    expect(e.metrics.targets).toBe(9);
    expect([...watched.values()].map((g) => Buffer.from((g.dataSync() as Float32Array).buffer).toString("hex"))).toEqual(gradBytes);
    expect(JSON.stringify(dropoutRng.state())).toBe(rngBefore);
    // evaluation uses the no-dropout forward: two evaluations agree exactly
    expect(evaluateLikelihood(adapter, "validation", separateBatches(val, binding)).metrics.totalNll).toBeCloseTo(e.metrics.totalNll, 5);
    tf.dispose([...watched.values()]);
    model.dispose();
  });

  it("refuses an empty evaluation, a mismatched split or binding, a non-finite loss, and a recording tape", () => {
    const model = new GPT(PRESETS.overfit, initParameters(PRESETS.overfit, Rng.fromSeed(39).child("init")));
    const adapter = decoderAdapter(model);
    expect(() => evaluateLikelihood(adapter, "validation", [])).toThrow(/empty evaluation/);
    expect(() => evaluateLikelihood(adapter, "train", packedBatches(val, binding, 2))).toThrow(
      /declared validation, evaluation expected train/,
    );
    expect(() => evaluateLikelihood(adapter, "validation", packedBatches(val, { vocabSize: 266, contextLength: 7 }, 2))).toThrow(
      /bound to vocab 266\/context 7/,
    );
    const broken = { ...adapter, positionNll: () => new Float64Array(10).fill(Infinity) };
    expect(() => evaluateLikelihood(broken, "validation", packedBatches(val, binding, 2))).toThrow(/non-finite validation loss/);
    const v = model.p("wte");
    expect(() =>
      tf.variableGrads(() => {
        evaluateLikelihood(adapter, "validation", packedBatches(val, binding, 2));
        return tf.sum(v) as tf.Scalar;
      }, [v]),
    ).toThrow(/gradient tape is recording/);
    const mutating = {
      ...adapter,
      positionNll: (b: Parameters<typeof adapter.positionNll>[0]) => {
        tf.tidy(() => v.assign(tf.add(v, 1)));
        return adapter.positionNll(b);
      },
    };
    expect(() => evaluateLikelihood(mutating, "validation", packedBatches(val, binding, 2))).toThrow(/changed the state/);
    model.dispose();
  });
});
