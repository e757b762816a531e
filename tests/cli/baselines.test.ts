// `tinylab baselines`: values worked out by hand on a split file, JSONL documents through the shared reader,
// each split's target count, the refusals, and the printed table of a real process.
import { tfjsOnly } from "../../src/util/backend.ts";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBaselines } from "../../experiments/baselines.ts";
import { formatBaselines } from "../../src/cli/views/baselines.ts";
import { encodeModel, modelProvenance } from "../../src/lab/model_file.ts";
import { PRESETS } from "../../src/model/config.ts";
import { initParameters } from "../../src/model/init.ts";
import { ByteTokenizer } from "../../src/data/tokenizer.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { useBackend } from "../helpers.ts";
import { tinylabHere } from "./in_process.ts";

// the model file below records the engine in its provenance, as every model file does
await useBackend("cpu");

const dir = mkdtempSync(join(tmpdir(), "tinylab-baselines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const r6 = (x: number) => Math.round(x * 1e6) / 1e6;
const byName = (rows: { baseline: string; nll: number; targets: number }[], prefix: string) =>
  rows.find((b) => b.baseline.startsWith(prefix))!;

// train [0 1 0 1]: transitions 0→1, 1→0, 0→1; validation [1 0 0]: 1→0, 0→0
const TOY = write("toy.json", JSON.stringify({ train: [[0, 1, 0, 1]], validation: [[1, 0, 0]] }));
const DOCS = write(
  "docs.jsonl",
  [
    '{"id": "a", "split": "train", "text": "abab"}',
    '{"id": "b", "split": "train", "ids": [0, 99, 100, 1]}',
    '{"id": "c", "split": "validation", "text": "ba"}',
  ].join("\n"),
);

describe("baselines on a split file", () => {
  const r = runBaselines({ data: TOY });

  it("refuses an id that implies a vocabulary over the limit, before allocating counts for it", () => {
    const huge = write("huge.json", JSON.stringify({ train: [[0, 5, 1e14, 1]], validation: [[0, 5, 1]], test: [] }));
    expect(() => runBaselines({ data: huge })).toThrow(
      `${huge}: token id 100000000000000 implies a vocabulary of 100000000000001, more than the limit 1048576 (2^20)`,
    );
  });

  it("infers the vocabulary from the largest id and scores each split's targets once", () => {
    expect(r.data).toMatchObject({ format: "split file", vocab: 2, documents: { train: 1, validation: 1 } });
    expect(Object.keys(r.splits)).toEqual(["train", "validation"]);
    for (const b of r.splits.train!) expect(b.targets).toBe(3);
    for (const b of r.splits.validation!) expect(b.targets).toBe(2);
  });

  it("matches hand-worked values", () => {
    // uniform: ln 2 on every target
    expect(byName(r.splits.validation!, "uniform").nll).toBeCloseTo(Math.LN2, 12);
    // add-one bigram: C(0→1) = 2, C(1→0) = 1, C_0 = 2, C_1 = 1, V = 2
    //   p(1|0) = 3/4, p(0|0) = 1/4, p(0|1) = 2/3
    //   train: −[2 ln(3/4) + ln(2/3)]/3 = 0.326943; validation: −[ln(2/3) + ln(1/4)]/2 = 0.895880
    expect(r6(byName(r.splits.train!, "bigram").nll)).toBe(0.326943);
    expect(r6(byName(r.splits.validation!, "bigram").nll)).toBe(0.89588);
    // add-one unigram over targets {1, 0, 1}: p(0) = 2/5; validation targets 0, 0: −ln(2/5) = 0.916291
    expect(r6(byName(r.splits.validation!, "unigram (").nll)).toBe(0.916291);
  });

  it("uses --vocab when given (uniform becomes ln V)", () => {
    const v = runBaselines({ data: TOY, vocab: 7 });
    expect(v.data.vocab).toBe(7);
    expect(byName(v.splits.train!, "uniform").nll).toBeCloseTo(Math.log(7), 12);
  });
});

describe("baselines on JSONL documents", () => {
  it("encodes text with the byte tokenizer (BOS + bytes + EOS) and takes id rows as given", () => {
    const r = runBaselines({ data: DOCS });
    expect(r.data).toMatchObject({ format: "JSONL documents", vocab: 258, documents: { train: 2, validation: 1 } });
    // "abab" → 6 ids (5 targets), [0, 99, 100, 1] → 3 targets, "ba" → 4 ids (3 targets)
    expect(r.splits.train!.map((b) => b.targets)).toEqual([8, 8, 8, 8]);
    expect(r.splits.validation!.map((b) => b.targets)).toEqual([3, 3, 3, 3]);
    expect(byName(r.splits.train!, "uniform").nll).toBeCloseTo(Math.log(258), 12);
    const table = formatBaselines(r);
    expect(table).toContain("vocabulary 258, from the byte tokenizer");
    expect(table).toMatch(/^validation\s+bigram \(add-1\)\s+\d+\.\d{6}\s+\d+\.\d{6}\s+3$/m);
  });
});

describe("baselines with a model file's tokenizer", () => {
  // a model file needs no training here: only its config and tokenizer are read
  const config = PRESETS.overfit;
  const modelPath = join(dir, "model.safetensors");
  writeFileSync(
    modelPath,
    encodeModel(
      initParameters(config, Rng.fromSeed(1)),
      config,
      new ByteTokenizer(config.vocabSize).toJSON(),
      modelProvenance(tfjsOnly(), 1, 0),
    ),
  );

  it("scores over the model's vocabulary, so the numbers sit beside evaluate --model's", () => {
    const r = runBaselines({ data: DOCS, model: modelPath });
    expect(r.data.vocab).toBe(266);
    expect(r.data.vocab_from).toMatch(/model file's config \(tokenizer byte\)/);
    expect(byName(r.splits.validation!, "uniform").nll).toBeCloseTo(Math.log(266), 12);
  });

  it("refuses a disagreeing --vocab and a split file (which has no text to encode)", () => {
    expect(() => runBaselines({ data: DOCS, model: modelPath, vocab: 300 })).toThrow(
      /--vocab 300 disagrees with the model's vocabulary 266/,
    );
    expect(() => runBaselines({ data: TOY, model: modelPath })).toThrow(/is a split file of token ids; --model only supplies a tokenizer/);
  });
});

describe("refusals", () => {
  it("names the file and the problem", () => {
    expect(() => runBaselines({ data: join(dir, "absent.jsonl") })).toThrow(/data file not found: .*absent\.jsonl/);
    expect(() => runBaselines({ data: write("nt.json", '{"validation": [[0, 1]]}') })).toThrow(/no "train" split/);
    expect(() => runBaselines({ data: write("nt.jsonl", '{"id": "x", "split": "validation", "text": "hi"}\n') })).toThrow(
      /no train documents; baselines are fitted on the train split/,
    );
    expect(() => runBaselines({ data: TOY, vocab: 1 })).toThrow(/--vocab must be an integer ≥ 2/);
    expect(() => runBaselines({ data: write("big.json", '{"train": [[0, 1, 4]]}'), vocab: 3 })).toThrow(
      /train row 0, position 2: token id 4 is outside \[0, 3\)/,
    );
    expect(() => runBaselines({ data: write("big.jsonl", '{"id": "x", "split": "train", "ids": [0, 300]}\n') })).toThrow(
      /ids\[1\] = 300 is outside the vocabulary \[0, 258\)/,
    );
    expect(() => runBaselines({ data: DOCS, vocab: 100 })).toThrow(/docs\.jsonl line 1: a "text" row needs a tokenizer/);
    expect(() => runBaselines({ data: write("empty.jsonl", "\n") })).toThrow(/no documents/);
  });
});

describe("tinylab baselines (a separate process; its refusal through the CLI's own code here: tests/cli/in_process.ts)", () => {
  const bin = resolve(import.meta.dirname, "../../bin/tinylab.js");
  const run = (args: string[]) => spawnSync(process.execPath, [bin, "baselines", ...args], { encoding: "utf8" });

  it("prints the table and exits 0; prints one error line and exits 1 on a bad file", async () => {
    const ok = run(["--data", TOY]);
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain("(split file; documents train 1, validation 1)");
    expect(ok.stdout).toMatch(/^validation\s+bigram \(add-1\)\s+0\.895880\s+2\.449490\s+2$/m);
    const bad = await tinylabHere(["baselines", "--data", join(dir, "absent.json")]);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toMatch(/^tinylab: error: data file not found: .*absent\.json$/);
  });
});

describe("smoothing k and λ as options, and the test split only with --final-test", () => {
  it("takes k (add-k by hand) and λ (0 reproduces the unigram, 004), defaults k = 1 with no λ", () => {
    const half = runBaselines({ data: TOY, smoothing: 0.5 });
    // add-0.5 on train [0 1 0 1], V = 2: P(1|0) = (2 + .5)/(2 + 1) = 5/6, P(0|1) = (1 + .5)/(1 + 1) = 3/4
    expect(byName(half.splits.train!, "bigram (add-0.5)").nll).toBeCloseTo(-(2 * Math.log(5 / 6) + Math.log(3 / 4)) / 3, 12);
    expect(half.smoothing).toMatchObject({ k: 0.5, lambda: null });
    const lam0 = runBaselines({ data: TOY, lambda: 0 });
    expect(byName(lam0.splits.validation!, "unigram-prior bigram (k=1, λ=0)").nll).toBeCloseTo(
      byName(lam0.splits.validation!, "unigram (add-one)").nll,
      12,
    );
    expect(runBaselines({ data: TOY }).smoothing).toMatchObject({ k: 1, lambda: null });
  });

  it("leaves the test split unscored without finalTest and says so", () => {
    const withTest = write("with-test.json", JSON.stringify({ train: [[0, 1, 0, 1]], validation: [[1, 0, 0]], test: [[0, 0, 1]] }));
    const r = runBaselines({ data: withTest });
    expect(Object.keys(r.splits)).toEqual(["train", "validation"]);
    expect(r.test_documents_not_scored).toBe(1);
    expect(formatBaselines(r)).toContain("test split: 1 documents not scored (pass --final-test for the final report)");
    expect(Object.keys(runBaselines({ data: withTest, finalTest: true }).splits)).toEqual(["train", "validation", "test"]);
  });
});
