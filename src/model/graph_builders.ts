// The ONNX graph builders (onnx.ts's scoring forward, onnx_train.ts's training step) for an engine that runs whole
// graphs, loaded when such an engine is opened (src/node/engine.ts): they import protobuf, whose start-up costs a
// process or worker more than a short run on tfjs's kernels, which never builds a graph. Not the sessions (graph_session.ts).
import type { onnxModel } from "./onnx.ts";
import type { trainingModel } from "./onnx_train.ts";

export interface GraphBuilders {
  onnxModel: typeof onnxModel;
  trainingModel: typeof trainingModel;
}

let loaded: GraphBuilders | undefined;

/** Loads the builders in this thread (once; later calls return at once). */
export async function loadGraphBuilders(): Promise<void> {
  if (loaded) return;
  const [{ onnxModel }, { trainingModel }] = await Promise.all([import("./onnx.ts"), import("./onnx_train.ts")]);
  loaded = { onnxModel, trainingModel };
}

/** The builders, which an engine running graphs has loaded (engine.ts's openEngine, or loadGraphBuilders before openKernels). */
export function graphBuilders(): GraphBuilders {
  if (!loaded)
    throw new Error("the ONNX graph builders are not loaded in this thread: open the engine with openEngine, or await loadGraphBuilders()");
  return loaded;
}
