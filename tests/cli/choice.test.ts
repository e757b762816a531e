// `tinylab choice` in a separate process: acc and acc_norm agree with their items, chance is the mean of 1/k,
// the Wilson interval is the formula's, and bad files are refused by name (through the CLI's own code in this
// process: tests/cli/in_process.ts).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { wilsonInterval } from "../../src/eval/metrics/intervals.ts";
import { tinylab } from "./spawn.ts";
import { tinylabHere } from "./in_process.ts";

const FIXTURE = resolve(import.meta.dirname, "../fixtures/seed39-format2.safetensors");
const dir = mkdtempSync(join(tmpdir(), "tinylab-cli-choice-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("tinylab choice", () => {
  it("scores each question's candidates and reports acc, acc_norm, chance and Wilson intervals", async () => {
    const data = join(dir, "q.jsonl");
    writeFileSync(
      data,
      [
        { id: "q1", question: "aa", candidates: ["b", "a"], answer: 0 },
        { id: "q2", question: "a", candidates: ["ab", "bb", "ba"], answer: 0 },
        { question: "b", candidates: ["aa", "b"], answer: 0 },
      ]
        .map((q) => JSON.stringify(q))
        .join("\n"),
    );
    const r = await tinylab(["choice", "--model", FIXTURE, "--data", data, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.questions).toBe(3);
    expect(j.chance).toBeCloseTo((1 / 2 + 1 / 3 + 1 / 2) / 3, 15); // 4/9
    const argmax = (xs: number[]) => xs.indexOf(Math.max(...xs));
    for (const it of j.items) {
      expect(it.predicted).toBe(argmax(it.sum_log_lik));
      expect(it.predicted_norm).toBe(argmax(it.per_token_log_lik));
      for (const x of it.sum_log_lik) expect(x).toBeLessThan(0);
    }
    const correct = j.items.filter((i: { predicted: number; gold: number }) => i.predicted === i.gold).length;
    expect([j.acc.correct, j.acc.value]).toEqual([correct, correct / 3]);
    // 3 questions: fewer than MIN_INTERVAL_DOCUMENTS, so the accuracy alone, and why
    expect(j.acc).toMatchObject({
      wilson: null,
      wilson_reason: "n too small for an interval: 3 documents, fewer than 10 (MIN_INTERVAL_DOCUMENTS)",
    });
    expect(j.items.map((i: { id: string }) => i.id)).toEqual(["q1", "q2", "line 3"]);
    const table = await tinylab(["choice", "--model", FIXTURE, "--data", data]);
    expect(table.stdout).toMatch(/chance +44\.44%/);
    expect(table.stdout).toMatch(
      /^ {2}acc +\d+\.\d\d% +\(\d of 3\) +\(n too small for an interval: 3 documents, fewer than 10 \(MIN_INTERVAL_DOCUMENTS\): no interval\)$/m,
    );
    // the same questions ten times over: Wilson's interval of the ten, by its formula
    const ten = join(dir, "q10.jsonl");
    writeFileSync(
      ten,
      Array.from({ length: 10 }, (_, i) =>
        JSON.stringify({
          id: `r${i}`,
          question: ["aa", "a", "b"][i % 3],
          candidates: [
            ["b", "a"],
            ["ab", "bb", "ba"],
            ["aa", "b"],
          ][i % 3],
          answer: 0,
        }),
      ).join("\n"),
    );
    const j10 = JSON.parse((await tinylab(["choice", "--model", FIXTURE, "--data", ten, "--json"])).stdout);
    expect(j10.acc.wilson).toEqual(wilsonInterval(j10.acc.correct, 10));
  });

  it("refuses a missing file and a bad row by name", async () => {
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, '{"question": "a", "candidates": ["a", "b"], "answer": 5}\n');
    const missing = await tinylabHere(["choice", "--model", FIXTURE, "--data", join(dir, "none.jsonl")]);
    const row = await tinylabHere(["choice", "--model", FIXTURE, "--data", bad]);
    expect(missing.stderr).toMatch(/choice file not found/);
    expect(row.stderr).toMatch(/bad\.jsonl line 1: "answer" must be an integer in \[0, 1\]/);
    for (const r of [missing, row]) expect(r.code).toBe(1);
  });
});
