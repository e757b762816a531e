// The model file: bit-identical round trip with equal metadata, its bytes read against the spec without our
// decoder, identical scores after loading, no leaks, and a named refusal for every kind of bad file.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initBackend, tf } from "../../src/util/backend.ts";
import { Rng } from "../../src/util/primitives/rng.ts";
import { sha256File } from "../../src/node/atomic.ts";
import { parameterShapes, PRESETS, type ModelConfig } from "../../src/model/config.ts";
import { GPT } from "../../src/model/gpt.ts";
import { initParameters } from "../../src/model/init.ts";
import { overfitDocuments, overfitTokenizer } from "../../src/data/fixtures.ts";
import { paddedBatches } from "../../src/data/batches.ts";
import { decoderAdapter } from "../../src/eval/passes/adapter.ts";
import { evaluateLikelihood } from "../../src/eval/passes/likelihood.ts";
import { decodeSafetensors, encodeSafetensors, SafetensorsError, type TensorEntry } from "../../src/util/formats/safetensors.ts";
import { encodeModel, MODEL_FORMAT, MODEL_FORMAT_V1, MODEL_FORMAT_V2 } from "../../src/lab/model_file.ts";
import type { ModelProvenance } from "../../src/lab/model_metadata.ts";
import { ModelFileError } from "../../src/lab/file_checks.ts";
import { architectureOf } from "../../src/model/architecture.ts";
import { CHUNK_RE } from "../../src/data/bpe.ts";
import { evaluateModelFile } from "../../experiments/evaluate_file.ts";
import { formatEvaluation } from "../../src/cli/views/evaluate.ts";
import { loadModel, saveModel } from "../helpers.ts";
import { reencode, swapOffsets } from "./file_edits.ts";
import { missingPython, PYTHON, REQUIRE_PYTHON } from "../tools/models.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-model-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config: ModelConfig = PRESETS.overfit;
const prov: ModelProvenance = { seed: 5, update: 0, backend: "wasm", tfjs: "4.22.0", tinylab: "0.1.0" };
// a plain Uint8Array over a file's bytes: decodeSafetensors copies tensors with .slice(), which on a Buffer shares memory
const fileBytes = (p: string) => {
  const b = readFileSync(p);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
};
const bits = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

let model: GPT;
let path: string;
let written: string;
beforeAll(async () => {
  await initBackend("wasm");
  model = new GPT(config, initParameters(config, Rng.fromSeed(5).child("init")));
  path = join(dir, "model.safetensors");
  written = saveModel(path, model, overfitTokenizer(), prov);
});
afterAll(() => model?.dispose());

