// The reordered products in ops.ts against the formulations they replace: the weight gradient with the narrow
// operand packed, and the tied head x @ wᵀ with its gradients. Same bits on wasm (each entry is the same sum in
// the same order), the same values on cpu, and no tensor leak.
import { beforeAll, describe, expect, it } from "vitest";
import { readTensor, tf } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/rng.ts";
import { matmulTransposed, weightGrad } from "../../src/model/ops.ts";
import { TEST_BACKENDS, leakedBy, useBackend } from "../helpers.ts";

const randomArray = (rng: Rng, size: number) => Float32Array.from({ length: size }, () => rng.normal());

/** How many entries differ in their float32 bits. */
function bitDiffs(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Infinity;
  const [x, y] = [new Uint32Array(a.buffer, a.byteOffset, a.length), new Uint32Array(b.buffer, b.byteOffset, b.length)];
  let n = 0;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) n++;
  return n;
}

describe.each(TEST_BACKENDS)("reordered products on %s", (backend) => {
  beforeAll(() => useBackend(backend));

  // [N, in, out]: the medium config's MLP widths (out > in: the swapped order) and its down-projection, and odd sizes
  it.each([[512, 128, 512], [512, 512, 128], [9, 8, 16]])("weightGrad for x [%i, %i], dy [·, %i] is xᵀ @ dy bit for bit", (N, I, O) => {
    const rng = Rng.fromSeed(N + I + O);
    const x = tf.tensor2d(randomArray(rng, N * I), [N, I]), dy = tf.tensor2d(randomArray(rng, N * O), [N, O]);
    const got = readTensor(() => weightGrad(x, dy)), want = readTensor(() => tf.matMul(tf.transpose(x), dy));
    expect(got.length).toBe(I * O);
    expect(bitDiffs(got, want)).toBe(0);
    tf.dispose([x, dy]);
  });

  it("matmulTransposed(x, w) and its gradients are x @ wᵀ's through tfjs's own transpose, bit for bit", () => {
    const [N, C, V] = [256, 32, 96];
    const rng = Rng.fromSeed(4);
    const x = tf.tensor2d(randomArray(rng, N * C), [N, C]), w = tf.tensor2d(randomArray(rng, V * C), [V, C]);
    const dy = tf.tensor2d(randomArray(rng, N * V), [N, V]);
    const loss = (f: (a: tf.Tensor, b: tf.Tensor) => tf.Tensor) => (a: tf.Tensor, b: tf.Tensor) => tf.sum(tf.mul(f(a, b), dy));
    const old = (a: tf.Tensor, b: tf.Tensor) => tf.matMul(a, tf.transpose(b));
    expect(bitDiffs(readTensor(() => matmulTransposed(x, w)), readTensor(() => old(x, w)))).toBe(0);
    const [gNew, gOld] = [tf.grads(loss(matmulTransposed)), tf.grads(loss(old))];
    for (const i of [0, 1]) expect(bitDiffs(readTensor(() => gNew([x, w])[i]), readTensor(() => gOld([x, w])[i]))).toBe(0);
    expect(leakedBy(() => tf.tidy(() => { gNew([x, w]); }))).toBe(0);
    tf.dispose([x, w, dy]);
  });
});
