// The decoder as an ONNX graph (opset 17), the forward of gpt.ts written as ONNX nodes over the model file's
// named weights, encoded to ModelProto bytes. Pure (no node: import, no engine): onnxruntime, transformers.js
// and the export all take these bytes. Not a runtime and not a converter back (docs/model-format.md §8).
//
//   onnxModel(config, weights)                      → Uint8Array, with the KV cache (transformers.js's contract)
//   onnxModel(config, weights, { kvCache: false })  → Uint8Array, one pass: input_ids, attention_mask, position_ids → logits
//   onnxModel(config, weights, { scoring: true })   → Uint8Array, one pass: input_ids, attention_bias, position_ids, targets → nll
//                                                     (onnxruntime's com.microsoft FastGelu and Attention: only onnxruntime runs it)
//   onnxModel(config, null, { scoring: true, weights: "inputs" })  → the same with the weights as inputs (one session per config)
//   onnxModel(config, null, { scoring: true, weights: "inputs", causalAttention: true })  → the same with tinylab.CausalAttention
// The forward's builders (Graph, block, head, …) are exported for onnx_train.ts, which appends the backward.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
export { TensorProto_DataType as DataType } from "onnx-buf";
import {
  AttributeProto_AttributeType as AttrType,
  AttributeProtoSchema,
  GraphProtoSchema,
  ModelProtoSchema,
  NodeProtoSchema,
  OperatorSetIdProtoSchema,
  StringStringEntryProtoSchema,
  TensorProto_DataType as DataType,
  TensorProtoSchema,
  TensorShapeProto_DimensionSchema,
  TensorShapeProtoSchema,
  TypeProto_TensorSchema,
  TypeProtoSchema,
  ValueInfoProtoSchema,
  type AttributeProto,
  type NodeProto,
  type TensorProto,
  type ValueInfoProto,
} from "onnx-buf";
import { parameterShapes, type ModelConfig } from "./config.ts";
import type { ParamArrays } from "./init.ts";
import { MASKED } from "./input.ts";
import { LN_EPS } from "./ops.ts";

/** The default-domain opset the graph uses (LayerNormalization is opset 17's; Gelu, opset 20's, is written out). */
export const ONNX_OPSET = 17;
/** ONNX IR version 8, the one that goes with opset 17. */
export const ONNX_IR_VERSION = 8;
import {
  ATTENTION_BIAS,
  ATTENTION_MASK,
  BATCH_AXIS,
  INPUT_IDS,
  LOGITS,
  NLL,
  pastName,
  POSITION_IDS,
  presentName,
  TARGETS,
} from "./onnx_names.ts";
export { ATTENTION_BIAS, ATTENTION_MASK, BATCH_AXIS, INPUT_IDS, LOGITS, NLL, pastName, POSITION_IDS, presentName, TARGETS };
/** onnxruntime's contrib-op domain (FastGelu, Attention), imported at version 1 by a graph that uses it. */
const CONTRIB_DOMAIN = "com.microsoft";
/** tinylab's own operators' domain (CausalAttention, native/tinylab_ort.c), imported at version 1 by a graph that uses it. */
const TINYLAB_DOMAIN = "tinylab";

export interface OnnxOptions {
  /** Past key/value inputs and present outputs per layer (default true). Without them the graph is one pass over the row. */
  kvCache?: boolean;
  /**
   * The scoring form (implies no cache): attention_bias [B, 1, S, S] (input.ts's attentionMask, so packed rows keep
   * their documents apart) replaces attention_mask, targets [B, S] come in and nll [B, S] = −log_softmax(logits)[target]
   * goes out in place of the logits. tinylab scores through it on onnxruntime; it is not the export's contract.
   */
  scoring?: boolean;
  /** Key/value pairs stored in the model's metadata_props (e.g. the source model's sha256). */
  metadata?: Record<string, string>;
  /**
   * The scoring form with each layer's attention as tinylab.CausalAttention (native/tinylab_ort.c, which only tinylab's
   * addon runs) instead of onnxruntime's `Attention`; for head sizes src/util/engine.ts's CAUSAL_ATTENTION_HEAD_SIZES.
   */
  causalAttention?: boolean;
  /**
   * Where the weights live: initializers (default, the export's form) or graph inputs named as the model file's
   * parameters, so that one session serves every weight update (the caller feeds them with each run).
   */
  weights?: "initializers" | "inputs";
}

