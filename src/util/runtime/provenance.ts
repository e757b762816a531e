// Provenance recorded with every result: engine, versions, command and date. Not configuration.
import { NO_NODE, nodeProcess, tf } from "../backend.ts";
import { engineRecord, type EngineRecord } from "../engine.ts";
// a JSON import, not a file read, so the core can record the version in any runtime
import pkg from "../../../package.json" with { type: "json" };

export interface Provenance extends EngineRecord {
  tfjs: string;
  node: string;
  /** Worker threads that computed the result (src/train/pool.ts), the calling thread included; absent: one. */
  workers?: number;
  tinylab: string;
  command: string;
  date: string;
}

/** `engine` is what computed the result; `command` is what the user ran (argv after node), so a reader can rerun it; a browser caller passes its own. */
export function provenance(engine: EngineRecord, command = ["tinylab", ...(nodeProcess()?.argv.slice(2) ?? [])].join(" ")): Provenance {
  return {
    ...engineRecord(engine),
    tfjs: tf.version_core,
    node: nodeProcess()?.version ?? NO_NODE,
    tinylab: pkg.version,
    command,
    date: new Date().toISOString(),
  };
}

// display rounding lives apart from the engine, so a page can show the CLI's digits without loading tfjs
export { round6 } from "../primitives/round.ts";
