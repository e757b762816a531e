// `tinylab export --format hf-gpt2`, read back by the GPT-2-layout reader in tools/tinylab_torch.py (from_hf_dir):
// GPT-2's names and shapes, the same NLLs as tinylab evaluate, the same token ids from tokenizer.json as from
// tinylab's tokenizer (exports written by the recipe the command calls), and the rule for --out (an export over a
// previous one in a separate process; the refusals through the CLI's own code in this process: tests/cli/in_process.ts).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeSafetensors } from "../../src/util/formats/safetensors.ts";
import { encodeDocument } from "../../src/data/documents.ts";
import { decodeModelParts } from "../../src/lab/model_file.ts";
import { evaluateModelFile } from "../../experiments/evaluate_file.ts";
import { EXPORT_FILES, exportModel } from "../../experiments/export.ts";
import { useModels, skipTorch, TEXTS, torchTool, type TestModel } from "../tools/models.ts";
import { tinylab } from "./spawn.ts";
import { tinylabHere } from "./in_process.ts";

/** The export copies float32 weights unchanged, so a float64 GPT-2 forward agrees with tinylab as tinylab_torch does (tests/tools/torch.test.ts). */
const FLOAT64_TOL = 1e-5;

const { dir, models } = useModels("tinylab-cli-export-");

async function exportTo(model: string, out: string, ...more: string[]): Promise<void> {
  const r = await tinylab(["export", "--format", "hf-gpt2", "--model", model, "--out", out, ...more]);
  if (r.code !== 0) throw new Error(`tinylab export failed: ${r.stderr}`);
}

/** GPT-2's names and shapes for a config, written out from GPT-2's layout (not from the recipe). */
function gpt2Shapes(m: TestModel): Record<string, number[]> {
  const { vocabSize: V, contextLength: T, dModel: C, dFF: Ff, nLayers } = m.config;
  const out: Record<string, number[]> = {
    "transformer.wte.weight": [V, C],
    "transformer.wpe.weight": [T, C],
    "transformer.ln_f.weight": [C],
    "transformer.ln_f.bias": [C],
  };
  for (let l = 0; l < nLayers; l++) {
    const p = `transformer.h.${l}.`;
    Object.assign(out, {
      [p + "ln_1.weight"]: [C],
      [p + "ln_1.bias"]: [C],
      [p + "attn.c_attn.weight"]: [C, 3 * C],
      [p + "attn.c_attn.bias"]: [3 * C],
      [p + "attn.c_proj.weight"]: [C, C],
      [p + "attn.c_proj.bias"]: [C],
      [p + "ln_2.weight"]: [C],
      [p + "ln_2.bias"]: [C],
      [p + "mlp.c_fc.weight"]: [C, Ff],
      [p + "mlp.c_fc.bias"]: [Ff],
      [p + "mlp.c_proj.weight"]: [Ff, C],
      [p + "mlp.c_proj.bias"]: [C],
    });
  }
  if (!m.config.tiedHead) out["lm_head.weight"] = [V, C];
  return out;
}

