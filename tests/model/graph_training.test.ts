// The training graph (src/model/onnx_train.ts through graph_training.ts on onnxruntime) against tfjs autograd:
// every parameter's Σ-NLL gradient and the loss sum on small configs (tied and untied heads, one to three
// layers, packed rows holding several documents, masked targets), without leaks; one session serves every
// update; dropout keeps tfjs. onnxruntime-node is a dependency: without it these tests fail, never skip.
import { fromBinary } from "@bufbuild/protobuf";
import { ModelProtoSchema } from "onnx-buf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packedBatches, paddedBatches } from "../../src/data/batches.ts";
import { randomDocuments } from "../../src/data/fixtures.ts";
import { resolveModelConfig, type ModelConfig } from "../../src/model/config.ts";
import { GPT } from "../../src/model/gpt.ts";
import { graphBuilds } from "../../src/model/graph_scoring.ts";
import { graphGradient, graphGradientRuns, gradientPath } from "../../src/model/graph_training.ts";
import { trainingModel } from "../../src/model/onnx_train.ts";
import type { ScoredBatch } from "../../src/model/input.ts";
import { batchLoss } from "../../src/model/loss.ts";
import { microbatchGradient } from "../../src/train/trainer.ts";
import { initBackend, tf } from "../../src/util/backend.ts";
import { openKernels } from "../../src/node/native_kernels.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { randomWeights } from "../helpers.ts";
import { loadGraphBuilders } from "../../src/model/graph_builders.ts";

/**
 * Both engines compute the same formulas in float32, summed in different orders (MLAS's blocked products, tfjs's
 * XNNPACK and JS sums): each entry differs by rounding, ~1e-7 relative per operation over a few dozen operations
 * and sums of up to a few hundred terms. So each gradient entry agrees within 2e-5 of its tensor's largest entry;
 * a wrong term (a missing residual, a transposed weight, a leaking mask) is off by O(1) of it.
 */
const GRAD_RTOL = 2e-5;
/** The loss sums: float32 sums of ~100 NLLs of ~5 nats, each within ~1e-6 (tests/model/graph_scoring.test.ts). */
const LOSS_ATOL = 1e-4;

const shape = (o: Partial<ModelConfig>) =>
  resolveModelConfig({ vocabSize: 40, contextLength: 16, nLayers: 2, dModel: 16, nHeads: 2, dFF: 32, tiedHead: true, ...o });
const cases: { name: string; config: ModelConfig }[] = [
  { name: "1 layer, tied head", config: shape({ nLayers: 1 }) },
  { name: "2 layers, untied head", config: shape({ tiedHead: false }) },
  { name: "3 layers, tied, 4 heads", config: shape({ nLayers: 3, nHeads: 4 }) },
];

/** Packed rows of several documents each, and padded rows with a target mask holding zeros. */
function batches(config: ModelConfig, rng: Rng): ScoredBatch[] {
  const binding = { vocabSize: config.vocabSize, contextLength: config.contextLength };
  const docs = randomDocuments(rng, config.vocabSize, 9, 8).map((d) => ({ ...d, split: "train" as const }));
  return [...packedBatches(docs, binding, 3), ...paddedBatches(docs, binding, 4)];
}

beforeAll(async () => {
  await initBackend("wasm");
  await loadGraphBuilders(); // openEngine's part, for the engines openKernels opens here
});
afterAll(() => openKernels("tfjs"));

describe.each(cases)("the training graph, $name", ({ config }) => {
  it("gives tfjs autograd's gradients and loss sum within float32 rounding, without leaks", () => {
    const model = new GPT(config, randomWeights(config, Rng.fromSeed(`w ${config.nLayers}`)));
    const bs = batches(config, Rng.fromSeed("docs"));
    expect(bs.some((b) => new Set(b.input.docIds).size > 2)).toBe(true); // rows holding several documents
    expect(bs.some((b) => b.mask.includes(0))).toBe(true); // masked targets
    const vars = [...model.params.values()],
      names = [...model.params.keys()];
    const tfjs = bs.map((b) => microbatchGradient(vars, batchLoss(model, { train: false } as never), b));
    const onGraph = new GPT(config, model.read(), openKernels("onnxruntime"));
    try {
      const before = tf.memory().numTensors;
      const graph = bs.map((b) => graphGradient(onGraph, b)!);
      let seen = 0;
      expect(tf.memory().numTensors).toBe(before);
      bs.forEach((b, k) => {
        expect(graph[k].count).toBe(b.targetCount);
        expect(Math.abs(graph[k].lossSum - tfjs[k].lossSum)).toBeLessThanOrEqual(LOSS_ATOL);
        names.forEach((name, i) => {
          const [a, want] = [graph[k].grads[i], tfjs[k].grads[i]];
          expect(a.length, name).toBe(want.length);
          const scale = want.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
          expect(scale, `${name}: a gradient worth comparing`).toBeGreaterThan(1e-3);
          const worst = a.reduce((m, v, j) => Math.max(m, Math.abs(v - want[j])), 0);
          seen = Math.max(seen, worst);
          expect(worst / scale, `batch ${k} ${name}`).toBeLessThanOrEqual(GRAD_RTOL);
        });
      });
      expect(seen).toBeGreaterThan(0); // two engines: float32 rounding shows, so the bound is not vacuous
    } finally {
      openKernels("tfjs");
      model.dispose();
      onGraph.dispose();
    }
  });
});

