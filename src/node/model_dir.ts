// A Hugging Face causal-LM directory opened for scoring and sampling: config.json, tokenizer.json (+ tokenizer_config.json,
// generation_config.json) and the ONNX decoder read bounded, each file's sha256 kept, the directory checked against
// its tinylab manifest when it has one, and the graph put on onnxruntime-node behind ScoringModel. Node-only.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { HfTokenizer, TokenizerRefusal } from "../data/hf_tokenizer.ts";
import { graphAdapter, type GraphModel } from "../eval/passes/graph_adapter.ts";
import type { SpecialIds } from "../eval/passes/convention.ts";
import { checkSealed, MANIFEST_FILE, parseManifest } from "../model/dir_manifest.ts";
import { describeGraph, ModelDirRefusal, parseHfConfig, type GraphInfo, type HfModelConfig } from "../model/hf_dir.ts";
import { sha256Hex } from "../util/primitives/sha256.ts";
import { readFileBytes } from "./disk.ts";
import { FILE_LIMIT } from "./files.ts";
import { graphSessions } from "./onnxruntime.ts";

// isModelDir lives in disk.ts: a command asks it before it knows it needs this module (and protobuf, through hf_dir.ts)
export { ModelDirRefusal };
export { isModelDir } from "./disk.ts";

/** The graphs looked for, in order, when --graph names none (transformers.js's and optimum's names). */
export const GRAPH_FILES = ["onnx/model.onnx", "onnx/decoder_model_merged.onnx"] as const;

export interface ModelDirOptions {
  /** The graph's path inside the directory (e.g. onnx/model_quantized.onnx); default the first of GRAPH_FILES present. */
  graph?: string;
  /** Run a graph whose weights or operators are not float32 (refused otherwise: never a silent quantized model). */
  allowNonFloat32?: boolean;
}

/** What a result records of the directory: its files' digests, the graph's contract and the seal's check. */
export interface ModelDirProvenance {
  directory: string;
  /** sha256 over the sorted "name sha256" lines of every file read: the model's id. */
  sha256: string;
  files: { name: string; bytes: number; sha256: string }[];
  graph: { file: string; opset: number; ir_version: number; producer: string; dtype: string; inputs: string[]; outputs: string[] };
  architecture: string;
  context_length: number;
  vocab_size: number;
  /** "verified against tinylab_manifest.json", or "no manifest (not a tinylab export)". */
  manifest: string;
}

export interface ModelDir {
  config: HfModelConfig;
  tokenizer: HfTokenizer;
  special: SpecialIds;
  graph: GraphInfo;
  model: GraphModel;
  provenance: ModelDirProvenance;
}

const jsonOf = (bytes: Uint8Array, where: string): unknown => {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (err) {
    throw new ModelDirRefusal(`${where}: not valid UTF-8 JSON (${(err as Error).message})`);
  }
};

