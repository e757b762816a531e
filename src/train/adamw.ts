// AdamW (decoupled weight decay, PyTorch's update order) over named tfjs variables, with a snapshot of its state.
// Not clipping or scheduling (trainer.ts): it applies one update from given gradients at a given rate.
// The update runs in plain TypeScript on Float32Array state: on small models one JS loop replaces ~12 tfjs
// kernels per parameter (the dominant cost on wasm), and on large ones it stays a small share of a step.
import { tf } from "../util/backend.ts";
import { DEFAULT_ADAMW, type AdamWConfig } from "./adamw_config.ts";
import { NonFiniteError } from "./non_finite.ts";

export { DEFAULT_ADAMW, type AdamWConfig };

/** Moments and step count as plain arrays, for checkpoints and in-memory resume. */
export interface AdamWState {
  step: number;
  m: Map<string, Float32Array>;
  v: Map<string, Float32Array>;
}

/** Gradients by parameter name, as tensors or as arrays (float64 accumulators from the trainer). */
export type Gradients = Map<string, tf.Tensor | Float32Array | Float64Array>;

/** The first index holding NaN or ±Infinity, or -1. */
function firstNonFinite(a: Float32Array): number {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return i;
  return -1;
}

export class AdamW {
  private readonly m = new Map<string, Float32Array>();
  private readonly v = new Map<string, Float32Array>();
  step = 0;

  constructor(private readonly params: Map<string, tf.Variable>, readonly config: AdamWConfig = DEFAULT_ADAMW) {
    const { beta1, beta2, eps, weightDecay } = config;
    if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1)) throw new Error(`AdamW betas must be in [0, 1), got ${beta1}, ${beta2}`);
    if (!(eps > 0) || !(weightDecay >= 0)) throw new Error(`AdamW needs eps > 0 and weightDecay ≥ 0, got ${eps}, ${weightDecay}`);
    for (const [name, p] of params) {
      this.m.set(name, new Float32Array(p.size));
      this.v.set(name, new Float32Array(p.size));
    }
  }

  /**
   * One update with learning rate `lr`; every gradient is multiplied by `gradScale` first (mean and clipping).
   * Every new weight and moment is computed and checked before any is kept: a non-finite one throws
   * NonFiniteError naming the parameter, and the weights, moments and step stay as they were.
   *
   * Two passes over each parameter, so that nothing the size of the model is copied: the first computes every new
   * value (rounded to float32 as it will be stored) only to check it, the second computes the same values again
   * and keeps them, the moments in place and the weights one parameter at a time. The arithmetic is the same in
   * both, so the kept values are the checked ones bit for bit.
   */
  apply(grads: Gradients, lr: number, gradScale = 1): void {
    if (!(lr >= 0) || !Number.isFinite(lr)) throw new Error(`learning rate must be finite and ≥ 0, got ${lr}`);
    for (const name of this.params.keys()) if (!grads.has(name)) throw new Error(`AdamW: no gradient for parameter "${name}"`);
    const { beta1, beta2, eps, weightDecay } = this.config;
    const step = this.step + 1;
    const stepSize = lr / (1 - beta1 ** step);
    const bc2Sqrt = Math.sqrt(1 - beta2 ** step);
    const f = Math.fround;
    const of = (name: string, p: tf.Variable) => {
      const gIn = grads.get(name)!;
      const decay = weightDecay > 0 && this.config.decays(name, p.shape) ? 1 - lr * weightDecay : 1;
      // dataSync may alias backend storage: read only, the new weights go into a new tensor
      return { g: gIn instanceof tf.Tensor ? gIn.dataSync() : gIn, w: p.dataSync() as Float32Array, m: this.m.get(name)!, v: this.v.get(name)!, decay };
    };
    for (const [name, p] of this.params) {
      const { g, w, m, v, decay } = of(name, p);
      let badW = -1, badM = -1, badV = -1;
      for (let i = 0; i < w.length; i++) {
        const gi = g[i] * gradScale;
        const mi = f(beta1 * m[i] + (1 - beta1) * gi);
        const vi = f(beta2 * v[i] + (1 - beta2) * gi * gi);
        const wi = f(w[i] * decay - (stepSize * mi) / (Math.sqrt(vi) / bc2Sqrt + eps));
        if (!Number.isFinite(wi) && badW < 0) badW = i;
        if (!Number.isFinite(mi) && badM < 0) badM = i;
        if (!Number.isFinite(vi) && badV < 0) badV = i;
      }
      for (const [what, at] of [["weight", badW], ["first moment", badM], ["second moment", badV]] as const) {
        if (at >= 0) throw new NonFiniteError(step, `new ${what} in parameter "${name}" (first at flat index ${at})`);
      }
    }
    for (const [name, p] of this.params) {
      const { g, w, m, v, decay } = of(name, p);
      const next = new Float32Array(w.length);
      for (let i = 0; i < w.length; i++) {
        const gi = g[i] * gradScale;
        m[i] = beta1 * m[i] + (1 - beta1) * gi;
        v[i] = beta2 * v[i] + (1 - beta2) * gi * gi;
        next[i] = w[i] * decay - (stepSize * m[i]) / (Math.sqrt(v[i]) / bc2Sqrt + eps);
      }
      tf.tidy(() => p.assign(tf.tensor(next, p.shape, "float32")));
    }
    this.step = step;
  }

  state(): AdamWState {
    const copy = (src: Map<string, Float32Array>) => new Map([...src].map(([n, a]) => [n, a.slice()]));
    return { step: this.step, m: copy(this.m), v: copy(this.v) };
  }

  restore(state: AdamWState): void {
    if (state.m.size !== this.m.size) throw new Error(`AdamW state has ${state.m.size} parameters, optimizer has ${this.m.size}`);
    for (const [name, target] of this.m) {
      const m = state.m.get(name), v = state.v.get(name);
      if (!m || !v || m.length !== target.length || v.length !== target.length) throw new Error(`AdamW state does not match parameter "${name}"`);
      target.set(m);
      this.v.get(name)!.set(v);
    }
    this.step = state.step;
  }

  /** Nothing to free: the state lives in JS arrays (kept for callers that dispose models and optimizers together). */
  dispose(): void {}
}
