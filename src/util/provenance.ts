// Provenance recorded with every result: engine, versions, command and date. Not configuration.
import { engineInfo, type EngineInfo } from "./backend.ts";
// a JSON import, not a file read, so the core can record the version in any runtime
import pkg from "../../package.json" with { type: "json" };

export interface Provenance extends EngineInfo {
  /** Worker threads that computed the result (src/train/pool.ts), the calling thread included; absent: one. */
  workers?: number;
  tinylab: string;
  command: string;
  date: string;
}

/** `command` is what the user ran (argv after node), so a reader can rerun it. */
export function provenance(command = ["tinylab", ...process.argv.slice(2)].join(" ")): Provenance {
  return { ...engineInfo(), tinylab: pkg.version, command, date: new Date().toISOString() };
}

/** Round for display only: comparisons and statistics use unrounded values. */
export function round6(x: number): number {
  return Number.isFinite(x) ? Math.round(x * 1e6) / 1e6 : x;
}