type Dim = number | string;
type Attr = number | number[] | string;

/**
 * Nodes and initializers as they are added; every node output gets a readable name under the current scope.
 * `training` adds what a backward needs to the forward (LayerNormalization's mean and 1/std outputs); `kept`
 * maps a forward tensor's role (e.g. `h0.mlp/tanh`) to its name, so a backward can find unnamed intermediates.
 */
export class Graph {
  readonly nodes: NodeProto[] = [];
  readonly initializers: TensorProto[] = [];
  readonly kept = new Map<string, string>();
  private count = 0;
  /**
   * `contrib`: onnxruntime's own fused nodes (com.microsoft's FastGelu and Attention) where the forward allows them,
   * for a graph only onnxruntime runs (the scoring form); the export and the training graph keep standard ONNX.
   * `causal` (with contrib): each attention as its QKV product and tinylab.CausalAttention, which only tinylab's
   * addon runs (native/tinylab_ort.c).
   */
  constructor(
    readonly training = false,
    readonly contrib = false,
    readonly causal = false,
  ) {}

  /** Add one com.microsoft node (onnxruntime's contrib ops); returns its output's name. */
  contribOp(opType: string, inputs: string[], scope: string, attrs: Record<string, Attr>, out?: string): string {
    const output = this.op(opType, inputs, scope, attrs, out);
    this.nodes[this.nodes.length - 1].domain = CONTRIB_DOMAIN;
    return output;
  }

  /** Record `name` under `role` (the bytes do not change: nothing is added to the graph); returns `name`. */
  keep(role: string, name: string): string {
    this.kept.set(role, name);
    return name;
  }

  /** The name kept under `role`; throws when the forward kept none (a backward asking for a tensor not built). */
  get(role: string): string {
    const name = this.kept.get(role);
    if (name === undefined) throw new Error(`onnx graph: no tensor kept as "${role}"`);
    return name;
  }

  /** Add a node with several named outputs. */
  multi(opType: string, inputs: string[], outputs: string[], attrs: Record<string, Attr> = {}): void {
    this.nodes.push(
      create(NodeProtoSchema, {
        opType,
        input: inputs,
        output: outputs,
        name: outputs[0],
        attribute: Object.entries(attrs).map(([n, v]) => attribute(n, v)),
      }),
    );
  }

  /** Add one node; returns its (first) output's name. `out` names it, else `<scope><op>_<n>`. */
  op(opType: string, inputs: string[], scope: string, attrs: Record<string, Attr> = {}, out?: string): string {
    const output = out ?? `${scope}${opType}_${this.count++}`;
    this.nodes.push(
      create(NodeProtoSchema, {
        opType,
        input: inputs,
        output: [output],
        name: output,
        attribute: Object.entries(attrs).map(([n, v]) => attribute(n, v)),
      }),
    );
    return output;
  }

  weight(name: string, shape: number[], data: Float32Array): string {
    this.initializers.push(
      create(TensorProtoSchema, { name, dims: shape.map(BigInt), dataType: DataType.FLOAT, rawData: littleEndian(data) }),
    );
    return name;
  }

  int64(name: string, values: number[]): string {
    if (this.initializers.some((t) => t.name === name)) return name;
    this.initializers.push(
      create(TensorProtoSchema, { name, dims: [BigInt(values.length)], dataType: DataType.INT64, int64Data: values.map(BigInt) }),
    );
    return name;
  }

  scalar(name: string, value: number): string {
    if (this.initializers.some((t) => t.name === name)) return name;
    this.initializers.push(create(TensorProtoSchema, { name, dims: [], dataType: DataType.FLOAT, floatData: [value] }));
    return name;
  }
}

function attribute(name: string, v: Attr): AttributeProto {
  if (typeof v === "string") return create(AttributeProtoSchema, { name, type: AttrType.STRING, s: new TextEncoder().encode(v) });
  if (Array.isArray(v)) return create(AttributeProtoSchema, { name, type: AttrType.INTS, ints: v.map(BigInt) });
  return Number.isInteger(v)
    ? create(AttributeProtoSchema, { name, type: AttrType.INT, i: BigInt(v) })
    : create(AttributeProtoSchema, { name, type: AttrType.FLOAT, f: v });
}

