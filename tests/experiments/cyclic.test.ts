// The cyclic-permutation experiment: each target scored once, the resume check (and that it can fail), the
// test split untouched without --final-test, the split file used exactly, and the decoder using context.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tf } from "../../src/util/backend.ts";
import { splitCyclicRows } from "../../src/data/cyclic.ts";
import { CYCLIC_DEFAULTS, checkCyclicOptions, runCyclic, type CyclicResult } from "../../experiments/cyclic.ts";
import { cyclicPositionFigure, cyclicTrainingFigure, formatCyclic } from "../../src/cli/views/cyclic.ts";
import { TEST_BACKENDS, useBackend } from "../helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-cyclic-exp-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LN4 = Math.log(4);
const decoder = (r: CyclicResult, split: "train" | "validation" | "test") => r.scores[split]![0];
const bigram = (r: CyclicResult, split: "train" | "validation" | "test") => r.scores[split]!.find((m) => m.name === "bigram (add-1)")!;
/** The result without what legitimately differs between two runs (date, command, timing, where the split came from). */
const comparable = (r: CyclicResult) =>
  JSON.stringify({
    ...r,
    seconds: 0,
    provenance: null,
    options: { ...r.options, splitFile: undefined },
    data: { ...r.data, split_from: null },
  });

describe("cyclic experiment", () => {
  beforeAll(() => useBackend("wasm"));

  it("short run (60 updates): loss falls, each target scored once, resume bit-identical, nothing leaked, test untouched", async () => {
    const before = tf.memory().numTensors;
    const r = runCyclic({ updates: 60 });
    expect(tf.memory().numTensors).toBe(before);
    // Weaker contract than "positions ≥ 3 near zero": after 60 updates at lr 0.01 the decoder has not yet
    // learned to look one cycle back (that needs ~300 updates and, at this budget, only some seeds get
    // there), so this asserts that training makes progress on the training rows.
    const [first, last] = [r.training.checkpoints[0], r.training.checkpoints.at(-1)!];
    expect([first.update, last.update]).toEqual([0, 60]);
    expect(last.train).toBeLessThan(first.train);
    expect(r.training.steps).toHaveLength(60);
    // each target once: 80 train rows and 20 validation rows × 8 positions, positions summing to the total
    for (const [split, rows] of [
      ["train", 80],
      ["validation", 20],
    ] as const) {
      for (const m of r.scores[split]!) {
        expect(m.targets).toBe(rows * 8);
        expect(m.by_position.map((p) => p.targets)).toEqual(Array(8).fill(rows));
        expect(m.determined_positions.targets).toBe(rows * 5);
        const sum = m.by_position.reduce((a, p) => a + p.total_nll, 0);
        expect(Math.abs(sum - m.total_nll)).toBeLessThan(1e-9 * m.targets);
      }
      expect(r.scores[split]!.find((m) => m.name === "uniform")!.nll).toBeCloseTo(Math.log(5), 12);
    }
    // the resume check holds, and its control (batch stream not restored) shows it could fail
    expect(r.resume_check.bit_identical).toBe(true);
    expect(r.resume_check.restore_differences).toEqual([]);
    expect(r.resume_check.replay_differences).toEqual([]);
    expect(r.resume_check.at_update).toBe(60);
    expect(r.resume_check.control_without_batch_rng.identical).toBe(false);
    // no test scores anywhere without --final-test
    expect(r.scored_splits).toEqual(["train", "validation"]);
    expect(r.scores.test).toBeUndefined();
    const table = formatCyclic(r);
    expect(table).toContain("test split: not scored (pass --final-test for the final report)");
    expect(table).not.toMatch(/FINAL REPORT|^test \(/m);
    expect(table).toContain("bit-identical");
    for (const svg of [await cyclicPositionFigure(r), await cyclicTrainingFigure(r)]) expect(svg.startsWith("<svg")).toBe(true);
  });

  it("--final-test scores the 20 test rows under a final-report banner", () => {
    const r = runCyclic({ updates: 5, finalTest: true });
    expect(r.scored_splits).toEqual(["train", "validation", "test"]);
    expect(decoder(r, "test").targets).toBe(160);
    const table = formatCyclic(r);
    expect(table.split("\n")[0]).toMatch(/^FINAL REPORT/);
    expect(table).toMatch(/FINAL REPORT: the test split is scored below/);
    expect(table).toMatch(/^test \(160 targets\)/m);
  });

  it("default recipe (300 updates): at positions 3–7 the decoder beats anything that sees only the previous token", () => {
    // Given only the previous symbol, the next one is uniform over the other 4 (rows uniform over all 120
    // cycles), so no previous-token predictor, the bigram included, can expect less than ln 4 ≈ 1.386 nats
    // there. The decoder must come in at least 0.2 nats under ln 4 on validation rows it never trained on:
    // only context beyond the previous token can do that. (Not near zero: at this fixed budget only some
    // seeds learn the copy fully; 0.2 leaves ~0.1 nats of slack under seed 1's measured ~1.05 on wasm.)
    const r = runCyclic();
    expect(r.options).toEqual(CYCLIC_DEFAULTS);
    expect(decoder(r, "validation").determined_positions.nll).toBeLessThan(LN4 - 0.2);
    expect(decoder(r, "train").determined_positions.nll).toBeLessThan(LN4 - 0.2);
    expect(bigram(r, "validation").determined_positions.nll).toBeGreaterThan(LN4 - 0.1);
    expect(r.resume_check.bit_identical).toBe(true);
  });

  it("uses a split file exactly: the seeded split written out gives the same run; a smaller file its own sizes", () => {
    const seeded = splitCyclicRows(CYCLIC_DEFAULTS.splitSeed);
    const same = join(dir, "same.json");
    writeFileSync(same, JSON.stringify(seeded));
    const a = runCyclic({ updates: 8 }),
      b = runCyclic({ updates: 8, splitFile: same });
    expect(b.data.split_from).toBe(`file ${same}`);
    expect(comparable(b)).toBe(comparable(a));
    const small = join(dir, "small.json");
    writeFileSync(small, JSON.stringify({ train: seeded.train.slice(0, 30), validation: seeded.validation.slice(0, 5), test: [] }));
    const c = runCyclic({ updates: 3, splitFile: small });
    expect(c.data.rows).toEqual({ train: 30, validation: 5, test: 0 });
    expect(decoder(c, "validation").targets).toBe(40);
    expect(() => runCyclic({ updates: 1, splitFile: small, finalTest: true })).toThrow(
      /--final-test asked for, but the test split is empty/,
    );
  });

  it("refuses bad options with a named error", () => {
    expect(() => checkCyclicOptions({ ...CYCLIC_DEFAULTS, updates: 0 })).toThrow(/updates must be a positive integer/);
    expect(() => checkCyclicOptions({ ...CYCLIC_DEFAULTS, seed: 0.5 })).toThrow(/seed must be an integer/);
    expect(() => checkCyclicOptions({ ...CYCLIC_DEFAULTS, lr: 0 })).toThrow("--lr must be a finite number > 0, got 0"); // the command line's words
    expect(() => checkCyclicOptions({ ...CYCLIC_DEFAULTS, batchRows: -1 })).toThrow(/batchRows must be a positive integer/);
  });
});

describe.each(TEST_BACKENDS)("resume check on %s", (backend) => {
  beforeAll(() => useBackend(backend));

  it("snapshot, update, restore, same update: bit-identical; without the batch stream: different", () => {
    const r = runCyclic({ updates: 10, evalEvery: 10 });
    expect(r.provenance.backend).toBe(backend);
    expect(r.resume_check).toMatchObject({
      at_update: 10,
      replayed_update: 11,
      bit_identical: true,
      restore_differences: [],
      replay_differences: [],
    });
    expect(r.resume_check.compared).toEqual({
      parameter_tensors: 28,
      parameter_values: 17568,
      adam_moments: 56,
      rng_streams: ["batches", "dropout"],
    });
    expect(r.resume_check.control_without_batch_rng.identical).toBe(false);
  });
});
