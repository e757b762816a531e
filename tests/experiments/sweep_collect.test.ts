// --collect reads each run's result through its recipe's result schema: a result missing a field, or holding an
// NLL that is not a finite number, is refused in one line naming the file and the field (not a TypeError in the table).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { collectSweep } from "../../experiments/sweep.ts";
import { formatSweep } from "../../src/cli/views/sweep.ts";

const root = mkdtempSync(join(tmpdir(), "tinylab-collect-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
/** A sweep directory holding one run folder with this result file. */
const sweepWith = (file: string, text: string) => {
  const dir = join(root, `s${n++}`);
  mkdirSync(join(dir, "lr=0.1,seed=39"), { recursive: true });
  writeFileSync(join(dir, "lr=0.1,seed=39", file), text);
  return dir;
};
const CYCLIC = { options: { seed: 39 }, scores: { train: [{ nll: 1.25, layout: "packed" }], validation: [{ nll: 1.5 }] }, provenance: {} };

describe("sweep --collect's result schema", () => {
  it("reads a valid result (the control)", () => {
    const rows = collectSweep(sweepWith("cyclic.json", JSON.stringify(CYCLIC)));
    expect(rows.map(({ seed, train_nll, validation_nll, grid }) => ({ seed, train_nll, validation_nll, grid }))).toEqual([
      { seed: 39, train_nll: 1.25, validation_nll: 1.5, grid: { lr: "0.1" } },
    ]);
    expect(formatSweep(rows)).toContain("1.250000");
  });

  it.each<[string, string, string, RegExp]>([
    ["an empty object (x.toFixed is not a function before)", "cyclic.json", "{}", /cyclic\.json: options: is missing \(got nothing\)$/],
    [
      "an NLL as a string",
      "cyclic.json",
      JSON.stringify({ ...CYCLIC, scores: { ...CYCLIC.scores, train: [{ nll: "1.25" }] } }),
      /cyclic\.json: scores\.train\[0\]\.nll: must be a number, not a string \(got "1\.25"\)$/,
    ],
    [
      "an NLL of 1e999",
      "cyclic.json",
      JSON.stringify(CYCLIC).replace("1.25", "1e999"),
      /cyclic\.json: scores\.train\[0\]\.nll: must be a finite number \(got 1e999\)$/,
    ],
    [
      "a null seed",
      "cyclic.json",
      JSON.stringify({ ...CYCLIC, options: { seed: null } }),
      /cyclic\.json: options\.seed: must be an integer, not null \(got null\)$/,
    ],
    [
      "no checkpoints",
      "overfit.json",
      JSON.stringify({ options: { seeds: [39] }, runs: [{ checkpoints: [] }] }),
      /overfit\.json: runs\[0\]\.checkpoints: must hold at least 1 item \(got \[\]\)$/,
    ],
    [
      "a validation NLL as a string",
      "train.json",
      JSON.stringify({ options: { seed: 39 }, validation: { nll: "x" } }),
      /train\.json: validation\.nll: must be a number, not a string \(got "x"\)$/,
    ],
    [
      "a key given twice",
      "train.json",
      '{"options":{"seed":39,"seed":40}}',
      /train\.json: not valid JSON: key "seed" is given twice \(options\.seed\)/,
    ],
  ])("refuses %s, naming the file and the field", (_, file, text, expected) => {
    const dir = sweepWith(file, text);
    expect(() => collectSweep(dir)).toThrow(expected);
    try {
      collectSweep(dir);
    } catch (err) {
      expect((err as Error).message).not.toContain("\n");
    }
  });

  it("a train result without validation is a row with no validation NLL", () => {
    expect(collectSweep(sweepWith("train.json", JSON.stringify({ options: { seed: 39 } })))[0].validation_nll).toBeNull();
  });
});
