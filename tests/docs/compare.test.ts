// The doctest's comparison can fail: a changed digit, a missing line and a reordered line are each caught; `…`
// stands for any lines, and only elapsed times, finishing order and progress lines are spared.
import { describe, expect, it } from "vitest";
import { blocks, commands, mismatch } from "./doctest.ts";

describe("mismatch", () => {
  const shown = ["split  NLL", "train  0.156560", "wall time 3.7 s (since the process started: start-up, work and writing files)"];
  it("agrees with the same output, another elapsed time and a progress line", () => {
    expect(mismatch(shown, [...shown.slice(0, 2), "report  1/6 steps  16.7%  ? steps/s  ETA ?", "wall time 12.0 s (since the process started: start-up, work and writing files)", ""])).toBeUndefined();
  });
  it("catches one changed digit, a missing line and an extra one", () => {
    expect(mismatch(shown, ["split  NLL", "train  0.156561", shown[2]])).toMatch(/shown: {3}train {2}0\.156560\n {2}printed: train {2}0\.156561/);
    expect(mismatch(shown, [shown[0], shown[2]])).toBeDefined();
    expect(mismatch(shown, [...shown, "extra"])).toBeDefined();
  });
  it("reads … as any lines, and compares the order of runs finishing only as a set", () => {
    expect(mismatch(["a", "…  (as above)", "z"], ["a", "b", "c", "z"])).toBeUndefined();
    expect(mismatch(["a", "…", "z"], ["a", "b", "y"])).toBeDefined();
    expect(mismatch(["sweep: seed=39 done in 3.5 s", "sweep: seed=40 done in 2.4 s"], ["sweep: seed=40 done in 9.0 s", "sweep: seed=39 done in 1.0 s"])).toBeUndefined();
    expect(mismatch(["x 1", "y 2"], ["y 2", "x 1"])).toBeDefined();
  });
});

describe("blocks", () => {
  it("reads the commands of a console block and the marker above it", () => {
    const page = "text\n<!-- doctest: skip (why) -->\n\n```console\n$ npx tinylab a\nout 1\n$ cat f\nline\n```\n";
    const [b] = blocks("p.md", page);
    expect(b.marker).toBe("skip (why)");
    expect(commands(b)).toEqual([{ command: "npx tinylab a", expected: ["out 1"] }, { command: "cat f", expected: ["line"] }]);
  });
});
