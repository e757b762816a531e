// Provenance recorded with every result: engine, versions, command and date. Not configuration.
import { readFileSync } from "node:fs";
import { engineInfo, type EngineInfo } from "./backend.ts";

export interface Provenance extends EngineInfo {
  tinylab: string;
  command: string;
  date: string;
}

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

/** `command` is what the user ran (argv after node), so a reader can rerun it. */
export function provenance(command = ["tinylab", ...process.argv.slice(2)].join(" ")): Provenance {
  return { ...engineInfo(), tinylab: pkg.version, command, date: new Date().toISOString() };
}

/** Round for display only: comparisons and statistics use unrounded values. */
export function round6(x: number): number {
  return Number.isFinite(x) ? Math.round(x * 1e6) / 1e6 : x;
}
