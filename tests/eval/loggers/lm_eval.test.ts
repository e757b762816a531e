// lm-evaluation-harness's output pieces: responses as Python's str() writes them, model names as the tracker
// sanitizes them, date stamps as its file names carry them. The files themselves: tests/cli/lm_eval_out.test.ts.
import { describe, expect, it } from "vitest";
import { choiceTask, lmEvalDateId, pyFloat, sanitizeModelName } from "../../../src/eval/loggers/lm_eval.ts";
import { wilsonInterval } from "../../../src/eval/metrics/intervals.ts";

describe("lm-evaluation-harness formats", () => {
  it("writes a float as Python's repr does (printed by python3 for each value)", () => {
    const python: [number, string][] = [
      [-22.79455804824829, "-22.79455804824829"],
      [1e-5, "1e-05"],
      [0.0001, "0.0001"],
      [1e16, "1e+16"],
      [123456789012345.0, "123456789012345.0"],
      [-0, "-0.0"],
      [1.5e-7, "1.5e-07"],
      [2.5, "2.5"],
      [100, "100.0"],
      [9999999999999998.0, "9999999999999998.0"],
      [-1.2345678901234567e-12, "-1.2345678901234567e-12"],
      [0.1, "0.1"],
      [1e22, "1e+22"],
      [-3.0e-4, "-0.0003"],
    ];
    for (const [x, repr] of python) expect(pyFloat(x), String(x)).toBe(repr);
  });

  it("names files and models as the evaluation tracker does", () => {
    expect(lmEvalDateId(new Date(2026, 11, 2, 9, 5, 7, 42))).toBe("2026-12-02T09-05-07.042000");
    expect(sanitizeModelName("results/seed39.safetensors")).toBe("results__seed39.safetensors");
    expect(sanitizeModelName('a:b|c?"d')).toBe("a__b__c__d");
  });

  it("gives a choice task's acc tinylab's Wilson interval from 10 questions, and under that none, the reason in the task's config", () => {
    // candidate 0 always wins, and gold is 1 at every multiple of 3: 6 of 10 right (0, 3, 6, 9 wrong)
    const docs = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        doc: { id: i },
        context: "q",
        choices: ["a", "b"],
        gold: i % 3 === 0 ? 1 : 0,
        loglikelihoods: [-1, -2],
        greedy: [true, false],
      }));
    const ten = choiceTask("t", docs(10), {}).results;
    const w = wilsonInterval(6, 10);
    expect([ten["acc,none"], ten["acc_tinylab_wilson95_lower,none"], ten["acc_tinylab_wilson95_upper,none"]]).toEqual([0.6, w.lo, w.hi]);
    expect(ten).not.toHaveProperty("acc_tinylab_wilson95_reason,none");
    expect(choiceTask("t", docs(10), {}).config).not.toHaveProperty("tinylab_wilson95_reason");
    const nine = choiceTask("t", docs(9), {});
    expect(Object.keys(nine.results).filter((k) => k.includes("wilson"))).toEqual([]);
    expect(nine.config.tinylab_wilson95_reason).toBe("n too small for an interval: 9 documents, fewer than 10 (MIN_INTERVAL_DOCUMENTS)");
  });
});
