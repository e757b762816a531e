// AdamW (decoupled weight decay, PyTorch's update order) over named tfjs variables, with a snapshot of its state.
// Not clipping or scheduling (trainer.ts): it applies one update from given gradients at a given rate.
import { tf } from "../util/backend.ts";

/** AdamW hyper-parameters; `decays(name)` says which parameters get weight decay. */
export interface AdamWConfig {
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
  decays: (name: string, shape: readonly number[]) => boolean;
}

export const DEFAULT_ADAMW: AdamWConfig = {
  beta1: 0.9,
  beta2: 0.999,
  eps: 1e-8,
  weightDecay: 0,
  // nanoGPT's rule: matrices and embeddings decay, vectors (biases, LayerNorm gains) do not
  decays: (_name, shape) => shape.length >= 2,
};

/** Moments and step count as plain arrays, for checkpoints and in-memory resume. */
export interface AdamWState {
  step: number;
  m: Map<string, Float32Array>;
  v: Map<string, Float32Array>;
}

export class AdamW {
  private readonly m = new Map<string, tf.Variable>();
  private readonly v = new Map<string, tf.Variable>();
  step = 0;

  constructor(private readonly params: Map<string, tf.Variable>, readonly config: AdamWConfig = DEFAULT_ADAMW) {
    const { beta1, beta2, eps, weightDecay } = config;
    if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1)) throw new Error(`AdamW betas must be in [0, 1), got ${beta1}, ${beta2}`);
    if (!(eps > 0) || !(weightDecay >= 0)) throw new Error(`AdamW needs eps > 0 and weightDecay ≥ 0, got ${eps}, ${weightDecay}`);
    for (const [name, p] of params) {
      this.m.set(name, tf.variable(tf.zerosLike(p), false));
      this.v.set(name, tf.variable(tf.zerosLike(p), false));
    }
  }

  /** One update with learning rate `lr` from gradients keyed by parameter name. */
  apply(grads: Map<string, tf.Tensor>, lr: number): void {
    if (!(lr >= 0) || !Number.isFinite(lr)) throw new Error(`learning rate must be finite and ≥ 0, got ${lr}`);
    const { beta1, beta2, eps, weightDecay } = this.config;
    this.step += 1;
    const bc1 = 1 - beta1 ** this.step;
    const bc2 = 1 - beta2 ** this.step;
    tf.tidy(() => {
      for (const [name, p] of this.params) {
        const g = grads.get(name);
        if (!g) throw new Error(`AdamW: no gradient for parameter "${name}"`);
        const m = this.m.get(name)!, v = this.v.get(name)!;
        const decayed = weightDecay > 0 && this.config.decays(name, p.shape) ? tf.mul(p, 1 - lr * weightDecay) : p;
        const m1 = tf.add(tf.mul(m, beta1), tf.mul(g, 1 - beta1));
        const v1 = tf.add(tf.mul(v, beta2), tf.mul(tf.square(g), 1 - beta2));
        const denom = tf.add(tf.div(tf.sqrt(v1), Math.sqrt(bc2)), eps);
        p.assign(tf.sub(decayed, tf.mul(tf.div(m1, denom), lr / bc1)));
        m.assign(m1);
        v.assign(v1);
      }
    });
  }

  state(): AdamWState {
    const read = (src: Map<string, tf.Variable>) => new Map([...src].map(([n, t]) => [n, t.dataSync() as Float32Array]));
    return { step: this.step, m: read(this.m), v: read(this.v) };
  }

  restore(state: AdamWState): void {
    for (const [name, target] of [...this.m.entries()].map(([n, t]) => [n, t] as const)) {
      const m = state.m.get(name), v = state.v.get(name);
      if (!m || !v || m.length !== target.size || v.length !== target.size) throw new Error(`AdamW state does not match parameter "${name}"`);
      tf.tidy(() => {
        target.assign(tf.tensor(m, target.shape));
        this.v.get(name)!.assign(tf.tensor(v, target.shape));
      });
    }
    if (state.m.size !== this.m.size) throw new Error(`AdamW state has ${state.m.size} parameters, optimizer has ${this.m.size}`);
    this.step = state.step;
  }

  dispose(): void {
    for (const t of [...this.m.values(), ...this.v.values()]) t.dispose();
  }
}