const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function littleEndian(data: Float32Array): Uint8Array<ArrayBuffer> {
  // the host's own bytes where they are already ONNX's order (a whole model's weights in one copy, not per float)
  if (HOST_LITTLE_ENDIAN) return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer);
  const out = new Uint8Array(data.length * 4),
    view = new DataView(out.buffer);
  for (let i = 0; i < data.length; i++) view.setFloat32(i * 4, data[i], true);
  return out;
}

export function valueInfo(name: string, elemType: DataType, dims: Dim[]): ValueInfoProto {
  const dim = dims.map((d) =>
    create(TensorShapeProto_DimensionSchema, {
      value: typeof d === "number" ? { case: "dimValue", value: BigInt(d) } : { case: "dimParam", value: d },
    }),
  );
  const tensorType = create(TypeProto_TensorSchema, { elemType, shape: create(TensorShapeProtoSchema, { dim }) });
  return create(ValueInfoProtoSchema, { name, type: create(TypeProtoSchema, { value: { case: "tensorType", value: tensorType } }) });
}

/** h = wte[input_ids] + wpe[position_ids]. */
export function embeddings(g: Graph): string {
  return g.op(
    "Add",
    [g.op("Gather", ["wte", INPUT_IDS], "embed/"), g.op("Gather", ["wpe", POSITION_IDS], "embed/")],
    "embed/",
    {},
    "embed/h",
  ); // [B, S, C]
}

/**
 * The additive attention mask [B, 1, S, past + S]: 0 where query i (at index past + i of the cache) may see key j
 * (j ≤ past + i and attention_mask[b, j] = 1), MASKED (−1e9, as tinylab adds) elsewhere.
 */
function attentionBias(g: Graph): string {
  const s = "mask/";
  const scalarDim = (x: string, axis: number) =>
    g.op("Gather", [g.op("Shape", [x], s), g.int64(`${s}axis${axis}`, [axis])], s, { axis: 0 });
  const total = g.op("Squeeze", [scalarDim(ATTENTION_MASK, 1)], s, {}, `${s}total`);
  const seq = g.op("Squeeze", [scalarDim(INPUT_IDS, 1)], s, {}, `${s}seq`);
  const zero = g.op("Constant", [], s, { value_int: 0 }, `${s}zero`);
  const one = g.op("Constant", [], s, { value_int: 1 }, `${s}one`);
  const past = g.op("Sub", [total, seq], s, {}, `${s}past`);
  const keys = g.op("Range", [zero, total, one], s, {}, `${s}keys`); // [P + S]
  const queries = g.op("Unsqueeze", [g.op("Range", [past, total, one], s), g.int64(`${s}axes_last`, [1])], s, {}, `${s}queries`); // [S, 1]
  const causal = g.op("LessOrEqual", [keys, queries], s, {}, `${s}causal`); // [S, P + S]
  const padded = g.op("Unsqueeze", [g.op("Cast", [ATTENTION_MASK], s, { to: DataType.BOOL }), g.int64(`${s}axes_12`, [1, 2])], s); // [B, 1, 1, P + S]
  const seen = g.op("And", [causal, padded], s, {}, `${s}seen`); // [B, 1, S, P + S]
  return g.op("Where", [seen, g.scalar(`${s}open`, 0), g.scalar(`${s}masked`, MASKED)], s, {}, `${s}bias`);
}

