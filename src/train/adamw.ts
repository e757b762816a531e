// AdamW (decoupled weight decay, PyTorch's update order) over named tfjs variables, with a snapshot of its state.
// Not clipping or scheduling (trainer.ts): it applies one update from given gradients at a given rate.
// The update runs in plain TypeScript on Float32Array state: on small models one JS loop replaces ~12 tfjs
// kernels per parameter (the dominant cost on wasm), and on large ones it stays a small share of a step.
import { tf } from "../util/backend.ts";
import { DEFAULT_ADAMW, type AdamWConfig } from "./adamw_config.ts";
import { NonFiniteError } from "./non_finite.ts";
import { firstNonFinite, gradientMaxAbs, updateParameter, type GradientSource, type StepConstants } from "./adamw_update.ts";
import { updateScratch } from "./adamw_simd.ts";

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
 * Below this, an update's bound (`applyPasses`) proves every new value finite in float32 (largest 3.4e38) with room
 * for the few roundings between the bound's float64 arithmetic and the stored values.
 */
const SAFE_BOUND = 1e37;

/** One update's constants for the passes: the step's, and each parameter's weight decay factor (parameter order). */
export interface PassConstants extends StepConstants {
  decays: readonly number[];
}

/**
 * AdamW's two passes over every parameter, run by whoever holds the gradients: this thread (`apply`) or each
 * parameter's owner in the worker pool (shard_passes.ts). Both run adamw_update.ts's arithmetic, so the values
 * are the same bit for bit.
 */
export interface UpdatePasses {
  /** Per parameter (parameter order): the first non-finite new weight, first moment, second moment (−1: none). */
  check(k: PassConstants): (readonly [number, number, number])[];
  /**
   * The update: moments in place and parameter i's new weights into `next[i]`, or, with `next` null (only where
   * `holdsWeights`), left where the passes keep them; per parameter its largest |w'|, the largest |m'| and v' over
   * the model, and the arrays holding the new weights (`next`, or the passes' own).
   */
  update(
    k: PassConstants,
    next: readonly Float32Array[] | null,
  ): { wMax: readonly number[]; mMax: number; vMax: number; weights: readonly Float32Array[] };
  /**
   * True where the passes update the weights in memory of their own that stays readable until their next update (the
   * worker pool's shared buffer): the optimizer can then read the new weights there instead of having them copied.
   */
  readonly holdsWeights?: boolean;
}

/**
 * Does the engine copy what a tensor is made from? wasm writes it into its heap; cpu keeps the array itself as the
 * tensor's data, so an array the passes update in place later must not become one.
 */
const tensorsCopy = (): boolean => tf.getBackend() === "wasm";

/** Float32 arrays of these sizes packed end to end in one buffer, shared between threads where the platform can. */
function packed(sizes: readonly number[]): { all: Float32Array; each: Float32Array[] } {
  const total = sizes.reduce((a, b) => a + b, 0);
  const Buffer = typeof SharedArrayBuffer === "function" ? SharedArrayBuffer : ArrayBuffer;
  const all = new Float32Array(new Buffer(4 * total));
  let at = 0;
  return { all, each: sizes.map((n) => all.subarray(at, (at += n))) };
}

