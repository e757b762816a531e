// Node-only: onnxruntime-node's binding (its synchronous InferenceSession, checked at this exact version), the
// session options of the engine's threads, and whole graphs run on it (the decoder's scoring and training forms, a
// model directory's graph). Not tfjs's products (native_kernels.ts puts those on the same binding).
//
// The seam is the binding's synchronous InferenceSession.run (the public run is async only because
// onnxruntime-node 1.30.0's dist/backend.js wraps it in setImmediate; a tfjs kernel must return its output): an
// internal of that exact version, checked here before use, as wasm_matmul.ts checks tfjs-wasm's.
import { createRequire } from "node:module";
import type { GraphFeed, GraphLoader } from "../util/engine.ts";
import { raiseMallocThresholds } from "./malloc_thresholds.ts";

/** The onnxruntime-node version whose binding this file relies on (package.json pins it exactly). */
export const ONNXRUNTIME_VERSION = "1.30.0";

/**
 * One intra-op thread per session, what every onnxruntime engine opened here carries (Engine.intraOpThreads):
 * parallelism comes from --workers (one engine per thread), and a product's bits then cannot depend on how many
 * threads MLAS split it over.
 */
export const INTRA_OP_THREADS = 1;

export const INSTALL_HINT = `npm ci (onnxruntime-node ${ONNXRUNTIME_VERSION} is a dependency; package.json's allowScripts keeps its CUDA download off), or --kernels tfjs`;

/** onnxruntime-node's tensor class and a session of its binding: the parts used here. */
export interface OrtTensor {
  data: Float32Array;
}
export type TensorCtor = new (
  type: "float32" | "int64" | "bool",
  data: Float32Array | BigInt64Array | Uint8Array,
  dims: readonly number[],
) => OrtTensor;
export interface Session {
  loadModel(buffer: ArrayBuffer, byteOffset: number, byteLength: number, options: object): void;
  run(feeds: Record<string, OrtTensor>, fetches: Record<string, OrtTensor | null>, options: object): Record<string, OrtTensor>;
}
export interface Ort {
  newSession: () => Session;
  Tensor: TensorCtor;
}

/** onnxruntime-node's binding and tensor class, or the reason they cannot be used. */
function loadOrt(): Ort | string {
  const require = createRequire(import.meta.url);
  let version: string;
  try {
    version = (require("onnxruntime-node/package.json") as { version: string }).version;
  } catch {
    return "onnxruntime-node is not installed";
  }
  if (version !== ONNXRUNTIME_VERSION)
    return `onnxruntime-node ${version} is installed, ${ONNXRUNTIME_VERSION} expected (its binding's synchronous run is an internal)`;
  try {
    const { binding, initOrt } = require("onnxruntime-node/dist/binding.js") as {
      binding?: { InferenceSession?: new () => Session };
      initOrt?: () => void;
    };
    const { Tensor } = require("onnxruntime-common") as { Tensor?: TensorCtor };
    const Ctor = binding?.InferenceSession;
    if (
      typeof initOrt !== "function" ||
      typeof Ctor !== "function" ||
      typeof Ctor.prototype.run !== "function" ||
      typeof Ctor.prototype.loadModel !== "function" ||
      typeof Tensor !== "function"
    ) {
      return `onnxruntime-node ${version}'s binding does not expose a synchronous InferenceSession (loadModel, run)`;
    }
    initOrt();
    return { newSession: () => new Ctor(), Tensor };
  } catch (err) {
    return `onnxruntime-node ${version} failed to load (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`;
  }
}

/** The products' sessions on `intraOp` threads each (the engine's intraOpThreads). */
export const sessionOptions = (intraOp: number) => ({
  intraOpNumThreads: intraOp,
  interOpNumThreads: 1,
  executionMode: "sequential",
  graphOptimizationLevel: "disabled",
  enableCpuMemArena: false,
});

/**
 * Whole graphs (the scoring and training forms of the decoder) on `intraOp` threads as the products: full
 * optimisation. The arena without a memory pattern: a pattern's planned block is allocated in the arena beside the
 * first run's chunks, which the arena keeps, so peak memory grew by half again (large, --workers 2: 1.64 GB with
 * it, 1.11 GB without; medium took no more CPU without it); without the arena every run maps and faults its
 * buffers afresh, several times slower (docs/benchmarks.md).
 */
export const graphOptions = (intraOp: number) => ({
  ...sessionOptions(intraOp),
  graphOptimizationLevel: "all",
  enableCpuMemArena: true,
  enableMemPattern: false,
});

export function graphLoader(ort: Ort, intraOp: number): GraphLoader {
  const options = graphOptions(intraOp);
  raiseMallocThresholds(); // each run's outputs are new buffers: their memory should stay with the process (malloc_thresholds.ts)
  return (bytes) => {
    const s = ort.newSession();
    s.loadModel(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength, options);
    return (feeds: Record<string, GraphFeed>, outputs: readonly string[]) => {
      const ins = Object.fromEntries(Object.entries(feeds).map(([name, f]) => [name, new ort.Tensor(f.type, f.data, f.dims)]));
      const got = s.run(ins, Object.fromEntries(outputs.map((o) => [o, null])), {});
      return outputs.map((o) => got[o].data);
    };
  };
}

let ortLoaded: Ort | string | undefined;

/** onnxruntime-node's binding, loaded once per thread, or the reason it cannot be used. */
export const ortBinding = (): Ort | string => (ortLoaded ??= loadOrt());

/**
 * Whole-graph sessions on onnxruntime-node whatever the kernels (a model directory's graph is run by no other
 * engine), on INTRA_OP_THREADS threads each, or the reason they cannot be had, with the install hint.
 */
export function graphSessions(): GraphLoader | string {
  const ort = ortBinding();
  return typeof ort === "string" ? `${ort}; install it with ${INSTALL_HINT}` : graphLoader(ort, INTRA_OP_THREADS);
}
