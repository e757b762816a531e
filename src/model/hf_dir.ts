// A Hugging Face causal-LM directory read as values: config.json's architecture, context and shape, and the ONNX
// decoder's own contract (opset, input and output names, their declared types and shapes, the weights' dtype).
// Pure (bytes and parsed JSON in). Not the session (src/node/model_dir.ts) and not the adapter (src/eval/passes/graph_adapter.ts).
// Everything it cannot run is refused in one line naming the file, the field and the value.
import { fromBinary } from "@bufbuild/protobuf";
import { ModelProtoSchema, TensorProto_DataType as DataType, type ValueInfoProto } from "onnx-buf";
import { ATTENTION_MASK, INPUT_IDS, LOGITS, POSITION_IDS } from "./onnx_names.ts";

/** config.json model types whose ONNX decoder and tokenizer tinylab implements (GPT-2 and its exports: distilgpt2, optimum, tinylab export). */
export const KNOWN_ARCHITECTURES = ["gpt2"] as const;
/** The merged decoder's switch between its first pass and its cached passes (optimum's decoder_model_merged.onnx). */
export const USE_CACHE_BRANCH = "use_cache_branch";
const PAST = /^past_key_values\.(\d+)\.(key|value)$/;
/** Operators that make a graph compute in other than float32 (a quantized or half-precision export). */
const NON_FLOAT32_OPS = new Set([
  "DequantizeLinear",
  "QuantizeLinear",
  "DynamicQuantizeLinear",
  "MatMulInteger",
  "QLinearMatMul",
  "MatMulNBits",
  "DynamicQuantizeMatMul",
  "GatherBlockQuantized",
]);

export class ModelDirRefusal extends Error {}

/** What config.json says of the model, in tinylab's terms. */
export interface HfModelConfig {
  architecture: string;
  vocabSize: number;
  contextLength: number;
  nLayers: number;
  nHeads: number;
  headDim: number;
  /** config.json's bos_token_id / eos_token_id, when declared. */
  bosTokenId?: number;
  eosTokenId?: number;
}

const firstInt = (c: Record<string, unknown>, keys: readonly string[]): [string, number] | undefined => {
  for (const k of keys) if (c[k] !== undefined && c[k] !== null) return [k, c[k] as number];
  return undefined;
};

/** config.json as an HfModelConfig; the context is n_positions, max_position_embeddings or n_ctx, the first present. */
export function parseHfConfig(json: unknown, where: string): HfModelConfig {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new ModelDirRefusal(`${where}: is not a JSON object`);
  const c = json as Record<string, unknown>;
  const arch = c.model_type;
  if (!(KNOWN_ARCHITECTURES as readonly unknown[]).includes(arch))
    throw new ModelDirRefusal(
      `${where}: model_type ${JSON.stringify(arch)} is not an architecture tinylab runs (known: ${KNOWN_ARCHITECTURES.join(", ")})`,
    );
  const need = (keys: readonly string[], what: string): number => {
    const got = firstInt(c, keys);
    if (!got || !Number.isInteger(got[1]) || got[1] < 1)
      throw new ModelDirRefusal(`${where}: ${what} (${keys.join(" / ")}) must be a positive integer, got ${JSON.stringify(got?.[1])}`);
    return got[1];
  };
  const vocabSize = need(["vocab_size"], "the vocabulary size");
  const contextLength = need(["n_positions", "max_position_embeddings", "n_ctx"], "the context");
  const nLayers = need(["n_layer", "num_hidden_layers"], "the layer count");
  const nHeads = need(["n_head", "num_attention_heads"], "the head count");
  const width = need(["n_embd", "hidden_size"], "the width");
  if (width % nHeads !== 0) throw new ModelDirRefusal(`${where}: the width ${width} is not a multiple of the head count ${nHeads}`);
  const id = (k: string) => (Number.isInteger(c[k]) && (c[k] as number) >= 0 ? (c[k] as number) : undefined);
  return {
    architecture: arch as string,
    vocabSize,
    contextLength,
    nLayers,
    nHeads,
    headDim: width / nHeads,
    bosTokenId: id("bos_token_id"),
    eosTokenId: id("eos_token_id"),
  };
}

/** One declared graph input or output: ONNX element type's name and each dimension (a number, or its symbolic name). */
export interface GraphValue {
  name: string;
  dtype: string;
  dims: (number | string)[];
}

/** What the graph is, as provenance records it and the adapter feeds it. */
export interface GraphInfo {
  opset: number;
  irVersion: number;
  producer: string;
  inputs: GraphValue[];
  outputs: GraphValue[];
  /** "float32", or what else its weights or operators are (e.g. "float16 weights", "quantized (MatMulInteger)"). */
  dtype: string;
  /** Cache layers fed as past_key_values.N.key / .value (0 for a graph without a cache). */
  cacheLayers: number;
  /** Whether the graph takes use_cache_branch (a merged decoder). */
  merged: boolean;
}

const typeName = (t: number): string =>
  (DataType[t] ?? `type ${t}`)
    .toLowerCase()
    .replace(/^float$/, "float32")
    .replace(/^double$/, "float64");

