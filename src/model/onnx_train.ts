// One training step's forward and backward as one ONNX graph: onnx.ts's scoring forward (weights as inputs),
// then the gradient of Σ mask·NLL with respect to every parameter, written out as nodes (onnxruntime cannot
// train: a graph that computes its gradients explicitly is just inference). Pure; the backward mirrors ops.ts's.
//
//   trainingModel(config) → Uint8Array: weights, input_ids, attention_bias, position_ids, targets, target_mask
//                            → loss_sum (a scalar) and grad.<parameter> per parameter, in parameterShapes order
import type { ValueInfoProto } from "onnx-buf";
import { parameterShapes, type ModelConfig } from "./config.ts";
import {
  BATCH_AXIS,
  block,
  DataType,
  embeddings,
  encodeGraph,
  geluNodes,
  GELU_C,
  GELU_K,
  Graph,
  head,
  INPUT_IDS,
  POSITION_IDS,
  scoringInputs,
  TARGETS,
  valueInfo,
  weightInputs,
  ATTENTION_BIAS,
} from "./onnx.ts";

import { gradName, LOSS_SUM, TARGET_MASK } from "./onnx_names.ts";
export { gradName, LOSS_SUM, TARGET_MASK };

/** The graph's helpers for a backward: names under scope `s`. */
class Backward {
  /** The parameters' gradient nodes, queued in the order the backward reaches them (leaf, flush). */
  private readonly leaves: (() => void)[] = [];

  constructor(
    readonly g: Graph,
    readonly c: ModelConfig,
  ) {}

  /**
   * Queue the nodes of a gradient output (a graph leaf: nothing reads it). onnxruntime's default order is a
   * depth-first walk back from the leaves, the last-added leaf first: added as the backward reached them, the
   * embeddings' gradients came last and pulled in the whole chain, and every layer's weight gradients ran after it,
   * holding each layer's input gradients (and GELU's recomputed output) to the end, about a third of a training
   * run's peak memory at xl. flush adds them in reverse, so the walk reaches each as soon as its inputs exist.
   * The order of nodes changes nothing they compute.
   */
  leaf(add: () => void): void {
    this.leaves.push(add);
  }

  /** Add the queued gradient nodes, the last queued first (so the first queued is the first the walk reaches). */
  flush(): void {
    for (const add of this.leaves.reverse()) add();
    this.leaves.length = 0;
  }

  op(type: string, inputs: string[], s: string, attrs: Record<string, number | number[] | string> = {}, out?: string): string {
    return this.g.op(type, inputs, s, attrs, out);
  }

  /** x [..., w] as [N, w]. */
  rows(x: string, w: number, s: string): string {
    return this.op("Reshape", [x, this.g.int64(`bw/rows_${w}`, [-1, w])], s);
  }

  /** xᵀ·dy over all positions, [in, out]: the weight gradient of x @ w (Gemm's transA, no explicit transpose). */
  weightGrad(x: string, dy: string, inDim: number, outDim: number, s: string, out: string): string {
    return this.op("Gemm", [this.rows(x, inDim, s), this.rows(dy, outDim, s)], s, { transA: 1 }, out);
  }

  /** Σ over batch and sequence axes: a bias's (or LayerNorm gain's) gradient. */
  columnSum(dy: string, s: string, out: string): string {
    return this.op("ReduceSum", [dy, this.g.int64("bw/axes_01", [0, 1])], s, { keepdims: 0 }, out);
  }

  /** dy @ wᵀ for a weight w [in, out] (onnxruntime fuses the transpose into the product). */
  inputGrad(dy: string, w: string, s: string): string {
    return this.op("MatMul", [dy, this.op("Transpose", [w], s, { perm: [1, 0] })], s);
  }

  /**
   * The gradient of a row lookup table[ids] (table [n, C], ids [B, S]) from dy [B, S, C]: each row the sum of its
   * positions' gradients, added in position order (ScatterND's add), as ops.ts's scatter-add does. In order only on
   * one intra-op thread (src/node/onnxruntime.ts INTRA_OP_THREADS, the engine's intraOpThreads): rows repeat, so threads would race on their sums.
   */
  rowGrad(ids: string, dy: string, n: number, s: string, out: string): string {
    const C = this.c.dModel;
    const zeros = this.op("ConstantOfShape", [this.g.int64(`bw/shape_${n}_${C}`, [n, C])], s);
    const at = this.op("Reshape", [ids, this.g.int64("bw/index_rows", [-1, 1])], s); // [N, 1]
    return this.op("ScatterND", [zeros, at, this.rows(dy, C, s)], s, { reduction: "add" }, out);
  }