/** Causal multi-head self-attention of block l with its output projection; the cache extends k and v when present. */
function attention(g: Graph, c: ModelConfig, l: number, x: string, bias: string, kvCache: boolean): string {
  const s = `h${l}.attn/`,
    H = c.nHeads,
    D = c.dModel / c.nHeads;
  if (g.causal && g.contrib && !kvCache && !g.training) {
    // the QKV product and its bias, then the heads, scores·scale + bias over the keys each query sees, softmax, ·v
    // and the heads merged in tinylab's kernel
    const qkv = g.op("Add", [g.op("MatMul", [x, `h${l}.attn.wqkv`], s), `h${l}.attn.bqkv`], s, {}, `${s}qkv`); // [B, S, 3C]
    const y = g.op("CausalAttention", [qkv, bias], s, { num_heads: H }, `${s}y`); // [B, S, C]
    g.nodes[g.nodes.length - 1].domain = TINYLAB_DOMAIN;
    return g.op("Add", [g.op("MatMul", [y, `h${l}.attn.wo`], s), `h${l}.attn.bo`], s, {}, `${s}out`);
  }
  if (g.contrib && !kvCache && !g.training) {
    // one node: the qkv projection with its bias, the heads, scores·scale + bias, softmax, ·v and the heads merged
    const y = g.contribOp(
      "Attention",
      [x, `h${l}.attn.wqkv`, `h${l}.attn.bqkv`, "", "", bias],
      s,
      { num_heads: H, scale: 1 / Math.sqrt(D) },
      `${s}y`,
    ); // [B, S, C]
    return g.op("Add", [g.op("MatMul", [y, `h${l}.attn.wo`], s), `h${l}.attn.bo`], s, {}, `${s}out`);
  }
  const qkv = g.op("Add", [g.op("MatMul", [x, `h${l}.attn.wqkv`], s), `h${l}.attn.bqkv`], s, {}, `${s}qkv`); // [B, S, 3C]
  const parts = [`${s}q`, `${s}k`, `${s}v`];
  g.nodes.push(
    create(NodeProtoSchema, {
      opType: "Split",
      name: `${s}split`,
      input: [qkv, g.int64(`${s}split_sizes`, [c.dModel, c.dModel, c.dModel])],
      output: parts,
      attribute: [attribute("axis", 2)],
    }),
  );
  const heads = g.int64(`${s}heads_shape`, [0, 0, H, D]);
  const [q, kNew, vNew] = parts.map((p) =>
    g.keep(`${p}_heads`, g.op("Transpose", [g.op("Reshape", [p, heads], s)], s, { perm: [0, 2, 1, 3] }, `${p}_heads`)),
  ); // each [B, H, S, D]
  const withPast = (now: string, kv: "key" | "value") =>
    kvCache ? g.op("Concat", [pastName(l, kv), now], s, { axis: 2 }, presentName(l, kv)) : now; // [B, H, P + S, D]
  const [k, v] = [withPast(kNew, "key"), withPast(vNew, "value")];
  const scores = g.op(
    "Mul",
    [g.op("MatMul", [q, g.op("Transpose", [k], s, { perm: [0, 1, 3, 2] })], s), g.scalar(`${s}scale`, 1 / Math.sqrt(D))],
    s,
    {},
    `${s}scores`,
  ); // [B, H, S, P + S]
  const att = g.op("Softmax", [g.op("Add", [scores, bias], s)], s, { axis: -1 }, `${s}weights`);
  const y = g.op(
    "Reshape",
    [g.op("Transpose", [g.op("MatMul", [att, v], s)], s, { perm: [0, 2, 1, 3] }), g.int64(`${s}merge_shape`, [0, 0, c.dModel])],
    s,
    {},
    `${s}y`,
  ); // [B, S, C]
  return g.op("Add", [g.op("MatMul", [y, `h${l}.attn.wo`], s), `h${l}.attn.bo`], s, {}, `${s}out`);
}

/** GELU's constants in GPT-2's tanh form: c and k = √(2/π). */
export const GELU_C = 0.044715,
  GELU_K = Math.sqrt(2 / Math.PI);

/**
 * GELU in GPT-2's tanh form 0.5·x·(1 + tanh(k·(x + c·x³))), as ops.ts computes it (Gelu is opset 20): its tanh `t`
 * and its output, with the intermediates a derivative reuses (x², 0.5·x and 1 + t), constants named under `scope`,
 * nodes under `opScope`. `swapped` writes each product and sum with its operands the other way round: the same bits
 * (a·b and b·a round alike), in nodes onnxruntime does not merge into the forward's, for a backward that recomputes
 * GELU instead of keeping it (x·x alone reads the same).
 */
export function geluNodes(g: Graph, x: string, scope: string, opts: { opScope?: string; swapped?: boolean; out?: string } = {}) {
  const s = opts.opScope ?? scope;
  const op = (type: string, a: string, b: string, out?: string) => g.op(type, opts.swapped ? [b, a] : [a, b], s, {}, out);
  const x2 = op("Mul", x, x);
  const cube = op("Mul", x2, x);
  const inner = op("Mul", op("Add", x, op("Mul", cube, g.scalar(`${scope}gelu_c`, GELU_C))), g.scalar(`${scope}gelu_k`, GELU_K));
  const t = g.op("Tanh", [inner], s);
  const half = op("Mul", x, g.scalar(`${scope}half`, 0.5)),
    tPlus1 = op("Add", t, g.scalar(`${scope}one`, 1));
  return { t, out: op("Mul", half, tPlus1, opts.out), square: x2, half, tPlus1 };
}

