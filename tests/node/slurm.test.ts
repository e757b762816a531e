// The Slurm calls' pure parts (src/node/slurm.ts): the --array spec with its %N throttle, squeue's wait statuses read
// as exit codes and signals, and the shell words of the batch script. The calls themselves run on a real cluster in
// tests/cli/sweep_slurm.test.ts.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { arraySpec, isFinal, parseStates, shellWord } from "../../src/node/slurm.ts";

describe("slurm", () => {
  it("writes the unfinished entries as ranges, with the throttle", () => {
    expect(arraySpec([0, 1, 2])).toBe("0-2");
    expect(arraySpec([1, 3, 4, 5, 9], 2)).toBe("1,3-5,9%2");
    expect(arraySpec([7], 1)).toBe("7%1");
  });

  it("reads squeue's exit_code as a wait status: the code in the high byte, a signal in the low bits", () => {
    // 768 = 3 << 8 (exit 3); 33280 = 130 << 8 (exit 130 after SIGINT); 9 = killed by SIGKILL
    const s = parseStates("0|COMPLETED|0|\n1|FAILED|768|\n2|CANCELLED|33280|\n3|CANCELLED|9|\n4|RUNNING|0|\n5|PENDING|0|\n\n");
    expect([...s]).toEqual([
      [0, { state: "COMPLETED", exitCode: 0 }],
      [1, { state: "FAILED", exitCode: 3 }],
      [2, { state: "CANCELLED", exitCode: 130 }],
      [3, { state: "CANCELLED", signal: 9 }],
      [4, { state: "RUNNING" }],
      [5, { state: "PENDING" }],
    ]);
    expect([...s.values()].map(isFinal)).toEqual([true, true, true, true, false, false]);
  });

  it("quotes each word so that sh reads it back unchanged", () => {
    const words = ["plain/path-1.0", "it's", "a b", "$HOME", "lr=1e-3 batch-rows=4", "", "`x`"];
    const r = spawnSync("sh", ["-c", `printf '%s\\n' ${words.map(shellWord).join(" ")}`], { encoding: "utf8" });
    expect(r.stdout).toBe(words.map((w) => `${w}\n`).join(""));
  });
});