describe("model file round trip", () => {
  it("restores every tensor bit-identically, with equal metadata, config, tokenizer and identity", () => {
    const loaded = loadModel(path);
    try {
      const before = model.read(),
        after = loaded.model.read();
      expect([...after.keys()]).toEqual(parameterShapes(config).map(([n]) => n));
      for (const [name, data] of before) expect(bits(after.get(name)!).equals(bits(data)), name).toBe(true);
      expect(loaded.metadata).toEqual({
        format: MODEL_FORMAT,
        config: JSON.stringify(config),
        // written out by hand, so a change in ops.ts (LN_EPS, ACTIVATION) or bpe.ts (CHUNK_RE) shows up here
        architecture: JSON.stringify({
          family: "gpt2",
          activation: "gelu_tanh",
          layer_norm: "pre",
          layer_norm_eps: 1e-5,
          layer_norm_variance: "biased",
          weight_layout: "in_out",
          qkv_packing: "q|k|v",
          attention_scale: "1/sqrt(d_head)",
          positions: "per_row",
          attention: "causal_within_row",
          head: "tied",
          biases: true,
        }),
        tokenizer_scheme: JSON.stringify({
          bos: 0,
          eos: 1,
          byte_offset: 2,
          merge_offset: 258,
          pre_split: "gpt2",
          pre_split_pattern: String.raw`/'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu`,
        }),
        tokenizer: JSON.stringify(overfitTokenizer().toJSON()),
        provenance: JSON.stringify(prov),
        integrity: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(loaded.integrity).toBe("verified");
      expect(loaded.config).toEqual(config);
      expect(loaded.tokenizer.toJSON()).toEqual({ kind: "byte", vocabSize: 266 });
      expect(loaded.provenance).toEqual(prov);
      expect(loaded.sha256).toBe(sha256File(path));
      expect(loaded.sha256).toBe(written);
      // same weights and metadata → same bytes: the sha256 identifies the model, not the moment it was saved
      const again = join(dir, "again.safetensors");
      saveModel(again, loaded.model, loaded.tokenizer, loaded.provenance);
      expect(sha256File(again)).toBe(written);
    } finally {
      loaded.model.dispose();
    }
  });

  it("declares the architecture and tokenizer scheme from the code that implements them", () => {
    const { metadata } = decodeSafetensors(fileBytes(path));
    expect(JSON.parse(metadata.architecture)).toEqual(architectureOf(config));
    expect(JSON.parse(metadata.tokenizer_scheme).pre_split_pattern).toBe(String(CHUNK_RE));
    // the pattern round-trips to the very regex bpe.ts splits with
    const literal = JSON.parse(metadata.tokenizer_scheme).pre_split_pattern as string;
    const re = new RegExp(literal.slice(1, literal.lastIndexOf("/")), literal.slice(literal.lastIndexOf("/") + 1));
    expect([re.source, re.flags]).toEqual([CHUNK_RE.source, CHUNK_RE.flags]);
    expect(JSON.parse(metadata.architecture).head).toBe("tied");
    expect(architectureOf({ ...config, tiedHead: false }).head).toBe("untied");
  });

  it("carries the integrity digest its definition gives, recomputed from the raw bytes with node:crypto", () => {
    const bytes = readFileSync(path);
    const n = Number(bytes.readBigUInt64LE(0));
    const { __metadata__: meta, ...entries } = JSON.parse(bytes.subarray(8, 8 + n).toString("utf8")) as Record<string, never>;
    const h = createHash("sha256");
    for (const name of Object.keys(entries).sort()) {
      const {
        dtype,
        shape,
        data_offsets: [begin, end],
      } = entries[name] as { dtype: string; shape: number[]; data_offsets: [number, number] };
      h.update(`${JSON.stringify(["tensor", name, dtype, shape])}\n`).update(bytes.subarray(8 + n + begin, 8 + n + end));
    }
    const metadata = meta as Record<string, string>;
    for (const key of Object.keys(metadata).sort())
      if (key !== "integrity") h.update(`${JSON.stringify(["metadata", key, metadata[key]])}\n`);
    expect(metadata.integrity).toBe(h.digest("hex"));
  });

  it("scores exactly as the model it was saved from", () => {
    const docs = overfitDocuments().filter((d) => d.split === "validation");
    const batches = paddedBatches(docs, { vocabSize: 266, contextLength: 8 }, 2);
    const loaded = loadModel(path);
    const a = evaluateLikelihood(decoderAdapter(model), "validation", batches).metrics;
    const b = evaluateLikelihood(decoderAdapter(loaded.model), "validation", batches).metrics;
    loaded.model.dispose();
    expect(b).toEqual(a);
  });

  it("lays the bytes out as the spec says, read here without our decoder", () => {
    const bytes = readFileSync(path);
    const n = Number(bytes.readBigUInt64LE(0));
    expect(n % 8).toBe(0);
    expect(bytes[8]).toBe("{".charCodeAt(0));
    const header = JSON.parse(bytes.subarray(8, 8 + n).toString("utf8")) as Record<
      string,
      { dtype: string; shape: number[]; data_offsets: [number, number] }
    >;
    expect(Object.keys(header)[0]).toBe("__metadata__");
    const { __metadata__: meta, ...entries } = header as Record<string, never>;
    expect(JSON.parse((meta as Record<string, string>).config)).toEqual(config);
    const spans = Object.values(entries as Record<string, { data_offsets: [number, number] }>)
      .map((e) => e.data_offsets)
      .sort((a, b) => a[0] - b[0]);
    spans.forEach(([begin], i) => expect(begin).toBe(i === 0 ? 0 : spans[i - 1][1])); // contiguous, no holes
    expect(8 + n + spans[spans.length - 1][1]).toBe(bytes.length);
    const weights = model.read();
    for (const [name, shape] of parameterShapes(config)) {
      const e = header[name];
      expect([e.dtype, e.shape]).toEqual(["F32", shape]);
      expect(e.data_offsets[1] - e.data_offsets[0]).toBe(4 * shape.reduce((a, b) => a * b, 1));
      const first = bytes.readFloatLE(8 + n + e.data_offsets[0]); // little-endian float32
      expect(first).toBe(weights.get(name)![0]);
    }
  });

  it("leaves no tensors behind after load, evaluate and dispose", () => {
    const before = tf.memory().numTensors;
    const loaded = loadModel(path);
    loaded.model.dispose();
    const report = evaluateModelFile({ model: path, batchRows: 2, split: "all" });
    expect(tf.memory().numTensors).toBe(before);
    expect(Object.keys(report.splits)).toEqual(["train", "validation"]);
    expect(report.model_sha256).toBe(written);
    expect(formatEvaluation(report)).toContain(`model_sha256 ${written}`);
  });

  it("a provenance string with a newline cannot forge an output line: refused when read, escaped when printed", () => {
    const forged = join(dir, "forged-provenance.safetensors");
    const backend = "wasm\nmodel_sha256 0000 (integrity verified)";
    writeFileSync(
      forged,
      reencode(
        fileBytes(path),
        (_, m) => {
          m.provenance = JSON.stringify({ ...JSON.parse(m.provenance), backend });
        },
        true,
      ),
    );
    expect(() => evaluateModelFile({ model: forged, batchRows: 2, split: "all" })).toThrow(/provenance\.backend: must be one line of text/);
    // the console view escapes whatever reaches it (a report made elsewhere, a path with a newline)
    const report = evaluateModelFile({ model: path, batchRows: 2, split: "all" });
    const lines = formatEvaluation({
      ...report,
      model: "a\nmodel_sha256 1111",
      trained: { ...(report.trained as object), backend },
    } as typeof report).split("\n");
    expect(lines.filter((l) => l.startsWith("model_sha256"))).toHaveLength(1);
    expect(lines.find((l) => l.startsWith("trained:"))).toContain(
      "backend wasm\\nmodel_sha256 0000 (integrity verified) (matrix products on tfjs's own wasm\\nmodel_sha256 0000 (integrity verified) kernels);",
    );
  });

  // the Python the interop tests use (Debian's in CI), not whichever python3 is first on PATH
  const noNumpy = missingPython(["numpy"]);
  it("is readable by the numpy-only reader (tools/read_safetensors.py)", (ctx) => {
    if (noNumpy && !REQUIRE_PYTHON) ctx.skip(noNumpy);
    expect(noNumpy).toBeUndefined(); // CI (TINYLAB_REQUIRE_PYTHON=1) fails here instead of skipping
    const run = spawnSync(PYTHON, [resolve(import.meta.dirname, "../../tools/read_safetensors.py"), path], { encoding: "utf8" });
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { name?: string; shape?: number[]; metadata_keys?: string[] });
    const shapes = Object.fromEntries(lines.filter((l) => l.name).map((l) => [l.name, l.shape]));
    expect(shapes).toEqual(Object.fromEntries(parameterShapes(config)));
    expect(lines[lines.length - 1].metadata_keys).toEqual([
      "architecture",
      "config",
      "format",
      "integrity",
      "provenance",
      "tokenizer",
      "tokenizer_scheme",
    ]);
  });
});

describe("model file refusals", () => {
  /**
   * Re-encode the valid file with changed tensors or metadata and a recomputed digest (so the checks behind
   * the digest are what refuses it), write it, and return loadModel's refusal.
   */
  function refusal(edit: (t: Record<string, TensorEntry>, m: Record<string, string>) => void): string {
    return refusalOf(reencode(fileBytes(path), edit, true));
  }
  function refusalOf(bytes: Uint8Array): string {
    const bad = join(dir, "bad.safetensors");
    writeFileSync(bad, bytes);
    return message(() => loadModel(bad).model.dispose());
  }
  function message(f: () => void): string {
    try {
      f();
    } catch (err) {
      expect(err instanceof ModelFileError || err instanceof SafetensorsError, String(err)).toBe(true);
      return (err as Error).message;
    }
    throw new Error("a bad model file was accepted");
  }

  it.each<[string, (t: Record<string, TensorEntry>, m: Record<string, string>) => void, RegExp]>([
    ["a missing tensor", (t) => delete t["h0.mlp.w1"], /tensor "h0\.mlp\.w1" is missing/],
    [
      "an extra tensor",
      (t) => {
        t["h1.ln1.g"] = { dtype: "F32", shape: [8], data: new Float32Array(8) };
      },
      /unexpected tensor "h1\.ln1\.g" for this config/,
    ],
    [
      "a shape that does not match the config",
      (t) => {
        t.wpe = { dtype: "F32", shape: [9, 8], data: new Float32Array(72) };
      },
      /tensor "wpe" has shape \[9,8\], the config needs \[8,8\]/,
    ],
    [
      "a transposed shape",
      (t) => {
        t["h0.mlp.w1"] = { ...(t["h0.mlp.w1"] as TensorEntry), shape: [16, 8] } as TensorEntry;
      },
      /tensor "h0\.mlp\.w1" has shape \[16,8\], the config needs \[8,16\]/,
    ],
    [
      "a weight stored as F64",
      (t) => {
        t.wte = { dtype: "F64", shape: [266, 8], data: new Float64Array(266 * 8) };
      },
      /tensor "wte" is F64, expected F32/,
    ],
    ["metadata without the config", (_, m) => delete m.config, /metadata has no "config"/],
    ["metadata without the tokenizer", (_, m) => delete m.tokenizer, /metadata has no "tokenizer"/],
    [
      "metadata without a format",
      (_, m) => delete m.format,
      /metadata has no "format" \(expected "tinylab-model\/3" or "tinylab-model\/2" or "tinylab-model\/1"\)/,
    ],
    [
      "another format version",
      (_, m) => {
        m.format = "tinylab-model/4";
      },
      /format is "tinylab-model\/4", expected "tinylab-model\/3" or "tinylab-model\/2" or "tinylab-model\/1"/,
    ],
    [
      "an activation this code does not implement",
      (_, m) => {
        m.architecture = m.architecture.replace('"gelu_tanh"', '"gelu_erf"');
      },
      /model file .*bad\.safetensors: metadata "architecture" declares "activation": "gelu_erf", which this code does not implement \(it implements "gelu_tanh"\)/,
    ],
    [
      "another LayerNorm eps",
      (_, m) => {
        m.architecture = m.architecture.replace('"layer_norm_eps":0.00001', '"layer_norm_eps":1e-6');
      },
      /metadata "architecture" declares "layer_norm_eps": 0\.000001, which this code does not implement \(it implements 0\.00001\)/,
    ],
    [
      "a head that contradicts the config",
      (_, m) => {
        m.architecture = m.architecture.replace('"head":"tied"', '"head":"untied"');
      },
      /metadata "architecture" declares "head": "untied", which this code does not implement \(it implements "tied"\)/,
    ],
    [
      "an architecture key this code does not know",
      (_, m) => {
        m.architecture = m.architecture.replace("{", '{"rotary":true,');
      },
      /metadata "architecture" declares "rotary", which this code does not implement/,
    ],
    [
      "an architecture lacking a key",
      (_, m) => {
        m.architecture = m.architecture.replace('"biases":true', '"x":1').replace(',"x":1', "");
      },
      /metadata "architecture" lacks biases/,
    ],
    ["metadata without the architecture", (_, m) => delete m.architecture, /metadata has no "architecture"/],
    [
      "another byte offset",
      (_, m) => {
        m.tokenizer_scheme = m.tokenizer_scheme.replace('"byte_offset":2', '"byte_offset":3');
      },
      /metadata "tokenizer_scheme" declares "byte_offset": 3, which this code does not implement \(it implements 2\)/,
    ],
    [
      "another pre-split pattern",
      (_, m) => {
        m.tokenizer_scheme = JSON.stringify({ ...JSON.parse(m.tokenizer_scheme), pre_split_pattern: "/\\S+/gu" });
      },
      /metadata "tokenizer_scheme" declares "pre_split_pattern": .*which this code does not implement/,
    ],
    [
      "a tokenizer scheme that is not an object",
      (_, m) => {
        m.tokenizer_scheme = "[]";
      },
      /metadata "tokenizer_scheme" is not a JSON object/,
    ],
    [
      "a config that is not JSON",
      (_, m) => {
        m.config = "{vocab";
      },
      /bad\.safetensors: config: not valid JSON: expected a string, found "v" at line 1, column 2$/,
    ],
    [
      "a config lacking a key",
      (_, m) => {
        m.config = JSON.stringify({ ...config, dModel: undefined });
      },
      /bad\.safetensors: config\.dModel: is missing \(got nothing\)$/,
    ],
    [
      "a config the model cannot build",
      (_, m) => {
        m.config = JSON.stringify({ ...config, nHeads: 3 });
      },
      /dModel \(8\) must be divisible by nHeads \(3\)/,
    ],
    [
      "a config with more layers than tensors",
      (_, m) => {
        m.config = JSON.stringify({ ...config, nLayers: 2 });
      },
      /tensor "h1\.ln1\.g" is missing/,
    ],
    [
      "an unknown tokenizer",
      (_, m) => {
        m.tokenizer = '{"kind":"wordpiece"}';
      },
      /bad\.safetensors: tokenizer\.kind: must be one of "byte", "bpe" \(got "wordpiece"\)$/,
    ],
    [
      "a tokenizer larger than the embedding",
      (_, m) => {
        m.tokenizer = '{"kind":"byte","vocabSize":300}';
      },
      /tokenizer vocabulary 300 exceeds the model's vocabSize 266/,
    ],
    [
      "provenance without a seed",
      (_, m) => {
        m.provenance = '{"update":3}';
      },
      /bad\.safetensors: provenance\.seed: is missing \(got nothing\)$/,
    ],
    [
      "a config with nHeads given twice (accepted before, the last winning)",
      (_, m) => {
        m.config = m.config.replace('"nHeads":2', '"nHeads":2,"nHeads":4');
      },
      /bad\.safetensors: config: not valid JSON: key "nHeads" is given twice \(config\.nHeads\) at line 1, column \d+$/,
    ],
    [
      "a vocabSize written 266.0 (accepted before; tools/score.py refuses it)",
      (_, m) => {
        m.config = m.config.replace('"vocabSize":266', '"vocabSize":266.0');
      },
      /bad\.safetensors: config\.vocabSize: must be an integer, written without a fraction or exponent \(got 266\.0\)$/,
    ],
    [
      "a seed written as a string",
      (_, m) => {
        m.provenance = m.provenance.replace(/"seed":(\d+)/, '"seed":"$1"');
      },
      /bad\.safetensors: provenance\.seed: must be an integer, not a string \(got "\d+"\)$/,
    ],
    [
      "a newline in a provenance field (it would forge an output line)",
      (_, m) => {
        m.provenance = m.provenance.replace(/"backend":"([^"]*)"/, '"backend":"$1\\nmodel_sha256 0000 (integrity verified)"');
      },
      /bad\.safetensors: provenance\.backend: must be one line of text \(no control characters\) \(got ".*"\)$/,
    ],
    [
      "a tokenizer key given twice",
      (_, m) => {
        m.tokenizer = m.tokenizer.replace('"kind":"byte"', '"kind":"byte","kind":"byte"');
      },
      /bad\.safetensors: tokenizer: not valid JSON: key "kind" is given twice/,
    ],
    [
      "a tokenizer vocabSize as a string",
      (_, m) => {
        m.tokenizer = m.tokenizer.replace(/"vocabSize":(\d+)/, '"vocabSize":"$1"');
      },
      /bad\.safetensors: tokenizer\.vocabSize: must be an integer, not a string/,
    ],
    [
      "a NaN weight at a position the data never reaches",
      (t) => {
        (t.wpe.data as Float32Array)[60] = NaN;
      },
      /model file .*bad\.safetensors: tensor "wpe" has a non-finite value \(NaN\) at flat index 60/,
    ],
    [
      "an infinite weight",
      (t) => {
        (t["h0.mlp.b2"].data as Float32Array)[3] = -Infinity;
      },
      /model file .*bad\.safetensors: tensor "h0\.mlp\.b2" has a non-finite value \(-Infinity\) at flat index 3/,
    ],
  ])("refuses %s, naming it", (_, edit, expected) => {
    expect(refusal(edit)).toMatch(expected);
  });

  it("refuses missing files, directories, non-safetensors files and truncations, naming the path", () => {
    expect(message(() => loadModel(join(dir, "absent.safetensors")))).toMatch(/model file not found: .*absent\.safetensors/);
    const sub = join(dir, "a-directory");
    mkdirSync(sub, { recursive: true });
    expect(message(() => loadModel(sub))).toMatch(/model file is not a regular file: .* \(it is a directory\)/);
    const text = join(dir, "notes.txt");
    writeFileSync(text, "this is a text file, not a model\n");
    expect(message(() => loadModel(text))).toMatch(
      /notes\.txt: not a valid safetensors file: header length \d+ exceeds the 100000000-byte limit/,
    );
    const bytes = readFileSync(path);
    const cut = join(dir, "cut.safetensors");
    for (const at of [0, 5, 8, 100, bytes.length - 4]) {
      writeFileSync(cut, bytes.subarray(0, at));
      expect(message(() => loadModel(cut))).toMatch(/cut\.safetensors: not a valid safetensors file/);
    }
  });

  it("refuses a file changed after it was written: swapped tensors, an edited config, a dropped or bogus digest", () => {
    const bytes = fileBytes(path);
    const changed =
      /model file .*bad\.safetensors: integrity digest does not match the file's tensors and metadata: it was changed after it was written/;
    // two [8] tensors trade data_offsets in the header: each name now reads the other's bytes
    expect(refusalOf(swapOffsets(bytes, "h0.ln1.g", "h0.ln1.b"))).toMatch(changed);
    // each edited without recomputing the digest: a config that still builds a model (8 divisible by 1), one
    // weight, a bogus digest
    const edits: Parameters<typeof reencode>[1][] = [
      (_, m) => void (m.config = JSON.stringify({ ...config, nHeads: 1 })),
      (t) => void ((t.wte.data as Float32Array)[0] += 1e-3),
      (_, m) => void (m.integrity = "0".repeat(64)),
    ];
    for (const edit of edits) expect(refusalOf(reencode(bytes, edit, false))).toMatch(changed);
    expect(
      refusalOf(
        reencode(
          bytes,
          (_, m) => {
            delete m.integrity;
          },
          false,
        ),
      ),
    ).toMatch(/bad\.safetensors: format "tinylab-model\/3" needs metadata "integrity", which is missing/);
    // JSON whitespace other than the writer's spaces in the padding: the decoded contents (and digest) would not show it
    const tabbed = bytes.slice();
    tabbed[8 + Number(new DataView(tabbed.buffer).getBigUint64(0, true)) - 1] = 0x09;
    expect(refusalOf(tabbed)).toMatch(/bad\.safetensors: header byte \d+ is 0x09 after the JSON, where the writer pads with spaces only/);
    // relabelling a /2 file as /1 (which is read unverified) does not get past the check
    expect(
      refusalOf(
        reencode(
          bytes,
          (_, m) => {
            m.format = MODEL_FORMAT_V1;
          },
          false,
        ),
      ),
    ).toMatch(/bad\.safetensors: format "tinylab-model\/1" has no integrity digest, yet the file carries one/);
  });

  it("still reads a tinylab-model/1 file, saying its integrity is unverified (a swap there goes unseen)", () => {
    const v1 = reencode(
      fileBytes(path),
      (_, m) => {
        m.format = MODEL_FORMAT_V1;
        delete m.integrity;
        delete m.architecture;
        delete m.tokenizer_scheme;
      },
      false,
    );
    const old = join(dir, "v1.safetensors");
    writeFileSync(old, swapOffsets(v1, "h0.ln1.g", "h0.ln1.b"));
    const before = tf.memory().numTensors;
    const loaded = loadModel(old);
    try {
      expect(loaded.integrity).toBe("unverified (format tinylab-model/1 has no digest)");
      expect(loaded.config).toEqual(config);
      expect(bits(loaded.model.read().get("h0.ln1.g")!).equals(bits(model.read().get("h0.ln1.b")!))).toBe(true);
    } finally {
      loaded.model.dispose();
    }
    expect(tf.memory().numTensors).toBe(before);
  });

  it("still loads the committed tinylab-model/2 fixture and scores exactly what it scored when made", () => {
    const fixture = resolve(import.meta.dirname, "../fixtures/seed39-format2.safetensors");
    const made = JSON.parse(readFileSync(resolve(import.meta.dirname, "../fixtures/seed39-format2.json"), "utf8")) as {
      model_sha256: string;
      scored_when_made: Record<"train" | "validation", { nll_printed: string; targets: number }>;
    };
    const loaded = loadModel(fixture);
    try {
      expect(loaded.metadata.format).toBe(MODEL_FORMAT_V2);
      expect(loaded.integrity).toBe("verified");
      expect(loaded.sha256).toBe(made.model_sha256);
      expect(loaded.architecture).toEqual(architectureOf(config)); // implied: what the /2 writer's code computed
      expect(loaded.tokenizerScheme.pre_split_pattern).toBe(String(CHUNK_RE));
    } finally {
      loaded.model.dispose();
    }
    const report = evaluateModelFile({ model: fixture, batchRows: 1, split: "all" });
    for (const split of ["train", "validation"] as const) {
      // the printed six decimals are the published numbers (train 0.156560, validation 4.364098)
      expect(report.splits[split]!.nll.toFixed(6), split).toBe(made.scored_when_made[split].nll_printed);
      expect(report.splits[split]!.targets, split).toBe(made.scored_when_made[split].targets);
    }
    expect(made.scored_when_made.validation.nll_printed).toBe("4.364098");
  });

  it("refuses a /3 file relabelled /2, re-signed or not (its declarations do not belong to /2)", () => {
    const bytes = fileBytes(path);
    expect(
      refusalOf(
        reencode(
          bytes,
          (_, m) => {
            m.format = MODEL_FORMAT_V2;
          },
          false,
        ),
      ),
    ).toMatch(/integrity digest does not match/);
    expect(
      refusalOf(
        reencode(
          bytes,
          (_, m) => {
            m.format = MODEL_FORMAT_V2;
          },
          true,
        ),
      ),
    ).toMatch(/bad\.safetensors: format "tinylab-model\/2" has no "architecture", yet the file carries one/);
  });

  it("refuses to write a non-finite weight, naming the tensor and the index", () => {
    const weights = model.read();
    weights.get("lnf.b")![2] = NaN;
    expect(() => encodeModel(weights, config, overfitTokenizer().toJSON(), prov)).toThrow(
      'cannot write a model file: tensor "lnf.b" has a non-finite value (NaN) at flat index 2',
    );
  });

  it("refuses a training-state file given as a model, saying what it is", () => {
    const other = join(dir, "state-like.safetensors");
    const bytes = encodeModel(model.read(), config, overfitTokenizer().toJSON(), prov);
    const { tensors, metadata } = decodeSafetensors(bytes);
    writeFileSync(other, encodeSafetensors(tensors, { ...metadata, format: "tinylab-train-state/1" }));
    expect(message(() => loadModel(other))).toMatch(/is a training-state file .* not a model file/);
  });
});
