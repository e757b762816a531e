// Gradient definitions for the tfjs kernels that tinylab differentiates through outside its fused ops.
// tfjs-core registers none by itself; importing the whole @tensorflow/tfjs bundle to get them would slow
// the start-up of every command. Existing registrations are left alone, and a bundle loaded later replaces
// these (tfjs's registerGradient overrides; tfjs-node brings one), so no file of ours imports it (tests/layering.test.ts).
import * as tf from "@tensorflow/tfjs-core";

type T = tf.Tensor;

/** Sum a broadcast gradient back to the input's shape. */
function unbroadcast(dy: T, shape: number[]): T {
  const axes = tf.broadcast_util.getReductionAxes(shape, dy.shape);
  return tf.reshape(axes.length > 0 ? tf.sum(dy, axes) : dy, shape);
}

/** Normalise a reduction's `axis` attribute to a list of non-negative axes. */
function axesOf(axis: unknown, rank: number): number[] {
  const list = axis === undefined || axis === null ? [...Array(rank).keys()] : Array.isArray(axis) ? axis : [axis as number];
  return list.map((a: number) => (a < 0 ? a + rank : a));
}

/** The input's shape with reduced axes kept as 1, for broadcasting a reduction's gradient back. */
function keptShape(shape: number[], axes: number[]): number[] {
  return shape.map((d, i) => (axes.includes(i) ? 1 : d));
}

const configs: tf.GradConfig[] = [
  {
    kernelName: tf.Add,
    inputsToSave: ["a", "b"],
    gradFunc: (dy, [a, b]) => ({ a: () => unbroadcast(dy as T, a.shape), b: () => unbroadcast(dy as T, b.shape) }),
  },
  {
    kernelName: tf.Sub,
    inputsToSave: ["a", "b"],
    gradFunc: (dy, [a, b]) => ({ a: () => unbroadcast(dy as T, a.shape), b: () => unbroadcast(tf.neg(dy as T), b.shape) }),
  },
  {
    kernelName: tf.Multiply,
    inputsToSave: ["a", "b"],
    gradFunc: (dy, [a, b]) => ({ a: () => unbroadcast(tf.mul(dy as T, b), a.shape), b: () => unbroadcast(tf.mul(dy as T, a), b.shape) }),
  },
  {
    kernelName: tf.RealDiv,
    inputsToSave: ["a", "b"],
    gradFunc: (dy, [a, b]) => ({
      a: () => unbroadcast(tf.div(dy as T, b), a.shape),
      b: () => unbroadcast(tf.neg(tf.div(tf.mul(dy as T, a), tf.square(b))), b.shape),
    }),
  },
  {
    kernelName: tf.AddN,
    saveAllInputs: true,
    gradFunc: (dy, saved) => Object.fromEntries(saved.map((_, i) => [i, () => tf.clone(dy as T)])),
  },
  { kernelName: tf.Neg, gradFunc: (dy) => ({ x: () => tf.neg(dy as T) }) },
  { kernelName: tf.Identity, gradFunc: (dy) => ({ x: () => tf.clone(dy as T) }) },
  { kernelName: tf.Cast, inputsToSave: ["x"], gradFunc: (dy) => ({ x: () => tf.clone(dy as T) }) },
  { kernelName: tf.Square, inputsToSave: ["x"], gradFunc: (dy, [x]) => ({ x: () => tf.mul(dy as T, tf.mul(x, 2)) }) },
  { kernelName: tf.Sqrt, inputsToSave: ["x"], gradFunc: (dy, [x]) => ({ x: () => tf.div(dy as T, tf.mul(tf.sqrt(x), 2)) }) },
  { kernelName: tf.Exp, outputsToSave: [true], gradFunc: (dy, [y]) => ({ x: () => tf.mul(dy as T, y) }) },
  { kernelName: tf.Log, inputsToSave: ["x"], gradFunc: (dy, [x]) => ({ x: () => tf.div(dy as T, x) }) },
  { kernelName: tf.Tanh, outputsToSave: [true], gradFunc: (dy, [y]) => ({ x: () => tf.mul(dy as T, tf.sub(1, tf.square(y))) }) },
  { kernelName: tf.Abs, inputsToSave: ["x"], gradFunc: (dy, [x]) => ({ x: () => tf.mul(dy as T, tf.sign(x)) }) },
  { kernelName: tf.Reshape, inputsToSave: ["x"], gradFunc: (dy, [x]) => ({ x: () => tf.reshape(dy as T, x.shape) }) },
  {
    kernelName: tf.Transpose,
    gradFunc: (dy, _saved, attrs) => {
      const perm = (attrs as { perm: number[] }).perm;
      const inverse = perm.map((_, i) => perm.indexOf(i));
      return { x: () => tf.transpose(dy as T, inverse) };
    },
  },
  {
    kernelName: tf.Sum,
    inputsToSave: ["x"],
    gradFunc: (dy, [x], attrs) => ({
      x: () => tf.mul(tf.reshape(dy as T, keptShape(x.shape, axesOf((attrs as { axis: unknown }).axis, x.rank))), tf.ones(x.shape)),
    }),
  },
  {
    kernelName: tf.Mean,
    inputsToSave: ["x"],
    gradFunc: (dy, [x], attrs) => {
      const axes = axesOf((attrs as { axis: unknown }).axis, x.rank);
      const n = axes.reduce((p, a) => p * x.shape[a], 1);
      return { x: () => tf.div(tf.mul(tf.reshape(dy as T, keptShape(x.shape, axes)), tf.ones(x.shape)), n) };
    },
  },
  {
    kernelName: tf.Slice,
    inputsToSave: ["x"],
    gradFunc: (dy, [x], attrs) => {
      const { begin, size } = attrs as { begin: number[]; size: number[] };
      const d = dy as T;
      return {
        x: () =>
          tf.pad(
            d,
            x.shape.map((dim, i) => [begin[i], dim - begin[i] - (size[i] === -1 ? dim - begin[i] : d.shape[i])] as [number, number]),
          ),
      };
    },
  },
  {
    kernelName: tf.Softmax,
    outputsToSave: [true],
    gradFunc: (dy, [y]) => ({ logits: () => tf.mul(y, tf.sub(dy as T, tf.sum(tf.mul(dy as T, y), -1, true))) }),
  },
  {
    kernelName: tf.BatchMatMul,
    inputsToSave: ["a", "b"],
    gradFunc: (dy, [a, b], attrs) => {
      const { transposeA, transposeB } = attrs as { transposeA: boolean; transposeB: boolean };
      if (transposeA || transposeB) throw new Error("tinylab's BatchMatMul gradient expects untransposed operands (use ops.matmul)");
      const swap = (x: T) => tf.transpose(x, [...Array(x.rank - 2).keys(), x.rank - 1, x.rank - 2]);
      return { a: () => tf.matMul(dy as T, swap(b)), b: () => tf.matMul(swap(a), dy as T) };
    },
  },
];

/** Register each gradient unless one is already registered for that kernel. */
export function registerGradients(): void {
  for (const c of configs) if (!tf.getGradient(c.kernelName)) tf.registerGradient(c);
}

registerGradients();
