// `tinylab export --format onnx` (the graph alone) in a separate process, the --out rule of both formats for the
// ONNX files, and the refusals for what a Hugging Face tokenizer cannot express. The graph's numbers are
// tests/model/onnx.test.ts's; transformers.js loading the hf-gpt2 directory is tests/cli/transformers_js.test.ts's.
import { tfjsOnly } from "../../src/util/backend.ts";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as ort from "onnxruntime-node";
import { afterAll, describe, expect, it } from "vitest";
import { BpeTokenizer } from "../../src/data/bpe.ts";
import { encodeModel, modelProvenance } from "../../src/lab/model_file.ts";
import { resolveModelConfig } from "../../src/model/config.ts";
import { readOnnxMetadata } from "../../src/model/onnx.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { checkExportDir, exportModel, EXPORT_MARKER } from "../../experiments/export.ts";
import { randomWeights, useBackend } from "../helpers.ts";

// the model files below record the engine in their provenance, as every model file does
await useBackend("cpu");
import { ok, tinylab } from "./spawn.ts";

const FIXTURE = resolve(import.meta.dirname, "../fixtures/seed39-format2.safetensors");
const dir = mkdtempSync(join(tmpdir(), "tinylab-export-onnx-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("tinylab export --format onnx", () => {
  it("writes model.onnx alone, marked with the source model's sha256; onnxruntime loads it; a second export replaces it only with --overwrite", async () => {
    const out = join(dir, "graph");
    exportModel({ model: FIXTURE, out, format: "onnx" }); // the recipe in-process, then the command over its output
    expect(() => exportModel({ model: FIXTURE, out, format: "onnx" })).toThrow(
      `--out ${out}: holds an export (model.onnx); pass --overwrite to replace it, or choose another directory`,
    );
    ok(await tinylab(["export", "--format", "onnx", "--model", FIXTURE, "--out", out, "--overwrite"]));
    expect(readdirSync(out)).toEqual(["model.onnx"]);
    const bytes = new Uint8Array(readFileSync(join(out, "model.onnx")));
    const marker = JSON.parse(readOnnxMetadata(bytes)[EXPORT_MARKER]);
    expect(marker).toMatchObject({
      format: "tinylab-onnx/1",
      source_format: "tinylab-model/2",
      model_sha256: "7c7e185ee50258d45adb1f6454858b210c3989579818d4e2275f4584a5ca8535",
    });
    const session = await ort.InferenceSession.create(bytes);
    expect(session.inputNames).toEqual(["input_ids", "attention_mask", "position_ids", "past_key_values.0.key", "past_key_values.0.value"]);
  });

  it("--out: a model.onnx it did not write, other files, or a foreign file in an hf-gpt2 export's onnx/ are refused, named", () => {
    const foreign = join(dir, "foreign");
    mkdirSync(foreign);
    writeFileSync(join(foreign, "model.onnx"), "not onnx");
    expect(() => checkExportDir(foreign, "onnx")).toThrow(
      `--out ${foreign}: is not empty and its model.onnx has no "tinylab_export" metadata entry`,
    );
    writeFileSync(join(foreign, "notes.txt"), "mine");
    expect(() => checkExportDir(foreign, "onnx")).toThrow('holds "notes.txt", which an onnx export does not write');

    const hf = join(dir, "hf");
    exportModel({ model: FIXTURE, out: hf, format: "hf-gpt2" });
    checkExportDir(hf, "hf-gpt2"); // a previous export: its kind, replaced with --overwrite only
    expect(() => exportModel({ model: FIXTURE, out: hf, format: "hf-gpt2" })).toThrow(
      `--out ${hf}: holds an export (config.json, model.safetensors, onnx/, special_tokens_map.json, tinylab_manifest.json, tokenizer.json, tokenizer_config.json); pass --overwrite to replace it, or choose another directory`,
    );
    exportModel({ model: FIXTURE, out: hf, format: "hf-gpt2", overwrite: true });
    // --overwrite never takes a foreign directory
    expect(() => exportModel({ model: FIXTURE, out: foreign, format: "onnx", overwrite: true })).toThrow(
      'holds "notes.txt", which an onnx export does not write',
    );
    expect(() => checkExportDir(hf, "onnx")).toThrow('holds "config.json"');
    writeFileSync(join(hf, "onnx", "model_quantized.onnx"), "x");
    expect(() => checkExportDir(hf, "hf-gpt2")).toThrow('holds "onnx/model_quantized.onnx", which an hf-gpt2 export does not write');
  });
});

describe("what the export cannot express", () => {
  /** A model file of random weights with this BPE tokenizer (merges as pairs of ids). */
  function modelWith(name: string, merges: [number, number][]): string {
    const tokenizer = BpeTokenizer.fromJSON({ kind: "bpe", vocabSize: 258 + merges.length, merges });
    const config = resolveModelConfig({ vocabSize: tokenizer.vocabSize });
    const path = join(dir, `${name}.safetensors`);
    writeFileSync(path, encodeModel(randomWeights(config, Rng.fromSeed(1)), config, tokenizer.toJSON(), modelProvenance(tfjsOnly(), 1, 0)));
    return path;
  }
  const [a, b, c] = [99, 100, 101]; // the ids of the bytes a, b, c

  it("two ids for the same bytes (abc as ab+c and as a+bc): one Hugging Face vocabulary cannot hold both", () => {
    const path = modelWith("twice", [
      [a, b],
      [b, c],
      [258, c],
      [a, 259],
    ]);
    expect(() => exportModel({ model: path, out: join(dir, "twice"), format: "hf-gpt2" })).toThrow(
      "tokenizer ids 260 and 261 stand for the same bytes; a Hugging Face BPE vocabulary cannot hold both",
    );
  });

  it("a merge whose bytes spell a special token's name (<|bos|>) would be read as that token", () => {
    const ids = Array.from(new TextEncoder().encode("<|bos|>"), (x) => x + 2);
    const merges: [number, number][] = [[ids[0], ids[1]]];
    for (let i = 2; i < ids.length; i++) merges.push([257 + merges.length, ids[i]]);
    const path = modelWith("spells-bos", merges);
    expect(() => exportModel({ model: path, out: join(dir, "spells-bos"), format: "hf-gpt2" })).toThrow(
      `tokenizer id ${257 + merges.length} stands for the bytes of the special token <|bos|>`,
    );
  });
});
