// JS kernels over tfjs-wasm's heap for memory-bound ops its own kernels do slowly: column sums, transposes,
// row gathers and their scatter-add. Not math kernels: each is a copy or a float32 sum in a fixed order.
//
// Each one computes bit for bit what the tfjs op it replaces computes on wasm (tests/util/wasm_kernels.test.ts
// checks that): a transpose or gather is a copy; a column sum adds rows first to last in float32, as wasm's Sum
// does; a scatter-add adds the rows of each id in row order, as the one-hot matmul it replaces does (its zero
// terms add nothing). Off wasm (or without the 4.22 internals they need) every function is the tfjs op.
import * as tf from "@tensorflow/tfjs-core";

type Info = tf.TensorInfo;

/** The parts of tfjs-wasm 4.22's BackendWasm these kernels rely on (checked before use). */
interface WasmHeapBackend {
  makeOutput: (shape: number[], dtype: "float32") => Info;
  typedArrayFromHeap: (t: Info) => Float32Array | Int32Array;
}

function isHeapBackend(b: unknown): b is WasmHeapBackend {
  return (
    typeof (b as Partial<WasmHeapBackend>)?.makeOutput === "function" &&
    typeof (b as Partial<WasmHeapBackend>)?.typedArrayFromHeap === "function"
  );
}

/** Whether the current backend runs the JS heap kernels (else each function is its tfjs op). */
export function usesHeapKernels(): boolean {
  return tf.getBackend() === "wasm" && isHeapBackend(tf.backend());
}

type KernelArgs = { inputs: Record<string, Info>; backend: unknown; attrs: Record<string, unknown> };

function register(name: string, f: (be: WasmHeapBackend, inputs: Record<string, Info>, attrs: Record<string, unknown>) => Info) {
  tf.registerKernel({
    kernelName: name,
    backendName: "wasm",
    kernelFunc: (({ inputs, backend, attrs }: KernelArgs) => {
      if (!isHeapBackend(backend))
        throw new Error(`${name}: the wasm backend does not expose what this kernel needs (tfjs-wasm 4.22.0 expected)`);
      return f(backend, inputs, attrs);
    }) as unknown as tf.KernelFunc,
  });
}

// Views are taken after makeOutput: allocating may grow the heap, which detaches earlier views.
register("TinylabColumnSum", (be, { x }) => {
  const [N, C] = x.shape;
  const out = be.makeOutput([C], "float32");
  const [xs, o] = [be.typedArrayFromHeap(x), be.typedArrayFromHeap(out)];
  const f = Math.fround;
  o.fill(0);
  // rows first to last, each addition rounded to float32 (as wasm's float accumulator); four rows per pass over
  // the output only save stores, the order of additions is the same
  let n = 0;
  for (; n + 4 <= N; n += 4) {
    const a = n * C;
    for (let c = 0; c < C; c++) o[c] = f(f(f(f(o[c] + xs[a + c]) + xs[a + C + c]) + xs[a + 2 * C + c]) + xs[a + 3 * C + c]);
  }
  for (; n < N; n++) for (let c = 0; c < C; c++) o[c] += xs[n * C + c];
  return out;
});

register("TinylabTranspose2D", (be, { x }) => {
  // [n, R, C] → [n, C, R] (or [R, C] → [C, R]): n matrices transposed one after another
  const [n, R, C] = x.shape.length === 2 ? [1, ...x.shape] : x.shape;
  const out = be.makeOutput(x.shape.length === 2 ? [C, R] : [n, C, R], "float32");
  const [all, allOut] = [be.typedArrayFromHeap(x), be.typedArrayFromHeap(out)];
  for (let m = 0; m < n; m++) {
    const [xs, o] = [all.subarray(m * R * C, (m + 1) * R * C), allOut.subarray(m * R * C, (m + 1) * R * C)];
    // eight input rows at a time, so each column writes eight consecutive outputs (faster than a 32×32 blocked loop)
    let r = 0;
    for (; r + 8 <= R; r += 8) {
      for (let c = 0; c < C; c++) {
        const oc = c * R + r,
          ic = r * C + c;
        o[oc] = xs[ic];
        o[oc + 1] = xs[ic + C];
        o[oc + 2] = xs[ic + 2 * C];
        o[oc + 3] = xs[ic + 3 * C];
        o[oc + 4] = xs[ic + 4 * C];
        o[oc + 5] = xs[ic + 5 * C];
        o[oc + 6] = xs[ic + 6 * C];
        o[oc + 7] = xs[ic + 7 * C];
      }
    }
    for (; r < R; r++) for (let c = 0; c < C; c++) o[c * R + r] = xs[r * C + c];
  }
  return out;
});

