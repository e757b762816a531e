// lm-evaluation-harness's output pieces: responses as Python's str() writes them, model names as the tracker
// sanitizes them, date stamps as its file names carry them. The files themselves: tests/cli/lm_eval_out.test.ts.
import { describe, expect, it } from "vitest";
import { lmEvalDateId, pyFloat, sanitizeModelName } from "../../../src/eval/loggers/lm_eval.ts";

describe("lm-evaluation-harness formats", () => {
  it("writes a float as Python's repr does (printed by python3 for each value)", () => {
    const python: [number, string][] = [
      [-22.79455804824829, "-22.79455804824829"], [1e-5, "1e-05"], [0.0001, "0.0001"], [1e16, "1e+16"], [123456789012345.0, "123456789012345.0"],
      [-0, "-0.0"], [1.5e-7, "1.5e-07"], [2.5, "2.5"], [100, "100.0"], [9999999999999998.0, "9999999999999998.0"],
      [-1.2345678901234567e-12, "-1.2345678901234567e-12"], [0.1, "0.1"], [1e22, "1e+22"], [-3.0e-4, "-0.0003"],
    ];
    for (const [x, repr] of python) expect(pyFloat(x), String(x)).toBe(repr);
  });

  it("names files and models as the evaluation tracker does", () => {
    expect(lmEvalDateId(new Date(2026, 11, 2, 9, 5, 7, 42))).toBe("2026-12-02T09-05-07.042000");
    expect(sanitizeModelName("results/seed39.safetensors")).toBe("results__seed39.safetensors");
    expect(sanitizeModelName('a:b|c?"d')).toBe("a__b__c__d");
  });
});
