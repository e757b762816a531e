// AdamW against a float64 update worked out by hand, determinism, convergence and weight decay.
import { describe, expect, it, beforeAll } from "vitest";
import { tf } from "../../src/util/backend.ts";
import { AdamW, DEFAULT_ADAMW } from "../../src/train/adamw.ts";
import { NonFiniteError } from "../../src/train/non_finite.ts";
import { TEST_BACKENDS, useBackend } from "../helpers.ts";

/**
 * The hand computation (PyTorch's AdamW order), for one coordinate p with gradient g at step t:
 *   p ← p·(1 − lr·wd)            (decoupled decay, only for decaying parameters)
 *   m ← β1·m + (1 − β1)·g;  v ← β2·v + (1 − β2)·g²
 *   p ← p − (lr / (1 − β1^t)) · m / (sqrt(v) / sqrt(1 − β2^t) + ε)
 * E.g. step 1, p = 1, g = 0.5, lr 0.1, wd 0: m = 0.05, v = 0.00025, m̂ = 0.5, v̂ = 0.25,
 * p = 1 − 0.1·0.5/(0.5 + 1e-8) ≈ 0.9 (Adam's first step moves every coordinate by ≈ lr).
 */
function handAdamW(p0: number[], grads: (p: number[]) => number[], steps: number, lr: number, wd: number, decays: boolean) {
  const { beta1, beta2, eps } = DEFAULT_ADAMW;
  const p = p0.slice(),
    m = p.map(() => 0),
    v = p.map(() => 0);
  for (let t = 1; t <= steps; t++) {
    const g = grads(p);
    for (let i = 0; i < p.length; i++) {
      if (decays) p[i] *= 1 - lr * wd;
      m[i] = beta1 * m[i] + (1 - beta1) * g[i];
      v[i] = beta2 * v[i] + (1 - beta2) * g[i] * g[i];
      p[i] -= ((lr / (1 - beta1 ** t)) * m[i]) / (Math.sqrt(v[i]) / Math.sqrt(1 - beta2 ** t) + eps);
    }
  }
  return p;
}

/** f(p) = Σ c_i (p_i − 1)²: gradient 2c(p − 1). */
const C = [0.5, 2, 1, 3];
const quadGrad = (p: number[]) => p.map((x, i) => 2 * C[i] * (x - 1));

function runTf(p0: number[], steps: number, lr: number, wd: number, shape: number[]) {
  const param = tf.variable(tf.tensor(p0, shape));
  const opt = new AdamW(new Map([["w", param]]), { ...DEFAULT_ADAMW, weightDecay: wd });
  for (let s = 0; s < steps; s++) {
    const g = tf.tensor(quadGrad([...param.dataSync()]), shape);
    opt.apply(new Map([["w", g]]), lr);
    g.dispose();
  }
  const out = [...param.dataSync()];
  opt.dispose();
  param.dispose();
  return out;
}