register("TinylabSwapMiddle", (be, { x }) => {
  // [A, M, N, D] → [A, N, M, D] (attention's [B, S, H, D] ↔ [B, H, S, D]): rows of D copied whole
  const [A, M, N, D] = x.shape;
  const out = be.makeOutput([A, N, M, D], "float32");
  const [xs, o] = [be.typedArrayFromHeap(x), be.typedArrayFromHeap(out)];
  for (let a = 0; a < A; a++)
    for (let m = 0; m < M; m++)
      for (let n = 0; n < N; n++) {
        const from = ((a * M + m) * N + n) * D,
          to = ((a * N + n) * M + m) * D;
        for (let d = 0; d < D; d++) o[to + d] = xs[from + d];
      }
  return out;
});

register("TinylabGatherRows", (be, { table, ids }) => {
  const [V, C] = table.shape,
    N = ids.shape[0];
  const out = be.makeOutput([N, C], "float32");
  const [t, id, o] = [be.typedArrayFromHeap(table), be.typedArrayFromHeap(ids), be.typedArrayFromHeap(out)];
  for (let n = 0; n < N; n++) {
    const r = id[n];
    if (!(r >= 0 && r < V)) throw new Error(`TinylabGatherRows: id ${r} at position ${n} is outside the table's ${V} rows`);
    o.set(t.subarray(r * C, r * C + C), n * C);
  }
  return out;
});

register("TinylabScatterAddRows", (be, { dy, ids }, { rows }) => {
  const [N, C] = dy.shape,
    V = rows as number;
  const out = be.makeOutput([V, C], "float32");
  const [d, id, o] = [be.typedArrayFromHeap(dy), be.typedArrayFromHeap(ids), be.typedArrayFromHeap(out)];
  o.fill(0);
  for (let n = 0; n < N; n++) {
    const r = id[n];
    if (!(r >= 0 && r < V)) throw new Error(`TinylabScatterAddRows: id ${r} at position ${n} is outside the table's ${V} rows`);
    for (let c = 0; c < C; c++) o[r * C + c] += d[n * C + c];
  }
  return out;
});

register("TinylabSplitHeads", (be, { qkv }, { B, S, H }) => {
  // [B·S, 3C] read as [B, S, 3, H, D] → three [B, H, S, D]: rows of D copied whole
  const [b, s, h] = [B as number, S as number, H as number],
    D = qkv.shape[1] / (3 * h);
  const outs = [0, 1, 2].map(() => be.makeOutput([b, h, s, D], "float32"));
  const xs = be.typedArrayFromHeap(qkv),
    os = outs.map((o) => be.typedArrayFromHeap(o));
  for (let bi = 0; bi < b; bi++)
    for (let si = 0; si < s; si++)
      for (let j = 0; j < 3; j++) {
        const o = os[j];
        for (let hi = 0; hi < h; hi++) {
          const from = (((bi * s + si) * 3 + j) * h + hi) * D,
            to = ((bi * h + hi) * s + si) * D;
          for (let d = 0; d < D; d++) o[to + d] = xs[from + d];
        }
      }
  return outs as unknown as Info;
});

const run = (name: string, inputs: Record<string, tf.Tensor>, attrs: Record<string, unknown> = {}) =>
  tf.engine().runKernel(name, inputs as unknown as tf.NamedTensorMap, attrs as tf.NamedAttrMap) as tf.Tensor;

/** Σ over the leading axes of x [..., C], shape [C]: tf.sum(x, leading axes). No gradient (use inside custom gradients). */
export function columnSum(x: tf.Tensor): tf.Tensor1D {
  const C = x.shape[x.rank - 1];
  if (x.rank < 2 || x.dtype !== "float32" || x.size === 0 || !usesHeapKernels())
    return tf.sum(x, [...Array(x.rank - 1).keys()]) as tf.Tensor1D;
  // a reshape is a kernel dispatch too, with the engine's bookkeeping: only when there are several leading axes
  return tf.tidy(() => run("TinylabColumnSum", { x: x.rank === 2 ? x : tf.reshape(x, [-1, C]) })) as tf.Tensor1D;
}

