// Re-scoring in another process: `tinylab overfit --save-model` in one process, `tinylab evaluate` in new
// ones, compared with the in-process scores of the very same trained weights; plus evaluate's refusals, its test-split
// banner and report.json's numbers, through the CLI's own code in this process (tests/cli/in_process.ts).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend, tfjsOnly } from "../../src/util/backend.ts";
import { sha256Bytes, sha256File } from "../../src/node/atomic.ts";
import { encodeModel, modelProvenance } from "../../src/lab/model_file.ts";
import { paddedBatches } from "../../src/data/batches.ts";
import { overfitDocuments, overfitTokenizer } from "../../src/data/fixtures.ts";
import { decoderAdapter } from "../../src/eval/passes/adapter.ts";
import { evaluateLikelihood } from "../../src/eval/passes/likelihood.ts";
import { meanNll, type MetricSummary } from "../../src/eval/metrics/summary.ts";
import { runOverfit } from "../../experiments/overfit.ts";
import type { EvaluateReport } from "../../experiments/evaluate.ts";
import { evaluateModelFile } from "../../experiments/evaluate_file.ts";
import { tinylab } from "./spawn.ts";
import { tinylabHere } from "./in_process.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-cli-evaluate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const modelPath = join(dir, "overfit-seed39.safetensors");

beforeAll(() => initBackend("wasm"));

describe("tinylab evaluate in a separate process", () => {
  it("restores the saved overfit model and reproduces the in-process NLLs exactly, at batch rows 1 and 2", async () => {
    // the producer is its own process, as a user would run it
    const producer = tinylab(["overfit", "--seeds", "39", "--save-model", modelPath, "--out", join(dir, "overfit"), "--no-figures"]);
    // meanwhile, here: the same training, scored in memory before any file exists
    const docs = overfitDocuments(overfitTokenizer());
    const inProcess: Record<number, Record<string, MetricSummary>> = {};
    let expectedSha = "";
    runOverfit(
      { seeds: [39] },
      {
        onModel: (seed, model) => {
          for (const rows of [1, 2]) {
            inProcess[rows] = {};
            for (const split of ["train", "validation"] as const) {
              const batches = paddedBatches(
                docs.filter((d) => d.split === split),
                { vocabSize: 266, contextLength: 8 },
                rows,
              );
              inProcess[rows][split] = evaluateLikelihood(decoderAdapter(model), split, batches).metrics;
            }
          }
          expectedSha = sha256Bytes(
            encodeModel(model.read(), model.config, overfitTokenizer().toJSON(), modelProvenance(tfjsOnly(), seed, 80)),
          );
          return false;
        },
      },
    );

    const made = await producer;
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    const sha = sha256File(modelPath);
    expect(made.stdout).toContain(`saved seed 39 at update 80 → ${modelPath}\nmodel_sha256 ${sha}`);
    expect(sha).toBe(expectedSha); // the producer process trained bit-identical weights

    const runs = await Promise.all(
      [1, 2].map((rows) => tinylab(["evaluate", "--model", modelPath, "--batch-rows", String(rows), "--json"])),
    );
    const reports = runs.map((r) => {
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout) as EvaluateReport;
    });
    reports.forEach((report, i) => {
      const rows = i + 1;
      expect(report.model_sha256).toBe(sha);
      expect(report.trained).toMatchObject({ seed: 39, update: 80, backend: "wasm" });
      for (const split of ["train", "validation"] as const) {
        const s = report.splits[split]!;
        expect([s.targets, s.batches, s.recorded_graphs]).toEqual([9, rows === 1 ? 2 : 1, 0]);
        // same weights, same backend, same batches: the same float64 sums, not merely close ones
        expect(s.total_nll).toBe(inProcess[rows][split].totalNll);
        expect(s.nll).toBe(meanNll(inProcess[rows][split]));
      }
    });
    // 1 row or 2 rows per batch: float32 sums in another order, equal to the printed 6 decimals
    for (const split of ["train", "validation"] as const) {
      const [a, b] = reports.map((r) => r.splits[split]!);
      expect(Math.abs(a.nll - b.nll)).toBeLessThan(1e-6);
      expect(a.nll.toFixed(6)).toBe(b.nll.toFixed(6));
      expect(a.perplexity.toFixed(6)).toBe(b.perplexity.toFixed(6));
    }
  });

  it("refuses a missing model file, a file that is not safetensors and a missing --model, in one readable line", async () => {
    const text = join(dir, "notes.txt");
    writeFileSync(text, "not a model\n");
    const missing = await tinylabHere(["evaluate", "--model", join(dir, "absent.safetensors")]);
    const notModel = await tinylabHere(["evaluate", "--model", text]);
    const noFlag = await tinylabHere(["evaluate"]);
    expect([missing.code, missing.stderr.trim()]).toEqual([1, `tinylab: error: model file not found: ${join(dir, "absent.safetensors")}`]);
    expect(notModel.code).toBe(1);
    expect(notModel.stderr).toMatch(/^tinylab: error: .*notes\.txt: not a valid safetensors file: header length \d+ exceeds/);
    expect([noFlag.code, noFlag.stderr]).toEqual([1, "tinylab: error: give --model FILE, or --run DIR (its model.safetensors)\n"]);
  });
});

