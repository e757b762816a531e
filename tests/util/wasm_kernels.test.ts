// The JS heap kernels: bit for bit the tfjs ops they replace on wasm (that is their contract: numbers must not
// move), really in use on wasm, the tfjs ops elsewhere, no tensor leak, ids outside the table refused by name.
import { beforeAll, describe, expect, it } from "vitest";
import { readTensor, tf } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import {
  columnSum,
  gatherRows,
  scatterAddRows,
  swapLastTwo,
  swapMiddle,
  transpose2d,
  usesHeapKernels,
} from "../../src/util/wasm_kernels.ts";
import { oneHotFloat } from "../../src/model/ops.ts";
import { bitDiffs, leakedBy, randomArray, useBackend } from "../helpers.ts";

// the medium config's shapes (2,048 rows of width 128 and 512) and odd small ones
const SHAPES: [number, number][] = [
  [2048, 128],
  [2048, 512],
  [37, 5],
  [1, 1],
];

describe("JS heap kernels on wasm", () => {
  beforeAll(() => useBackend("wasm"));

  it("run on tfjs-wasm 4.22 (a silent fallback would lose the speed-up)", () => {
    expect(usesHeapKernels()).toBe(true);
  });

  it.each(SHAPES)("columnSum of [%i, %i] equals tf.sum over axis 0 bit for bit", (N, C) => {
    const x = tf.tensor(randomArray(Rng.fromSeed(N + C), N * C), [N, C]);
    const got = readTensor(() => columnSum(x)),
      want = readTensor(() => tf.sum(x, 0));
    expect(bitDiffs(got, want)).toBe(0);
    // and over two leading axes, as the LayerNorm gradients sum [B, S, C]
    const x3 = tf.reshape(x, [1, N, C]);
    expect(
      bitDiffs(
        readTensor(() => columnSum(x3)),
        readTensor(() => tf.sum(x3, [0, 1])),
      ),
    ).toBe(0);
    tf.dispose([x, x3]);
  });

  it.each(SHAPES)("transpose2d of [%i, %i] equals tf.transpose", (R, C) => {
    const x = tf.tensor(randomArray(Rng.fromSeed(R * C), R * C), [R, C]);
    const got = tf.tidy(() => transpose2d(x));
    expect(got.shape).toEqual([C, R]);
    expect(
      bitDiffs(
        readTensor(() => got),
        readTensor(() => tf.transpose(x)),
      ),
    ).toBe(0);
    tf.dispose([x, got]);
  });

  it("swapLastTwo and swapMiddle equal tf.transpose on attention's shapes (and odd ones)", () => {
    for (const [A, M, N, D] of [
      [16, 128, 4, 32],
      [3, 5, 7, 9],
    ]) {
      const x = tf.tensor4d(randomArray(Rng.fromSeed(A + D), A * M * N * D), [A, M, N, D]);
      expect(
        bitDiffs(
          readTensor(() => swapMiddle(x)),
          readTensor(() => tf.transpose(x, [0, 2, 1, 3])),
        ),
      ).toBe(0);
      expect(tf.tidy(() => swapMiddle(x).shape)).toEqual([A, N, M, D]);
      expect(
        bitDiffs(
          readTensor(() => swapLastTwo(x)),
          readTensor(() => tf.transpose(x, [0, 1, 3, 2])),
        ),
      ).toBe(0);
      expect(tf.tidy(() => swapLastTwo(x).shape)).toEqual([A, M, D, N]);
      tf.dispose(x);
    }
  });

  it("gatherRows equals tf.gather and scatterAddRows equals oneHot(ids)ᵀ @ dy bit for bit (repeated ids included)", () => {
    const rng = Rng.fromSeed(3);
    const [V, C, N] = [512, 128, 2048];
    const table = tf.tensor(randomArray(rng, V * C), [V, C]),
      dy = tf.tensor2d(randomArray(rng, N * C), [N, C]);
    const ids = tf.tensor1d(
      Int32Array.from({ length: N }, () => rng.int(V)),
      "int32",
    );
    expect(
      bitDiffs(
        readTensor(() => gatherRows(table, ids)),
        readTensor(() => tf.gather(table, ids)),
      ),
    ).toBe(0);
    const oneHotProduct = () => tf.matMul(tf.transpose(oneHotFloat(ids, V)), dy);
    expect(
      bitDiffs(
        readTensor(() => scatterAddRows(dy, ids, V, oneHotProduct)),
        readTensor(oneHotProduct),
      ),
    ).toBe(0);
    tf.dispose([table, dy, ids]);
  });

  it("leaks no tensors", () => {
    const x = tf.ones([64, 8]),
      ids = tf.tensor1d([0, 3, 3, 1], "int32"),
      dy = tf.ones([4, 8]) as tf.Tensor2D;
    const leaked = leakedBy(() =>
      tf.tidy(() => {
        columnSum(x);
        transpose2d(x);
        swapLastTwo(tf.reshape(x, [2, 32, 8]));
        swapMiddle(tf.reshape(x, [2, 4, 8, 8]));
        gatherRows(x, ids);
        scatterAddRows(dy, ids, 64, () => tf.zeros([64, 8]));
      }),
    );
    expect(leaked).toBe(0);
    tf.dispose([x, ids, dy]);
  });

  it("refuses an id outside the table, naming it", () => {
    const x = tf.ones([4, 2]),
      ids = tf.tensor1d([0, 4], "int32");
    expect(() => tf.tidy(() => gatherRows(x, ids))).toThrow(/id 4 at position 1 is outside the table's 4 rows/);
    tf.dispose([x, ids]);
  });
});

describe("JS heap kernels on cpu", () => {
  beforeAll(() => useBackend("cpu"));

  it("are the tfjs ops there", () => {
    expect(usesHeapKernels()).toBe(false);
    const x = tf.tensor(randomArray(Rng.fromSeed(1), 6 * 4), [6, 4]),
      ids = tf.tensor1d([5, 0, 5], "int32");
    expect(readTensor(() => columnSum(x))).toEqual(readTensor(() => tf.sum(x, 0)));
    expect(readTensor(() => transpose2d(x))).toEqual(readTensor(() => tf.transpose(x)));
    expect(readTensor(() => swapMiddle(tf.reshape(x, [1, 2, 3, 4])))).toEqual(
      readTensor(() => tf.transpose(tf.reshape(x, [1, 2, 3, 4]), [0, 2, 1, 3])),
    );
    expect(readTensor(() => gatherRows(x, ids))).toEqual(readTensor(() => tf.gather(x, ids)));
    tf.dispose([x, ids]);
  });
});
