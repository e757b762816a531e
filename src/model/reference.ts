// A float64 reference forward in plain TypeScript computing the same function as gpt.ts from the same named
// parameters. Not fast and not differentiable: it exists to check the tfjs engine (logits, finite differences).
import { parameterShapes, type ModelConfig } from "./config.ts";
import { attentionMask, checkModelInput, positionsOf, MASKED, type ModelInput } from "./input.ts";
import { LN_EPS } from "./ops.ts";

export type Params64 = Map<string, Float64Array>;

/** Widen float32 (or any) parameter arrays to float64 copies. */
export function toParams64(params: Map<string, ArrayLike<number>>): Params64 {
  return new Map([...params].map(([n, a]) => [n, Float64Array.from(a)]));
}

/** Logits [rows·cols·vocab] in float64. */
export function referenceLogits(config: ModelConfig, params: Params64, input: ModelInput): Float64Array {
  checkModelInput(input, config);
  for (const [name, shape] of parameterShapes(config)) {
    const a = params.get(name);
    if (!a || a.length !== shape.reduce((x, y) => x * y, 1)) throw new Error(`reference: parameter "${name}" missing or wrong size`);
  }
  const { rows, cols } = input;
  const { dModel: C, vocabSize: V } = config;
  const P = (n: string) => params.get(n)!;
  const pos = positionsOf(input);
  const mask = attentionMask(input);
  const out = new Float64Array(rows * cols * V);
  for (let r = 0; r < rows; r++) {
    // x: [cols, C] for this row
    let x: Float64Array = new Float64Array(cols * C);
    const wte = P("wte"),
      wpe = P("wpe");
    for (let t = 0; t < cols; t++) {
      const id = input.ids[r * cols + t],
        p = pos[r * cols + t];
      for (let c = 0; c < C; c++) x[t * C + c] = wte[id * C + c] + wpe[p * C + c];
    }
    const rowMask = mask.subarray(r * cols * cols, (r + 1) * cols * cols);
    for (let l = 0; l < config.nLayers; l++) {
      const pre = `h${l}.`;
      const a = attention(layerNorm(x, cols, C, P(pre + "ln1.g"), P(pre + "ln1.b")), cols, config, params, pre, rowMask);
      x = add(x, a);
      const h = linear(
        layerNorm(x, cols, C, P(pre + "ln2.g"), P(pre + "ln2.b")),
        cols,
        C,
        config.dFF,
        P(pre + "mlp.w1"),
        P(pre + "mlp.b1"),
      );
      for (let i = 0; i < h.length; i++) h[i] = gelu(h[i]);
      x = add(x, linear(h, cols, config.dFF, C, P(pre + "mlp.w2"), P(pre + "mlp.b2")));
    }
    const xf = layerNorm(x, cols, C, P("lnf.g"), P("lnf.b"));
    const head = config.tiedHead ? undefined : P("head");
    for (let t = 0; t < cols; t++) {
      for (let v = 0; v < V; v++) {
        let s = 0;
        if (head) for (let c = 0; c < C; c++) s += xf[t * C + c] * head[c * V + v];
        else for (let c = 0; c < C; c++) s += xf[t * C + c] * wte[v * C + c];
        out[(r * cols + t) * V + v] = s;
      }
    }
  }
  return out;
}

/** Per-position NLL in float64 from reference logits. */
export function referenceNll(logits: Float64Array, targets: Int32Array, vocab: number): Float64Array {
  const out = new Float64Array(targets.length);
  for (let i = 0; i < targets.length; i++) {
    let max = -Infinity;
    for (let v = 0; v < vocab; v++) max = Math.max(max, logits[i * vocab + v]);
    let s = 0;
    for (let v = 0; v < vocab; v++) s += Math.exp(logits[i * vocab + v] - max);
    out[i] = max + Math.log(s) - logits[i * vocab + targets[i]];
  }
  return out;
}

function add(a: Float64Array, b: Float64Array): Float64Array {
  return a.map((v, i) => v + b[i]);
}

function linear(x: Float64Array, n: number, inDim: number, outDim: number, w: Float64Array, b: Float64Array): Float64Array {
  const y = new Float64Array(n * outDim);
  for (let t = 0; t < n; t++) {
    for (let o = 0; o < outDim; o++) {
      let s = b[o];
      for (let i = 0; i < inDim; i++) s += x[t * inDim + i] * w[i * outDim + o];
      y[t * outDim + o] = s;
    }
  }
  return y;
}

function layerNorm(x: Float64Array, n: number, C: number, g: Float64Array, b: Float64Array): Float64Array {
  const y = new Float64Array(x.length);
  for (let t = 0; t < n; t++) {
    let mean = 0;
    for (let c = 0; c < C; c++) mean += x[t * C + c];
    mean /= C;
    let variance = 0;
    for (let c = 0; c < C; c++) variance += (x[t * C + c] - mean) ** 2;
    variance /= C;
    const inv = 1 / Math.sqrt(variance + LN_EPS);
    for (let c = 0; c < C; c++) y[t * C + c] = (x[t * C + c] - mean) * inv * g[c] + b[c];
  }
  return y;
}

export function gelu(x: number): number {
  return 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)));
}

function attention(x: Float64Array, n: number, config: ModelConfig, params: Params64, pre: string, mask: Float32Array): Float64Array {
  const { dModel: C, nHeads: H } = config;
  const D = C / H;
  const qkv = linear(x, n, C, 3 * C, params.get(pre + "attn.wqkv")!, params.get(pre + "attn.bqkv")!); // [n, 3C]
  const y = new Float64Array(n * C);
  const scores = new Float64Array(n);
  for (let h = 0; h < H; h++) {
    for (let i = 0; i < n; i++) {
      let max = -Infinity;
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let d = 0; d < D; d++) s += qkv[i * 3 * C + h * D + d] * qkv[j * 3 * C + C + h * D + d];
        // masked keys contribute exp(−1e9 − max) = 0 exactly, as in tfjs
        scores[j] = s / Math.sqrt(D) + (mask[i * n + j] === MASKED ? MASKED : 0);
        max = Math.max(max, scores[j]);
      }
      let z = 0;
      for (let j = 0; j < n; j++) {
        scores[j] = Math.exp(scores[j] - max);
        z += scores[j];
      }
      for (let d = 0; d < D; d++) {
        let s = 0;
        for (let j = 0; j < n; j++) s += (scores[j] / z) * qkv[j * 3 * C + 2 * C + h * D + d];
        y[i * C + h * D + d] = s;
      }
    }
  }
  return linear(y, n, C, C, params.get(pre + "attn.wo")!, params.get(pre + "attn.bo")!);
}
