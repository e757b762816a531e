// The GPT-style decoder on tfjs: token + position embeddings, pre-LayerNorm blocks with causal multi-head
// attention and a GELU feed-forward, final LayerNorm, tied head. Not training (src/train) or batching (src/data).
import { tf, tfjsOnly } from "../util/backend.ts";
import type { Engine } from "../util/engine.ts";
import type { Rng } from "../util/primitives/rng.ts";
import { parameterShapes, validateModelConfig, type ModelConfig } from "./config.ts";
import type { ParamArrays } from "./init.ts";
import { attentionMask, checkModelInput, positionsOf, type ModelInput } from "./input.ts";
import { attend, embed, gelu, layerNorm, linear, matmul, matmulTransposed, swapLast } from "./ops.ts";

type T = tf.Tensor;

/** Training mode applies dropout from the given stream; evaluation mode never does. */
export type ForwardMode = { train: false } | { train: true; dropoutRng: Rng };

/**
 * The decoder's weights as named tfjs variables, in `parameterShapes` order, on an engine (as a PyTorch module
 * lives on a device): scoring and training ask it who runs whole graphs. Default: tfjs's own kernels of the backend.
 */
export class GPT {
  readonly params: Map<string, tf.Variable>;
  constructor(
    readonly config: ModelConfig,
    arrays: ParamArrays,
    readonly engine: Engine = tfjsOnly(),
  ) {
    validateModelConfig(config);
    this.params = new Map();
    for (const [name, shape] of parameterShapes(config)) {
      const data = arrays.get(name);
      if (!data) throw new Error(`missing parameter "${name}"`);
      const size = shape.reduce((a, b) => a * b, 1);
      if (data.length !== size) throw new Error(`parameter "${name}" has ${data.length} values, expected ${size} for shape [${shape}]`);
      const source = tf.tensor(data, shape, "float32");
      this.params.set(name, tf.variable(source, true, `${name}_${variableCounter++}`));
      source.dispose(); // tf.variable copies its initial value
    }
    for (const name of arrays.keys()) if (!this.params.has(name)) throw new Error(`unexpected parameter "${name}" for this config`);
  }

  p(name: string): tf.Variable {
    const v = this.params.get(name);
    if (!v) throw new Error(`no parameter "${name}"`);
    return v;
  }

  /** Copy the current weights out as named Float32Arrays. */
  read(): ParamArrays {
    // copies: on the cpu backend dataSync returns the variable's own storage
    return new Map([...this.params].map(([n, v]) => [n, Float32Array.from(v.dataSync() as Float32Array)]));
  }

  /** Overwrite weights from named arrays (shapes must match). */
  assign(arrays: ParamArrays): void {
    for (const [name, v] of this.params) {
      const data = arrays.get(name);
      if (!data || data.length !== v.size) throw new Error(`cannot assign parameter "${name}": missing or wrong size`);
      tf.tidy(() => v.assign(tf.tensor(data, v.shape, "float32")));
    }
  }

  dispose(): void {
    for (const v of this.params.values()) v.dispose();
  }

  /** Logits [rows, cols, vocab] for a checked input; call inside tf.tidy. */
  forward(input: ModelInput, mode: ForwardMode = { train: false }): tf.Tensor3D {
    const c = this.config;
    checkModelInput(input, c);
    const { rows: B, cols: S } = input;
    const drop = (x: T): T => dropout(x, c.dropout, mode);
    const ids = tf.tensor1d(input.ids, "int32");
    const pos = tf.tensor1d(positionsOf(input), "int32");
    const mask = tf.tensor4d(attentionMask(input), [B, 1, S, S]);
    let x: T = tf.reshape(tf.add(embed(this.p("wte"), ids), embed(this.p("wpe"), pos)), [B, S, c.dModel]); // [B, S, C]
    x = drop(x);
    for (let l = 0; l < c.nLayers; l++) {
      const p = (n: string) => this.p(`h${l}.${n}`);
      x = tf.add(x, drop(this.attention(layerNorm(x, p("ln1.g"), p("ln1.b")), mask, l, mode)));
      const h = gelu(linear(layerNorm(x, p("ln2.g"), p("ln2.b")), p("mlp.w1"), p("mlp.b1"))); // [B, S, F]
      x = tf.add(x, drop(linear(h, p("mlp.w2"), p("mlp.b2"))));
    }
    x = layerNorm(x, this.p("lnf.g"), this.p("lnf.b"));
    const x2 = tf.reshape(x, [B * S, c.dModel]);
    const logits = c.tiedHead ? matmulTransposed(x2, this.p("wte")) : matmul(x2, this.p("head")); // [B·S, V]
    return tf.reshape(logits, [B, S, c.vocabSize]) as tf.Tensor3D;
  }

  private attention(x: T, mask: T, l: number, mode: ForwardMode): T {
    const w = this.p(`h${l}.attn.wqkv`),
      b = this.p(`h${l}.attn.bqkv`); // [C, 3C], [3C]
    const wo = this.p(`h${l}.attn.wo`),
      bo = this.p(`h${l}.attn.bo`);
    if (mode.train && this.config.dropout > 0) return linear(this.attentionWithDropout(linear(x, w, b), mask, mode), wo, bo);
    return linear(attend(x, w, b, mask, this.config.nHeads), wo, bo); // [B, S, C]
  }

  /** The unfused path, used only when attention dropout is active (it needs the probabilities exposed). */
  private attentionWithDropout(qkv: T, mask: T, mode: ForwardMode): T {
    const { nHeads: H, dModel: C } = this.config;
    const [B, S] = qkv.shape;
    const D = C / H;
    const heads = (i: number) => tf.transpose(tf.reshape(tf.slice(qkv, [0, 0, i * C], [B, S, C]), [B, S, H, D]), [0, 2, 1, 3]); // [B, H, S, D]
    const [q, k, v] = [heads(0), heads(1), heads(2)];
    const scores = tf.add(tf.mul(matmul(q, swapLast(k)), 1 / Math.sqrt(D)), mask); // [B, H, S, S]
    const att = dropout(tf.softmax(scores), this.config.dropout, mode);
    return tf.reshape(tf.transpose(matmul(att, v), [0, 2, 1, 3]), [B, S, C]);
  }
}

let variableCounter = 0;

/** Inverted dropout with a keep-mask drawn from the caller's stream (never tfjs's global RNG). */
function dropout(x: T, rate: number, mode: ForwardMode): T {
  if (!mode.train || rate === 0) return x;
  const keep = new Float32Array(x.size);
  const scale = 1 / (1 - rate);
  for (let i = 0; i < keep.length; i++) keep[i] = mode.dropoutRng.next() < rate ? 0 : scale;
  return tf.mul(x, tf.tensor(keep, x.shape));
}