/** Open `dir` (refusals in one line, naming the file); the session is onnxruntime-node's whatever --kernels says. */
export function openModelDir(dir: string, o: ModelDirOptions = {}): ModelDir {
  const files: { name: string; bytes: number; sha256: string }[] = [];
  const read = (name: string, limit = FILE_LIMIT): Uint8Array => {
    const bytes = readFileBytes(join(dir, name), `${name} of model directory ${dir}`, ModelDirRefusal, limit);
    files.push({ name, bytes: bytes.length, sha256: sha256Hex(bytes) });
    return bytes;
  };
  const optional = (name: string): Uint8Array | undefined => (existsSync(join(dir, name)) ? read(name) : undefined);
  // every file read and checked against the seal first: an edited file is named as changed, whatever it now says
  const configBytes = read("config.json"),
    tokenizerBytes = read("tokenizer.json");
  const tokConfig = optional("tokenizer_config.json");
  optional("generation_config.json");
  const graphFile = o.graph ?? GRAPH_FILES.find((g) => existsSync(join(dir, g)));
  if (graphFile === undefined)
    throw new ModelDirRefusal(`model directory ${dir}: has none of ${GRAPH_FILES.join(", ")}; name the graph with --graph`);
  if (graphFile.split(/[\\/]/).includes(".."))
    throw new ModelDirRefusal(`--graph ${graphFile}: must name a file inside the model directory`);
  const graphBytes = read(graphFile, { bytes: 2 ** 31 - 1, label: "2 GiB (a graph without external data)" });
  const manifest = existsSync(join(dir, MANIFEST_FILE));
  if (manifest) {
    const sealed = parseManifest(
      new TextDecoder().decode(readFileBytes(join(dir, MANIFEST_FILE), MANIFEST_FILE, ModelDirRefusal, FILE_LIMIT)),
      `${dir}/${MANIFEST_FILE}`,
    );
    try {
      checkSealed(sealed, new Map(files.map((f) => [f.name, f.sha256])), (name) => existsSync(join(dir, name)), dir);
    } catch (err) {
      throw new ModelDirRefusal((err as Error).message);
    }
  }
  const config = parseHfConfig(jsonOf(configBytes, `${dir}/config.json`), `${dir}/config.json`);
  let tokenizer: HfTokenizer;
  try {
    tokenizer = new HfTokenizer(jsonOf(tokenizerBytes, `${dir}/tokenizer.json`), `${dir}/tokenizer.json`);
  } catch (err) {
    throw err instanceof TokenizerRefusal ? new ModelDirRefusal(err.message) : err;
  }
  const tc = tokConfig ? (jsonOf(tokConfig, `${dir}/tokenizer_config.json`) as Record<string, unknown>) : {};
  for (const k of ["do_lower_case", "do_lowercase_and_remove_accent", "remove_space"]) {
    if (tc[k] === true)
      throw new ModelDirRefusal(`${dir}/tokenizer_config.json: ${k} is true, which tinylab's tokenizer does not implement`);
  }
  const graph = describeGraph(graphBytes, `${dir}/${graphFile}`, config);
  if (graph.dtype !== "float32" && !o.allowNonFloat32)
    throw new ModelDirRefusal(
      `${dir}/${graphFile}: the graph is ${graph.dtype}, not float32; scoring it would not measure the float32 model (add --allow-non-float32 to score it as it is)`,
    );
  if (tokenizer.vocabSize > config.vocabSize)
    throw new ModelDirRefusal(
      `${dir}/tokenizer.json: ids reach ${tokenizer.vocabSize - 1}, past config.json's vocab_size ${config.vocabSize}`,
    );
  const named = ["bos_token", "eos_token", "unk_token", "pad_token"]
    .map((k) => tc[k])
    .concat(Array.isArray(tc.additional_special_tokens) ? tc.additional_special_tokens : []);
  tokenizer.markSpecial(named.map((t) => tokenizer.specialId(t)).filter((id): id is number => id !== undefined));
  const special: SpecialIds = {
    bos: tokenizer.specialId(tc.bos_token) ?? config.bosTokenId,
    eos: tokenizer.specialId(tc.eos_token) ?? config.eosTokenId,
  };
  const sha256 = sha256Hex(
    [...files]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((f) => `${f.name} ${f.sha256}\n`)
      .join(""),
  );
  const sessions = graphSessions();
  if (typeof sessions === "string")
    throw new ModelDirRefusal(`model directory ${dir}: its graph runs on onnxruntime-node, and ${sessions}`);
  const model = graphAdapter(sessions(graphBytes), graph, config, dir, sha256);
  return {
    config,
    tokenizer,
    special,
    graph,
    model,
    provenance: {
      directory: dir,
      sha256,
      files,
      graph: {
        file: graphFile,
        opset: graph.opset,
        ir_version: graph.irVersion,
        producer: graph.producer,
        dtype: graph.dtype,
        inputs: graph.inputs.map((v) => v.name),
        outputs: graph.outputs.map((v) => v.name),
      },
      architecture: config.architecture,
      context_length: config.contextLength,
      vocab_size: config.vocabSize,
      manifest: manifest ? `verified against ${MANIFEST_FILE}` : "no manifest (not a tinylab export)",
    },
  };
}
