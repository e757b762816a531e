// The Hugging Face GPT-2 layout of a tinylab model, as plain values: config.json's fields, the tensors under GPT-2's
// names, tokenizer.json (byte-level BPE) and its two small companions. Pure (no file system, no engine): the
// export writes these, and nothing here reads one back.
import { bytesToUnicode } from "../data/hf_tokenizer.ts";
import type { Tokenizer, TokenizerJSON } from "../data/tokenizer.ts";
import type { TensorEntry } from "../util/formats/safetensors.ts";
import type { ModelConfig } from "./config.ts";
import type { ParamArrays } from "./init.ts";
import { LN_EPS } from "./ops.ts";

export const BOS_TOKEN = "<|bos|>",
  EOS_TOKEN = "<|eos|>";

/** GPT2Config fields for a tinylab config, plus `marker`'s keys (the export's own); dropout sits where GPT-2's three do (embeddings, attention probabilities, residual branches). */
export function gpt2Config(c: ModelConfig, marker: Record<string, Record<string, unknown>>): Record<string, unknown> {
  return {
    model_type: "gpt2",
    architectures: ["GPT2LMHeadModel"],
    vocab_size: c.vocabSize,
    n_positions: c.contextLength,
    n_ctx: c.contextLength,
    n_embd: c.dModel,
    n_layer: c.nLayers,
    n_head: c.nHeads,
    n_inner: c.dFF,
    activation_function: "gelu_new",
    layer_norm_epsilon: LN_EPS,
    resid_pdrop: c.dropout,
    embd_pdrop: c.dropout,
    attn_pdrop: c.dropout,
    initializer_range: 0.02,
    scale_attn_weights: true,
    scale_attn_by_inverse_layer_idx: false,
    reorder_and_upcast_attn: false,
    tie_word_embeddings: c.tiedHead,
    bos_token_id: 0,
    eos_token_id: 1,
    torch_dtype: "float32",
    ...marker,
  };
}

/** GPT-2's tensor names for tinylab's weights. Both use Conv1D's [in, out] and q | k | v column blocks, so only `head` [d, V] changes (to lm_head [V, d]). */
export function gpt2Tensors(w: ParamArrays, c: ModelConfig): Record<string, TensorEntry> {
  const { vocabSize: V, contextLength: T, dModel: C, dFF: Ff } = c;
  const f32 = (name: string, shape: number[]): TensorEntry => ({ dtype: "F32", shape, data: w.get(name)! });
  const out: Record<string, TensorEntry> = { "transformer.wte.weight": f32("wte", [V, C]), "transformer.wpe.weight": f32("wpe", [T, C]) };
  const pairs: [string, string, number[]][] = [
    ["ln_1.weight", "ln1.g", [C]],
    ["ln_1.bias", "ln1.b", [C]],
    ["attn.c_attn.weight", "attn.wqkv", [C, 3 * C]],
    ["attn.c_attn.bias", "attn.bqkv", [3 * C]],
    ["attn.c_proj.weight", "attn.wo", [C, C]],
    ["attn.c_proj.bias", "attn.bo", [C]],
    ["ln_2.weight", "ln2.g", [C]],
    ["ln_2.bias", "ln2.b", [C]],
    ["mlp.c_fc.weight", "mlp.w1", [C, Ff]],
    ["mlp.c_fc.bias", "mlp.b1", [Ff]],
    ["mlp.c_proj.weight", "mlp.w2", [Ff, C]],
    ["mlp.c_proj.bias", "mlp.b2", [C]],
  ];
  for (let l = 0; l < c.nLayers; l++) for (const [hf, ours, shape] of pairs) out[`transformer.h.${l}.${hf}`] = f32(`h${l}.${ours}`, shape);
  out["transformer.ln_f.weight"] = f32("lnf.g", [C]);
  out["transformer.ln_f.bias"] = f32("lnf.b", [C]);
  if (!c.tiedHead) {
    const head = w.get("head")!,
      t = new Float32Array(V * C); // [C, V] → [V, C]
    for (let i = 0; i < C; i++) for (let v = 0; v < V; v++) t[v * C + i] = head[i * V + v];
    out["lm_head.weight"] = { dtype: "F32", shape: [V, C], data: t };
  }
  return out;
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
  const special: { id: number; content: string }[] = [
    { id: 0, content: BOS_TOKEN },
    { id: 1, content: EOS_TOKEN },
  ];
  for (let id = 2; id < vocabSize; id++) {
    const s = id < tokenizer.vocabSize ? str(id) : "";
    if (s === "") special.push({ id, content: `<|reserved_${id}|>` });
    else if (Object.hasOwn(vocab, s))
      throw new Error(`tokenizer ids ${vocab[s]} and ${id} stand for the same bytes; a Hugging Face BPE vocabulary cannot hold both`);
    else vocab[s] = id;
  }
  for (const t of special) {
    if (Object.hasOwn(vocab, t.content))
      throw new Error(`tokenizer id ${vocab[t.content]} stands for the bytes of the special token ${t.content}`);
    vocab[t.content] = t.id;
  }
  const json: TokenizerJSON = tokenizer.toJSON();
  const merges = json.kind === "bpe" ? json.merges.map(([a, b]) => `${str(a)} ${str(b)}`) : [];
  const byteLevel = { add_prefix_space: false, trim_offsets: true, use_regex: true };
  const bos = { SpecialToken: { id: BOS_TOKEN, type_id: 0 } },
    seq = (id: "A" | "B") => ({ Sequence: { id, type_id: 0 } });
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: [],
    normalizer: null,
    pre_tokenizer: { type: "ByteLevel", ...byteLevel },
    post_processor: {
      type: "TemplateProcessing",
      single: [bos, seq("A")],
      pair: [bos, seq("A"), seq("B")],
      special_tokens: { [BOS_TOKEN]: { id: BOS_TOKEN, ids: [0], tokens: [BOS_TOKEN] } },
    },
    decoder: { type: "ByteLevel", ...byteLevel },
    model: {
      type: "BPE",
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: "",
      end_of_word_suffix: "",
      fuse_unk: false,
      byte_fallback: false,
      vocab: Object.fromEntries(Object.entries(vocab).sort((a, b) => a[1] - b[1])),
      merges,
    },
  };
}

/** tokenizer_config.json: the fast tokenizer class with BOS added first, as a tinylab document starts. */
export function hfTokenizerConfig(c: ModelConfig): Record<string, unknown> {
  return {
    tokenizer_class: "PreTrainedTokenizerFast",
    bos_token: BOS_TOKEN,
    eos_token: EOS_TOKEN,
    add_bos_token: true,
    add_eos_token: false,
    additional_special_tokens: [BOS_TOKEN, EOS_TOKEN],
    add_prefix_space: false,
    model_max_length: c.contextLength,
    clean_up_tokenization_spaces: false,
  };
}

/** special_tokens_map.json. */
export const hfSpecialTokens = (): Record<string, string> => ({ bos_token: BOS_TOKEN, eos_token: EOS_TOKEN });
