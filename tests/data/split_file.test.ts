// The generic split-file format: rows of any length ≥ 2, the vocabulary bound, duplicates across splits
// refused (within a split only on request), Documents taken as given, and telling it apart from JSONL.
import { describe, expect, it } from "vitest";
import { checkSplitRows, looksLikeSplitFile, splitRowsToDocuments } from "../../src/data/split_file.ts";

describe("split file rows", () => {
  it("accepts rows of different lengths and a missing test split; documents keep the ids exactly", () => {
    const rows = checkSplitRows(
      {
        train: [
          [0, 1],
          [2, 3, 4],
        ],
        validation: [[1, 2]],
      },
      { vocabSize: 5 },
    );
    expect(rows).toEqual({
      train: [
        [0, 1],
        [2, 3, 4],
      ],
      validation: [[1, 2]],
      test: [],
    });
    expect(splitRowsToDocuments(rows, "toy")).toEqual([
      { id: "train-0", split: "train", source: "toy", ids: [0, 1] },
      { id: "train-1", split: "train", source: "toy", ids: [2, 3, 4] },
      { id: "validation-0", split: "validation", source: "toy", ids: [1, 2] },
    ]);
  });

  it("allows a repeated row inside one split unless asked not to; never across splits", () => {
    expect(
      checkSplitRows(
        {
          train: [
            [0, 1],
            [0, 1],
          ],
        },
        { vocabSize: 2 },
      ).train,
    ).toHaveLength(2);
    expect(() =>
      checkSplitRows(
        {
          train: [
            [0, 1],
            [0, 1],
          ],
        },
        { vocabSize: 2, uniqueWithinSplit: true },
      ),
    ).toThrow(/train row 1 \[0,1\] duplicates train row 0/);
    expect(() => checkSplitRows({ train: [[0, 1]], test: [[0, 1]] }, { vocabSize: 2 })).toThrow(
      /test row 0 \[0,1\] duplicates train row 0: a row may appear in one split only/,
    );
  });

  it("refuses short rows, ids at or above the vocabulary, and a bad vocabulary", () => {
    expect(() => checkSplitRows({ train: [[0]] }, { vocabSize: 2 }, "f")).toThrow(/f: train row 0 has 1 id\(s\): a row needs at least 2/);
    expect(() => checkSplitRows({ train: [[0, 2]] }, { vocabSize: 2 }, "f")).toThrow(
      /f: train row 0, position 1: token id 2 is outside \[0, 2\)/,
    );
    expect(() => checkSplitRows({ train: [[0, 1]] }, { vocabSize: 0 })).toThrow(/vocabulary size must be a positive integer/);
  });

  it("tells a split file from JSONL documents", () => {
    expect(looksLikeSplitFile('{"train": [[0, 1]], "validation": []}\n')).toBe(true);
    expect(looksLikeSplitFile('{"id": "a", "split": "train", "text": "hi"}\n')).toBe(false);
    expect(looksLikeSplitFile('{"id": "a", "split": "train", "ids": [0, 1]}\n{"id": "b", "split": "train", "ids": [0, 1]}\n')).toBe(false);
    expect(looksLikeSplitFile("[[0, 1]]")).toBe(false);
  });
});
