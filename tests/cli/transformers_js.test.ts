// The export loaded by transformers.js (@huggingface/transformers on onnxruntime-node), offline: it scores every
// split as tinylab evaluate does, continues three prompts greedily as tinylab sample does, and its tokenizer
// encodes every test document to tinylab's ids (literal special-token text included). The package is a
// devDependency imported statically, so a missing install fails this file at load; nothing here skips.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { AutoModelForCausalLM, AutoTokenizer, env } from "@huggingface/transformers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trainBpe } from "../../src/data/bpe.ts";
import { encodeDocument, SPLITS, type Document } from "../../src/data/documents.ts";
import { OVERFIT_TEXTS } from "../../src/data/fixtures.ts";
import { readDocumentsFile } from "../../src/node/files.ts";
import type { Tokenizer } from "../../src/data/tokenizer.ts";
import { decodeModelParts, encodeModel, modelProvenance } from "../../src/lab/model_file.ts";
import { resolveModelConfig } from "../../src/model/config.ts";
import { initBackend, tfjsOnly } from "../../src/util/backend.ts";
import { readFileBytes } from "../../src/node/disk.ts";
import { evaluateModelFile } from "../../experiments/evaluate_file.ts";
import { exportModel } from "../../experiments/export.ts";
import { runSample, SAMPLE_DEFAULTS } from "../../experiments/sample.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { randomWeights } from "../helpers.ts";
import { TEXTS } from "../tools/models.ts";
import { transformersNll } from "./transformers_scoring.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const FIXTURE = resolve(ROOT, "tests/fixtures/seed39-format2.safetensors");
/** ONNX float32 on onnxruntime against tfjs float32 on wasm: rounding only, the bar score.py meets against tinylab. */
const NLL_TOL = 1e-5;
/** Text that is a special token's name: tinylab encodes its bytes, and so must the exported tokenizer. */
const LITERAL_SPECIALS = ["<|bos|>", "a <|eos|> b", "x<|bos|><|eos|>y", "<|reserved_300|>", "<|reserved_260|> z"];

interface Case {
  name: string;
  path: string;
  data?: string;
  docs: Document[];
  tokenizer: Tokenizer;
  contextLength: number;
  prompts: string[];
  texts: string[];
}

const dir = mkdtempSync(join(tmpdir(), "tinylab-transformers-js-"));
const cases: Case[] = [];

