// Re-scoring in another process: `tinylab overfit --save-model` in one process, `tinylab evaluate` in new
// ones, compared with the in-process scores of the very same trained weights; plus evaluate's refusals.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/util/backend.ts";
import { sha256Bytes, sha256File } from "../../src/util/atomic.ts";
import { encodeModel, modelProvenance } from "../../src/lab/model_file.ts";
import { paddedBatches } from "../../src/data/batches.ts";
import { overfitDocuments, overfitTokenizer } from "../../src/data/fixtures.ts";
import { decoderAdapter } from "../../src/eval/adapter.ts";
import { evaluateLikelihood } from "../../src/eval/likelihood.ts";
import { meanNll, type MetricSummary } from "../../src/eval/summary.ts";
import { runOverfit } from "../../experiments/overfit.ts";
import { evaluateModelFile, type EvaluateReport } from "../../experiments/evaluate.ts";
import { tinylab } from "./spawn.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-cli-evaluate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const modelPath = join(dir, "overfit-seed39.safetensors");

beforeAll(() => initBackend("wasm"));

describe("tinylab evaluate in a separate process", () => {
  it("restores the saved overfit model and reproduces the in-process NLLs exactly, at batch rows 1 and 2", async () => {
    // the producer is its own process, as a user would run it
    const producer = tinylab(["overfit", "--seeds", "39", "--save-model", modelPath, "--out", dir, "--no-figures"]);
    // meanwhile, here: the same training, scored in memory before any file exists
    const docs = overfitDocuments(overfitTokenizer());
    const inProcess: Record<number, Record<string, MetricSummary>> = {};
    let expectedSha = "";
    runOverfit({ seeds: [39] }, { onModel: (seed, model) => {
      for (const rows of [1, 2]) {
        inProcess[rows] = {};
        for (const split of ["train", "validation"] as const) {
          const batches = paddedBatches(docs.filter((d) => d.split === split), { vocabSize: 266, contextLength: 8 }, rows);
          inProcess[rows][split] = evaluateLikelihood(decoderAdapter(model), split, batches).metrics;
        }
      }
      expectedSha = sha256Bytes(encodeModel(model.read(), model.config, overfitTokenizer().toJSON(), modelProvenance(seed, 80)));
      return false;
    } });

    const made = await producer;
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    const sha = sha256File(modelPath);
    expect(made.stdout).toContain(`saved seed 39 at update 80 → ${modelPath}\nmodel_sha256 ${sha}`);
    expect(sha).toBe(expectedSha); // the producer process trained bit-identical weights

    const runs = await Promise.all([1, 2].map((rows) => tinylab(["evaluate", "--model", modelPath, "--batch-rows", String(rows), "--json"])));
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
    const [missing, notModel, noFlag] = await Promise.all([
      tinylab(["evaluate", "--model", join(dir, "absent.safetensors")]),
      tinylab(["evaluate", "--model", text]),
      tinylab(["evaluate"]),
    ]);
    expect([missing.code, missing.stderr.trim()]).toEqual([1, `tinylab: error: model file not found: ${join(dir, "absent.safetensors")}`]);
    expect(notModel.code).toBe(1);
    expect(notModel.stderr).toMatch(/^tinylab: error: .*notes\.txt: not a valid safetensors file: header length \d+ exceeds/);
    expect(noFlag.code).toBe(2);
    expect(noFlag.stderr).toMatch(/Missing required argument: model/);
  });
});

describe("evaluateModelFile on a documents file", () => {
  it("encodes text and id rows with the restored tokenizer, refuses long documents without --stride, and scores them with it", () => {
    const data = join(dir, "docs.jsonl");
    writeFileSync(data, [
      '{"id":"t","split":"train","source":"s","text":"aab"}',
      '{"id":"v","split":"validation","source":"s","ids":[0,99,100,99,99,1]}',
      '{"id":"long","split":"test","source":"s","text":"abababababab"}',
    ].join("\n"));
    const r = evaluateModelFile({ model: modelPath, batchRows: 1, split: "validation", data });
    expect(Object.keys(r.splits)).toEqual(["validation"]);
    expect(r.splits.validation!.targets).toBe(5);
    // "abaa" as text gives the same ids as the id row, so the same score as the fixture's validation-abaa
    const fixtureLike = join(dir, "same.jsonl");
    writeFileSync(fixtureLike, '{"id":"v","split":"validation","source":"s","text":"abaa"}\n');
    expect(evaluateModelFile({ model: modelPath, batchRows: 1, split: "all", data: fixtureLike }).splits.validation!.total_nll).toBe(r.splits.validation!.total_nll);
    expect(() => evaluateModelFile({ model: modelPath, batchRows: 1, split: "all", data, finalTest: true })).toThrow(/document "long" has 13 targets, more than the model's context 8; pass --stride S \(1\.\.8\)/);
    const strided = evaluateModelFile({ model: modelPath, batchRows: 2, split: "test", data, stride: 4, finalTest: true });
    expect([strided.splits.test!.targets, strided.layout, strided.stride]).toEqual([13, "strided windows", 4]);
    expect(() => evaluateModelFile({ model: modelPath, batchRows: 0, split: "all" })).toThrow(/--batch-rows must be a positive integer, got 0/);
    expect(() => evaluateModelFile({ model: modelPath, batchRows: 1, split: "test", finalTest: true })).toThrow(/no test documents in overfit fixture/);
  });
});

describe("the test split is reachable only with --final-test", () => {
  const data = join(dir, "with-test.jsonl");
  writeFileSync(data, [
    '{"id":"t","split":"train","source":"s","text":"aab"}',
    '{"id":"v","split":"validation","source":"s","text":"abaa"}',
    '{"id":"x","split":"test","source":"s","text":"baa"}',
  ].join("\n"));

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
    const [refused, final] = await Promise.all([
      tinylab(["evaluate", "--model", modelPath, "--data", data, "--split", "test"]),
      tinylab(["evaluate", "--model", modelPath, "--data", data, "--final-test"]),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toMatch(/^tinylab: error: --split test scores the test split/);
    expect(final.code).toBe(0);
    expect(final.stdout.startsWith("FINAL REPORT: the test split is scored.")).toBe(true);
    expect(final.stdout).toMatch(/\ntest +\d/);
  });
});
