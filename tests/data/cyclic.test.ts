// Cyclic-permutation rows, the seeded 80/20/20 split, the task's entropy by position, and the split file's
// refusals (each names the split, the row and what is wrong).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  CYCLIC_ROW_COUNT,
  CYCLIC_VOCAB,
  ROW_LENGTH,
  cyclicDocuments,
  cyclicRows,
  isCyclicRow,
  splitCyclicRows,
  taskEntropyByPosition,
} from "../../src/data/cyclic.ts";
import { readCyclicSplitFile } from "../../src/node/split_files.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-cyclic-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileCount = 0;
/** Write `value` (JSON unless a string) to a fresh file and return its path. */
const file = (value: unknown): string => {
  const path = join(dir, `split-${fileCount++}.json`);
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
};
const key = (row: readonly number[]) => row.join(",");

describe("cyclic rows", () => {
  const rows = cyclicRows();

  it("are the 5·4·3·2 = 120 ordered choices, distinct, each c0 c1 c2 c3 c0 c1 c2 c3 c0 over ids 0..4", () => {
    expect(rows).toHaveLength(CYCLIC_ROW_COUNT);
    expect(new Set(rows.map(key)).size).toBe(120);
    expect(new Set(rows.map((r) => key(r.slice(0, 4)))).size).toBe(120);
    for (const r of rows) {
      expect(r).toHaveLength(ROW_LENGTH);
      expect(isCyclicRow(r)).toBe(true);
      expect(new Set(r.slice(0, 4)).size).toBe(4);
      expect(r.every((v) => Number.isInteger(v) && v >= 0 && v < CYCLIC_VOCAB)).toBe(true);
      expect(r.slice(4, 8)).toEqual(r.slice(0, 4));
      expect(r[8]).toBe(r[0]);
    }
    expect(rows[0]).toEqual([0, 1, 2, 3, 0, 1, 2, 3, 0]);
    // 003's example row
    expect(rows.some((r) => key(r) === "0,2,4,1,0,2,4,1,0")).toBe(true);
  });

  it("isCyclicRow refuses repeated symbols, a broken period, a wrong length and out-of-range ids", () => {
    expect(isCyclicRow([0, 0, 1, 2, 0, 0, 1, 2, 0])).toBe(false);
    expect(isCyclicRow([0, 1, 2, 3, 0, 1, 2, 4, 0])).toBe(false);
    expect(isCyclicRow([0, 1, 2, 3, 0, 1, 2, 3])).toBe(false);
    expect(isCyclicRow([0, 1, 2, 5, 0, 1, 2, 5, 0])).toBe(false);
  });

  it("documents hold exactly the 9 ids (no BOS/EOS), 8 targets each, ids unique", () => {
    const docs = cyclicDocuments(splitCyclicRows(1));
    expect(docs).toHaveLength(120);
    expect(new Set(docs.map((d) => d.id)).size).toBe(120);
    for (const d of docs) {
      expect(isCyclicRow(d.ids)).toBe(true);
      expect(d.source).toBe("cyclic");
    }
  });

  it("task entropy by position is ln 4, ln 3, ln 2, then 0 once a full cycle has been seen", () => {
    // given c0 any of the other 4 follows, given c0 c1 any of 3, given c0 c1 c2 one of 2; then it is determined
    const h = taskEntropyByPosition();
    expect(h).toHaveLength(8);
    [Math.log(4), Math.log(3), Math.log(2), 0, 0, 0, 0, 0].forEach((want, t) => expect(h[t]).toBeCloseTo(want, 12));
  });
});

describe("seeded split", () => {
  it("cuts 80/20/20, disjoint, covering all 120 rows", () => {
    const s = splitCyclicRows(1);
    expect([s.train.length, s.validation.length, s.test.length]).toEqual([80, 20, 20]);
    const all = [...s.train, ...s.validation, ...s.test].map(key);
    expect(new Set(all).size).toBe(120);
    expect(new Set(all)).toEqual(new Set(cyclicRows().map(key)));
  });

  it("is stable under the same split seed and moves rows under another", () => {
    expect(splitCyclicRows(7)).toEqual(splitCyclicRows(7));
    expect(key(splitCyclicRows(7).validation.flat())).not.toBe(key(splitCyclicRows(8).validation.flat()));
    expect(() => splitCyclicRows(1.5)).toThrow(/split seed must be an integer/);
  });
});

describe("split file", () => {
  const rows = cyclicRows();
  const good = { train: rows.slice(0, 10), validation: rows.slice(10, 13), test: rows.slice(13, 15) };

  it("is taken exactly as given", () => {
    expect(readCyclicSplitFile(file(good))).toEqual(good);
    // test may be empty (then --final-test is refused by the experiment)
    expect(readCyclicSplitFile(file({ ...good, test: [] })).test).toEqual([]);
  });

  it("refuses malformed files with errors naming the problem", () => {
    const cases: [unknown, RegExp][] = [
      ["{not json", /is not valid JSON/],
      [[rows[0]], /expected a JSON object/],
      [{ ...good, valid: [] }, /unknown key\(s\) "valid"; the keys are train, validation, test/],
      [{ validation: good.validation }, /no "train" split/],
      [{ ...good, train: [] }, /the "train" split is empty/],
      [{ ...good, validation: [] }, /the "validation" split is empty/],
      [{ ...good, train: "rows" }, /"train" must be an array of rows/],
      [{ ...good, train: [[0, 1, 2, 3, 0, 1, 2, 3]] }, /train row 0 has 8 ids, expected 9/],
      [{ ...good, train: [[0, 1, 2, 5, 0, 1, 2, 5, 0]] }, /train row 0, position 3: token id 5 is outside \[0, 5\)/],
      [{ ...good, train: [[0, 1, 2, -1, 0, 1, 2, -1, 0]] }, /token id -1 is outside \[0, 5\)/],
      [{ ...good, train: [[0, 1, 2, 3.5, 0, 1, 2, 3, 0]] }, /position 3: token id must be an integer, got 3.5/],
      [{ ...good, train: [rows[0], "x"] }, /train row 1 must be an array of token ids/],
      [{ ...good, test: [rows[11]] }, /test row 0 \[[0-9,]+\] duplicates validation row 1: a row may appear in one split only/],
      [{ ...good, train: [rows[0], rows[0]] }, /train row 1 \[[0-9,]+\] duplicates train row 0/],
      [{ ...good, train: [[0, 0, 1, 2, 0, 0, 1, 2, 0]] }, /train row 0 \[0,0,1,2,0,0,1,2,0\] is not a cyclic row/],
      [{ ...good, train: [[0, 1, 2, 3, 0, 1, 2, 4, 0]] }, /is not a cyclic row/],
    ];
    for (const [value, message] of cases) expect(() => readCyclicSplitFile(file(value))).toThrow(message);
    expect(() => readCyclicSplitFile(join(dir, "absent.json"))).toThrow(/split file not found: .*absent\.json/);
  });
});
