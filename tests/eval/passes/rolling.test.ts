// loglikelihood_rolling's windows: lm-evaluation-harness's (rollingWindows, transcribed from lm_eval/utils.py) are
// tinylab's strided windows at stride = context over [prefix, …tokens], so the scorers share one path.
import { describe, expect, it } from "vitest";
import { documentWindows } from "../../../src/eval/passes/windows.ts";
import { rollingDocument, rollingWindows } from "../../../src/eval/passes/rolling.ts";

describe("rollingWindows", () => {
  it("equal tinylab's windows at stride = context: the same inputs, the same targets scored, each token once", () => {
    for (let T = 1; T <= 6; T++) {
      for (let n = 1; n <= 20; n++) {
        const tokens = Array.from({ length: n }, (_, i) => 10 + i);
        const doc = rollingDocument({ id: "d", split: "validation", source: "s" }, tokens, 0)!;
        const harness = rollingWindows(tokens, 0, T);
        const ours = documentWindows(doc, T, T);
        expect(ours.length).toBe(harness.length);
        ours.forEach((w, i) => {
          const { context, continuation } = harness[i];
          // the model's input is context + continuation[:-1]; the targets are the input shifted by one
          expect(doc.ids.slice(w.start, w.start + w.length)).toEqual([...context, ...continuation.slice(0, -1)]);
          expect(doc.ids.slice(w.start + 1 + w.length - w.scored, w.start + 1 + w.length)).toEqual(continuation);
        });
        expect(harness.flatMap((h) => h.continuation)).toEqual(tokens);
      }
    }
  });

  it("hand-worked: 5 tokens, context 2", () => {
    // the first predicts 1 2 from input [P 1]; each later one's input is the 2 ids before its last target: [2 3] for
    // 3 4, [3 4] for 5, of which all but the targets after the first are context
    expect(rollingWindows([1, 2, 3, 4, 5], 0, 2)).toEqual([
      { context: [0], continuation: [1, 2] },
      { context: [2], continuation: [3, 4] },
      { context: [3, 4], continuation: [5] },
    ]);
    expect(rollingWindows([], 0, 4)).toEqual([]);
    expect(rollingDocument({ id: "e", split: "train", source: "s" }, [], 0)).toBeUndefined();
  });
});
