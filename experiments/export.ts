// `tinylab export` as a recipe: a model file decoded (validated, no model built, no engine started) and written as
// a Hugging Face GPT-2 directory with its ONNX graph (what transformers.js loads), or as the ONNX graph alone.
// Not a converter back.
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Tokenizer, TokenizerJSON } from "../src/data/tokenizer.ts";
import type { ModelConfig } from "../src/model/config.ts";
import type { ParamArrays } from "../src/model/init.ts";
import { LN_EPS } from "../src/model/ops.ts";
import { ModelFileError, decodeModelParts } from "../src/lab/model_file.ts";
import { sha256Bytes, writeFileAtomic } from "../src/util/atomic.ts";
import { checkOutputDir, ensureDir, readFileBytes, readFileText, readSafetensorsBytes, removeStaleTemps } from "../src/util/disk.ts";
import { FILE_LIMIT } from "../src/data/files.ts";
import { encodeSafetensors, type TensorEntry } from "../src/util/safetensors.ts";
import { onnxModel, readOnnxMetadata } from "../src/model/onnx.ts";
import { EXPORT_FORMATS, type ExportFormat } from "./options.ts";

/** The key in config.json that marks a directory as written by this recipe (transformers keeps unknown keys as attributes). */
export const EXPORT_MARKER = "tinylab_export";
/** Every file an hf-gpt2 export writes; config.json first, so a directory cut short is still recognisably an export. */
export const EXPORT_FILES = ["config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "onnx/model.onnx"] as const;
/** The one file `--format onnx` writes. */
export const ONNX_FILE = "model.onnx";
export const BOS_TOKEN = "<|bos|>", EOS_TOKEN = "<|eos|>";

export interface ExportOptions {
  model: string;
  out: string;
  format: ExportFormat;
}

export interface ExportReport {
  model: string;
  model_sha256: string;
  integrity: string;
  out: string;
  format: string;
  files: { name: string; bytes: number; sha256: string }[];
}

/** Files under `dir`, one level of subdirectory deep ("onnx/model.onnx"), after sweeping killed writers' temps. */
function exportEntries(dir: string): string[] {
  removeStaleTemps(dir);
  return readdirSync(dir).sort().flatMap((e) => {
    const sub = join(dir, e);
    if (!statSync(sub).isDirectory()) return [e];
    removeStaleTemps(sub);
    const inner = readdirSync(sub).sort().map((f) => `${e}/${f}`);
    return inner.length > 0 ? inner : [`${e}/`];
  });
}

/** Whether an existing file carries EXPORT_MARKER: config.json as a key, model.onnx in its metadata_props. */
function marked(path: string, kind: "config" | "onnx"): boolean {
  try {
    if (kind === "config") return Object.hasOwn(JSON.parse(readFileText(path, "config.json", FILE_LIMIT)), EXPORT_MARKER);
    return Object.hasOwn(readOnnxMetadata(readFileBytes(path, "ONNX file", Error, FILE_LIMIT)), EXPORT_MARKER);
  } catch {
    return false; // absent, or not JSON / not ONNX: not ours
  }
}

/**
 * The rule for --out: absent or empty, or a previous export of the same format: every file one the format
 * writes (temp files of killed writers are swept first) and config.json (hf-gpt2) or model.onnx (onnx) carrying
 * EXPORT_MARKER. Anything else is refused, named.
 */
export function checkExportDir(dir: string, format: ExportFormat = "hf-gpt2"): void {
  checkOutputDir(dir, "--out");
  if (!existsSync(dir)) return;
  const entries = exportEntries(dir);
  if (entries.length === 0) return;
  const allowed: readonly string[] = format === "onnx" ? [ONNX_FILE] : [...EXPORT_FILES, "onnx/"];
  const foreign = entries.filter((e) => !allowed.includes(e));
  const why = `only an empty directory or a previous ${format} export is overwritten`;
  if (foreign.length > 0) throw new Error(`--out ${dir}: holds ${foreign.map((e) => `"${e}"`).join(", ")}, which an ${format} export does not write; ${why}`);
  const key = format === "onnx" ? ONNX_FILE : "config.json";
  if (!marked(join(dir, key), format === "onnx" ? "onnx" : "config")) {
    throw new Error(`--out ${dir}: is not empty and its ${key} has no "${EXPORT_MARKER}" ${format === "onnx" ? "metadata entry" : "key"}, so it was not written by tinylab export; ${why}`);
  }
}

/** GPT2Config fields for a tinylab config; dropout sits where GPT-2's three do (embeddings, attention probabilities, residual branches). */
export function gpt2Config(c: ModelConfig, marker: Record<string, unknown>): Record<string, unknown> {
  return {
    model_type: "gpt2", architectures: ["GPT2LMHeadModel"],
    vocab_size: c.vocabSize, n_positions: c.contextLength, n_ctx: c.contextLength, n_embd: c.dModel, n_layer: c.nLayers, n_head: c.nHeads, n_inner: c.dFF,
    activation_function: "gelu_new", layer_norm_epsilon: LN_EPS, resid_pdrop: c.dropout, embd_pdrop: c.dropout, attn_pdrop: c.dropout,
    initializer_range: 0.02, scale_attn_weights: true, scale_attn_by_inverse_layer_idx: false, reorder_and_upcast_attn: false,
    tie_word_embeddings: c.tiedHead, bos_token_id: 0, eos_token_id: 1, torch_dtype: "float32", [EXPORT_MARKER]: marker,
  };
}

/** GPT-2's tensor names for tinylab's weights. Both use Conv1D's [in, out] and q | k | v column blocks, so only `head` [d, V] changes (to lm_head [V, d]). */
export function gpt2Tensors(w: ParamArrays, c: ModelConfig): Record<string, TensorEntry> {
  const { vocabSize: V, contextLength: T, dModel: C, dFF: Ff } = c;
  const f32 = (name: string, shape: number[]): TensorEntry => ({ dtype: "F32", shape, data: w.get(name)! });
  const out: Record<string, TensorEntry> = { "transformer.wte.weight": f32("wte", [V, C]), "transformer.wpe.weight": f32("wpe", [T, C]) };
  const pairs: [string, string, number[]][] = [
    ["ln_1.weight", "ln1.g", [C]], ["ln_1.bias", "ln1.b", [C]],
    ["attn.c_attn.weight", "attn.wqkv", [C, 3 * C]], ["attn.c_attn.bias", "attn.bqkv", [3 * C]],
    ["attn.c_proj.weight", "attn.wo", [C, C]], ["attn.c_proj.bias", "attn.bo", [C]],
    ["ln_2.weight", "ln2.g", [C]], ["ln_2.bias", "ln2.b", [C]],
    ["mlp.c_fc.weight", "mlp.w1", [C, Ff]], ["mlp.c_fc.bias", "mlp.b1", [Ff]],
    ["mlp.c_proj.weight", "mlp.w2", [Ff, C]], ["mlp.c_proj.bias", "mlp.b2", [C]],
  ];
  for (let l = 0; l < c.nLayers; l++) for (const [hf, ours, shape] of pairs) out[`transformer.h.${l}.${hf}`] = f32(`h${l}.${ours}`, shape);
  out["transformer.ln_f.weight"] = f32("lnf.g", [C]);
  out["transformer.ln_f.bias"] = f32("lnf.b", [C]);
  if (!c.tiedHead) {
    const head = w.get("head")!, t = new Float32Array(V * C); // [C, V] → [V, C]
    for (let i = 0; i < C; i++) for (let v = 0; v < V; v++) t[v * C + i] = head[i * V + v];
    out["lm_head.weight"] = { dtype: "F32", shape: [V, C], data: t };
  }
  return out;
}

/** GPT-2's reversible byte → printable character map (bytes_to_unicode in openai/gpt-2's encoder.py). */
export function bytesToUnicode(): string[] {
  const keep = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  let next = 256;
  return Array.from({ length: 256 }, (_, b) => String.fromCodePoint(keep(b) ? b : next++));
}

/**
 * tokenizer.json (Hugging Face tokenizers): byte-level BPE whose vocab maps each id's bytes, in GPT-2's
 * characters, to tinylab's id, merges in rank order. BOS, EOS and ids without bytes (reserved, or beyond the
 * tokenizer's vocabulary) are vocab entries named `<|bos|>`, `<|eos|>`, `<|reserved_N|>` and NOT added tokens:
 * a tokenizer cuts every added token's text out of the input before pre-splitting, so the literal text `<|bos|>`
 * in a document would become id 0 where tinylab encodes its seven bytes. No merge can produce these strings (the
 * pre-split cuts `<|`, `bos`, `|>` apart), so text never reaches them. The post-processor puts BOS first, as a
 * tinylab document starts. Two ids with the same bytes cannot be one vocab: refused.
 */
export function hfTokenizer(tokenizer: Tokenizer, vocabSize: number): Record<string, unknown> {
  const chars = bytesToUnicode();
  const str = (id: number) => Array.from(tokenizer.bytesOf(id), (b) => chars[b]).join("");
  const vocab: Record<string, number> = {};
  const special: { id: number; content: string }[] = [{ id: 0, content: BOS_TOKEN }, { id: 1, content: EOS_TOKEN }];
  for (let id = 2; id < vocabSize; id++) {
    const s = id < tokenizer.vocabSize ? str(id) : "";
    if (s === "") special.push({ id, content: `<|reserved_${id}|>` });
    else if (Object.hasOwn(vocab, s)) throw new Error(`tokenizer ids ${vocab[s]} and ${id} stand for the same bytes; a Hugging Face BPE vocabulary cannot hold both`);
    else vocab[s] = id;
  }
  for (const t of special) {
    if (Object.hasOwn(vocab, t.content)) throw new Error(`tokenizer id ${vocab[t.content]} stands for the bytes of the special token ${t.content}`);
    vocab[t.content] = t.id;
  }
  const json: TokenizerJSON = tokenizer.toJSON();
  const merges = json.kind === "bpe" ? json.merges.map(([a, b]) => `${str(a)} ${str(b)}`) : [];
  const byteLevel = { add_prefix_space: false, trim_offsets: true, use_regex: true };
  const bos = { SpecialToken: { id: BOS_TOKEN, type_id: 0 } }, seq = (id: "A" | "B") => ({ Sequence: { id, type_id: 0 } });
  return {
    version: "1.0", truncation: null, padding: null, added_tokens: [], normalizer: null,
    pre_tokenizer: { type: "ByteLevel", ...byteLevel },
    post_processor: {
      type: "TemplateProcessing", single: [bos, seq("A")], pair: [bos, seq("A"), seq("B")],
      special_tokens: { [BOS_TOKEN]: { id: BOS_TOKEN, ids: [0], tokens: [BOS_TOKEN] } },
    },
    decoder: { type: "ByteLevel", ...byteLevel },
    model: {
      type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: "", end_of_word_suffix: "", fuse_unk: false, byte_fallback: false,
      vocab: Object.fromEntries(Object.entries(vocab).sort((a, b) => a[1] - b[1])), merges,
    },
  };
}

/** Decode the model file, check --out by the rule above, and write the format's files (each atomically). */
export function exportModel(o: ExportOptions): ExportReport {
  if (!(EXPORT_FORMATS as readonly string[]).includes(o.format)) throw new Error(`--format must be one of ${EXPORT_FORMATS.join(", ")}, got ${o.format}`);
  checkExportDir(o.out, o.format);
  const parts = decodeModelParts(readSafetensorsBytes(o.model, "model file", ModelFileError), o.model);
  const { config, tokenizer, weights } = parts;
  const marker = { format: `tinylab-${o.format}/1`, source_format: parts.metadata.format, model_sha256: parts.sha256, trained: parts.provenance };
  const onnx = () => onnxModel(config, weights, { metadata: { [EXPORT_MARKER]: JSON.stringify(marker) } });
  const contents: [string, string | Uint8Array][] = o.format === "onnx" ? [[ONNX_FILE, onnx()]] : [
    ["config.json", JSON.stringify(gpt2Config(config, marker), null, 2) + "\n"],
    ["model.safetensors", encodeSafetensors(gpt2Tensors(weights, config), { format: "pt" })],
    ["tokenizer.json", JSON.stringify(hfTokenizer(tokenizer, config.vocabSize)) + "\n"],
    ["tokenizer_config.json", JSON.stringify({
      tokenizer_class: "PreTrainedTokenizerFast", bos_token: BOS_TOKEN, eos_token: EOS_TOKEN, add_bos_token: true, add_eos_token: false,
      additional_special_tokens: [BOS_TOKEN, EOS_TOKEN], add_prefix_space: false, model_max_length: config.contextLength, clean_up_tokenization_spaces: false,
    }, null, 2) + "\n"],
    ["special_tokens_map.json", JSON.stringify({ bos_token: BOS_TOKEN, eos_token: EOS_TOKEN }, null, 2) + "\n"],
    ["onnx/model.onnx", onnx()],
  ];
  ensureDir(o.out, "--out");
  const files = contents.map(([name, data]) => {
    if (name.includes("/")) ensureDir(join(o.out, dirname(name)), "--out");
    writeFileAtomic(join(o.out, name), data);
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    return { name, bytes: bytes.length, sha256: sha256Bytes(bytes) };
  });
  return { model: o.model, model_sha256: parts.sha256, integrity: parts.integrity, out: o.out, format: o.format, files };
}
