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

/** The first index holding NaN or ±Infinity, or -1. */
function firstNonFinite(a: Float32Array): number {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return i;
  return -1;
}

/** max |x| over the array; NaN if any is NaN (Math.max propagates it). */
function maxAbs(a: ArrayLike<number>, n = a.length): number {
  let mx = 0;
  for (let i = 0; i < n; i++) mx = Math.max(mx, Math.abs(a[i]));
  return mx;
}

/**
 * Below this, an update's bound (`apply`) proves every new value finite in float32 (largest 3.4e38) with room for
 * the few roundings between the bound's float64 arithmetic and the stored values.
 */
const SAFE_BOUND = 1e37;

export class AdamW {
  private readonly m = new Map<string, Float32Array>();
  private readonly v = new Map<string, Float32Array>();
  /** One parameter's float64 gradient at a time (the largest parameter's size), reused by every update. */
  private readonly scratch: Float64Array;
  /** The values this optimizer last assigned to each parameter, with the engine data they went into. */
  private readonly written = new Map<string, { dataId: object; values: Float32Array }>();
  step = 0;

  constructor(
    private readonly params: Map<string, tf.Variable>,
    readonly config: AdamWConfig = DEFAULT_ADAMW,
  ) {
    const { beta1, beta2, eps, weightDecay } = config;
    if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1)) throw new Error(`AdamW betas must be in [0, 1), got ${beta1}, ${beta2}`);
    if (!(eps > 0) || !(weightDecay >= 0)) throw new Error(`AdamW needs eps > 0 and weightDecay ≥ 0, got ${eps}, ${weightDecay}`);
    let largest = 0;
    for (const [name, p] of params) {
      this.m.set(name, new Float32Array(p.size));
      this.v.set(name, new Float32Array(p.size));
      largest = Math.max(largest, p.size);
    }
    this.scratch = new Float64Array(largest);
  }

  /**
   * Parameter `name`'s float32 values now, read only: the array this optimizer last assigned while the variable
   * still holds that assignment (any other assign gives the variable new engine data), else a copy out of the engine.
   * Each update's readers (the weights fed to graphs, the pool's shared buffer, the next update) so copy nothing.
   */
  current(name: string): Float32Array {
    const p = this.params.get(name);
    if (!p) throw new Error(`AdamW: no parameter "${name}"`);
    const w = this.written.get(name);
    return w && w.dataId === p.dataId ? w.values : (p.dataSync() as Float32Array);
  }

  /** Parameter `name`'s gradient as a float64 or float32 array (terms summed into the scratch buffer). */
  private gradient(grads: Gradients, name: string, size: number): Float64Array | Float32Array {
    const g = grads.get(name)!;
    if (g instanceof tf.Tensor) return g.dataSync() as Float32Array;
    if (g instanceof Float32Array || g instanceof Float64Array) return g;
    if (g.some((t) => t.length !== size)) throw new Error(`AdamW: a gradient term of parameter "${name}" does not have its ${size} values`);
    const out = this.scratch.subarray(0, size);
    sumTerms(g, out);
    return out;
  }

  /**
   * One update with learning rate `lr`; every gradient is multiplied by `gradScale` first (mean and clipping).
   * Every new weight and moment is known finite before any is kept: a non-finite one throws NonFiniteError
   * naming the parameter, and the weights, moments and step stay as they were.
   *
   * Nothing the size of the model is copied. A first pass takes only maxima (|gradient|, |weight|, |moment|,
   * second moment), and from them a bound on every new value; below SAFE_BOUND all are finite and the update is
   * applied at once. Otherwise a checking pass computes every new value (rounded to float32 as it will be stored)
   * only to find the first non-finite one, with the same arithmetic as the applying pass, so the kept values are
   * the checked ones bit for bit.
   */
  apply(grads: Gradients, lr: number, gradScale = 1): void {
    if (!(lr >= 0) || !Number.isFinite(lr)) throw new Error(`learning rate must be finite and ≥ 0, got ${lr}`);
    for (const name of this.params.keys()) if (!grads.has(name)) throw new Error(`AdamW: no gradient for parameter "${name}"`);
    const { beta1, beta2, eps, weightDecay } = this.config;
    const step = this.step + 1;
    const stepSize = lr / (1 - beta1 ** step);
    const bc2Sqrt = Math.sqrt(1 - beta2 ** step);
    const f = Math.fround;
    const decayOf = (name: string, p: tf.Variable) => (weightDecay > 0 && this.config.decays(name, p.shape) ? 1 - lr * weightDecay : 1);
    if (!this.provablyFinite(grads, lr, gradScale, stepSize, decayOf)) {
      for (const [name, p] of this.params) {
        const g = this.gradient(grads, name, p.size),
          w = this.current(name),
          m = this.m.get(name)!,
          v = this.v.get(name)!,
          decay = decayOf(name, p);
        let badW = -1,
          badM = -1,
          badV = -1;
        for (let i = 0; i < w.length; i++) {
          const gi = g[i] * gradScale;
          const mi = f(beta1 * m[i] + (1 - beta1) * gi);
          const vi = f(beta2 * v[i] + (1 - beta2) * gi * gi);
          const wi = f(w[i] * decay - (stepSize * mi) / (Math.sqrt(vi) / bc2Sqrt + eps));
          if (!Number.isFinite(wi) && badW < 0) badW = i;
          if (!Number.isFinite(mi) && badM < 0) badM = i;
          if (!Number.isFinite(vi) && badV < 0) badV = i;
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
    for (const [name, p] of this.params) {
      // current() may alias backend storage or an array a tensor holds: read only, the new weights go into a new array
      const g = this.gradient(grads, name, p.size),
        w = this.current(name),
        m = this.m.get(name)!,
        v = this.v.get(name)!,
        decay = decayOf(name, p);
      const next = new Float32Array(w.length);
      for (let i = 0; i < w.length; i++) {
        const gi = g[i] * gradScale;
        m[i] = beta1 * m[i] + (1 - beta1) * gi;
        v[i] = beta2 * v[i] + (1 - beta2) * gi * gi;
        next[i] = w[i] * decay - (stepSize * m[i]) / (Math.sqrt(v[i]) / bc2Sqrt + eps);
      }
      tf.tidy(() => p.assign(tf.tensor(next, p.shape, "float32")));
      // never written again: later updates write new arrays (the cpu backend may keep this one as the tensor's data)
      this.written.set(name, { dataId: p.dataId, values: next });
    }
    this.step = step;
  }

  /**
   * True when every new value of this update is finite, by bounds on the whole update: with G = max|g|·gradScale,
   * |m'| ≤ max(max|m|, G), v' ≤ max(max v, G²) and, the denominator being at least eps,
   * |w'| ≤ max|w|·|decay| + stepSize·max|m'|/eps. False (check value by value) when a bound reaches SAFE_BOUND or
   * any input is NaN.
   */
  private provablyFinite(
    grads: Gradients,
    lr: number,
    gradScale: number,
    stepSize: number,
    decayOf: (name: string, p: tf.Variable) => number,
  ): boolean {
    let g = 0,
      w = 0,
      m = 0,
      v = 0,
      decay = 0;
    for (const [name, p] of this.params) {
      g = Math.max(g, maxAbs(this.gradient(grads, name, p.size)));
      w = Math.max(w, maxAbs(this.current(name)));
      m = Math.max(m, maxAbs(this.m.get(name)!));
      v = Math.max(v, maxAbs(this.v.get(name)!));
      decay = Math.max(decay, Math.abs(decayOf(name, p)));
    }
    const gs = g * Math.abs(gradScale),
      mBound = Math.max(m, gs),
      vBound = Math.max(v, gs * gs);
    const wBound = w * decay + (stepSize * mBound) / this.config.eps;
    return mBound < SAFE_BOUND && vBound < SAFE_BOUND && wBound < SAFE_BOUND && Number.isFinite(lr);
  }

  state(): AdamWState {
    const copy = (src: Map<string, Float32Array>) => new Map([...src].map(([n, a]) => [n, a.slice()]));
    return { step: this.step, m: copy(this.m), v: copy(this.v) };
  }

  restore(state: AdamWState): void {
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