describe.skipIf(skipTorch())("tinylab export --format hf-gpt2", () => {
  it("writes GPT-2's files, names and shapes; the GPT-2 reader scores the documents as tinylab evaluate does (float64, 1e-5)", async () => {
    const table: Record<string, unknown>[] = [];
    for (const m of models) {
      const out = join(dir, `hf-${m.name}`);
      exportModel({ model: m.path, out, format: "hf-gpt2" });
      const { tensors, metadata } = decodeSafetensors(new Uint8Array(readFileSync(join(out, "model.safetensors"))));
      expect(metadata).toEqual({ format: "pt" });
      expect(Object.fromEntries(Object.entries(tensors).map(([n, t]) => [n, t.shape]))).toEqual(gpt2Shapes(m));
      const ours = decodeModelParts(new Uint8Array(readFileSync(m.path)), m.path).weights;
      expect(tensors["transformer.h.0.attn.c_attn.weight"].data).toEqual(ours.get("h0.attn.wqkv"));
      if (!m.config.tiedHead) {
        const head = ours.get("head")!,
          lm = tensors["lm_head.weight"].data,
          V = m.config.vocabSize,
          C = m.config.dModel;
        expect(lm[5 * C + 3]).toBe(head[3 * V + 5]); // lm_head[v, c] = head[c, v]
      }
      const config = JSON.parse(readFileSync(join(out, "config.json"), "utf8"));
      expect(config).toMatchObject({
        model_type: "gpt2",
        architectures: ["GPT2LMHeadModel"],
        vocab_size: m.config.vocabSize,
        n_positions: m.config.contextLength,
        n_ctx: m.config.contextLength,
        n_embd: m.config.dModel,
        n_layer: m.config.nLayers,
        n_head: m.config.nHeads,
        n_inner: m.config.dFF,
        activation_function: "gelu_new",
        layer_norm_epsilon: 1e-5,
        tie_word_embeddings: m.config.tiedHead,
        bos_token_id: 0,
        eos_token_id: 1,
        scale_attn_weights: true,
      });

      // what `tinylab evaluate --model M --data D` prints, from the recipe it calls (the CLI itself: tests/cli/evaluate.test.ts)
      const evaluated = evaluateModelFile({ model: m.path, data: m.data, batchRows: 1, split: "all" }).splits;
      const hf = (await torchTool(["score", "--hf-dir", out, "--data", m.data])).splits;
      expect(Object.keys(hf).sort()).toEqual(Object.keys(evaluated).sort());
      for (const [split, s] of Object.entries(evaluated)) {
        table.push({
          model: m.name,
          split,
          targets: s!.targets,
          tinylab: s!.nll.toFixed(8),
          hf_gpt2_f64: hf[split].nll.toFixed(8),
          diff: Math.abs(hf[split].nll - s!.nll).toExponential(1),
        });
        expect(hf[split].targets).toBe(s!.targets);
        expect(Math.abs(hf[split].nll - s!.nll)).toBeLessThan(FLOAT64_TOL);
      }
    }
    console.log("tinylab evaluate vs the export read as GPT-2 (from_hf_dir, mean NLL per split)");
    console.table(table);
  });

  it("shows its steps (decode, probe, each file built, the writes) on the progress stream, ending with the elapsed time", () => {
    // quietMs 0: every step speaks, however short (stderr waits QUIET_MS before the first line)
    const written: string[] = [];
    exportModel({
      model: models[0].path,
      out: join(dir, "hf-progress"),
      format: "hf-gpt2",
      progress: { write: (s: string) => written.push(s), isTTY: false, quietMs: 0 },
    });
    const lines = written
      .join("")
      .split("\n")
      .filter((l) => l !== "");
    for (const l of lines) expect(l).toMatch(/^export {2}\d+\/9 steps {2}[\d.]+% /);
    expect(lines.at(-1)).toMatch(/^export {2}9\/9 steps {2}100\.0% .* elapsed \d+:\d\d {2}step=written$/);
  });

  it("tokenizer.json (vocab, merges, byte-level map) encodes every test text to tinylab's ids", async () => {
    const rows = TEXTS.map((text, i) => ({ id: `t${i}`, split: "train" as const, source: "s", text }));
    const data = join(dir, "texts.jsonl");
    writeFileSync(data, rows.map((r) => JSON.stringify(r)).join("\n"));
    for (const m of models) {
      const got = await torchTool(["encode", "--hf-dir", join(dir, `hf-${m.name}`), "--data", data]);
      for (const r of rows) expect(got[r.id], `${m.name} "${r.text}"`).toEqual(encodeDocument(m.tokenizer, r).ids);
      const tok = JSON.parse(readFileSync(join(dir, `hf-${m.name}`, "tokenizer.json"), "utf8"));
      const json = m.tokenizer.toJSON();
      expect(tok.model.merges.length).toBe(json.kind === "bpe" ? json.merges.length : 0);
      expect(tok.added_tokens).toEqual([]); // an added token would be cut out of the text (tests/cli/transformers_js.test.ts)
      expect([tok.model.vocab["<|bos|>"], tok.model.vocab["<|eos|>"]]).toEqual([0, 1]);
    }
  });

  it("--out: refuses a non-empty directory it did not write (naming an entry), replaces a previous export only with --overwrite, checks --out before reading the model", async () => {
    const foreign = join(dir, "foreign");
    mkdirSync(foreign);
    writeFileSync(join(foreign, "notes.txt"), "mine");
    let r = await tinylabHere(["export", "--format", "hf-gpt2", "--model", models[0].path, "--out", foreign]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('holds "notes.txt", which an hf-gpt2 export does not write');

    const unmarked = join(dir, "unmarked");
    mkdirSync(unmarked);
    writeFileSync(join(unmarked, "config.json"), "{}");
    r = await tinylabHere(["export", "--format", "hf-gpt2", "--model", models[0].path, "--out", unmarked]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('has no "tinylab_export" key');

    const again = join(dir, "hf-byte-1L-tied");
    r = await tinylabHere(["export", "--format", "hf-gpt2", "--model", models[2].path, "--out", again]);
    expect([r.code, r.stderr.trim().split("\n").at(-1)]).toEqual([
      1,
      expect.stringMatching(
        /^tinylab: error: --out .*: holds an export \(.*\); pass --overwrite to replace it, or choose another directory$/,
      ),
    ]);
    await exportTo(models[2].path, again, "--overwrite"); // a previous export: replaced when asked
    expect(JSON.parse(readFileSync(join(again, "config.json"), "utf8")).n_positions).toBe(16);
    for (const f of EXPORT_FILES) expect(readFileSync(join(again, f)).length).toBeGreaterThan(0);

    r = await tinylabHere(["export", "--format", "hf-gpt2", "--model", join(dir, "absent.safetensors"), "--out", "/proc/tinylab-export"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--out /proc/tinylab-export");
    r = await tinylabHere(["export", "--format", "tflite", "--model", models[0].path, "--out", join(dir, "x")]);
    expect(r.stderr).toContain(`--format must be one of hf-gpt2, onnx, got "tflite"`);
  });
});
