// Helper process for malloc_thresholds.test.ts, not a test: with "raise", raiseMallocThresholds first; then six
// rounds of what a graph run's outputs do to memory (40 buffers of 1 MiB, written, dropped, collected), printing this
// thread's page faults per round as JSON. Needs node's --expose-gc.
import { readFileSync } from "node:fs";
import { raiseMallocThresholds } from "../../src/node/malloc_thresholds.ts";

// minflt, the tenth field of this thread's stat (after the parenthesised name)
const faults = (): number => Number(readFileSync("/proc/thread-self/stat", "utf8").split(") ")[1].split(" ")[7]);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("malloc_faults.ts needs node --expose-gc");
if (process.argv.includes("raise")) raiseMallocThresholds();
const round = (): number => {
  const before = faults();
  Array.from({ length: 40 }, () => new Float32Array(262_144).fill(1)); // written, then dropped with the statement
  gc();
  return faults() - before;
};
console.log(JSON.stringify(Array.from({ length: 6 }, round)));
