// AdamW (decoupled weight decay, PyTorch's update order) over named tfjs variables, with a snapshot of its state.
// Not clipping or scheduling (trainer.ts): it applies one update from given gradients at a given rate.
// The update runs in plain TypeScript on Float32Array state: on small models one JS loop replaces ~12 tfjs
// kernels per parameter (the dominant cost on wasm), and on large ones it stays a small share of a step.
import { tf } from "../util/backend.ts";
import { DEFAULT_ADAMW, type AdamWConfig } from "./adamw_config.ts";
import { NonFiniteError } from "./non_finite.ts";
import { sumTerms } from "./gradient_terms.ts";

export { DEFAULT_ADAMW, type AdamWConfig };

/** Moments and step count as plain arrays, for checkpoints and in-memory resume. */
export interface AdamWState {
  step: number;
  m: Map<string, Float32Array>;
  v: Map<string, Float32Array>;
}

/**
 * Gradients by parameter name: tensors, arrays, or a parameter's per-microbatch float32 terms (the trainer's),
 * summed in float64 in their order as gradient_terms.ts adds them.
 */
export type Gradients = Map<string, tf.Tensor | Float32Array | Float64Array | readonly Float32Array[]>;

/** max |x| over the array; NaN if any is NaN. */
function maxAbs(a: Float32Array): number {
  let mx = 0;
  for (let i = 0; i < a.length; i++) {
    const y = Math.abs(a[i]);
    if (y > mx) mx = y;
    else if (y !== y) return NaN;
  }
  return mx;
}

/**
 * Below this, an update's bound (`apply`) proves every new value finite in float32 (largest 3.4e38) with room for
 * the few roundings between the bound's float64 arithmetic and the stored values.
 */
const SAFE_BOUND = 1e37;

/**
 * A gradient is read this many values at a time into a float64 chunk (terms summed as gradient_terms.ts adds them)
 * that stays in cache while the update reads it: one pass over the model, no model-sized float64 copy.
 */
const CHUNK = 4096;

/** The update's constants: AdamW's, this update's step size and bias correction, a parameter's decay, the gradient's scale. */
interface UpdateConstants {
  beta1: number;
  beta2: number;
  eps: number;
  stepSize: number;
  bc2Sqrt: number;
  decay: number;
  gradScale: number;
}

/**
 * AdamW on values [at, at + g.length) of one parameter (g its gradient there): moments in place, new weights into
 * `next`, and the largest stored |m|, v and |w| raised into `maxima`. A function of its own, so the engine compiles
 * this loop alone.
 */
function updateRange(
  g: Float64Array,
  at: number,
  w: Float32Array,
  m: Float32Array,
  v: Float32Array,
  next: Float32Array,
  k: UpdateConstants,
  maxima: Float64Array,
): void {
  const { beta1, beta2, eps, stepSize, bc2Sqrt, decay, gradScale } = k;
  let mMax = maxima[0],
    vMax = maxima[1],
    wMax = maxima[2];
  const f = Math.fround; // each value as its float32 store keeps it, without reading the store back
  for (let j = 0, i = at; j < g.length; i++, j++) {
    const gi = g[j] * gradScale;
    const mi = f(beta1 * m[i] + (1 - beta1) * gi);
    const vi = f(beta2 * v[i] + (1 - beta2) * gi * gi);
    const wi = f(w[i] * decay - (stepSize * mi) / (Math.sqrt(vi) / bc2Sqrt + eps));
    m[i] = mi;
    v[i] = vi;
    next[i] = wi;
    const am = Math.abs(mi),
      aw = Math.abs(wi);
    if (am > mMax) mMax = am;
    if (vi > vMax) vMax = vi;
    if (aw > wMax) wMax = aw;
  }
  maxima[0] = mMax;
  maxima[1] = vMax;
  maxima[2] = wMax;
}

export class AdamW {
  private readonly m = new Map<string, Float32Array>();
  private readonly v = new Map<string, Float32Array>();
  private readonly chunk = new Float64Array(CHUNK);
  /**
   * The values this optimizer last assigned to each parameter, with the engine data they went into and their
   * largest |value| (the next update's bound reads it instead of the array).
   */
  private readonly written = new Map<string, { dataId: object; values: Float32Array; maxAbs: number }>();
  /** Per parameter, the two arrays its new weights alternate between (spare()). */
  private readonly buffers = new Map<string, [Float32Array, Float32Array]>();
  /** The largest |m| and v over the model as the last update left them; undefined after a restore (then read). */
  private momentMax: { m: number; v: number } | undefined = { m: 0, v: 0 };
  step = 0;

