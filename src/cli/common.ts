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

/**
 * JSON with a trailing newline. A non-finite number is refused (thrown, naming its path), never written as a string
 * or silently as null: a quantity without a value must reach here as null with a `<name>_reason` (src/eval/reasoned.ts).
 */
export function toJson(value: unknown): string {
  const walk = (v: unknown, path: string): void => {
    if (typeof v === "number" && !Number.isFinite(v)) throw new Error(`toJson: ${path} is ${v}; a quantity without a value must be null with a "_reason" beside it`);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
    else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
  };
  walk(value, "$");
  return JSON.stringify(value, null, 2) + "\n";
}

/**
 * The one timing every command prints, measured the same way everywhere: wall-clock seconds since the process
 * started (module loading, engine start-up, the work and writing files), so it matches a stopwatch around the command.
 */
export function wallTimeLine(): string {
  return `wall time ${process.uptime().toFixed(1)} s (since the process started: start-up, work and writing files)`;
}
