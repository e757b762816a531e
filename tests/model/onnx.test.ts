// The ONNX graph of src/model/onnx.ts on onnxruntime-node: it computes the float64 reference's logits, and it
// scores documents the same with the KV cache (token by token, present fed back as past) as in one pass.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import * as ort from "onnxruntime-node";
import { describe, expect, it } from "vitest";
import { decodeModelParts } from "../../src/lab/model_file.ts";
import { resolveModelConfig, type ModelConfig } from "../../src/model/config.ts";
import type { ParamArrays } from "../../src/model/init.ts";
import { onnxModel, pastName, presentName, BATCH_AXIS } from "../../src/model/onnx.ts";
import { trainingModel } from "../../src/model/onnx_train.ts";
import { fromBinary } from "@bufbuild/protobuf";
import { ModelProtoSchema } from "onnx-buf";
import { referenceLogits, referenceNll, toParams64 } from "../../src/model/reference.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { randomWeights } from "../helpers.ts";

const FIXTURE = resolve(import.meta.dirname, "../fixtures/seed39-format2.safetensors");
/**
 * Cached and one-pass scoring run the same float32 dot products over the same keys, grouped differently, so a
 * document's mean NLL agrees to 1e-6. One target's NLL is a difference of logits near 10, whose
 * float32 spacing is 1e-6, so per target the bound is a few of those spacings.
 */
const CACHE_TOL = 1e-6,
  CACHE_TARGET_TOL = 4e-6;
/** float32 ONNX against the float64 reference: float32 rounding only, the bar tools/score.py meets against tinylab. */
const FLOAT64_TOL = 1e-5;

const seed39 = () => decodeModelParts(new Uint8Array(readFileSync(FIXTURE)), FIXTURE);

const i64 = (rows: number[][]) => new ort.Tensor("int64", BigInt64Array.from(rows.flat().map(BigInt)), [rows.length, rows[0].length]);
const nllOf = (logits: Float32Array, at: number, V: number, target: number) => {
  const row = logits.subarray(at * V, (at + 1) * V);
  const max = Math.max(...row);
  return max + Math.log(row.reduce((s: number, v) => s + Math.exp(v - max), 0)) - row[target];
};

/** Per-target NLLs of one document in one pass through the graph without the cache. */
async function onePass(session: ort.InferenceSession, ids: number[], V: number): Promise<number[]> {
  const input = ids.slice(0, -1),
    pos = input.map((_, i) => i);
  const out = await session.run({ input_ids: i64([input]), attention_mask: i64([input.map(() => 1)]), position_ids: i64([pos]) });
  return ids.slice(1).map((t, j) => nllOf(out.logits.data as Float32Array, j, V, t));
}

/** The same document one token at a time through the cached graph, each step's present fed back as past. */
async function cached(session: ort.InferenceSession, c: ModelConfig, ids: number[]): Promise<number[]> {
  const D = c.dModel / c.nHeads;
  let past: Record<string, ort.Tensor> = {};
  for (let l = 0; l < c.nLayers; l++)
    for (const kv of ["key", "value"] as const) past[pastName(l, kv)] = new ort.Tensor("float32", new Float32Array(0), [1, c.nHeads, 0, D]);
  const nlls: number[] = [];
  for (let t = 0; t + 1 < ids.length; t++) {
    const out = await session.run({
      input_ids: i64([[ids[t]]]),
      attention_mask: i64([Array(t + 1).fill(1)]),
      position_ids: i64([[t]]),
      ...past,
    });
    nlls.push(nllOf(out.logits.data as Float32Array, 0, c.vocabSize, ids[t + 1]));
    past = {};
    for (let l = 0; l < c.nLayers; l++) for (const kv of ["key", "value"] as const) past[pastName(l, kv)] = out[presentName(l, kv)];
  }
  return nlls;
}

const bpeShape = resolveModelConfig({ vocabSize: 300, contextLength: 48, nLayers: 2, dModel: 16, nHeads: 4, dFF: 32, tiedHead: false });
const cases: { name: string; config: ModelConfig; weights: ParamArrays; docs: number[][] }[] = [
  {
    name: "seed-39 overfit",
    ...(({ config, weights }) => ({ config, weights }))(seed39()),
    docs: [
      [0, 99, 99, 99, 100, 1],
      [0, 99, 99, 100, 1],
      [0, 99, 100, 99, 99, 1],
      [0, 100, 99, 99, 1],
    ],
  },
  {
    name: "random 2 layers, untied, context 48",
    config: bpeShape,
    weights: randomWeights(bpeShape, Rng.fromSeed(23)),
    docs: [48, 30, 2].map((n, d) => {
      const r = Rng.fromSeed(`doc${d}`);
      return [0, ...Array.from({ length: n - 2 }, () => 2 + r.int(298)), 1];
    }),
  },
];