export class AdamW {
  private readonly m = new Map<string, Float32Array>();
  private readonly v = new Map<string, Float32Array>();
  /** Every parameter's moments packed in parameter order (shared memory where the platform has it). */
  private readonly packedM: Float32Array;
  private readonly packedV: Float32Array;
  private readonly scratch = updateScratch();
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
    const sizes = [...params.values()].map((p) => p.size);
    const m = packed(sizes),
      v = packed(sizes);
    [this.packedM, this.packedV] = [m.all, v.all];
    [...params.keys()].forEach((name, i) => {
      this.m.set(name, m.each[i]);
      this.v.set(name, v.each[i]);
    });
  }

  /**
   * The moments of every parameter packed in parameter order, live (the update writes them in place): the worker
   * pool's owners update their parameters' slices where they lie. Shared memory where the platform has it.
   */
  moments(): { m: Float32Array; v: Float32Array } {
    return { m: this.packedM, v: this.packedV };
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
  private gradient(grads: Gradients, name: string, size: number): GradientSource {
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

  /**
   * One update with learning rate `lr` from gradients on this thread; every gradient is multiplied by `gradScale`
   * first (mean and clipping). `gradMaxAbs`, where the caller has it, is the largest |gradient| before the scale
   * (else this reads it). The passes and their guarantees are applyPasses'.
   */
  apply(grads: Gradients, lr: number, gradScale = 1, gradMaxAbs?: number): void {
    if (!(lr >= 0) || !Number.isFinite(lr)) throw new Error(`learning rate must be finite and ≥ 0, got ${lr}`);
    for (const name of this.params.keys()) if (!grads.has(name)) throw new Error(`AdamW: no gradient for parameter "${name}"`);
    const gradient = [...this.params].map(([name, p]) => this.gradient(grads, name, p.size));
    const sizes = [...this.params.values()].map((p) => p.size);
    const gMax = gradMaxAbs ?? gradient.reduce((mx, g, i) => Math.max(mx, gradientMaxAbs(g, sizes[i], this.scratch.chunk)), 0);
    const names = [...this.params.keys()];
    const passes: UpdatePasses = {
      check: (k) =>
        names.map((name, i) =>
          firstNonFinite(gradient[i], this.current(name), this.m.get(name)!, this.v.get(name)!, k, k.decays[i], this.scratch.chunk),
        ),
      update: (k, next) => {
        if (!next) throw new Error("AdamW: this thread's update writes its new weights into arrays it is given");
        const maxima = new Float64Array(3); // max |m|, max v (the model's) and max |w| (this parameter's) as stored
        const wMax = names.map((name, i) => {
          // current() may alias backend storage or an array a tensor holds: read only, the new weights go into next
          updateParameter(
            gradient[i],
            this.current(name),
            this.m.get(name)!,
            this.v.get(name)!,
            next[i],
            k,
            k.decays[i],
            maxima,
            this.scratch,
          );
          return maxima[2];
        });
        return { wMax, mMax: maxima[0], vMax: maxima[1], weights: next };
      },
    };
    this.applyPasses(passes, lr, gradScale, gMax);
  }

  /**
   * One update with learning rate `lr` through `passes` (this thread's, or the worker pool's owners'), every
   * gradient multiplied by `gradScale`, `gradMaxAbs` the largest |gradient| before the scale. Every new weight and
   * moment is known finite before any is kept: a non-finite one throws NonFiniteError naming the parameter, and
   * the weights, moments and step stay as they were.
   *
   * Nothing the size of the model is copied. A bound on every new value comes from maxima (|gradient|, and |weight|,
   * |moment| and second moment as the last update left them); below SAFE_BOUND all are finite and the update is
   * applied in one pass. Otherwise a checking pass computes every new value (rounded to float32 as it will be stored)
   * only to find the first non-finite one, with the same arithmetic as the applying pass, so the kept values are
   * the checked ones bit for bit.
   */
  applyPasses(passes: UpdatePasses, lr: number, gradScale: number, gradMaxAbs: number): void {
    if (!(lr >= 0) || !Number.isFinite(lr)) throw new Error(`learning rate must be finite and ≥ 0, got ${lr}`);
    const { beta1, beta2, eps, weightDecay } = this.config;
    const step = this.step + 1;
    const decays = [...this.params].map(([name, p]) => (weightDecay > 0 && this.config.decays(name, p.shape) ? 1 - lr * weightDecay : 1));
    const k: PassConstants = {
      beta1,
      beta2,
      eps,
      stepSize: lr / (1 - beta1 ** step),
      bc2Sqrt: Math.sqrt(1 - beta2 ** step),
      gradScale,
      decays,
    };
    const names = [...this.params.keys()];
    if (!this.provablyFinite(gradMaxAbs, lr, k)) {
      passes.check(k).forEach((bad, i) => {
        for (const [what, at] of [
          ["weight", bad[0]],
          ["first moment", bad[1]],
          ["second moment", bad[2]],
        ] as const) {
          if (at >= 0) throw new NonFiniteError(step, `new ${what} in parameter "${names[i]}" (first at flat index ${at})`);
        }
      });
    }
    // the new weights where the passes keep them (no model-sized copy, no second array per parameter) when the engine
    // copies them into its variables; else into this optimizer's spare arrays
    const next = passes.holdsWeights && tensorsCopy() ? null : names.map((name) => this.spare(name, this.current(name)));
    const { wMax, mMax, vMax, weights } = passes.update(k, next);
    [...this.params].forEach(([name, p], i) => {
      tf.tidy(() => p.assign(tf.tensor(weights[i], p.shape, "float32")));
      this.written.set(name, { dataId: p.dataId, values: weights[i], maxAbs: wMax[i] });
    });
    this.momentMax = { m: mMax, v: vMax };
    this.step = step;
  }

  /**
   * True when every new value of this update is finite, by bounds on the whole update: with G = max|g|·gradScale,
   * |m'| ≤ max(max|m|, G), v' ≤ max(max v, G²) and, the denominator being at least eps,
   * |w'| ≤ max|w|·|decay| + stepSize·max|m'|/eps. False (check value by value) when a bound reaches SAFE_BOUND or
   * any input is NaN. The maxima of weights and moments this optimizer wrote are known from that update's pass.
   */
  private provablyFinite(gradMaxAbs: number, lr: number, k: PassConstants): boolean {
    let w = 0;
    const moments = this.momentMax ?? {
      m: Math.max(0, ...[...this.m.values()].map(maxAbs)),
      v: Math.max(0, ...[...this.v.values()].map(maxAbs)),
    };
    for (const [name, p] of this.params) {
      const known = this.written.get(name);
      w = Math.max(w, known && known.dataId === p.dataId ? known.maxAbs : maxAbs(this.current(name)));
    }
    const decay = k.decays.reduce((d, x) => Math.max(d, Math.abs(x)), 0);
    this.momentMax = moments;
    const gs = gradMaxAbs * Math.abs(k.gradScale),
      mBound = Math.max(moments.m, gs),
      vBound = Math.max(moments.v, gs * gs);
    const wBound = w * decay + (k.stepSize * mBound) / this.config.eps;
    return mBound < SAFE_BOUND && vBound < SAFE_BOUND && wBound < SAFE_BOUND && Number.isFinite(lr);
  }

  /** The state as views of this optimizer's own arrays: valid until the next update or restore (state() copies). */
  stateView(): AdamWState {
    return { step: this.step, m: this.m, v: this.v };
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