function mlp(g: Graph, l: number, x: string): string {
  const s = `h${l}.mlp/`;
  if (g.contrib && !g.training) {
    // FastGelu adds the bias and computes the same tanh form in one pass (rounded differently from the chain below)
    const h = g.contribOp("FastGelu", [g.op("MatMul", [x, `h${l}.mlp.w1`], s), `h${l}.mlp.b1`], s, {}, `${s}gelu`); // [B, S, F]
    return g.op("Add", [g.op("MatMul", [h, `h${l}.mlp.w2`], s), `h${l}.mlp.b2`], s, {}, `${s}out`);
  }
  const hidden = g.keep(`${s}pre`, g.op("Add", [g.op("MatMul", [x, `h${l}.mlp.w1`], s), `h${l}.mlp.b1`], s)); // [B, S, F]
  return g.op(
    "Add",
    [g.op("MatMul", [geluNodes(g, hidden, s, { out: `${s}gelu` }).out, `h${l}.mlp.w2`], s), `h${l}.mlp.b2`],
    s,
    {},
    `${s}out`,
  );
}

/** LayerNorm `prefix` of x, named `<scope><ln1|ln2|lnf>`; for training also its input, mean and 1/std, kept as `<name>/x|mean|rstd`. */
function layerNorm(g: Graph, x: string, prefix: string, scope: string): string {
  const y = `${scope}${prefix.split(".").pop()}`,
    attrs = { axis: -1, epsilon: LN_EPS };
  if (!g.training) return g.op("LayerNormalization", [x, `${prefix}.g`, `${prefix}.b`], scope, attrs, y);
  g.keep(`${y}/x`, x);
  g.multi(
    "LayerNormalization",
    [x, `${prefix}.g`, `${prefix}.b`],
    [y, g.keep(`${y}/mean`, `${y}_mean`), g.keep(`${y}/rstd`, `${y}_rstd`)],
    attrs,
  ); // stats [B, S, 1]
  return y;
}

/** Pre-LN block l: h + attn(LN1(h)), then + MLP(LN2(·)). */
export function block(g: Graph, c: ModelConfig, l: number, h: string, bias: string, kvCache: boolean): string {
  const s = `h${l}/`;
  const h1 = g.op("Add", [h, attention(g, c, l, layerNorm(g, h, `h${l}.ln1`, s), bias, kvCache)], s, {}, `${s}resid_attn`);
  return g.op("Add", [h1, mlp(g, l, layerNorm(g, h1, `h${l}.ln2`, s))], s, {}, `${s}resid_mlp`);
}

/** logits = LN_f(h)·wteᵀ (tied) or ·head (untied); scoring: nll (and `head/logp`) in their place. */
export function head(g: Graph, c: ModelConfig, h: string, scoring: boolean): string {
  const s = "head/",
    z = layerNorm(g, h, "lnf", s);
  const w = c.tiedHead ? g.op("Transpose", ["wte"], s, { perm: [1, 0] }, `${s}wte_t`) : "head"; // [C, V]
  const logits = g.op("MatMul", [z, w], s, {}, scoring ? `${s}logits` : LOGITS); // [B, S, V]
  if (!scoring) return logits;
  const logp = g.op("LogSoftmax", [logits], s, { axis: -1 }, `${s}logp`);
  const picked = g.op("GatherElements", [logp, g.op("Unsqueeze", [TARGETS, g.int64(`${s}axes_last`, [2])], s)], s, { axis: 2 }); // [B, S, 1]
  return g.op("Neg", [g.op("Squeeze", [picked, g.int64(`${s}axes_last`, [2])], s)], s, {}, NLL); // [B, S]
}

/**
 * The ONNX model of a tinylab decoder with these weights: ModelProto bytes, initializers named as in the model
 * file (docs/model-format.md §3). Inputs and outputs are listed in §8 there; a weight missing or misshapen throws.
 * With `weights: "inputs"` the weights are graph inputs of those names and shapes instead (`weights` may be null).
 */