describe("the ONNX graph on onnxruntime-node", () => {
  for (const { name, config, weights, docs } of cases) {
    it(`${name}: names and shapes of the cache inputs; one pass equals the float64 reference; cached equals one pass within ${CACHE_TOL} per document`, async () => {
      const session = await ort.InferenceSession.create(onnxModel(config, weights));
      const plain = await ort.InferenceSession.create(onnxModel(config, weights, { kvCache: false }));
      expect(plain.inputNames).toEqual(["input_ids", "attention_mask", "position_ids"]);
      expect(plain.outputNames).toEqual(["logits"]);
      expect(session.inputNames.slice(3)).toEqual(
        Array.from({ length: config.nLayers }, (_, l) => [pastName(l, "key"), pastName(l, "value")]).flat(),
      );
      expect(session.outputNames).toEqual([
        "logits",
        ...Array.from({ length: config.nLayers }, (_, l) => [presentName(l, "key"), presentName(l, "value")]).flat(),
      ]);
      const meta = session.inputMetadata[3] as { shape: readonly (number | string)[] };
      expect(meta.shape).toEqual([BATCH_AXIS, config.nHeads, "past_sequence_length", config.dModel / config.nHeads]);

      const p64 = toParams64(weights);
      let worstCache = 0,
        worstRef = 0;
      for (const ids of docs) {
        const [a, b] = [await onePass(plain, ids, config.vocabSize), await cached(session, config, ids)];
        const input = ids.slice(0, -1);
        const ref = referenceNll(
          referenceLogits(config, p64, { rows: 1, cols: input.length, ids: Int32Array.from(input), docIds: new Int32Array(input.length) }),
          Int32Array.from(ids.slice(1)),
          config.vocabSize,
        );
        expect(b.length).toBe(ids.length - 1);
        a.forEach((v, j) => {
          worstCache = Math.max(worstCache, Math.abs(v - b[j]));
          worstRef = Math.max(worstRef, Math.abs(v - ref[j]));
        });
        const mean = (x: ArrayLike<number>) => Array.from(x).reduce((s, v) => s + v, 0) / x.length;
        expect(Math.abs(mean(a) - mean(b))).toBeLessThan(CACHE_TOL);
      }
      console.log(
        `${name}: per-target |cached − one pass| ≤ ${worstCache.toExponential(2)}, |one pass − float64 reference| ≤ ${worstRef.toExponential(2)}`,
      );
      expect(worstCache).toBeLessThan(CACHE_TARGET_TOL);
      expect(worstRef).toBeLessThan(FLOAT64_TOL);
    });
  }

  it("only the scoring form, which only onnxruntime runs, uses onnxruntime's contrib ops; the export and the training graph are standard ONNX", () => {
    const { config, weights } = seed39();
    const contrib = (bytes: Uint8Array) => {
      const m = fromBinary(ModelProtoSchema, bytes);
      return {
        nodes: m.graph!.node.filter((n) => n.domain === "com.microsoft").map((n) => n.opType),
        imports: m.opsetImport.map((o) => o.domain).filter((d) => d !== ""),
      };
    };
    expect(contrib(onnxModel(config, null, { scoring: true, weights: "inputs" }))).toEqual({
      nodes: Array.from({ length: config.nLayers }, () => ["Attention", "FastGelu"]).flat(),
      imports: ["com.microsoft"],
    });
    for (const standard of [onnxModel(config, weights), onnxModel(config, weights, { kvCache: false }), trainingModel(config)])
      expect(contrib(standard)).toEqual({ nodes: [], imports: [] });
  });

  it("a weight missing or misshapen is refused, named", () => {
    const { config, weights } = seed39();
    const short = new Map(weights);
    short.set("h0.attn.wo", new Float32Array(3));
    expect(() => onnxModel(config, short)).toThrow('onnx: weight "h0.attn.wo" is missing or not of shape [8,8]');
  });
});