describe.each(TEST_BACKENDS)("AdamW on %s", (backend) => {
  beforeAll(() => useBackend(backend));
  const p0 = [0.3, -1.2, 2.5, 0.9];

  it("10 steps match the float64 hand computation (float32 state: 1e-5 absolute)", () => {
    for (const [wd, shape] of [
      [0, [2, 2]],
      [0.1, [2, 2]],
      [0.1, [4]],
    ] as const) {
      const got = runTf(p0, 10, 0.05, wd, [...shape]);
      const want = handAdamW(p0, quadGrad, 10, 0.05, wd, shape.length >= 2); // vectors do not decay
      got.forEach((g, i) => expect(Math.abs(g - want[i])).toBeLessThan(1e-5));
    }
  });

  it("the first step moves each coordinate by lr (hand value 0.9 from p = 1, g = 0.5)", () => {
    const param = tf.variable(tf.tensor([1], [1]));
    const opt = new AdamW(new Map([["w", param]]));
    tf.tidy(() => opt.apply(new Map([["w", tf.tensor([0.5], [1])]]), 0.1));
    expect(param.dataSync()[0]).toBeCloseTo(0.9, 6);
    opt.dispose();
    param.dispose();
  });

  it("two runs are bit-identical and it converges on a quadratic", () => {
    const a = runTf(p0, 300, 0.05, 0, [2, 2]),
      b = runTf(p0, 300, 0.05, 0, [2, 2]);
    expect(a).toEqual(b);
    a.forEach((x) => expect(Math.abs(x - 1)).toBeLessThan(1e-2));
  });

  it("refuses an update whose new weights or moments are not finite, changing nothing", () => {
    // "a" (listed first) updates finitely; "b" overflows float32: lr 1e39 moves b₀ by ≈ lr (Adam's first step)
    // while a zero gradient leaves a where it is; 1e30² overflows v
    const a = tf.variable(tf.tensor([1, 2], [2])),
      b = tf.variable(tf.tensor([1, 2, 3], [3]));
    const opt = new AdamW(
      new Map([
        ["a", a],
        ["b", b],
      ]),
    );
    const grads = (gb: number[], ga = [0, 0.5]) =>
      new Map([
        ["a", new Float32Array(ga)],
        ["b", new Float32Array(gb)],
      ]);
    const before = opt.state();
    const refusal = (lr: number, gb: number[], ga?: number[]) => {
      try {
        opt.apply(grads(gb, ga), lr);
      } catch (err) {
        expect(err).toBeInstanceOf(NonFiniteError);
        return (err as Error).message;
      }
      throw new Error("a non-finite update was applied");
    };
    expect(refusal(1e39, [0.5, 0, 0], [0, 0])).toBe(
      'non-finite new weight in parameter "b" (first at flat index 0) at update 1; no parameter was updated',
    );
    // v = (1 − β2)·1e60 is +Infinity in float32 while the weight moves by m/√v = 0: only the moment check sees it
    expect(refusal(0.1, [0, 0, 1e30])).toBe(
      'non-finite new second moment in parameter "b" (first at flat index 2) at update 1; no parameter was updated',
    );
    expect([...a.dataSync(), ...b.dataSync()]).toEqual([1, 2, 1, 2, 3]);
    expect(opt.state()).toEqual(before);
    opt.apply(grads([0.5, 0.5, 0.5]), 0.1); // still usable, from step 1
    expect(opt.step).toBe(1);
    expect(b.dataSync()[0]).toBeCloseTo(0.9, 6);
    opt.dispose();
    a.dispose();
    b.dispose();
  });

  it("a weight near float32's largest leaves the bound's fast path and is still updated, as value by value", () => {
    // |w| = 1e37 reaches SAFE_BOUND, so every new value is computed and checked one by one; all are finite and kept
    const param = tf.variable(tf.tensor([1e37, 1], [2]));
    const opt = new AdamW(new Map([["w", param]]));
    opt.apply(new Map([["w", new Float32Array([0.5, 0.5])]]), 0.1);
    expect(opt.step).toBe(1);
    expect(param.dataSync()[0]).toBe(Math.fround(1e37)); // 1e37 − 0.1 rounds back to 1e37
    expect(param.dataSync()[1]).toBeCloseTo(0.9, 6);
    opt.dispose();
    param.dispose();
  });

  it("after a restore, the bound reads the restored moments, not the maxima the last update left", () => {
    // the update before the restore leaves |m| ≤ 0.05; the restored m = 1e34 with v = 0 and a zero gradient moves the
    // weight by (lr / (1 − β1)) · 0.9e34 / ε = 9e41 at step 1, beyond float32: refused, not applied
    const param = tf.variable(tf.tensor([1], [1]));
    const opt = new AdamW(new Map([["w", param]]));
    opt.apply(new Map([["w", new Float32Array([0.5])]]), 0.1);
    opt.restore({ step: 0, m: new Map([["w", Float32Array.from([1e34])]]), v: new Map([["w", new Float32Array(1)]]) });
    expect(() => opt.apply(new Map([["w", new Float32Array([0])]]), 0.1)).toThrow(/non-finite new weight in parameter "w"/);
    expect(param.dataSync()[0]).toBeCloseTo(0.9, 6);
    opt.dispose();
    param.dispose();
  });

  it("per-microbatch terms give the update of their float64 sum", () => {
    const run = (g: Float32Array[] | Float64Array) => {
      const param = tf.variable(tf.tensor(p0, [4]));
      const opt = new AdamW(new Map([["w", param]]));
      for (let s = 0; s < 3; s++) opt.apply(new Map([["w", g]]), 0.05, 0.5);
      const out = [...param.dataSync()];
      opt.dispose();
      param.dispose();
      return out;
    };
    const a = Float32Array.from([0.1, -0.3, 1e-8, 2]),
      b = Float32Array.from([0.7, 0.3, 1, -2]);
    expect(run([a, b])).toEqual(run(Float64Array.from(a, (x, i) => 0 + x + b[i])));
  });

  it("passes that hold the new weights are read where they left them on wasm, copied on cpu; either way tfjs holds a copy", () => {
    const param = tf.variable(tf.tensor(p0, [4]));
    const opt = new AdamW(new Map([["w", param]]));
    const held = Float32Array.from(p0, (x) => x - 0.25); // where the passes (as the worker pool's owners) leave the weights
    let given: readonly Float32Array[] | null = [];
    opt.applyPasses(
      {
        check: () => [[-1, -1, -1]],
        update: (_k, next) => {
          given = next;
          next?.forEach((n) => n.set(held));
          return { wMax: [Math.max(...held.map(Math.abs))], mMax: 0, vMax: 0, weights: next ?? [held] };
        },
        holdsWeights: true,
      },
      0.05,
      1,
      0.5,
    );
    expect(given === null).toBe(backend === "wasm"); // wasm copies a tensor's values into its heap: no spare arrays
    expect(opt.current("w") === held).toBe(backend === "wasm");
    expect([...param.dataSync()]).toEqual([...held]);
    held[0] = 99; // the passes' memory changes at their next update: the variable keeps its own copy
    expect(param.dataSync()[0]).toBe(Math.fround(p0[0] - 0.25));
    opt.dispose();
    param.dispose();
  });

  it("refuses bad hyper-parameters and a missing gradient", () => {
    const param = tf.variable(tf.zeros([2]));
    expect(() => new AdamW(new Map([["w", param]]), { ...DEFAULT_ADAMW, beta1: 1 })).toThrow(/betas/);
    const opt = new AdamW(new Map([["w", param]]));
    expect(() => opt.apply(new Map(), 0.1)).toThrow(/no gradient for parameter "w"/);
    expect(() => opt.apply(new Map(), NaN)).toThrow(/learning rate/);
    opt.dispose();
    param.dispose();
  });
});
