// Rebuilds any tokenizer from its JSON form (checkpoints and results store tokenizers this way), and states the
// id scheme they share.
// Not a trainer: see bpe.ts for learning merges.
import { BpeTokenizer, CHUNK_RE } from "./bpe.ts";
import { BOS, BYTE_OFFSET, BYTE_VOCAB, ByteTokenizer, EOS, type Tokenizer } from "./tokenizer.ts";

/** Tokenizer for `json` (`{kind: "byte" | "bpe", ...}`); throws a clear error on anything else. */
export function tokenizerFromJSON(json: unknown): Tokenizer {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new Error(
      `tokenizer JSON must be an object with a "kind", got ${json === null ? "null" : Array.isArray(json) ? "an array" : typeof json}`,
    );
  }
  const { kind, vocabSize } = json as Record<string, unknown>;
  switch (kind) {
    case "byte":
      return new ByteTokenizer(vocabSize as number); // the constructor rejects a bad vocabSize
    case "bpe":
      return BpeTokenizer.fromJSON(json);
    default:
      throw new Error(`unknown tokenizer kind ${JSON.stringify(kind)} (expected "byte" or "bpe")`);
  }
}

/** The id scheme and pre-split every tokenizer here shares, as a model file declares it (`tokenizer_scheme`). */
export interface TokenizerScheme {
  bos: number;
  eos: number;
  /** Byte b is id b + byte_offset. */
  byte_offset: number;
  /** BPE merge r is id merge_offset + r. */
  merge_offset: number;
  /** BPE merges apply within chunks of this pre-split only (a byte tokenizer does not split). */
  pre_split: "gpt2";
  /** CHUNK_RE as a JavaScript regex literal, flags included. */
  pre_split_pattern: string;
}

export const TOKENIZER_SCHEME: Readonly<TokenizerScheme> = Object.freeze({
  bos: BOS,
  eos: EOS,
  byte_offset: BYTE_OFFSET,
  merge_offset: BYTE_VOCAB,
  pre_split: "gpt2",
  pre_split_pattern: String(CHUNK_RE),
});
