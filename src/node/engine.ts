// Opening the engine at the Node edge: the tfjs backend, then who multiplies and runs whole graphs
// (native_kernels.ts), returned as one Engine value (src/util/engine.ts) for the run, its adapters and its workers.
// Not option parsing (the CLI reads --backend, --kernels and TINYLAB_KERNELS once, in src/cli/options.ts).
import { initBackend } from "../util/backend.ts";
import { parseBackendChoice, parseKernelsChoice } from "../util/backend_choice.ts";
import type { Engine } from "../util/engine.ts";
import { loadGraphBuilders } from "../model/graph_builders.ts";
import { NATIVE_MIN_MACS, openKernels } from "./native_kernels.ts";

/** What an engine is opened from: the backend and kernels as chosen (each name checked here). */
export interface EngineChoice {
  backend: string;
  kernels: string;
}

/** Initialise the chosen tfjs backend and put its products (and whole graphs) on the chosen kernels. */
export async function openEngine(choice: EngineChoice, smallest = NATIVE_MIN_MACS): Promise<Engine> {
  const kernels = parseKernelsChoice(choice.kernels); // refused by name before the backend loads
  await initBackend(parseBackendChoice(choice.backend));
  const engine = openKernels(kernels, smallest);
  if (engine.graphs) await loadGraphBuilders();
  return engine;
}