  /** d of y = LayerNorm(x)·g + b kept as `name`: returns dx; writes grads of `<prefix>.g` and `.b`. */
  layerNorm(dy: string, name: string, prefix: string): string {
    const s = `${name}/bw/`,
      g = this.g;
    const [x, mean, rstd] = ["x", "mean", "rstd"].map((r) => g.get(`${name}/${r}`));
    const xhat = this.op("Mul", [this.op("Sub", [x, mean], s), rstd], s);
    const dxhat = this.op("Mul", [dy, `${prefix}.g`], s);
    const meanLast = (t: string) => this.op("ReduceMean", [t], s, { axes: [-1], keepdims: 1 });
    // dx = rstd·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)), the LayerNorm backward over the normalised axis
    const dx = this.op(
      "Mul",
      [
        rstd,
        this.op(
          "Sub",
          [this.op("Sub", [dxhat, meanLast(dxhat)], s), this.op("Mul", [xhat, meanLast(this.op("Mul", [dxhat, xhat], s))], s)],
          s,
        ),
      ],
      s,
    );
    this.leaf(() => this.columnSum(this.op("Mul", [dy, xhat], s), s, gradName(`${prefix}.g`)));
    this.leaf(() => this.columnSum(dy, s, gradName(`${prefix}.b`)));
    return dx;
  }

  /**
   * x read again only once `dep` exists: x reshaped to dep's own shape (the same shape: Reshape aliases its input,
   * so no copy and the same bits). onnxruntime orders nodes by a depth-first walk back from the outputs, which
   * otherwise computes a backward's terms that depend on forward values alone (GELU's recomputed output and slope,
   * a transposed head) during the forward and holds them through it: two [B, S, dFF] tensors per layer, a third of
   * a training run's peak memory at xl.
   */
  after(x: string, dep: string, s: string): string {
    return this.op("Reshape", [x, this.op("Shape", [dep], s)], s);
  }

  /** Block l's MLP backward from d(out); returns d(its input, the LN2 output). */
  mlp(dOut: string, l: number): string {
    const s = `h${l}.mlp/bw/`,
      { dModel: C, dFF: F } = this.c,
      g = this.g;
    const dAct = this.inputGrad(dOut, `h${l}.mlp.w2`, s); // [B, S, F]
    // GELU's tanh and output recomputed from its input with its operands swapped (geluNodes): kept instead, the
    // two held 2·dFF floats per position per layer through the backward; read after dAct (after)
    const pre = this.after(g.get(`h${l}.mlp/pre`), dAct, s);
    const { t, out: act, square, half, tPlus1 } = geluNodes(g, pre, `h${l}.mlp/`, { opScope: s, swapped: true });
    this.leaf(() => this.weightGrad(act, dOut, F, C, s, gradName(`h${l}.mlp.w2`)));
    this.leaf(() => this.columnSum(dOut, s, gradName(`h${l}.mlp.b2`)));
    // gelu'(x) = 0.5(1 + t) + 0.5·x·(1 − t²)·k(1 + 3c·x²), t = tanh(k(x + c·x³)), reading the recomputation's x²,
    // 0.5·x and 1 + t rather than computing each again (the same values: a product or sum of the same two operands)
    const k = (name: string, v: number) => g.scalar(`bw/${name}`, v);
    const slope = this.op("Add", [this.op("Mul", [square, k("gelu_3ck", 3 * GELU_C * GELU_K)], s), k("gelu_k", GELU_K)], s);
    const dt = this.op("Mul", [this.op("Mul", [this.op("Sub", [k("one", 1), this.op("Mul", [t, t], s)], s), slope], s), half], s);
    const dPre = this.op("Mul", [dAct, this.op("Add", [this.op("Mul", [tPlus1, k("half", 0.5)], s), dt], s)], s);
    this.leaf(() => this.weightGrad(`h${l}/ln2`, dPre, C, F, s, gradName(`h${l}.mlp.w1`)));
    this.leaf(() => this.columnSum(dPre, s, gradName(`h${l}.mlp.b1`)));
    return this.inputGrad(dPre, `h${l}.mlp.w1`, s);
  }

