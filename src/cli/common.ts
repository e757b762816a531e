// Shared CLI pieces: the --backend option, engine start-up, output paths, and error reporting.
// Not commands themselves (src/cli/commands/*).
import { mkdirSync, existsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { Argv } from "yargs";
import { BACKEND_CHOICES, initBackend, parseBackendChoice, type EngineInfo } from "../util/backend.ts";
import { writeFileAtomic } from "../util/atomic.ts";

/** Add `--backend` (default from TINYLAB_BACKEND, else auto). */
export function withBackend<T>(y: Argv<T>) {
  return y.option("backend", {
    type: "string",
    choices: BACKEND_CHOICES as unknown as string[],
    default: process.env.TINYLAB_BACKEND ?? "auto",
    describe: "tfjs backend: auto = tensorflow (tfjs-node) if installed, else wasm, else cpu",
  });
}

export async function startEngine(backend: string | undefined): Promise<EngineInfo> {
  return initBackend(parseBackendChoice(backend));
}

/** Write a result file atomically, creating its directory. */
export function writeOutput(path: string, content: string | Uint8Array): void {
  const dir = dirname(path);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  writeFileAtomic(path, content);
}

/** JSON with a trailing newline; non-finite numbers as strings so nothing is silently lost. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v), 2) + "\n";
}

/** Refuse a path that must be an existing readable file, naming it. */
export function requireFile(path: string, what: string): string {
  if (!existsSync(path)) throw new Error(`${what} not found: ${path}`);
  if (!statSync(path).isFile()) throw new Error(`${what} is not a file: ${path}`);
  return path;
}

/** Parse a comma-separated list of integers, naming the option on error. */
export function parseIntList(value: string | number | undefined, option: string): number[] | undefined {
  if (value === undefined) return undefined;
  const parts = String(value).split(",").map((s) => s.trim()).filter((s) => s.length > 0);
  if (parts.length === 0) throw new Error(`--${option} needs at least one integer`);
  return parts.map((p) => {
    const n = Number(p);
    if (!Number.isInteger(n)) throw new Error(`--${option}: "${p}" is not an integer`);
    return n;
  });
}
