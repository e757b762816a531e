// A batched matmul for the wasm backend that runs each batch slice through tfjs-wasm's 2-D XNNPACK path.
// Not a general kernel: float32, rank 3, equal batch sizes, no transposes; everything else goes to tf.matMul.
//
// Why: tfjs-wasm 4.22 sends any matmul with a batch dimension > 1 to a naive triple loop (its XNNPACK
// path takes batch 1 only), several times slower on attention shapes such as
// [64,128,32]×[64,32,128] (bench/step.ts --profile shows the kernels). This kernel registers, for each slice, temporary tensor ids that point into
// the inputs' and output's heap memory (no copies) and calls the backend's own BatchMatMul export on
// them as batch-1 products; disposing the ids frees the XNNPACK operator it creates.
import * as tf from "@tensorflow/tfjs-core";

export const SLICED_MATMUL = "TinylabSlicedMatMul";

/** The parts of tfjs-wasm 4.22's BackendWasm this kernel relies on (checked before use: without them, tf.matMul). */
interface WasmBackendParts {
  wasm: {
    cwrap: (name: string, ret: null, args: string[]) => (...args: unknown[]) => void;
    tfjs: { registerTensor: (id: number, size: number, offset: number) => void; disposeData: (id: number) => void };
  };
  dataIdMap: { get: (dataId: object) => { memoryOffset: number } | undefined };
  dataIdNextNumber: number;
  makeOutput: (shape: number[], dtype: "float32") => tf.TensorInfo;
}

type WasmMatMul = (
  aId: number,
  aShape: Uint8Array,
  aRank: number,
  bId: number,
  bShape: Uint8Array,
  bRank: number,
  ta: number,
  tb: number,
  outId: number,
) => void;
const exported = new WeakMap<object, WasmMatMul>();

function isWasmBackend(b: unknown): b is WasmBackendParts {
  const w = (b as Partial<WasmBackendParts>)?.wasm;
  return (
    typeof w?.cwrap === "function" &&
    typeof w.tfjs?.registerTensor === "function" &&
    typeof w.tfjs?.disposeData === "function" &&
    typeof (b as WasmBackendParts).dataIdNextNumber === "number" &&
    typeof (b as WasmBackendParts).makeOutput === "function"
  );
}

const shapeBytes = (dims: number[]) => new Uint8Array(new Int32Array(dims).buffer);

function slicedMatMul({ inputs, backend }: { inputs: { a: tf.TensorInfo; b: tf.TensorInfo }; backend: unknown }): tf.TensorInfo {
  if (!isWasmBackend(backend))
    throw new Error(`${SLICED_MATMUL}: the wasm backend does not expose what this kernel needs (tfjs-wasm 4.22.0 expected)`);
  const { a, b } = inputs;
  const [n, M, K] = a.shape,
    [nb, Kb, N] = b.shape;
  if (a.shape.length !== 3 || b.shape.length !== 3 || n !== nb || K !== Kb || a.dtype !== "float32" || b.dtype !== "float32") {
    throw new Error(`${SLICED_MATMUL}: needs float32 [n, M, K] and [n, K, N], got ${a.dtype} [${a.shape}] and ${b.dtype} [${b.shape}]`);
  }
  let call = exported.get(backend);
  if (!call) {
    call = backend.wasm.cwrap("BatchMatMul", null, [
      "number",
      "array",
      "number",
      "number",
      "array",
      "number",
      "number",
      "number",
      "number",
    ]) as WasmMatMul;
    exported.set(backend, call);
  }
  const out = backend.makeOutput([n, M, N], "float32");
  const offset = (t: tf.TensorInfo) => backend.dataIdMap.get(t.dataId)!.memoryOffset;
  const [ao, bo, oo] = [offset(a), offset(b), offset(out)];
  const [as, bs] = [shapeBytes([1, M, K]), shapeBytes([1, K, N])];
  const { tfjs } = backend.wasm;
  for (let i = 0; i < n; i++) {
    const ids = [backend.dataIdNextNumber++, backend.dataIdNextNumber++, backend.dataIdNextNumber++];
    tfjs.registerTensor(ids[0], M * K, ao + 4 * i * M * K);
    tfjs.registerTensor(ids[1], K * N, bo + 4 * i * K * N);
    tfjs.registerTensor(ids[2], M * N, oo + 4 * i * M * N);
    try {
      call(ids[0], as, 3, ids[1], bs, 3, 0, 0, ids[2]);
    } finally {
      ids.forEach((id) => tfjs.disposeData(id)); // also deletes the XNNPACK operator cached on the b slice
    }
  }
  return out;
}

tf.registerKernel({ kernelName: SLICED_MATMUL, backendName: "wasm", kernelFunc: slicedMatMul as unknown as tf.KernelFunc });

/** Whether the current backend runs batched matmuls through the sliced kernel. */
export function usesSlicedMatMul(): boolean {
  return tf.getBackend() === "wasm" && isWasmBackend(tf.backend());
}

/**
 * Per-slice size (M·K·N multiply-adds) from which slicing pays on wasm. Each slice costs calls and an XNNPACK
 * operator, which a small slice does not repay; the value is where slicing went from losing to winning on
 * attention shapes [4|64, S, D]×[·, D, S] and [·, S, S]×[·, S, D] (docs/benchmarks.md).
 * Smaller products (the overfit and cyclic configs) keep tfjs's batched loop.
 */
export const SLICE_MIN_MACS = 4096;

/**
 * a [..., M, K] @ b [..., K, N] with equal leading axes (no broadcasting, no transposes). On wasm a product
 * with leading axes and slices of at least `minSliceMacs` runs slice by slice on XNNPACK; otherwise it is
 * tf.matMul.
 */
export function batchMatMul(a: tf.Tensor, b: tf.Tensor, minSliceMacs = SLICE_MIN_MACS): tf.Tensor {
  const lead = a.shape.slice(0, -2);
  if (b.rank !== a.rank || b.shape.slice(0, -2).some((d, i) => d !== lead[i])) {
    throw new Error(`batchMatMul: leading axes must match, got [${a.shape}] and [${b.shape}]`);
  }
  const [M, K] = a.shape.slice(-2),
    [Kb, N] = b.shape.slice(-2);
  if (K !== Kb) throw new Error(`batchMatMul: inner sizes differ, got [${a.shape}] and [${b.shape}]`);
  if (
    a.rank < 3 ||
    a.size === 0 ||
    b.size === 0 ||
    a.dtype !== "float32" ||
    b.dtype !== "float32" ||
    M * K * N < minSliceMacs ||
    !usesSlicedMatMul()
  ) {
    return tf.matMul(a, b);
  }
  const n = lead.reduce((x, y) => x * y, 1);
  return tf.tidy(() => {
    const out = tf.engine().runKernel(SLICED_MATMUL, { a: tf.reshape(a, [n, M, K]), b: tf.reshape(b, [n, K, N]) }, {}) as tf.Tensor;
    return tf.reshape(out, [...lead, M, N]);
  });
}
