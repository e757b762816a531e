// Chooses and initialises the tfjs backend at run time: tensorflow (tfjs-node, optional) if installed, else wasm, else cpu.
// Not model code: everything else imports `tf` from here so one engine instance serves the whole process.
import * as tf from "@tensorflow/tfjs-core";
// tfjs-core registers no gradients: ours are in gradients.ts (the full @tensorflow/tfjs bundle would slow every start)
import "./gradients.ts";
// a batched matmul kernel for wasm (its own batched path is slower than its 2-D one)
import "./wasm_matmul.ts";
// JS kernels over the wasm heap (column sums, 2-D transposes, row gathers and scatter-adds)
import "./wasm_kernels.ts";
import "@tensorflow/tfjs-backend-cpu";
import "@tensorflow/tfjs-backend-wasm";

export { tf };

import { BACKEND_CHOICES, parseBackendChoice, type BackendChoice } from "./backend_choice.ts";
export { BACKEND_CHOICES, parseBackendChoice, type BackendChoice };

/** Who computes matrix products: tfjs's own kernels, or onnxruntime-node's (installed from the Node edge). */
export type Kernels = "tfjs" | "onnxruntime";
let kernels: Kernels = "tfjs";
let kernelsVersion: string | undefined;

/** Who computes matrix products now (the native kernels consult it on every call, so a switch back is honoured). */
export const currentKernels = (): Kernels => kernels;

/** Record who computes the matrix products (called by src/node/native_kernels.ts once its kernels are in place). */
export function setKernels(name: Kernels, version?: string): void {
  [kernels, kernelsVersion] = [name, version];
}

/** A float32, int64 or bool (one byte each) input of a graph run, row-major. */
export type GraphFeed = { type: "float32"; data: Float32Array; dims: number[] } | { type: "int64"; data: BigInt64Array; dims: number[] } | { type: "bool"; data: Uint8Array; dims: number[] };
/** An ONNX model loaded into a session: feeds in, the named float32 outputs out in the order asked (synchronously). */
export type GraphSession = (feeds: Record<string, GraphFeed>, outputs: readonly string[]) => Float32Array[];
/** Loads ONNX model bytes into a session (registered from the Node edge beside the native kernels). */
export type GraphLoader = (bytes: Uint8Array) => GraphSession;
let graphLoader: GraphLoader | undefined;

/** Register who runs whole ONNX graphs (src/node/native_kernels.ts, with its kernels); undefined unregisters. */
export function setGraphLoader(loader: GraphLoader | undefined): void {
  graphLoader = loader;
}

/**
 * Who runs whole graphs now: only while the kernels are onnxruntime's (one name for the engine: scoring runs on
 * onnxruntime exactly when the products do), else undefined and scoring stays on tfjs.
 */
export const currentGraphLoader = (): GraphLoader | undefined => (kernels === "onnxruntime" ? graphLoader : undefined);

/** What a result records about the engine that produced it. */
export interface EngineInfo {
  backend: string;
  /**
   * Who computed the matrix products (onnxruntime: onnxruntime-node's MLAS under the wasm backend); with
   * onnxruntime, scoring also ran the whole forward as one ONNX graph on it (src/model/graph_scoring.ts), and
   * training without dropout the whole step's forward and backward (src/model/graph_training.ts).
   */
  kernels: Kernels;
  /** The onnxruntime-node version, where kernels is onnxruntime. */
  onnxruntime?: string;
  tfjs: string;
  node: string;
}

/** The optional native bindings, tried in this order; their install downloads libtensorflow, so they may be absent. */
const NATIVE_PACKAGES = ["@tensorflow/tfjs-node-gpu", "@tensorflow/tfjs-node"];

async function tryNative(): Promise<string | undefined> {
  for (const name of NATIVE_PACKAGES) {
    try {
      await import(name);
      return name;
    } catch {
      // absent or failed to load its native library: try the next option
    }
  }
  return undefined;
}

/**
 * Initialise tfjs on the chosen backend and return what was selected.
 * `auto` prefers tensorflow (if a native package loads), then wasm, then cpu. An explicit choice that
 * cannot be satisfied is an error, never a silent fallback.
 */
export async function initBackend(choice: BackendChoice = parseBackendChoice(nodeProcess()?.env.TINYLAB_BACKEND)): Promise<EngineInfo> {
  tf.enableProdMode();
  const order: string[] = choice === "auto" ? ["tensorflow", "wasm", "cpu"] : [choice];
  for (const name of order) {
    if (name === "tensorflow" && !(await tryNative())) {
      if (choice === "tensorflow") {
        throw new Error("backend tensorflow requested but neither @tensorflow/tfjs-node nor -node-gpu could be loaded (npm i -E @tensorflow/tfjs-node@4.22.0)");
      }
      continue;
    }
    if (tf.getBackend() === name) return engineInfo();
    setKernels("tfjs"); // native kernels override one backend's: a new backend starts on its own
    if (await tf.setBackend(name)) {
      await tf.ready();
      return engineInfo();
    }
    if (choice !== "auto") throw new Error(`backend ${name} failed to initialise`);
  }
  throw new Error("no tfjs backend could be initialised (tried tensorflow, wasm, cpu)");
}

export function engineInfo(): EngineInfo {
  return { backend: tf.getBackend(), kernels, ...(kernelsVersion ? { onnxruntime: kernelsVersion } : {}), tfjs: tf.version_core, node: nodeProcess()?.version ?? NO_NODE };
}

/** What `node` says where there is no Node (the lab's web page runs this module in a browser worker). */
export const NO_NODE = "none (browser)";

/** Node's `process` global, or undefined in a browser (where reading it would throw a ReferenceError). */
export function nodeProcess(): NodeJS.Process | undefined {
  return typeof process === "undefined" ? undefined : process;
}

/**
 * Run `f` in a tidy scope and copy its result tensor out as a typed array. Never return a typed array from
 * tf.tidy itself: tidy walks its return value element by element (slow for a 1M-entry array).
 */
export function readTensor(f: () => tf.Tensor): Float32Array {
  const t = tf.tidy(f);
  try {
    return Float32Array.from(t.dataSync() as Float32Array);
  } finally {
    t.dispose();
  }
}
