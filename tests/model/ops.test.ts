// The reordered products in ops.ts against the formulations they replace: the weight gradient with the narrow
// operand packed, and the tied head x @ wᵀ with its gradients (same bits: each entry is the same sum in the
// same order), and the packed-qkv attention against tfjs autodiff of its plain formula; no tensor leak.
import { beforeAll, describe, expect, it } from "vitest";
import { readTensor, tf } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { attend, matmulTransposed, weightGrad } from "../../src/model/ops.ts";
import { splitHeads } from "../../src/util/wasm_kernels.ts";
import { TEST_BACKENDS, bitDiffs, leakedBy, randomArray, useBackend } from "../helpers.ts";

describe.each(TEST_BACKENDS)("reordered products on %s", (backend) => {
  beforeAll(() => useBackend(backend));

  // [N, in, out]: the medium config's MLP widths (out > in: the swapped order) and its down-projection, and odd sizes
  it.each([
    [512, 128, 512],
    [512, 512, 128],
    [9, 8, 16],
  ])("weightGrad for x [%i, %i], dy [·, %i] is xᵀ @ dy bit for bit", (N, I, O) => {
    const rng = Rng.fromSeed(N + I + O);
    const x = tf.tensor2d(randomArray(rng, N * I), [N, I]),
      dy = tf.tensor2d(randomArray(rng, N * O), [N, O]);
    const got = readTensor(() => weightGrad(x, dy)),
      want = readTensor(() => tf.matMul(tf.transpose(x), dy));
    expect(got.length).toBe(I * O);
    expect(bitDiffs(got, want)).toBe(0);
    tf.dispose([x, dy]);
  });

  it("matmulTransposed(x, w) and its gradients are x @ wᵀ's through tfjs's own transpose, bit for bit", () => {
    const [N, C, V] = [256, 32, 96];
    const rng = Rng.fromSeed(4);
    const x = tf.tensor2d(randomArray(rng, N * C), [N, C]),
      w = tf.tensor2d(randomArray(rng, V * C), [V, C]);
    const dy = tf.tensor2d(randomArray(rng, N * V), [N, V]);
    const loss = (f: (a: tf.Tensor, b: tf.Tensor) => tf.Tensor) => (a: tf.Tensor, b: tf.Tensor) => tf.sum(tf.mul(f(a, b), dy));
    const old = (a: tf.Tensor, b: tf.Tensor) => tf.matMul(a, tf.transpose(b));
    expect(
      bitDiffs(
        readTensor(() => matmulTransposed(x, w)),
        readTensor(() => old(x, w)),
      ),
    ).toBe(0);
    const [gNew, gOld] = [tf.grads(loss(matmulTransposed)), tf.grads(loss(old))];
    for (const i of [0, 1])
      expect(
        bitDiffs(
          readTensor(() => gNew([x, w])[i]),
          readTensor(() => gOld([x, w])[i]),
        ),
      ).toBe(0);
    expect(
      leakedBy(() =>
        tf.tidy(() => {
          gNew([x, w]);
        }),
      ),
    ).toBe(0);
    tf.dispose([x, w, dy]);
  });
});

/** Attention as plain tfjs ops with tfjs's own gradients: three column-block linears, heads, softmax. */
function plainAttention(x: tf.Tensor, w: tf.Tensor, b: tf.Tensor, mask: tf.Tensor, H: number): tf.Tensor {
  const [B, S, C] = x.shape,
    D = C / H;
  const heads = (i: number) =>
    tf.transpose(
      tf.reshape(tf.add(tf.matMul(tf.reshape(x, [B * S, C]), tf.slice(w, [0, i * C], [C, C])), tf.slice(b, [i * C], [C])), [B, S, H, D]),
      [0, 2, 1, 3],
    );
  const att = tf.softmax(tf.add(tf.mul(tf.matMul(heads(0), tf.transpose(heads(1), [0, 1, 3, 2])), 1 / Math.sqrt(D)), mask));
  return tf.reshape(tf.transpose(tf.matMul(att, heads(2)), [0, 2, 1, 3]), [B, S, C]);
}

/** Float32 attention of O(1) inputs: values and gradients of two float32 formulas agree to ~1e-6 relative; 1e-4 absolute leaves room. */
const ATTENTION_ATOL = 1e-4;

describe.each(TEST_BACKENDS)("packed-qkv attention on %s", (backend) => {
  beforeAll(() => useBackend(backend));

  it("splitHeads equals slicing, reshaping and transposing each block (bit for bit)", () => {
    const [B, S, H, D] = [3, 5, 2, 4];
    const qkv = tf.tensor2d(randomArray(Rng.fromSeed(6), B * S * 3 * H * D), [B * S, 3 * H * D]);
    const got = tf.tidy(() =>
      splitHeads(qkv, B, S, H)
        .map((t) => t.dataSync() as Float32Array)
        .map((a) => Float32Array.from(a)),
    );
    for (const i of [0, 1, 2]) {
      const want = readTensor(() => tf.transpose(tf.reshape(tf.slice(qkv, [0, i * H * D], [B * S, H * D]), [B, S, H, D]), [0, 2, 1, 3]));
      expect(bitDiffs(got[i], want)).toBe(0);
    }
    qkv.dispose();
  });

  it("attend's value and gradients (x, wqkv, bqkv) match tfjs autodiff of the plain formula", () => {
    const [B, S, C, H] = [2, 16, 24, 3];
    const rng = Rng.fromSeed(12);
    const x = tf.tensor3d(randomArray(rng, B * S * C), [B, S, C]),
      w = tf.tensor2d(
        randomArray(rng, C * 3 * C).map((v) => v * 0.3),
        [C, 3 * C],
      );
    const b = tf.tensor1d(randomArray(rng, 3 * C)),
      dy = tf.tensor3d(randomArray(rng, B * S * C), [B, S, C]);
    const causal = Float32Array.from({ length: B * S * S }, (_, i) => (i % S <= Math.floor(i / S) % S ? 0 : -1e9));
    const mask = tf.tensor4d(causal, [B, 1, S, S]);
    const loss = (f: typeof plainAttention) => (a: tf.Tensor, c: tf.Tensor, d: tf.Tensor) => tf.sum(tf.mul(f(a, c, d, mask, H), dy));
    expect(
      maxAbs(
        readTensor(() => attend(x, w, b, mask, H)),
        readTensor(() => plainAttention(x, w, b, mask, H)),
      ),
    ).toBeLessThan(ATTENTION_ATOL);
    const [gNew, gOld] = [tf.grads(loss(attend)), tf.grads(loss(plainAttention))];
    for (const i of [0, 1, 2])
      expect(
        maxAbs(
          readTensor(() => gNew([x, w, b])[i]),
          readTensor(() => gOld([x, w, b])[i]),
        ),
      ).toBeLessThan(ATTENTION_ATOL);
    expect(
      leakedBy(() =>
        tf.tidy(() => {
          gNew([x, w, b]);
        }),
      ),
    ).toBe(0);
    tf.dispose([x, w, b, dy, mask]);
  });
});

function maxAbs(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}
