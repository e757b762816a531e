// Rebuilds any tokenizer from its JSON form (checkpoints and results store tokenizers this way).
// Not a trainer: see bpe.ts for learning merges.
import { BpeTokenizer } from "./bpe.ts";
import { ByteTokenizer, type Tokenizer } from "./tokenizer.ts";

/** Tokenizer for `json` (`{kind: "byte" | "bpe", ...}`); throws a clear error on anything else. */
export function tokenizerFromJSON(json: unknown): Tokenizer {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new Error(`tokenizer JSON must be an object with a "kind", got ${json === null ? "null" : Array.isArray(json) ? "an array" : typeof json}`);
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
