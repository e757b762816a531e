// The sliced batched matmul: float32 products within the summation bound of a float64 product, on both
// paths (sliced and tfjs's own), the sliced kernel really in use on wasm, no tensor or heap leak, named errors.
import { beforeAll, describe, expect, it } from "vitest";
import { readTensor, tf } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { SLICE_MIN_MACS, batchMatMul, usesSlicedMatMul } from "../../src/util/wasm_matmul.ts";
import { useBackend } from "../helpers.ts";

const u = 2 ** -24; // float32 unit roundoff

/**
 * Largest ratio |fl(AB) − AB| / (γ_K Σ_k |a_ik||b_kj|) over all entries, with γ_K = K·u/(1 − K·u) plus one
 * rounding of the output: any summation order obeys it, so a ratio above 1 is a wrong product, not rounding.
 */
function worstBoundRatio(a: Float32Array, b: Float32Array, got: Float32Array, n: number, M: number, K: number, N: number): number {
  const gamma = (K * u) / (1 - K * u) + u;
  let worst = 0;
  for (let s = 0; s < n; s++)
    for (let i = 0; i < M; i++)
      for (let j = 0; j < N; j++) {
        let exact = 0,
          abs = 0;
        for (let k = 0; k < K; k++) {
          const p = a[(s * M + i) * K + k] * b[(s * K + k) * N + j];
          exact += p;
          abs += Math.abs(p);
        }
        const err = Math.abs(got[(s * M + i) * N + j] - exact);
        worst = Math.max(worst, abs === 0 ? (err === 0 ? 0 : Infinity) : err / (gamma * abs));
      }
  return worst;
}

const randomArray = (rng: Rng, size: number) => Float32Array.from({ length: size }, () => rng.normal());

describe("batchMatMul on wasm", () => {
  beforeAll(() => useBackend("wasm"));

  it("runs the sliced kernel on tfjs-wasm 4.22 (a silent fallback would lose the speed-up)", () => {
    expect(usesSlicedMatMul()).toBe(true);
  });

  it.each([
    [[2, 3], 17, 5, 33, 0], // odd sizes, two leading axes, forced through the sliced kernel
    [[64], 128, 32, 128, SLICE_MIN_MACS], // attention scores at the medium config
    [[64], 128, 128, 32, SLICE_MIN_MACS], // attention times values
    [[4], 8, 4, 8, SLICE_MIN_MACS], // below the threshold: tfjs's batched loop
    [[1], 1, 1, 1, 0],
  ])("lead %j, M %i, K %i, N %i (min slice %i) agrees with float64 within the summation bound", (lead, M, K, N, min) => {
    const rng = Rng.fromSeed(M * 1000 + K * 10 + N);
    const n = (lead as number[]).reduce((x, y) => x * y, 1);
    const a = randomArray(rng, n * M * K),
      b = randomArray(rng, n * K * N);
    const got = readTensor(() =>
      batchMatMul(tf.tensor(a, [...(lead as number[]), M, K]), tf.tensor(b, [...(lead as number[]), K, N]), min as number),
    );
    expect(got.length).toBe(n * M * N);
    expect(worstBoundRatio(a, b, got, n, M, K, N)).toBeLessThanOrEqual(1);
  });

  it("differs from tfjs's own product only by rounding", () => {
    const rng = Rng.fromSeed(5);
    const [a, b] = [tf.tensor(randomArray(rng, 64 * 128 * 32), [64, 128, 32]), tf.tensor(randomArray(rng, 64 * 32 * 128), [64, 32, 128])];
    const sliced = readTensor(() => batchMatMul(a, b, 0)),
      plain = readTensor(() => tf.matMul(a, b));
    let diff = 0,
      scale = 0;
    for (let i = 0; i < plain.length; i++)
      [diff, scale] = [Math.max(diff, Math.abs(sliced[i] - plain[i])), Math.max(scale, Math.abs(plain[i]))];
    expect(diff / scale).toBeLessThan(1e-5);
    tf.dispose([a, b]);
  });

  it("leaks neither tensors nor wasm heap (the XNNPACK operator of every slice is freed)", () => {
    const rng = Rng.fromSeed(8);
    const a = tf.tensor(randomArray(rng, 64 * 128 * 32), [64, 128, 32]),
      b = tf.tensor(randomArray(rng, 64 * 32 * 128), [64, 32, 128]);
    const heap = () => (tf.backend() as unknown as { wasm: { HEAPU8: Uint8Array } }).wasm.HEAPU8.length;
    const run = () => tf.tidy(() => batchMatMul(a, tf.add(b, 0), 0)).dispose(); // a fresh b each call, as in training
    for (let i = 0; i < 10; i++) run();
    const [tensors, bytes] = [tf.memory().numTensors, heap()];
    for (let i = 0; i < 200; i++) run(); // 12,800 slices: leaked operators (≥ 16 KB of packed weights each) would grow the heap by > 200 MB
    expect(tf.memory().numTensors).toBe(tensors);
    expect(heap()).toBe(bytes);
    tf.dispose([a, b]);
  });

  it("names mismatched operands", () => {
    const [a, b] = [tf.zeros([2, 16, 16]), tf.zeros([3, 16, 16])];
    expect(() => batchMatMul(a, b, 0)).toThrow(/leading axes must match.*\[2,16,16\].*\[3,16,16\]/);
    const c = tf.zeros([2, 8, 16]);
    expect(() => batchMatMul(a, c, 0)).toThrow(/inner sizes differ/);
    tf.dispose([a, b, c]);
  });
});

describe("batchMatMul on cpu", () => {
  beforeAll(() => useBackend("cpu"));

  it("is tfjs's own matMul there", () => {
    expect(usesSlicedMatMul()).toBe(false);
    const rng = Rng.fromSeed(2);
    const [a, b] = [tf.tensor(randomArray(rng, 2 * 16 * 16), [2, 16, 16]), tf.tensor(randomArray(rng, 2 * 16 * 16), [2, 16, 16])];
    expect(readTensor(() => batchMatMul(a, b, 0))).toEqual(readTensor(() => tf.matMul(a, b)));
    tf.dispose([a, b]);
  });
});
