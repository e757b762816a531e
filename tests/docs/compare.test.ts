// The doctest's comparison can fail: a changed digit, a missing line and a reordered line are each caught; `…`
// stands for any lines, and only elapsed times, finishing order and progress lines are spared.
import { describe, expect, it } from "vitest";
import { blocks, commands, mismatch } from "./doctest.ts";

describe("mismatch", () => {
  const shown = ["split  NLL", "train  0.156560", "wall time 3.7 s (since the process started: start-up, work and writing files)"];
  it("agrees with the same output, another elapsed time and a progress line", () => {
    expect(
      mismatch(shown, [
        ...shown.slice(0, 2),
        "report  1/6 steps  16.7%  ? steps/s  ETA ?",
        "wall time 12.0 s (since the process started: start-up, work and writing files)",
        "",
      ]),
    ).toBeUndefined();
    // every phase's unit: BPE merges, tokenized documents, validation batches, training updates
    const phases = [
      "bpe  120/254 merges  47.2%  80 merges/s  ETA 0:02",
      "train  40/300 updates  13.3%  2.1 updates/s  ETA 2:04  loss=3.127",
      "validation  18/18 batches  100.0%  6 batches/s  elapsed 0:03",
    ];
    expect(mismatch(shown, [shown[0], ...phases, ...shown.slice(1)])).toBeUndefined();
    // a printed line that only looks like a count is compared
    expect(mismatch(shown, [...shown.slice(0, 2), "update 40/300 loss 2.1%", shown[2]])).toBeDefined();
  });
  it("catches one changed digit, a missing line and an extra one", () => {
    expect(mismatch(shown, ["split  NLL", "train  0.156561", shown[2]])).toMatch(
      /shown: {3}train {2}0\.156560\n {2}printed: train {2}0\.156561/,
    );
    expect(mismatch(shown, [shown[0], shown[2]])).toBeDefined();
    expect(mismatch(shown, [...shown, "extra"])).toBeDefined();
  });
  it("reads … as any lines, and compares the order of runs finishing only as a set", () => {
    expect(mismatch(["a", "…  (as above)", "z"], ["a", "b", "c", "z"])).toBeUndefined();
    expect(mismatch(["a", "…", "z"], ["a", "b", "y"])).toBeDefined();
    expect(
      mismatch(
        ["sweep: seed=39 done in 3.5 s", "sweep: seed=40 done in 2.4 s"],
        ["sweep: seed=40 done in 9.0 s", "sweep: seed=39 done in 1.0 s"],
      ),
    ).toBeUndefined();
    expect(mismatch(["x 1", "y 2"], ["y 2", "x 1"])).toBeDefined();
  });
});

describe("blocks", () => {
  it("reads the commands of a console block and the marker above it", () => {
    const page = "text\n<!-- doctest: skip (why) -->\n\n```console\n$ npx tinylab a\nout 1\n$ cat f\nline\n```\n";
    const [b] = blocks("p.md", page);
    expect(b.marker).toBe("skip (why)");
    expect(commands(b)).toEqual([
      { command: "npx tinylab a", expected: ["out 1"] },
      { command: "cat f", expected: ["line"] },
    ]);
  });
});