describe("evaluateModelFile on a documents file", () => {
  it("encodes text and id rows with the restored tokenizer, scores a long document at stride = the context by default, refuses a stride beyond it", () => {
    const data = join(dir, "docs.jsonl");
    writeFileSync(
      data,
      [
        '{"id":"t","split":"train","source":"s","text":"aab"}',
        '{"id":"v","split":"validation","source":"s","ids":[0,99,100,99,99,1]}',
        '{"id":"long","split":"test","source":"s","text":"abababababab"}',
      ].join("\n"),
    );
    const r = evaluateModelFile({ model: modelPath, batchRows: 1, split: "validation", data });
    expect(Object.keys(r.splits)).toEqual(["validation"]);
    expect(r.splits.validation!.targets).toBe(5);
    // "abaa" as text gives the same ids as the id row, so the same score as the fixture's validation-abaa
    const fixtureLike = join(dir, "same.jsonl");
    writeFileSync(fixtureLike, '{"id":"v","split":"validation","source":"s","text":"abaa"}\n');
    expect(evaluateModelFile({ model: modelPath, batchRows: 1, split: "all", data: fixtureLike }).splits.validation!.total_nll).toBe(
      r.splits.validation!.total_nll,
    );
    // the one stride rule: no --stride is stride = the context, so the 13-target document is two windows (8 + 5 targets)
    const byContext = evaluateModelFile({ model: modelPath, batchRows: 1, split: "test", data, finalTest: true });
    expect([byContext.splits.test!.targets, byContext.splits.test!.batches, byContext.stride, byContext.context_length]).toEqual([
      13, 2, 8, 8,
    ]);
    expect(() => evaluateModelFile({ model: modelPath, batchRows: 1, split: "test", data, stride: 9, finalTest: true })).toThrow(
      /^--stride must be an integer in \[1, 8\] \(the model's context\), got 9$/,
    );
    const strided = evaluateModelFile({ model: modelPath, batchRows: 2, split: "test", data, stride: 4, finalTest: true });
    expect([strided.splits.test!.targets, strided.layout, strided.stride]).toEqual([13, "strided windows", 4]);
    expect(() => evaluateModelFile({ model: modelPath, batchRows: 0, split: "all" })).toThrow(
      /--batch-rows must be a positive integer, got 0/,
    );
    expect(() => evaluateModelFile({ model: modelPath, batchRows: 1, split: "test", finalTest: true })).toThrow(
      /no test documents in overfit fixture/,
    );
  });
});

describe("the test split is reachable only with --final-test", () => {
  const data = join(dir, "with-test.jsonl");
  writeFileSync(
    data,
    [
      '{"id":"t","split":"train","source":"s","text":"aab"}',
      '{"id":"v","split":"validation","source":"s","text":"abaa"}',
      '{"id":"x","split":"test","source":"s","text":"baa"}',
    ].join("\n"),
  );

  it("refuses --split test without it, and --split all scores train and validation only", () => {
    expect(() => evaluateModelFile({ model: modelPath, batchRows: 1, split: "test", data })).toThrow(/--split test .* add --final-test/);
    const all = evaluateModelFile({ model: modelPath, batchRows: 1, split: "all", data });
    expect(Object.keys(all.splits)).toEqual(["train", "validation"]);
    expect([all.final_test, all.test_documents_not_scored]).toEqual([false, 1]);
    const final = evaluateModelFile({ model: modelPath, batchRows: 1, split: "all", data, finalTest: true });
    expect(Object.keys(final.splits)).toEqual(["train", "validation", "test"]);
    expect([final.final_test, final.test_documents_not_scored]).toEqual([true, 0]);
  });

  it("says so in one line from the command, and prints the final-report banner with the flag", async () => {
    const refused = await tinylabHere(["evaluate", "--model", modelPath, "--data", data, "--split", "test"]);
    const final = await tinylabHere(["evaluate", "--model", modelPath, "--data", data, "--final-test"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toMatch(/^tinylab: error: --split test scores the test split/);
    expect(final.code).toBe(0);
    expect(final.stdout.startsWith("FINAL REPORT: the test split is scored.")).toBe(true);
    expect(final.stdout).toMatch(/\ntest +\d/);
  });
});

describe("report.json holds no NaN, no Infinity and no number written as a string", () => {
  /** Every offence in a parsed JSON value: numeric-looking strings outside text fields, and reasons without a null. */
  const TEXT_KEYS = new Set([
    "prompt",
    "text",
    "continuation",
    "match",
    "token_text",
    "runner_up_text",
    "secret",
    "prefix",
    "name",
    "command",
    "id",
    "doc",
  ]);
  function offences(v: unknown, path = "$", key = ""): string[] {
    if (typeof v === "string")
      return /^\s*[-+]?(NaN|Infinity|\d+(\.\d+)?(e[-+]?\d+)?)\s*$/i.test(v) && !TEXT_KEYS.has(key)
        ? [`${path} = ${JSON.stringify(v)}`]
        : [];
    if (Array.isArray(v)) return v.flatMap((x, i) => offences(x, `${path}[${i}]`, key));
    if (v === null || typeof v !== "object") return [];
    const o = v as Record<string, unknown>;
    return Object.entries(o).flatMap(([k, x]) => [
      ...offences(x, `${path}.${k}`, k),
      ...(k.endsWith("_reason") && o[k.slice(0, -"_reason".length)] !== null ? [`${path}.${k} beside a value that is not null`] : []),
    ]);
  }

  it("on the README's fixture report and on a final report with one-window groups, --bins 5 --scheme equal-mass --smoothing 0.1", async () => {
    const data = join(dir, "with-test.jsonl");
    const plain = await tinylabHere(["report", "--model", modelPath, "--out", join(dir, "r1"), "--replicates", "50"]);
    const final = await tinylabHere([
      "report",
      "--model",
      modelPath,
      "--out",
      join(dir, "r2"),
      "--replicates",
      "50",
      "--data",
      data,
      "--final-test",
      "--bins",
      "5",
      "--scheme",
      "equal-mass",
      "--smoothing",
      "0.1",
    ]);
    expect([plain.code, final.code]).toEqual([0, 0]);
    const { readFileSync } = await import("node:fs");
    const r1 = JSON.parse(readFileSync(join(dir, "r1", "report.json"), "utf8"));
    const r2 = JSON.parse(readFileSync(join(dir, "r2", "report.json"), "utf8"));
    for (const r of [r1, r2]) expect(offences(r)).toEqual([]);
    expect(plain.stdout).not.toMatch(/NaN|Infinity/);
    // the fixture's documents are shorter than the prompts: skipped and said, never scored as recall 0
    expect(plain.stdout).toMatch(/^verbatim recall: n\/a \(all 2 train documents have ≤ 24 content tokens/m);
    expect(r1.memorization.verbatim.train_prompts).toMatchObject({ prompts: 0, skipped_too_short: 2, mean_longest_match: null });
    expect(r1.overlap.orders[1]).toMatchObject({ n: 2, mean_overlap: null });
    // the final report: banner first, test scored, calibration and baselines as asked
    expect(final.stdout.startsWith("FINAL REPORT: the test split is scored.")).toBe(true);
    expect(r2.final_test).toBe(true);
    expect(r2.perplexity.groups.map((g: { split: string }) => g.split)).toContain("test");
    expect([r2.calibration.bins, r2.calibration.scheme]).toEqual([5, "equal-mass"]);
    expect(r2.baselines.groups.map((g: { baseline: string }) => g.baseline)).toContain("bigram (add-0.1)");
    // one document per split: one window, so no interval, and the console says so instead of [x, x]
    const one = r2.perplexity.groups.find((g: { split: string }) => g.split === "train");
    expect(one).toMatchObject({ windows: 1, block_bootstrap_95: null });
    expect(one.block_bootstrap_95_reason).toMatch(/^one window/);
    expect(final.stdout).toMatch(/^ {2}train\/s +\d+\.\d{4} +n\/a \(one window\) /m);
    expect(final.stdout).toMatch(/^ {2}n\/a interval: one window: a bootstrap or standard error over windows needs at least two$/m);
  });

  it("toJson refuses a non-finite number that reached it unexplained, naming where", async () => {
    const { toJson } = await import("../../src/cli/common.ts");
    expect(() => toJson({ a: { b: [1, NaN] } })).toThrow(/\$\.a\.b\[1\] is NaN/);
    expect(() => toJson({ x: -Infinity })).toThrow(/\$\.x is -Infinity/);
    expect(toJson({ x: null, x_reason: "no samples" })).toBe('{\n  "x": null,\n  "x_reason": "no samples"\n}\n');
  });
});
