// Shared CLI pieces: engine start-up (loaded only when a command runs), output files and JSON. Not commands
// (src/cli/commands/*) and not option definitions (options.ts).
import { dirname } from "node:path";
import type { EngineInfo } from "../util/backend.ts";
import { parseBackendChoice, parseKernelsChoice } from "../util/backend_choice.ts";
import { writeFileAtomic } from "../util/atomic.ts";
import { ensureDir } from "../util/disk.ts";

/**
 * Load the engine (tfjs), initialise the chosen backend and put its matrix products on the chosen kernels: the
 * first heavy import of any command. What was chosen is in the returned info and in every result's provenance.
 */
export async function startEngine(backend: string | undefined, kernels?: string): Promise<EngineInfo> {
  const choice = parseKernelsChoice(kernels ?? process.env.TINYLAB_KERNELS);
  const [{ initBackend, engineInfo }, { useKernels }] = await Promise.all([import("../util/backend.ts"), import("../util/native_kernels.ts")]);
  await initBackend(parseBackendChoice(backend));
  useKernels(choice);
  return engineInfo();
}

/** Write a result file atomically, creating its directory. */
export function writeOutput(path: string, content: string | Uint8Array): void {
  ensureDir(dirname(path));
  writeFileAtomic(path, content);
}

export { toJson } from "../util/json.ts";
/**
 * The one timing every command prints, measured the same way everywhere: wall-clock seconds since the process
 * started (module loading, engine start-up, the work and writing files), so it matches a stopwatch around the command.
 */
export function wallTimeLine(): string {
  return `wall time ${process.uptime().toFixed(1)} s (since the process started: start-up, work and writing files)`;
}
