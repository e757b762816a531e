// Node-only: the wasm backend's matrix products (tfjs's BatchMatMul and tinylab's sliced batched matmul) computed
// by onnxruntime-node's MLAS (onnxruntime.ts's binding), reading and writing tfjs-wasm's heap in place, and the
// engine that puts them and whole graphs there. Not imported by the core: the core sees only the Engine value
// openKernels returns (src/util/engine.ts); that tfjs's kernel registry is patched to reach MLAS is this file's
// own business.
//
// Why: on this project's CPUs XNNPACK in wasm runs 128-bit SIMD, MLAS AVX2/AVX-512, and products are two thirds
// of a training step.
import { tf } from "../util/backend.ts";
import { tfjsEngine, type Engine, type GraphLoader } from "../util/engine.ts";
import type { KernelsChoice } from "../util/backend_choice.ts";
import { causalAttention } from "./causal_attention.ts";
import { matmulModel } from "./onnx_matmul_model.ts";
import { SLICED_MATMUL } from "../util/wasm_matmul.ts";
import {
  graphLoader,
  INSTALL_HINT,
  INTRA_OP_THREADS,
  ONNXRUNTIME_VERSION,
  ortBinding,
  sessionOptions,
  type Ort,
  type Session,
} from "./onnxruntime.ts";

/**
 * Products smaller than this many multiply-adds stay on tfjs-wasm: a native call pays a fixed cost of feeds and
 * fetches that a small product does not repay. The value lies between the sizes bench/native_matmul.ts found
 * slower and faster natively (docs/benchmarks.md).
 */
export const NATIVE_MIN_MACS = 131072;

type Info = tf.TensorInfo;
/** The parts of tfjs-wasm 4.22's BackendWasm these kernels rely on (as wasm_kernels.ts). */
interface WasmHeapBackend {
  makeOutput: (shape: number[], dtype: "float32") => Info;
  typedArrayFromHeap: (t: Info) => Float32Array;
}

/** Sessions by rank and transposition (their dimensions are symbolic, so one session serves every shape). */
class Products {
  private readonly sessions = new Map<string, Session>();
  constructor(
    private readonly ort: Ort,
    readonly intraOp: number,
  ) {}

  private session(rank: number, ta: boolean, tb: boolean): Session {
    const key = `${rank}${+ta}${+tb}`;
    let s = this.sessions.get(key);
    if (!s) {
      const bytes = matmulModel(rank, ta, tb);
      s = this.ort.newSession();
      s.loadModel(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength, sessionOptions(this.intraOp));
      this.sessions.set(key, s);
    }
    return s;
  }

  /** out ← a @ b (operands optionally transposed), all three float32 arrays of the given shapes. */
  run(
    a: Float32Array,
    aShape: number[],
    b: Float32Array,
    bShape: number[],
    out: Float32Array,
    outShape: number[],
    ta: boolean,
    tb: boolean,
  ): void {
    const { Tensor } = this.ort;
    this.session(aShape.length, ta, tb).run(
      { a: new Tensor("float32", a, aShape), b: new Tensor("float32", b, bShape) },
      { y: new Tensor("float32", out, outShape) },
      {},
    );
  }
}

/** The product's shapes when the native kernel takes it (same rank, equal leading axes, large enough), else undefined. */
export function nativeShapes(
  aShape: number[],
  bShape: number[],
  ta: boolean,
  tb: boolean,
  minMacs = NATIVE_MIN_MACS,
): number[] | undefined {
  const r = aShape.length;
  if (r < 2 || r > 4 || bShape.length !== r || aShape.slice(0, -2).some((d, i) => d !== bShape[i])) return undefined;
  const [M, K] = ta ? [aShape[r - 1], aShape[r - 2]] : [aShape[r - 2], aShape[r - 1]];
  const [Kb, N] = tb ? [bShape[r - 1], bShape[r - 2]] : [bShape[r - 2], bShape[r - 1]];
  const batch = aShape.slice(0, -2).reduce((x, y) => x * y, 1);
  if (K !== Kb || batch * M * K * N < minMacs || M * N === 0) return undefined;
  return [...aShape.slice(0, -2), M, N];
}

type KernelArgs = { inputs: { a: Info; b: Info }; backend: unknown; attrs?: { transposeA?: boolean; transposeB?: boolean } };

function isHeapBackend(b: unknown): b is WasmHeapBackend {
  return (
    typeof (b as Partial<WasmHeapBackend>)?.makeOutput === "function" &&
    typeof (b as Partial<WasmHeapBackend>)?.typedArrayFromHeap === "function"
  );
}

/**
 * Wrap a wasm kernel: products the native path takes go to MLAS, the rest (and everything while the engine opened
 * last is on tfjs's kernels) to the original. tfjs's registry is one per thread, so the products follow the engine
 * this thread opened last (openKernels): a tfjs engine opened after an onnxruntime one switches them back.
 */
