// tools/tinylab_torch.py against tinylab: the PyTorch module built from a model file scores the same documents
// with the same NLL (float64 and float32) and the same target counts as `tinylab evaluate`, on three shapes.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeSafetensors, encodeSafetensors } from "../../src/util/formats/safetensors.ts";
import { encodeDocument } from "../../src/data/documents.ts";
import { evaluateModelFile } from "../../experiments/evaluate_file.ts";
import { useModels, PYTHON, skipTorch, TEXTS, torchTool, torchToolFails, type TestModel } from "./models.ts";

/**
 * tinylab scores in float32 (wasm); a float64 forward of the same float32 weights differs from it only by
 * float32 rounding, ~1e-7 relative per operation over a few dozen operations: 1e-5 is the engine-vs-reference
 * agreement the README states for logits, applied to mean NLLs.
 */
const FLOAT64_TOL = 1e-5;
/** Two float32 engines (tfjs wasm, torch CPU) summing in different orders: an order of magnitude wider. */
const FLOAT32_TOL = 1e-4;

const { dir, models } = useModels("tinylab-tools-torch-");

/** What `tinylab evaluate --model M [--data D]` prints, computed by the recipe it calls (the CLI itself: tests/cli/evaluate.test.ts). */
const evaluate = (model: string, data?: string) => evaluateModelFile({ model, data, batchRows: 1, split: "all" });

/** Two float64 implementations of the same forward pass: only summation order differs, so 1e-6 is ample. */
const TORCH_VS_SCORE_TOL = 1e-6;
const SCORE_PY = resolve(import.meta.dirname, "../../tools/score.py");

describe.skipIf(skipTorch())("tools/tinylab_torch.py", () => {
  it("scores every shape as tinylab evaluate does: float64 within 1e-5, float32 within 1e-4, the same target counts", async () => {
    const table: Record<string, unknown>[] = [];
    const cases: [TestModel, string | undefined][] = [...models.map((m) => [m, m.data] as [TestModel, string]), [models[0], undefined]];
    for (const [m, data] of cases) {
      const ours = evaluate(m.path, data);
      const args = ["score", "--model", m.path, ...(data ? ["--data", data] : [])];
      const f64 = (await torchTool(args)).splits,
        f32 = (await torchTool([...args, "--dtype", "float32"])).splits;
      expect(Object.keys(f64).sort()).toEqual(Object.keys(ours.splits).sort());
      for (const [split, s] of Object.entries(ours.splits)) {
        table.push({
          model: m.name,
          data: data ? "jsonl" : "fixture",
          split,
          targets: s!.targets,
          tinylab: s!.nll.toFixed(8),
          torch_f64: f64[split].nll.toFixed(8),
          d64: Math.abs(f64[split].nll - s!.nll).toExponential(1),
          torch_f32: f32[split].nll.toFixed(8),
          d32: Math.abs(f32[split].nll - s!.nll).toExponential(1),
        });
        expect(f64[split].targets).toBe(s!.targets);
        expect(f32[split].targets).toBe(s!.targets);
        expect(Math.abs(f64[split].nll - s!.nll)).toBeLessThan(FLOAT64_TOL);
        expect(Math.abs(f32[split].nll - s!.nll)).toBeLessThan(FLOAT32_TOL);
      }
    }
    console.log("tinylab evaluate vs tools/tinylab_torch.py (mean NLL per split)");
    console.table(table);
  });

  it(`equals tools/score.py (both float64) within ${TORCH_VS_SCORE_TOL} per split, with the same target counts`, async () => {
    const table: Record<string, unknown>[] = [];
    for (const m of models) {
      const torch = (await torchTool(["score", "--model", m.path, "--data", m.data])).splits;
      const r = spawnSync(PYTHON, [SCORE_PY, m.path, "--data", m.data, "--json"], { encoding: "utf8" });
      if (r.status !== 0) throw new Error(`tools/score.py exited ${r.status}: ${r.stderr}`);
      const score = (JSON.parse(r.stdout) as { splits: Record<string, { nll: number; targets: number }> }).splits;
      expect(Object.keys(torch).sort()).toEqual(Object.keys(score).sort());
      for (const [split, s] of Object.entries(score)) {
        table.push({
          model: m.name,
          split,
          targets: s.targets,
          score_py: s.nll.toFixed(12),
          torch_f64: torch[split].nll.toFixed(12),
          diff: Math.abs(torch[split].nll - s.nll).toExponential(1),
        });
        expect(torch[split].targets).toBe(s.targets);
        expect(Math.abs(torch[split].nll - s.nll)).toBeLessThan(TORCH_VS_SCORE_TOL);
      }
    }
    console.log("tools/score.py vs tools/tinylab_torch.py, both float64 (mean NLL per split)");
    console.table(table);
  });

  it("encodes text to tinylab's ids with its byte and BPE tokenizers (BOS + content + EOS)", async () => {
    const rows = TEXTS.map((text, i) => ({ id: `t${i}`, split: "train", source: "s", text }));
    const data = join(dir, "texts.jsonl");
    writeFileSync(data, rows.map((r) => JSON.stringify(r)).join("\n"));
    for (const m of models) {
      const got = await torchTool(["encode", "--model", m.path, "--data", data]);
      for (const r of rows) expect(got[r.id], `${m.name} "${r.text}"`).toEqual(encodeDocument(m.tokenizer, { ...r, split: "train" }).ids);
    }
  });

  it("reads format /1 and a /3 file with extra metadata keys (config and tokenizer only)", async () => {
    const m = models[1];
    const base = (await torchTool(["score", "--model", m.path, "--data", m.data])).splits;
    const { tensors, metadata } = decodeSafetensors(new Uint8Array(readFileSync(m.path)));
    for (const [format, extra] of [
      ["tinylab-model/1", {}],
      ["tinylab-model/3", { architecture: "{}", tokenizer_scheme: "{}" }],
    ] as const) {
      const { integrity: _, ...rest } = metadata;
      const path = join(dir, `${format.replace("/", "-")}.safetensors`);
      writeFileSync(path, encodeSafetensors(tensors, { ...rest, ...extra, format }));
      expect((await torchTool(["score", "--model", path, "--data", m.data])).splits).toEqual(base);
    }
  });

  it("scores a document longer than the context by tinylab's stride rule (default the context, or --stride), and refuses a stride beyond it", async () => {
    const data = join(dir, "long.jsonl");
    writeFileSync(data, JSON.stringify({ id: "long", split: "train", text: "abcdefghijklmnop" }) + "\n");
    for (const stride of [undefined, 3]) {
      const ours = evaluateModelFile({ model: models[0].path, data, batchRows: 1, split: "train", stride }).splits.train!;
      const got = await torchTool(["score", "--model", models[0].path, "--data", data, ...(stride ? ["--stride", String(stride)] : [])]);
      expect([got.stride, got.splits.train.targets]).toEqual([stride ?? 8, 17]);
      expect(Math.abs(got.splits.train.nll - ours.nll)).toBeLessThan(FLOAT64_TOL);
    }
    const r = torchToolFails(["score", "--model", models[0].path, "--data", data, "--stride", "9"]);
    expect([r.status, r.stderr.trim()]).toEqual([
      1,
      "tinylab_torch: error: --stride must be an integer in [1, 8] (the model's context), got 9",
    ]);
  });
});