function graphValue(v: ValueInfoProto): GraphValue {
  const t = v.type?.value.case === "tensorType" ? v.type.value.value : undefined;
  const dims = (t?.shape?.dim ?? []).map((d) =>
    d.value.case === "dimValue" ? Number(d.value.value) : d.value.case === "dimParam" ? d.value.value : "?",
  );
  return { name: v.name, dtype: t ? typeName(t.elemType) : "not a tensor", dims };
}

/** Read the graph's contract from ONNX model bytes; refuse what the adapter cannot feed, naming the input. */
export function describeGraph(bytes: Uint8Array, where: string, config: HfModelConfig): GraphInfo {
  let model;
  try {
    model = fromBinary(ModelProtoSchema, bytes);
  } catch (err) {
    throw new ModelDirRefusal(`${where}: is not an ONNX model (${(err as Error).message.split("\n")[0]})`);
  }
  const g = model.graph;
  if (!g) throw new ModelDirRefusal(`${where}: the ONNX model has no graph`);
  const inits = new Set(g.initializer.map((t) => t.name));
  if (g.initializer.some((t) => t.dataLocation === 1))
    throw new ModelDirRefusal(`${where}: its weights are in external data files, which tinylab does not read`);
  const inputs = g.input.filter((v) => !inits.has(v.name)).map(graphValue);
  const outputs = g.output.map(graphValue);
  const opset = Number(model.opsetImport.find((o) => o.domain === "" || o.domain === "ai.onnx")?.version ?? 0);
  const weightTypes = new Set(g.initializer.filter((t) => t.dims.reduce((a, b) => a * Number(b), 1) > 1).map((t) => t.dataType));
  const badWeights = [...weightTypes].filter((t) => t !== DataType.FLOAT && t !== DataType.INT64 && t !== DataType.INT32);
  const badOps = [...new Set(g.node.map((n) => n.opType).filter((op) => NON_FLOAT32_OPS.has(op)))];
  const dtype =
    badWeights.length > 0
      ? `${badWeights.map(typeName).join(", ")} weights`
      : badOps.length > 0
        ? `quantized (${badOps.join(", ")})`
        : "float32";
  const info: GraphInfo = {
    opset,
    irVersion: Number(model.irVersion),
    producer: model.producerName,
    inputs,
    outputs,
    dtype,
    cacheLayers: 0,
    merged: false,
  };
  checkContract(info, where, config);
  return info;
}

/** Every input one tinylab knows how to feed, the logits [batch, sequence, vocab] float32 out; the cache complete and shaped by config.json. */
function checkContract(info: GraphInfo, where: string, config: HfModelConfig): void {
  const known = [INPUT_IDS, ATTENTION_MASK, POSITION_IDS, USE_CACHE_BRANCH, "past_key_values.N.key", "past_key_values.N.value"];
  const layers = new Set<number>();
  for (const v of info.inputs) {
    const past = PAST.exec(v.name);
    if (past) {
      layers.add(Number(past[1]));
      const [b, h, , d] = v.dims;
      if (
        v.dims.length !== 4 ||
        (typeof h === "number" && h !== config.nHeads) ||
        (typeof d === "number" && d !== config.headDim) ||
        (typeof b === "number" && b !== 1)
      ) {
        throw new ModelDirRefusal(
          `${where}: input "${v.name}" is declared [${v.dims.join(", ")}], not [batch, ${config.nHeads} heads, past, ${config.headDim}] as config.json's shape gives`,
        );
      }
      if (v.dtype !== "float32") throw new ModelDirRefusal(`${where}: input "${v.name}" is ${v.dtype}, not float32`);
      continue;
    }
    if (!known.includes(v.name))
      throw new ModelDirRefusal(`${where}: input "${v.name}" is not one tinylab knows how to feed (known: ${known.join(", ")})`);
    const want = v.name === USE_CACHE_BRANCH ? "bool" : "int64";
    if (v.dtype !== want) throw new ModelDirRefusal(`${where}: input "${v.name}" is ${v.dtype}, expected ${want}`);
  }
  if (!info.inputs.some((v) => v.name === INPUT_IDS)) throw new ModelDirRefusal(`${where}: the graph has no "${INPUT_IDS}" input`);
  const logits = info.outputs.find((v) => v.name === LOGITS);
  if (!logits) throw new ModelDirRefusal(`${where}: the graph has no "${LOGITS}" output`);
  if (logits.dtype !== "float32") throw new ModelDirRefusal(`${where}: output "${LOGITS}" is ${logits.dtype}, not float32`);
  if (typeof logits.dims[2] === "number" && logits.dims[2] !== config.vocabSize)
    throw new ModelDirRefusal(
      `${where}: output "${LOGITS}" has ${logits.dims[2]} entries per position, config.json's vocab_size is ${config.vocabSize}`,
    );
  info.cacheLayers = layers.size;
  if (layers.size > 0 && (layers.size !== config.nLayers || [...layers].some((l) => l >= config.nLayers))) {
    throw new ModelDirRefusal(
      `${where}: past_key_values inputs cover layers ${[...layers].sort((a, b) => a - b).join(", ")}, config.json has ${config.nLayers}`,
    );
  }
  for (const l of layers)
    for (const kv of ["key", "value"]) {
      if (!info.inputs.some((v) => v.name === `past_key_values.${l}.${kv}`))
        throw new ModelDirRefusal(`${where}: input "past_key_values.${l}.${kv}" is missing beside its pair`);
    }
  info.merged = info.inputs.some((v) => v.name === USE_CACHE_BRANCH);
}
