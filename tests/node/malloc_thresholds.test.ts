// raiseMallocThresholds (src/node/malloc_thresholds.ts): once glibc's dynamic thresholds are raised, memory freed
// between graph runs stays with the process and is reused, instead of being faulted in again at every run.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const script = fileURLToPath(new URL("./malloc_faults.ts", import.meta.url));
/** Page faults per round of 40 MiB allocated, written, dropped and collected, in a fresh process. */
const rounds = (raise: boolean): number[] =>
  JSON.parse(execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", script, ...(raise ? ["raise"] : [])], { encoding: "utf8" }));

// 40 MiB is 10,240 pages of 4 KiB
const PAGES = 10_240;

describe.runIf(process.platform === "linux")("raiseMallocThresholds", () => {
  it(
    "keeps a round's freed memory for the next once V8 has collected the dropped buffer: rounds 3-6 fault in under a tenth of their pages",
    { timeout: 30_000 },
    () => {
      const raised = rounds(true);
      expect(raised[0]).toBeGreaterThan(PAGES / 2); // the first round maps its memory; its collection frees the buffer
      for (const f of raised.slice(2)) expect(f).toBeLessThan(PAGES / 10);
    },
  );

  it(
    "is what makes the difference: without it, glibc hands a round's memory back and later rounds fault again",
    { timeout: 30_000 },
    () => {
      const plain = rounds(false);
      expect(Math.max(...plain.slice(1))).toBeGreaterThan(PAGES / 2);
    },
  );
});
