// Shared CLI pieces: engine start-up (loaded only when a command runs), output files and JSON. Not commands
// (src/cli/commands/*) and not option definitions (options.ts).
import { dirname } from "node:path";
import type { EngineInfo } from "../util/backend.ts";
import { parseBackendChoice } from "../util/backend_choice.ts";
import { writeFileAtomic } from "../util/atomic.ts";
import { ensureDir } from "../util/disk.ts";

/** Load the engine (tfjs) and initialise the chosen backend: the first heavy import of any command. */
export async function startEngine(backend: string | undefined): Promise<EngineInfo> {
  const { initBackend } = await import("../util/backend.ts");
  return initBackend(parseBackendChoice(backend));
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
