// `tinylab canary`: the exposure sweep against hand-worked add-0.05 bigram values, the control flat, refusals by name
// (through the CLI's own code in this process: tests/cli/in_process.ts).
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tinylab } from "./spawn.ts";
import { tinylabHere } from "./in_process.ts";

describe("tinylab canary", () => {
  it("equals the hand-worked sweep: canary X→9→> rises with r, the control K→4→> stays uniform", async () => {
    const r = await tinylab(["canary", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.rows.map((x: { repetitions: number }) => x.repetitions)).toEqual([0, 1, 3, 8]);
    // with r copies, X and 9 each occur r times, always followed by 9 and > (the base text has neither):
    // p(9 | X) = p(> | 9) = (r + 0.05) / (r + 0.05 · 258), so ln p(secret | prefix) = 2 ln((r + 0.05) / (r + 12.9));
    // at r = 0 that is 2 ln(1/258) = −11.1059, and the control's unseen contexts stay there for every r
    for (const row of j.rows) {
      const n = row.repetitions;
      expect(row.canary.log_prob).toBeCloseTo(2 * Math.log((n + 0.05) / (n + 12.9)), 5); // float32 log-probs
      expect(row.control.log_prob).toBeCloseTo(-2 * Math.log(258), 5);
      expect(row.gap).toBeCloseTo(row.canary.log_prob - row.control.log_prob, 12);
      expect(row.canary.recovered).toBe(n > 0);
      expect(row.control.recovered).toBe(false);
    }
    const table = await tinylab(["canary", "--canary-sweep", "0,2"]);
    expect(table.stdout).toMatch(/^ +2 +-3\.9\d{3} true/m);
  });

  it("refuses a repeated count by option name (the recipe's refusals: tests/experiments/compare.test.ts)", async () => {
    const r = await tinylabHere(["canary", "--canary-sweep", "1,1"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--canary-sweep: "1" is given twice/);
  });

  it("refuses --model by name, pointing to report --model DIR --canary (docs/any-model.md), writing nothing", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tinylab-canary-"));
    try {
      const r = await tinylabHere(["canary", "--model", "gpt2-dir"], { cwd });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(
        "tinylab: error: --model gpt2-dir: canary fits its own count models on one tokenizer and takes no model; " +
          "probe a model's memorization with report --model gpt2-dir --canary TEXT\n",
      );
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
