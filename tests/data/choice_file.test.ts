// The multiple-choice file format: what each row becomes, and refusals naming the line and key.
import { describe, expect, it } from "vitest";
import { parseChoiceJsonl } from "../../src/data/choice_file.ts";
import { ByteTokenizer } from "../../src/data/tokenizer.ts";

const t = new ByteTokenizer(266);

describe("choice file", () => {
  it("encodes the question after BOS and each candidate alone, keeping the text as written; id defaults to the line", () => {
    const q = parseChoiceJsonl(
      '{"id": "q1", "question": "ab", "candidates": [" a", "b"], "answer": 1}\n\n{"question": "a", "candidates": ["a", "b"], "answer": 0}\n',
      t,
      "f.jsonl",
    );
    expect(q[0]).toEqual({
      id: "q1",
      prompt: [0, 99, 100],
      candidates: [[34, 99], [100]],
      gold: 1,
      text: { question: "ab", candidates: [" a", "b"] },
    });
    expect(q[1].id).toBe("line 3");
  });

  it("refuses bad rows by line and key", () => {
    const bad: [string, RegExp][] = [
      ["not json", /f line 1: not JSON/],
      ['{"question": "a", "candidates": ["a"], "answer": 0}', /line 1: "candidates" must be an array of at least 2 strings/],
      ['{"question": "a", "candidates": ["a", "b"], "answer": 2}', /line 1: "answer" must be an integer in \[0, 1\].*got 2/],
      ['{"question": "a", "candidates": ["a", ""], "answer": 0}', /line 1: candidate 1 \(""\) encodes to no tokens/],
      ['{"question": "a", "candidates": ["a", "b"], "answer": 0, "label": 1}', /unknown key "label"/],
      ['{"question": 3, "candidates": ["a", "b"], "answer": 0}', /"question" must be a string/],
      [
        '{"id": "x", "question": "a", "candidates": ["a", "b"], "answer": 0}\n{"id": "x", "question": "a", "candidates": ["a", "b"], "answer": 0}',
        /line 2: id "x" appears twice/,
      ],
      ["\n\n", /f: no questions/],
    ];
    for (const [text, pattern] of bad) expect(() => parseChoiceJsonl(text, t, "f")).toThrow(pattern);
  });
});
