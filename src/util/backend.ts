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

import { tfjsEngine, type Engine } from "./engine.ts";

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
 * Initialise tfjs on the chosen backend and return the engine on its own kernels (the Node edge may put the
 * products and whole graphs on onnxruntime: src/node/engine.ts). `auto` prefers tensorflow (if a native package
 * loads), then wasm, then cpu. An explicit choice that cannot be satisfied is an error, never a silent fallback.
 */
export async function initBackend(choice: BackendChoice): Promise<Engine> {
  tf.enableProdMode();
  const order: string[] = choice === "auto" ? ["tensorflow", "wasm", "cpu"] : [choice];
  for (const name of order) {
    if (name === "tensorflow" && !(await tryNative())) {
      if (choice === "tensorflow") {
        throw new Error(
          "backend tensorflow requested but neither @tensorflow/tfjs-node nor -node-gpu could be loaded (npm i -E @tensorflow/tfjs-node@4.22.0)",
        );
      }
      continue;
    }
    if (tf.getBackend() === name) return tfjsEngine(name);
    if (await tf.setBackend(name)) {
      await tf.ready();
      return tfjsEngine(name);
    }
    if (choice !== "auto") throw new Error(`backend ${name} failed to initialise`);
  }
  throw new Error("no tfjs backend could be initialised (tried tensorflow, wasm, cpu)");
}

/** The engine of the current backend on tfjs's own kernels: what a caller that chose no engine computes on. */
export const tfjsOnly = (): Engine => tfjsEngine(tf.getBackend());

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

/** The part of tfjs-wasm 4.22's BackendWasm a view needs (as wasm_kernels.ts uses it). */
interface HeapView {
  typedArrayFromHeap: (t: tf.TensorInfo) => Float32Array;
}

/**
 * A float32 tensor's values without a copy where the backend keeps them in memory JS can read (wasm: a view of its
 * heap), else dataSync's array. Read only, and only until the next tfjs call: one that allocates may grow the
 * wasm heap, which detaches the view. For feeding a graph run the moment it is taken (a model-sized copy saved).
 */
export function float32View(t: tf.Tensor): Float32Array {
  if (t.dtype !== "float32") throw new Error(`float32View: the tensor is ${t.dtype}, not float32`);
  const be = tf.getBackend() === "wasm" ? (tf.backend() as Partial<HeapView>) : undefined;
  if (typeof be?.typedArrayFromHeap !== "function") return t.dataSync() as Float32Array;
  return be.typedArrayFromHeap({ dataId: t.dataId, shape: t.shape, dtype: "float32" });
}
