// adamw_simd.ts: the WebAssembly SIMD update gives the JS loop's new weights, moments and maxima bit for bit.
import { describe, expect, it } from "vitest";
import { simdUpdate, updateScratch } from "../../src/train/adamw_simd.ts";
import { CHUNK, updateParameter, type StepConstants } from "../../src/train/adamw_update.ts";
import { Rng } from "../../src/util/primitives/rng.ts";

const bits = (a: Float32Array): Uint32Array => new Uint32Array(a.buffer, a.byteOffset, a.length);

/** Values spread over many binades: tiny (subnormal as float32), ordinary, large; some exact zeros. */
function values(rng: Rng, n: number, scale: number): Float32Array {
  return Float32Array.from({ length: n }, () => {
    const u = rng.next();
    if (u < 0.05) return 0;
    const mag = 10 ** (rng.next() * 12 - 9); // 1e-9 .. 1e3
    return Math.fround((rng.next() < 0.5 ? -1 : 1) * mag * scale * (u < 0.1 ? 1e-35 : 1));
  });
}

const K: StepConstants = {
  beta1: 0.9,
  beta2: 0.95,
  eps: 1e-8,
  stepSize: 3e-4 / (1 - 0.9 ** 3),
  bc2Sqrt: Math.sqrt(1 - 0.95 ** 3),
  gradScale: 1 / 4096,
};

describe("simdUpdate", () => {
  it("is available on this Node (WebAssembly SIMD): the fast path is what runs here", () => {
    expect(simdUpdate()).not.toBeNull();
    expect(updateScratch().simd).not.toBeNull();
  });

  for (const n of [1, 2, 7, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 5]) {
    it(`updates ${n} values as the JS loop does, bit for bit (weights, both moments, the three maxima), over 3 updates`, () => {
      const rng = Rng.fromSeed(`simd ${n}`);
      const terms = [values(rng, n, 1), values(rng, n, 1)];
      const w0 = values(rng, n, 1e-3);
      const m0 = values(rng, n, 1e-4);
      const v0 = values(rng, n, 1e-6).map(Math.abs);
      const run = (simd: boolean) => {
        const scratch = updateScratch(simd);
        const [w, m, v] = [w0.slice(), m0.slice(), v0.slice()];
        const next = new Float32Array(n);
        const maxima = Float64Array.of(1e-7, 1e-12, 0);
        const seen: number[][] = [];
        for (let u = 0; u < 3; u++) {
          updateParameter({ terms }, w, m, v, next, { ...K, stepSize: K.stepSize * (u + 1) }, u === 1 ? 1 : 0.9999, maxima, scratch);
          w.set(next);
          seen.push([...maxima]);
        }
        return { w, m, v, seen };
      };
      const js = run(false),
        simd = run(true);
      expect(updateScratch(false).simd).toBeNull();
      expect(bits(simd.w)).toEqual(bits(js.w));
      expect(bits(simd.m)).toEqual(bits(js.m));
      expect(bits(simd.v)).toEqual(bits(js.v));
      expect(simd.seen).toEqual(js.seen);
      // the update moved something: a check of two equal no-ops would pass whatever the kernel did
      expect(bits(js.w)).not.toEqual(bits(w0));
    });
  }

  it("writes in place when the new weights go where the old ones are (next = w), as the pool's owners do", () => {
    const rng = Rng.fromSeed("simd in place");
    const n = 1000;
    const terms = [values(rng, n, 1)];
    const w0 = values(rng, n, 1e-2);
    const out = (simd: boolean) => {
      const w = w0.slice(),
        m = new Float32Array(n),
        v = new Float32Array(n);
      updateParameter({ terms }, w, m, v, w, K, 0.99, new Float64Array(3), updateScratch(simd));
      return w;
    };
    expect(bits(out(true))).toEqual(bits(out(false)));
  });

  it("refuses a gradient chunk that is not its own (its memory is what it reads)", () => {
    const s = simdUpdate()!;
    const a = new Float32Array(8);
    expect(() => s.run(new Float64Array(8), 0, a, a, a, a, K, 1, new Float64Array(3))).toThrow(/the kernel's own chunk/);
  });
});