/** x [R, C] → [C, R]: tf.transpose of a matrix. No gradient (use inside custom gradients). */
export function transpose2d(x: tf.Tensor): tf.Tensor2D {
  if (x.rank !== 2 || x.dtype !== "float32" || x.size === 0 || !usesHeapKernels()) return tf.transpose(x) as tf.Tensor2D;
  return run("TinylabTranspose2D", { x }) as tf.Tensor2D;
}

/** x [..., R, C] → [..., C, R]: tf.transpose swapping the last two axes. No gradient (use inside custom gradients). */
export function swapLastTwo(x: tf.Tensor): tf.Tensor {
  const r = x.rank;
  if (r < 2 || x.dtype !== "float32" || x.size === 0 || !usesHeapKernels()) {
    const perm = [...Array(r).keys()];
    [perm[r - 2], perm[r - 1]] = [perm[r - 1], perm[r - 2]];
    return tf.transpose(x, perm);
  }
  const [R, C] = x.shape.slice(-2) as [number, number];
  return tf.tidy(() => tf.reshape(run("TinylabTranspose2D", { x: tf.reshape(x, [-1, R, C]) }), [...x.shape.slice(0, -2), C, R]));
}

/** x [A, M, N, D] → [A, N, M, D]: tf.transpose(x, [0, 2, 1, 3]). No gradient (use inside custom gradients). */
export function swapMiddle(x: tf.Tensor4D): tf.Tensor4D {
  if (x.rank !== 4 || x.dtype !== "float32" || x.size === 0 || !usesHeapKernels()) return tf.transpose(x, [0, 2, 1, 3]);
  return run("TinylabSwapMiddle", { x }) as tf.Tensor4D;
}

/** table [V, C] rows at ids [N] → [N, C]: tf.gather(table, ids). No gradient. */
export function gatherRows(table: tf.Tensor, ids: tf.Tensor1D): tf.Tensor2D {
  if (table.rank !== 2 || table.dtype !== "float32" || ids.dtype !== "int32" || ids.size === 0 || !usesHeapKernels())
    return tf.gather(table, ids) as tf.Tensor2D;
  return run("TinylabGatherRows", { table, ids }) as tf.Tensor2D;
}

/** out [rows, C] with out[ids[n]] += dy[n] for n in order: oneHot(ids)ᵀ @ dy, the gradient of gatherRows. No gradient. */
export function scatterAddRows(dy: tf.Tensor2D, ids: tf.Tensor1D, rows: number, fallback: () => tf.Tensor): tf.Tensor2D {
  if (dy.rank !== 2 || dy.dtype !== "float32" || ids.dtype !== "int32" || dy.size === 0 || !usesHeapKernels())
    return fallback() as tf.Tensor2D;
  return run("TinylabScatterAddRows", { dy, ids }, { rows }) as tf.Tensor2D;
}

/** qkv [B·S, 3C] (q|k|v column blocks) → q, k, v as [B, H, S, D] each: slices, reshapes and transposes in one copy. No gradient. */
export function splitHeads(qkv: tf.Tensor, B: number, S: number, H: number): [tf.Tensor4D, tf.Tensor4D, tf.Tensor4D] {
  const C = qkv.shape[1]! / 3,
    D = C / H;
  if (qkv.rank !== 2 || qkv.dtype !== "float32" || qkv.size === 0 || !usesHeapKernels()) {
    return [0, 1, 2].map((i) => tf.transpose(tf.reshape(tf.slice(qkv, [0, i * C], [B * S, C]), [B, S, H, D]), [0, 2, 1, 3])) as [
      tf.Tensor4D,
      tf.Tensor4D,
      tf.Tensor4D,
    ];
  }
  return tf.engine().runKernel("TinylabSplitHeads", { qkv } as unknown as tf.NamedTensorMap, { B, S, H }) as unknown as [
    tf.Tensor4D,
    tf.Tensor4D,
    tf.Tensor4D,
  ];
}