describe("the training graph's memory", () => {
  it("recomputes GELU's tanh and output in the backward from its input instead of keeping them from the forward", () => {
    const config = cases[1].config;
    const { graph } = fromBinary(ModelProtoSchema, trainingModel(config))!;
    const nodes = graph!.node;
    const backward = (n: (typeof nodes)[number]) => n.name.includes("/bw/");
    for (let l = 0; l < config.nLayers; l++) {
      const forward = nodes.filter((n) => !backward(n) && n.name.startsWith(`h${l}.mlp/`));
      const tanh = forward.filter((n) => n.opType === "Tanh").flatMap((n) => n.output);
      expect(tanh).toHaveLength(1);
      const kept = new Set([...tanh, `h${l}.mlp/gelu`]);
      const readers = nodes.filter((n) => n.input.some((i) => kept.has(i)));
      expect(readers.length).toBeGreaterThan(0);
      expect(readers.filter(backward).map((n) => n.name)).toEqual([]);
      // the backward computes its own tanh from the MLP's input
      expect(nodes.filter((n) => backward(n) && n.name.startsWith(`h${l}.mlp/bw/`) && n.opType === "Tanh")).toHaveLength(1);
    }
  });
  it("adds each parameter's gradient nodes in the reverse of the order the backward reaches them, and reads GELU's input and v again only after it gets there", () => {
    // onnxruntime walks back from the leaves, the last-added first: the last layer's weight gradients must come
    // last in the graph and the embeddings' first, or every layer's input gradients are held to the end
    for (const { config } of cases.filter((c) => c.config.nLayers > 1)) {
      const nodes = fromBinary(ModelProtoSchema, trainingModel(config))!.graph!.node;
      const at = (output: string) => nodes.findIndex((n) => n.output.includes(output));
      const order = [
        "grad.wpe",
        "grad.h0.ln1.b",
        "grad.h0.attn.wqkv",
        "grad.h0.mlp.w2",
        `grad.h${config.nLayers - 1}.attn.wqkv`,
        `grad.h${config.nLayers - 1}.mlp.w1`,
        `grad.h${config.nLayers - 1}.mlp.w2`,
        "grad.lnf.g",
      ].map(at);
      expect(order.every((i) => i >= 0)).toBe(true);
      for (let k = 1; k < order.length; k++) expect(order[k], `leaf ${k}`).toBeGreaterThan(order[k - 1]);
      for (let l = 0; l < config.nLayers; l++) {
        // the backward reads the MLP's input and v again through a Reshape to a backward tensor's own shape
        const producer = (name: string) => nodes.find((n) => n.output.includes(name));
        for (const scope of [`h${l}.mlp/bw/`, `h${l}.attn/bw/`]) {
          const deferred = nodes.filter(
            (n) => n.name.startsWith(scope) && n.opType === "Reshape" && producer(n.input[1])?.opType === "Shape",
          );
          expect(deferred, scope).toHaveLength(1);
          expect(producer(deferred[0].input[0])!.name, scope).not.toContain("/bw/"); // a forward value
          expect(producer(producer(deferred[0].input[1])!.input[0])!.name, scope).toContain("/bw/"); // read after a backward one
        }
      }
    }
  });
});

describe("training graph sessions", () => {
  it("one per config: reused across weight updates, whose gradients follow the weights", () => {
    const config = cases[1].config;
    const weights = randomWeights(config, Rng.fromSeed(3));
    const model = new GPT(config, weights, openKernels("onnxruntime"));
    const [batch] = batches(config, Rng.fromSeed("s"));
    try {
      const [b0, r0] = [graphBuilds(), graphGradientRuns()];
      const first = graphGradient(model, batch)!;
      expect(graphGradient(model, batch)!.grads).toEqual(first.grads);
      model.assign(new Map([...weights].map(([n, w]) => [n, w.map((v) => v * 0.5)])));
      expect(graphGradient(model, batch)!.grads).not.toEqual(first.grads);
      model.assign(weights);
      expect(graphGradient(model, batch)!.grads).toEqual(first.grads);
      expect(graphBuilds() - b0).toBeLessThanOrEqual(1); // 0 when an earlier test built this config's session
      expect(graphGradientRuns() - r0).toBe(4);
    } finally {
      openKernels("tfjs");
      model.dispose();
    }
  });

  it("are not used under dropout or on tfjs kernels: those keep tfjs autograd", () => {
    const config = shape({ dropout: 0.1 });
    const weights = randomWeights(config, Rng.fromSeed(4));
    const model = new GPT(config, weights, openKernels("tfjs"));
    const onGraph = new GPT(config, weights, openKernels("onnxruntime"));
    const [batch] = batches(config, Rng.fromSeed("d"));
    try {
      expect(gradientPath(model)).toBe("tfjs");
      expect(graphGradient(model, batch)).toBeUndefined();
      expect(gradientPath(onGraph)).toBe("tfjs");
      expect(graphGradient(onGraph, batch)).toBeUndefined();
    } finally {
      openKernels("tfjs");
      model.dispose();
      onGraph.dispose();
    }
  });
});