beforeAll(async () => {
  env.allowRemoteModels = false;
  env.localModelPath = dir;
  await initBackend("wasm");

  const seed39 = decodeModelParts(readFileBytes(FIXTURE, "model file"), FIXTURE);
  cases.push({
    name: "seed39",
    path: FIXTURE,
    docs: OVERFIT_TEXTS.map((d) => encodeDocument(seed39.tokenizer, d)),
    tokenizer: seed39.tokenizer,
    contextLength: seed39.config.contextLength,
    prompts: ["a", "ab", "b"],
    texts: [...OVERFIT_TEXTS.map((d) => d.text), ...TEXTS, ...LITERAL_SPECIALS],
  });
  // A BPE model of random weights (2 layers, untied head, context 48): its greedy choices rarely pick EOS, so each
  // continuation runs to the end of the context, through the whole KV cache.
  const texts = [...TEXTS, ...LITERAL_SPECIALS];
  const bpe = trainBpe(
    texts.filter((_, i) => i % 2 === 0),
    320,
    { minCount: 1 },
  );
  const config = resolveModelConfig({ vocabSize: 330, contextLength: 48, nLayers: 2, dModel: 16, nHeads: 4, dFF: 32, tiedHead: false });
  const path = join(dir, "bpe.safetensors"),
    data = join(dir, "bpe.jsonl");
  writeFileSync(path, encodeModel(randomWeights(config, Rng.fromSeed(48)), config, bpe.toJSON(), modelProvenance(tfjsOnly(), 48, 0)));
  writeFileSync(
    data,
    texts.map((text, i) => JSON.stringify({ id: `d${i}`, split: i % 2 === 0 ? "train" : "validation", source: "test", text })).join("\n") +
      "\n",
  );
  cases.push({
    name: "bpe-2L-untied-48",
    path,
    data,
    docs: readDocumentsFile(data, bpe),
    tokenizer: bpe,
    contextLength: 48,
    prompts: ["the cat", "we'll", "<|bos|> x"],
    texts,
  });
  for (const c of cases) exportModel({ model: c.path, out: join(dir, c.name), format: "hf-gpt2" });
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the export in transformers.js (offline, env.allowRemoteModels = false)", () => {
  it("per-split NLL from its logits equals tinylab evaluate's within 1e-5 nats per target", async () => {
    const table: Record<string, unknown>[] = [];
    for (const c of cases) {
      const model = await AutoModelForCausalLM.from_pretrained(c.name);
      const ours = await transformersNll(model, c.docs);
      const evaluated = evaluateModelFile({ model: c.path, data: c.data, batchRows: 1, split: "all" }).splits;
      expect(Object.keys(ours).sort()).toEqual(Object.keys(evaluated).sort());
      for (const split of SPLITS) {
        const e = evaluated[split];
        if (!e) continue;
        table.push({
          model: c.name,
          split,
          targets: e.targets,
          tinylab: e.nll.toFixed(7),
          transformers_js: ours[split].nll.toFixed(7),
          diff: Math.abs(e.nll - ours[split].nll).toExponential(1),
        });
        expect(ours[split].targets).toBe(e.targets);
        expect(Math.abs(e.nll - ours[split].nll)).toBeLessThan(NLL_TOL);
      }
      await model.dispose();
    }
    console.table(table);
  });

  it("greedy generate() equals tinylab sample's greedy continuation, token for token, for three prompts each", async () => {
    for (const c of cases) {
      const tokenizer = await AutoTokenizer.from_pretrained(c.name);
      const model = await AutoModelForCausalLM.from_pretrained(c.name);
      for (const prompt of c.prompts) {
        const enc = tokenizer(prompt);
        const promptIds = (enc.input_ids.tolist()[0] as bigint[]).map(Number);
        expect(promptIds).toEqual([0, ...c.tokenizer.encode(prompt)]); // the tokenizer adds BOS, as tinylab sample does
        // past n_positions the graph's position Gather fails, and tinylab would slide its window instead: stop before
        const maxTokens = c.contextLength - promptIds.length;
        const ours = runSample({ ...SAMPLE_DEFAULTS, model: c.path, prompt, maxTokens }).samples[0];
        const out = (await model.generate({ ...enc, max_new_tokens: maxTokens, do_sample: false })) as any;
        const generated = (out.tolist()[0] as bigint[]).map(Number).slice(promptIds.length);
        console.log(
          `${c.name} ${JSON.stringify(prompt)}: ${generated.length} tokens (${ours.stopped}) ${JSON.stringify(tokenizer.decode(generated, { skip_special_tokens: true }))}`,
        );
        expect(generated, `${c.name} ${JSON.stringify(prompt)}`).toEqual(ours.ids);
        expect(tokenizer.decode(generated, { skip_special_tokens: true })).toBe(c.tokenizer.decode(ours.ids.filter((id) => id > 1)));
      }
      await model.dispose();
    }
  });

  it("its tokenizer encodes every test document to tinylab's ids (BOS first), literal special-token names as bytes", async () => {
    for (const c of cases) {
      const tokenizer = await AutoTokenizer.from_pretrained(c.name);
      for (const text of c.texts)
        expect((tokenizer(text).input_ids.tolist()[0] as bigint[]).map(Number), `${c.name} ${JSON.stringify(text)}`).toEqual([
          0,
          ...c.tokenizer.encode(text),
        ]);
      expect(c.texts.filter((t) => t.includes("<|")).length).toBe(LITERAL_SPECIALS.length);
    }
  });

  it("docs/transformers-js.md's script prints what the page shows (the fixture holds the same weights as results/seed39.safetensors)", () => {
    const page = readFileSync(join(ROOT, "docs/transformers-js.md"), "utf8");
    const script = /```js\n([\s\S]*?)```/.exec(page)![1];
    const shown = /\$ node nll\.mjs\n([\s\S]*?)```/.exec(page)![1];
    const work = join(dir, "doc");
    mkdirSync(work);
    symlinkSync(join(ROOT, "node_modules"), join(work, "node_modules"));
    symlinkSync(dir, join(work, "models")); // models/seed39 is the export made above
    writeFileSync(join(work, "nll.mjs"), script);
    const r = spawnSync(process.execPath, ["nll.mjs"], { cwd: work, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(shown);
  });
});