  constructor(
    private readonly params: Map<string, tf.Variable>,
    readonly config: AdamWConfig = DEFAULT_ADAMW,
  ) {
    const { beta1, beta2, eps, weightDecay } = config;
    if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1)) throw new Error(`AdamW betas must be in [0, 1), got ${beta1}, ${beta2}`);
    if (!(eps > 0) || !(weightDecay >= 0)) throw new Error(`AdamW needs eps > 0 and weightDecay ≥ 0, got ${eps}, ${weightDecay}`);
    for (const [name, p] of params) {
      this.m.set(name, new Float32Array(p.size));
      this.v.set(name, new Float32Array(p.size));
    }
  }

  /**
   * Parameter `name`'s float32 values now, read only: the array this optimizer last assigned while the variable
   * still holds that assignment (any other assign gives the variable new engine data), else a copy out of the engine.
   * Each update's readers (the weights fed to graphs, the pool's shared buffer, the next update) so copy nothing.
   * Valid until the next update (the one after writes over it): copy it to keep it.
   */
  current(name: string): Float32Array {
    const p = this.params.get(name);
    if (!p) throw new Error(`AdamW: no parameter "${name}"`);
    const w = this.written.get(name);
    return w && w.dataId === p.dataId ? w.values : (p.dataSync() as Float32Array);
  }

  /**
   * The array parameter `name`'s next weights go into: of its two, the one that is not `w` (the weights now). The
   * other was assigned two updates ago, and that assignment has since been replaced, so no tensor holds it any more
   * (the cpu backend may keep an assigned array as the tensor's data; wasm copies it). Two arrays per parameter,
   * reused, instead of a model-sized allocation per update, whose fresh pages cost more than the update itself.
   */
  private spare(name: string, w: Float32Array): Float32Array {
    let pair = this.buffers.get(name);
    if (!pair) this.buffers.set(name, (pair = [new Float32Array(w.length), new Float32Array(w.length)]));
    return pair[0] === w ? pair[1] : pair[0];
  }

  /** Parameter `name`'s gradient as float32 or float64 arrays: one array, or its per-microbatch terms. */
  private gradient(
    grads: Gradients,
    name: string,
    size: number,
  ): { terms: readonly Float32Array[] } | { array: Float32Array | Float64Array } {
    const g = grads.get(name)!;
    const array =
      g instanceof tf.Tensor ? (g.dataSync() as Float32Array) : g instanceof Float32Array || g instanceof Float64Array ? g : undefined;
    if (array) {
      if (array.length !== size) throw new Error(`AdamW: the gradient of parameter "${name}" has ${array.length} values, expected ${size}`);
      return { array };
    }
    const terms = g as readonly Float32Array[];
    if (terms.length === 0 || terms.some((t) => t.length !== size))
      throw new Error(`AdamW: a gradient term of parameter "${name}" does not have its ${size} values`);
    return { terms };
  }

  /** Gradient values [from, from + n) into the chunk (terms summed as gradient_terms.ts adds them; an array as is). */
  private fill(g: ReturnType<AdamW["gradient"]>, from: number, n: number): Float64Array {
    const out = n === CHUNK ? this.chunk : this.chunk.subarray(0, n);
    if ("terms" in g) sumTerms(g.terms, out, from);
    else for (let j = 0; j < n; j++) out[j] = g.array[from + j];
    return out;
  }

  /**
   * One update with learning rate `lr`; every gradient is multiplied by `gradScale` first (mean and clipping).
   * `gradMaxAbs`, where the caller has it, is the largest |gradient| before the scale (else this reads it).
   * Every new weight and moment is known finite before any is kept: a non-finite one throws NonFiniteError
   * naming the parameter, and the weights, moments and step stay as they were.
   *
   * Nothing the size of the model is copied. A bound on every new value comes from maxima (|gradient|, and |weight|,
   * |moment| and second moment as the last update left them); below SAFE_BOUND all are finite and the update is
   * applied in one pass. Otherwise a checking pass computes every new value (rounded to float32 as it will be stored)
   * only to find the first non-finite one, with the same arithmetic as the applying pass, so the kept values are
   * the checked ones bit for bit.
   */
  apply(grads: Gradients, lr: number, gradScale = 1, gradMaxAbs?: number): void {
    if (!(lr >= 0) || !Number.isFinite(lr)) throw new Error(`learning rate must be finite and ≥ 0, got ${lr}`);
    for (const name of this.params.keys()) if (!grads.has(name)) throw new Error(`AdamW: no gradient for parameter "${name}"`);
    const { beta1, beta2, eps, weightDecay } = this.config;
    const step = this.step + 1;
    const stepSize = lr / (1 - beta1 ** step);
    const bc2Sqrt = Math.sqrt(1 - beta2 ** step);
    const f = Math.fround;
    const decayOf = (name: string, p: tf.Variable) => (weightDecay > 0 && this.config.decays(name, p.shape) ? 1 - lr * weightDecay : 1);
    const gradient = new Map([...this.params].map(([name, p]) => [name, this.gradient(grads, name, p.size)]));
    if (!this.provablyFinite(gradient, gradMaxAbs, lr, gradScale, stepSize, decayOf)) {
      for (const [name, p] of this.params) {
        const w = this.current(name),
          m = this.m.get(name)!,
          v = this.v.get(name)!,
          decay = decayOf(name, p);
        let badW = -1,
          badM = -1,
          badV = -1;
        for (let at = 0; at < w.length; at += CHUNK) {
          const g = this.fill(gradient.get(name)!, at, Math.min(CHUNK, w.length - at));
          for (let j = 0, i = at; j < g.length; i++, j++) {
            const gi = g[j] * gradScale;
            const mi = f(beta1 * m[i] + (1 - beta1) * gi);
            const vi = f(beta2 * v[i] + (1 - beta2) * gi * gi);
            const wi = f(w[i] * decay - (stepSize * mi) / (Math.sqrt(vi) / bc2Sqrt + eps));
            if (!Number.isFinite(wi) && badW < 0) badW = i;
            if (!Number.isFinite(mi) && badM < 0) badM = i;
            if (!Number.isFinite(vi) && badV < 0) badV = i;
          }
        }
        for (const [what, at] of [
          ["weight", badW],
          ["first moment", badM],
          ["second moment", badV],
        ] as const) {
          if (at >= 0) throw new NonFiniteError(step, `new ${what} in parameter "${name}" (first at flat index ${at})`);
        }
      }
    }
    const maxima = new Float64Array(3); // max |m|, max v (the model's) and max |w| (this parameter's) as stored
    for (const [name, p] of this.params) {
      // current() may alias backend storage or an array a tensor holds: read only, the new weights go into the other
      const w = this.current(name),
        m = this.m.get(name)!,
        v = this.v.get(name)!,
        decay = decayOf(name, p);
      const next = this.spare(name, w);
      const grad = gradient.get(name)!;
      for (let at = 0; at < w.length; at += CHUNK) {
        const g = this.fill(grad, at, Math.min(CHUNK, w.length - at));
        updateRange(g, at, w, m, v, next, { beta1, beta2, eps, stepSize, bc2Sqrt, decay, gradScale }, maxima);
      }
      const wMax = maxima[2];
      maxima[2] = 0;
      tf.tidy(() => p.assign(tf.tensor(next, p.shape, "float32")));
      this.written.set(name, { dataId: p.dataId, values: next, maxAbs: wMax });
    }
    this.momentMax = { m: maxima[0], v: maxima[1] };
    this.step = step;
  }

  /**
   * True when every new value of this update is finite, by bounds on the whole update: with G = max|g|·gradScale,
   * |m'| ≤ max(max|m|, G), v' ≤ max(max v, G²) and, the denominator being at least eps,
   * |w'| ≤ max|w|·|decay| + stepSize·max|m'|/eps. False (check value by value) when a bound reaches SAFE_BOUND or
   * any input is NaN. The maxima of weights and moments this optimizer wrote are known from that update's pass.
   */
  private provablyFinite(
    gradient: Map<string, ReturnType<AdamW["gradient"]>>,
    gradMaxAbs: number | undefined,
    lr: number,
    gradScale: number,
    stepSize: number,
    decayOf: (name: string, p: tf.Variable) => number,
  ): boolean {
    let g = gradMaxAbs ?? 0,
      w = 0,
      decay = 0;
    const moments = this.momentMax ?? {
      m: Math.max(0, ...[...this.m.values()].map(maxAbs)),
      v: Math.max(0, ...[...this.v.values()].map(maxAbs)),
    };
    for (const [name, p] of this.params) {
      if (gradMaxAbs === undefined) {
        const grad = gradient.get(name)!;
        for (let at = 0; at < p.size; at += CHUNK) {
          const c = this.fill(grad, at, Math.min(CHUNK, p.size - at));
          for (let j = 0; j < c.length; j++) g = Math.max(g, Math.abs(c[j]));
        }
      }
      const known = this.written.get(name);
      w = Math.max(w, known && known.dataId === p.dataId ? known.maxAbs : maxAbs(this.current(name)));
      decay = Math.max(decay, Math.abs(decayOf(name, p)));
    }
    this.momentMax = moments;
    const gs = g * Math.abs(gradScale),
      mBound = Math.max(moments.m, gs),
      vBound = Math.max(moments.v, gs * gs);
    const wBound = w * decay + (stepSize * mBound) / this.config.eps;
    return mBound < SAFE_BOUND && vBound < SAFE_BOUND && wBound < SAFE_BOUND && Number.isFinite(lr);
  }

  state(): AdamWState {
    const copy = (src: Map<string, Float32Array>) => new Map([...src].map(([n, a]) => [n, a.slice()]));
    return { step: this.step, m: copy(this.m), v: copy(this.v) };
  }

  restore(state: AdamWState): void {
    this.momentMax = undefined; // read again at the next update
    if (state.m.size !== this.m.size) throw new Error(`AdamW state has ${state.m.size} parameters, optimizer has ${this.m.size}`);
    for (const [name, target] of this.m) {
      const m = state.m.get(name),
        v = state.v.get(name);
      if (!m || !v || m.length !== target.length || v.length !== target.length)
        throw new Error(`AdamW state does not match parameter "${name}"`);
      target.set(m);
      this.v.get(name)!.set(v);
    }
    this.step = state.step;
  }

  /** Nothing to free: the state lives in JS arrays (kept for callers that dispose models and optimizers together). */
  dispose(): void {}
}