  /** Block l's attention backward from d(out); returns d(its input, the LN1 output). */
  attention(dOut: string, l: number): string {
    const s = `h${l}.attn/bw/`,
      a = `h${l}.attn/`,
      g = this.g,
      { dModel: C, nHeads: H } = this.c,
      D = C / H;
    this.leaf(() => this.weightGrad(`${a}y`, dOut, C, C, s, gradName(`h${l}.attn.wo`)));
    this.leaf(() => this.columnSum(dOut, s, gradName(`h${l}.attn.bo`)));
    const swap = (t: string) => this.op("Transpose", [t], s, { perm: [0, 1, 3, 2] });
    const toHeads = (t: string) =>
      this.op("Transpose", [this.op("Reshape", [t, g.int64(`${a}heads_shape`, [0, 0, H, D])], s)], s, { perm: [0, 2, 1, 3] }); // [B, H, S, D]
    const fromHeads = (t: string) =>
      this.op("Reshape", [this.op("Transpose", [t], s, { perm: [0, 2, 1, 3] }), g.int64(`${a}merge_shape`, [0, 0, C])], s); // [B, S, C]
    const [q, k, v, att] = [g.get(`${a}q_heads`), g.get(`${a}k_heads`), g.get(`${a}v_heads`), `${a}weights`];
    const dy4 = toHeads(this.inputGrad(dOut, `h${l}.attn.wo`, s));
    const dv = fromHeads(this.op("MatMul", [swap(att), dy4], s));
    const datt = this.op("MatMul", [dy4, swap(this.after(v, dy4, s))], s); // [B, H, S, S]
    // softmax backward: ds = att ⊙ (datt − Σ_j datt·att), then the score scale; masked entries have att = 0
    const rowDot = this.op("ReduceSum", [this.op("Mul", [datt, att], s), g.int64("bw/axes_last", [-1])], s, { keepdims: 1 });
    const ds = this.op("Mul", [this.op("Mul", [att, this.op("Sub", [datt, rowDot], s)], s), `${a}scale`], s);
    const dq = fromHeads(this.op("MatMul", [ds, k], s)),
      dk = fromHeads(this.op("MatMul", [swap(ds), q], s));
    const dqkv = this.op("Concat", [dq, dk, dv], s, { axis: 2 }); // [B, S, 3C]
    this.leaf(() => this.weightGrad(`h${l}/ln1`, dqkv, C, 3 * C, s, gradName(`h${l}.attn.wqkv`)));
    this.leaf(() => this.columnSum(dqkv, s, gradName(`h${l}.attn.bqkv`)));
    return this.inputGrad(dqkv, `h${l}.attn.wqkv`, s);
  }
}

/** The training graph of a decoder config (no dropout: the graph has none), weights as inputs. */
export function trainingModel(c: ModelConfig): Uint8Array {
  const g = new Graph(true),
    bw = new Backward(g, c),
    C = c.dModel,
    V = c.vocabSize;
  let h = embeddings(g);
  for (let l = 0; l < c.nLayers; l++) h = block(g, c, l, h, ATTENTION_BIAS, false);
  const nll = head(g, c, h, true); // [B, S]
  const s = "loss/";
  g.op("ReduceSum", [g.op("Mul", [nll, TARGET_MASK], s)], s, { keepdims: 0 }, LOSS_SUM);
  // d(Σ mask·nll)/d logits = mask·softmax − mask at the target (the mask is 0 or 1: the same bits as mask·(softmax − onehot))
  const mask3 = g.op("Unsqueeze", [TARGET_MASK, g.int64("head/axes_last", [2])], s); // [B, S, 1]
  const at = g.op("Unsqueeze", [TARGETS, g.int64("head/axes_last", [2])], s);
  const dLogits = g.op("ScatterElements", [g.op("Mul", [g.op("Exp", ["head/logp"], s), mask3], s), at, g.op("Neg", [mask3], s)], s, {
    axis: 2,
    reduction: "add",
  }); // [B, S, V]
  let dz: string;
  if (c.tiedHead) {
    g.op("Gemm", [bw.rows(dLogits, V, s), bw.rows("head/lnf", C, s)], s, { transA: 1 }, "bw/wte_head");
    dz = g.op("MatMul", [dLogits, "wte"], s);
  } else {
    bw.leaf(() => bw.weightGrad("head/lnf", dLogits, C, V, s, gradName("head")));
    dz = bw.inputGrad(dLogits, "head", s);
  }
  let dh = bw.layerNorm(dz, "head/lnf", "lnf");
  for (let l = c.nLayers - 1; l >= 0; l--) {
    const b = `h${l}/bw/`;
    const dMid = g.op("Add", [dh, bw.layerNorm(bw.mlp(dh, l), `h${l}/ln2`, `h${l}.ln2`)], b); // d(resid_attn)
    dh = g.op("Add", [dMid, bw.layerNorm(bw.attention(dMid, l), `h${l}/ln1`, `h${l}.ln1`)], b); // d(block input)
  }
  const e = "embed/bw/";
  const wteEmbed = bw.rowGrad(INPUT_IDS, dh, V, e, c.tiedHead ? "bw/wte_embed" : gradName("wte"));
  if (c.tiedHead) g.op("Add", [wteEmbed, "bw/wte_head"], e, {}, gradName("wte"));
  bw.rowGrad(POSITION_IDS, dh, c.contextLength, e, gradName("wpe"));
  bw.flush();

  const inputs: ValueInfoProto[] = [
    ...scoringInputs(),
    valueInfo(TARGET_MASK, DataType.FLOAT, [BATCH_AXIS, "sequence_length"]),
    ...weightInputs(c),
  ];
  const outputs = [
    valueInfo(LOSS_SUM, DataType.FLOAT, []),
    ...parameterShapes(c).map(([n, shape]) => valueInfo(gradName(n), DataType.FLOAT, shape)),
  ];
  return encodeGraph(g, inputs, outputs);
}
