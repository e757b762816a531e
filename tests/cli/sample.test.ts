// `tinylab sample` in separate processes: greedy by default, the same seed gives the same text, probabilities
// under the model in --json, special tokens and control bytes shown visibly, and refusals by name (through the CLI's
// own code in this process: tests/cli/in_process.ts).
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { tinylab } from "./spawn.ts";
import { tinylabHere } from "./in_process.ts";

const FIXTURE = resolve(import.meta.dirname, "../fixtures/seed39-format2.safetensors");
const sampled = [
  "sample",
  "--model",
  FIXTURE,
  "--prompt",
  "a",
  "--temperature",
  "3",
  "--top-k",
  "5",
  "--samples",
  "4",
  "--max-tokens",
  "6",
  "--json",
];

describe("tinylab sample", () => {
  it("is greedy by default: the seed-39 model continues the training text 'aab' and stops at EOS", async () => {
    const r = await tinylab(["sample", "--model", FIXTURE, "--prompt", "a"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("greedy (top token, lowest id on ties)");
    expect(r.stdout).toContain("⟨BOS⟩aab⟨EOS⟩");
  });

  it("gives the same text for the same seed in another process, and other text for another seed", async () => {
    const [a, b, c] = await Promise.all([tinylab(sampled), tinylab(sampled), tinylab([...sampled.slice(0, -1), "--seed", "1", "--json"])]);
    for (const r of [a, b, c]) expect(r.code, r.stderr).toBe(0);
    const [ja, jb, jc] = [a, b, c].map((r) => JSON.parse(r.stdout));
    expect(ja.samples).toEqual(jb.samples);
    expect(ja.samples.map((s: { ids: number[] }) => s.ids)).not.toEqual(jc.samples.map((s: { ids: number[] }) => s.ids));
    for (const s of ja.samples) {
      expect(s.probabilities).toHaveLength(s.ids.length);
      for (const p of s.probabilities) expect(p > 0 && p <= 1).toBe(true);
    }
    expect(ja.prompt.ids).toEqual([0, 99]); // BOS, then 'a'
  });

  it("shows control bytes and special tokens visibly", async () => {
    const r = await tinylab(["sample", "--model", FIXTURE, "--prompt", "a\tb\u0001", "--max-tokens", "1"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("prompt: ⟨BOS⟩a\\tb\\x01");
  });

  it("refuses bad input by name, one line each (the value checks themselves: tests/experiments/compare.test.ts)", async () => {
    const cases: [string[], RegExp][] = [
      [["--model", "/nonexistent/m.safetensors", "--prompt", "a"], /model file not found: \/nonexistent\/m\.safetensors/],
      [["--model", FIXTURE, "--prompt", ""], /--prompt must be a non-empty string/],
      [
        ["--model", FIXTURE, "--prompt", "a", "--temperature", "1", "--top-k", "0"],
        /--top-k must be an integer in \[1, 1048576\] \(MAX_VOCAB_SIZE\), got 0/,
      ],
    ];
    const results = [];
    for (const [args] of cases) results.push(await tinylabHere(["sample", ...args]));
    results.forEach((r, i) => {
      expect(r.code, cases[i][0].join(" ")).not.toBe(0);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(cases[i][1]);
    });
  });
});
