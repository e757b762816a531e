// Opening the engine at the Node edge: the tfjs backend, then who multiplies and runs whole graphs
// (native_kernels.ts), on how many threads, returned as one Engine value (src/util/engine.ts) for the run, its
// adapters and its workers. Not option parsing (the CLI reads --backend, --kernels, TINYLAB_KERNELS and --workers
// once, in src/cli/options.ts).
import { initBackend } from "../util/backend.ts";
import { parseBackendChoice, parseKernelsChoice } from "../util/backend_choice.ts";
import type { Engine } from "../util/engine.ts";
import { loadGraphBuilders } from "../model/graph_builders.ts";
import { NATIVE_MIN_MACS, openKernels } from "./native_kernels.ts";

/** What an engine is opened from: the backend and kernels as chosen (each name checked here), and --workers. */
export interface EngineChoice {
  backend: string;
  kernels: string;
  /** Threads the run may use, this one included; absent: as many as its model pays for. */
  workers?: number;
}

/** Initialise the chosen tfjs backend, put its products (and whole graphs) on the chosen kernels, and give it its workers. */
export async function openEngine(choice: EngineChoice, smallest = NATIVE_MIN_MACS): Promise<Engine> {
  const kernels = parseKernelsChoice(choice.kernels); // refused by name before the backend loads
  await initBackend(parseBackendChoice(choice.backend));
  const engine = openKernels(kernels, smallest);
  if (engine.graphs) await loadGraphBuilders();
  return choice.workers === undefined ? engine : { ...engine, workers: choice.workers };
}