function wrap(products: Products, original: tf.KernelFunc): tf.KernelFunc {
  return ((args: KernelArgs) => {
    const {
      inputs: { a, b },
      backend,
      attrs,
    } = args;
    const [ta, tb] = [!!attrs?.transposeA, !!attrs?.transposeB];
    const outShape =
      minMacs !== undefined && a.dtype === "float32" && b.dtype === "float32" && isHeapBackend(backend)
        ? nativeShapes(a.shape, b.shape, ta, tb, minMacs)
        : undefined;
    if (!outShape || !isHeapBackend(backend)) return original(args as unknown as Parameters<tf.KernelFunc>[0]);
    const out = backend.makeOutput(outShape, "float32");
    calls++;
    // views after makeOutput: allocating may grow the heap, which detaches earlier views
    products.run(
      backend.typedArrayFromHeap(a),
      a.shape,
      backend.typedArrayFromHeap(b),
      b.shape,
      backend.typedArrayFromHeap(out),
      outShape,
      ta,
      tb,
    );
    return out;
  }) as unknown as tf.KernelFunc;
}

let installed: Products | undefined;
let graphs: GraphLoader | undefined;
/** The products' size threshold while this thread's engine is onnxruntime's; undefined: tfjs computes them all. */
let minMacs: number | undefined;
let calls = 0;

/** Products computed by onnxruntime in this thread so far (tests and benches check the native path ran). */
export const nativeCalls = (): number => calls;

/** Check the binding on a product whose exact value is known, so a broken install fails here, not mid-run. */
function selfTest(p: Products): string | undefined {
  const a = Float32Array.from([1, 2, 3, 4, 5, 6]),
    b = Float32Array.from([1, 2, 3, 4, 5, 6]),
    y = new Float32Array(4);
  p.run(a, [2, 3], b, [3, 2], y, [2, 2], false, false); // [[1,2,3],[4,5,6]] @ [[1,2],[3,4],[5,6]]
  const t = new Float32Array(4);
  p.run(a, [1, 3, 2], b, [1, 2, 3], t, [1, 2, 2], true, true); // ([[1,2],[3,4],[5,6]])ᵀ @ ([[1,2,3],[4,5,6]])ᵀ
  const want = [22, 28, 49, 64],
    wantT = [22, 49, 28, 64];
  if (want.some((v, i) => y[i] !== v) || wantT.some((v, i) => t[i] !== v))
    return `onnxruntime-node's MatMul gave [${y}] and [${t}], expected [${want}] and [${wantT}]`;
  return undefined;
}

function install(intraOp: number): string | undefined {
  if (installed)
    return installed.intraOp === intraOp
      ? undefined
      : `this thread's products already run on ${installed.intraOp} intra-op threads, not ${intraOp}`;
  const ort = ortBinding();
  if (typeof ort === "string") return ort;
  const products = new Products(ort, intraOp);
  let failed: string | undefined;
  try {
    failed = selfTest(products);
  } catch (err) {
    failed = `onnxruntime-node's MatMul failed (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`;
  }
  if (failed) return failed;
  for (const name of [tf.BatchMatMul, SLICED_MATMUL]) {
    const cfg = tf.getKernel(name, "wasm");
    if (!cfg) return `the wasm backend has no ${name} kernel to hand to onnxruntime`;
    cfg.kernelFunc = wrap(products, cfg.kernelFunc);
  }
  installed = products;
  graphs = graphLoader(ort, intraOp);
  return undefined;
}

/**
 * The engine of the current tfjs backend with its matrix products on the chosen kernels (auto: onnxruntime where it
 * loads on the wasm backend) and, on onnxruntime, whole graphs run there too. An explicit onnxruntime that cannot be
 * met is an error naming what to install; auto without it keeps tfjs's kernels. `smallest` (multiply-adds) is for benches.
 */
export function openKernels(choice: KernelsChoice, smallest = NATIVE_MIN_MACS): Engine {
  minMacs = undefined;
  const backend = tf.getBackend();
  if (choice === "tfjs") return tfjsEngine(backend);
  if (backend !== "wasm") {
    if (choice === "onnxruntime") throw new Error(`--kernels onnxruntime runs under --backend wasm, and the backend is ${backend}`);
    return tfjsEngine(backend);
  }
  const failed = install(INTRA_OP_THREADS);
  if (failed) {
    if (choice === "onnxruntime") throw new Error(`--kernels onnxruntime: ${failed}; install it with ${INSTALL_HINT}`);
    return tfjsEngine(backend);
  }
  minMacs = smallest;
  // scoring and training follow the kernels: whole graphs on the same runtime (src/model/graph_scoring.ts, graph_training.ts),
  // scoring's attention on tinylab's causal kernel where its addon was built and runs here (causal_attention.ts)
  const causal = causalAttention(installed!.intraOp);
  return {
    backend,
    kernels: "onnxruntime",
    onnxruntime: ONNXRUNTIME_VERSION,
    graphs,
    intraOpThreads: installed!.intraOp,
    ...(typeof causal === "string" ? {} : { attention: "tinylab" as const, causalAttention: causal }),
  };
}