export function onnxModel(config: ModelConfig, weights: ParamArrays | null, options: OnnxOptions = {}): Uint8Array {
  const scoring = options.scoring ?? false;
  const kvCache = !scoring && (options.kvCache ?? true);
  const asInputs = options.weights === "inputs";
  const g = new Graph(false, scoring, scoring && (options.causalAttention ?? false));
  if (!asInputs) addWeights(g, config, weights);
  const bias = scoring ? ATTENTION_BIAS : attentionBias(g);
  let h = embeddings(g);
  for (let l = 0; l < config.nLayers; l++) h = block(g, config, l, h, bias, kvCache);
  head(g, config, h, scoring);

  const H = config.nHeads,
    D = config.dModel / config.nHeads;
  const cache = (names: (l: number, kv: "key" | "value") => string, len: string) =>
    Array.from({ length: config.nLayers }, (_, l) =>
      (["key", "value"] as const).map((kv) => valueInfo(names(l, kv), DataType.FLOAT, [BATCH_AXIS, H, len, D])),
    ).flat();
  const inputs = [
    ...(scoring
      ? scoringInputs()
      : [
          valueInfo(INPUT_IDS, DataType.INT64, [BATCH_AXIS, "sequence_length"]),
          valueInfo(ATTENTION_MASK, DataType.INT64, [BATCH_AXIS, "total_sequence_length"]),
          valueInfo(POSITION_IDS, DataType.INT64, [BATCH_AXIS, "sequence_length"]),
        ]),
    ...(kvCache ? cache(pastName, "past_sequence_length") : []),
    ...(asInputs ? weightInputs(config) : []),
  ];
  const outputs = scoring
    ? [valueInfo(NLL, DataType.FLOAT, [BATCH_AXIS, "sequence_length"])]
    : [
        valueInfo(LOGITS, DataType.FLOAT, [BATCH_AXIS, "sequence_length", config.vocabSize]),
        ...(kvCache ? cache(presentName, "total_sequence_length") : []),
      ];
  return encodeGraph(g, inputs, outputs, options.metadata);
}

function addWeights(g: Graph, config: ModelConfig, weights: ParamArrays | null): void {
  for (const [name, shape] of parameterShapes(config)) {
    const data = weights?.get(name);
    if (!data || data.length !== shape.reduce((a, b) => a * b, 1))
      throw new Error(`onnx: weight "${name}" is missing or not of shape [${shape}]`);
    g.weight(name, shape, data);
  }
}

/** The scoring form's inputs: input_ids, attention_bias, position_ids, targets. */
export function scoringInputs(): ValueInfoProto[] {
  return [
    valueInfo(INPUT_IDS, DataType.INT64, [BATCH_AXIS, "sequence_length"]),
    valueInfo(ATTENTION_BIAS, DataType.FLOAT, [BATCH_AXIS, 1, "sequence_length", "sequence_length"]),
    valueInfo(POSITION_IDS, DataType.INT64, [BATCH_AXIS, "sequence_length"]),
    valueInfo(TARGETS, DataType.INT64, [BATCH_AXIS, "sequence_length"]),
  ];
}

/** The weights as float32 graph inputs, named and shaped as the model file's parameters, in its order. */
export function weightInputs(config: ModelConfig): ValueInfoProto[] {
  return parameterShapes(config).map(([name, shape]) => valueInfo(name, DataType.FLOAT, shape));
}

/** ModelProto bytes of a built graph (opset 17, IR 8) with these inputs, outputs and metadata. */
export function encodeGraph(
  g: Graph,
  inputs: ValueInfoProto[],
  outputs: ValueInfoProto[],
  metadata: Record<string, string> = {},
): Uint8Array {
  const graph = create(GraphProtoSchema, { name: "tinylab", node: g.nodes, initializer: g.initializers, input: inputs, output: outputs });
  const model = create(ModelProtoSchema, {
    irVersion: BigInt(ONNX_IR_VERSION),
    producerName: "tinylab",
    graph,
    opsetImport: [
      create(OperatorSetIdProtoSchema, { domain: "", version: BigInt(ONNX_OPSET) }),
      ...[CONTRIB_DOMAIN, TINYLAB_DOMAIN]
        .filter((domain) => g.nodes.some((n) => n.domain === domain))
        .map((domain) => create(OperatorSetIdProtoSchema, { domain, version: 1n })),
    ],
    metadataProps: Object.entries(metadata).map(([key, value]) => create(StringStringEntryProtoSchema, { key, value })),
  });
  return toBinary(ModelProtoSchema, model);
}

/** The metadata_props of ONNX model bytes (e.g. to recognise a previous export); throws if they are not a ModelProto. */
export function readOnnxMetadata(bytes: Uint8Array): Record<string, string> {
  return Object.fromEntries(fromBinary(ModelProtoSchema, bytes).metadataProps.map((p) => [p.key, p.value]));
}
