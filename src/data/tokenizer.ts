// Tokenizers: the interface every tokenizer implements, the byte-level tokenizer, and JSON round trips.
// Not a trainer of merges (see bpe.ts) and not document encoding (see documents.ts).

/** The tokenizer kinds, as `--tokenizer` and the JSON form's `kind` name them. */
export const TOKENIZER_KINDS = ["byte", "bpe"] as const satisfies readonly TokenizerJSON["kind"][];

/** JSON form of any tokenizer; `kind` selects the constructor in `tokenizerFromJSON`. */
export type TokenizerJSON = { kind: "byte"; vocabSize: number } | { kind: "bpe"; vocabSize: number; merges: [number, number][] };

/** What the lab needs from a tokenizer. Ids 0 and 1 are always BOS and EOS. */
export interface Tokenizer {
  readonly kind: TokenizerJSON["kind"];
  readonly vocabSize: number;
  readonly bos: number;
  readonly eos: number;
  /** Content ids for `text` (no BOS/EOS). */
  encode(text: string): number[];
  /** Text for content ids; BOS/EOS/reserved ids decode to nothing. */
  decode(ids: readonly number[]): string;
  /** UTF-8 bytes that token `id` stands for (0 for BOS, EOS and unused ids). */
  bytesOf(id: number): Uint8Array;
  toJSON(): TokenizerJSON;
}

/**
 * What scoring, generation and the report need of a tokenizer, tinylab's or another model's (hf_tokenizer.ts
 * under a convention): no kind, and a JSON form of its own that names it in results.
 */
export type AnyTokenizer = Pick<Tokenizer, "vocabSize" | "bos" | "eos" | "encode" | "decode" | "bytesOf"> & { toJSON(): unknown };

export const BOS = 0;
export const EOS = 1;
/** Byte b is id b + BYTE_OFFSET. */
export const BYTE_OFFSET = 2;
export const BYTE_VOCAB = 256 + BYTE_OFFSET;

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: false });
const EMPTY = new Uint8Array(0);

/** Byte-level tokenizer: BOS 0, EOS 1, byte b → b + 2; ids ≥ 258 reserved (e.g. for merges). */
export class ByteTokenizer implements Tokenizer {
  readonly kind = "byte" as const;
  readonly bos = BOS;
  readonly eos = EOS;
  constructor(readonly vocabSize: number = BYTE_VOCAB) {
    if (!Number.isInteger(vocabSize) || vocabSize < BYTE_VOCAB) {
      throw new Error(`byte tokenizer vocabSize must be an integer ≥ ${BYTE_VOCAB}, got ${vocabSize}`);
    }
  }
  encode(text: string): number[] {
    return Array.from(utf8.encode(text), (b) => b + BYTE_OFFSET);
  }
  decode(ids: readonly number[]): string {
    const bytes: number[] = [];
    for (const id of ids) for (const b of this.bytesOf(id)) bytes.push(b);
    return utf8Decoder.decode(new Uint8Array(bytes));
  }
  bytesOf(id: number): Uint8Array {
    return id >= BYTE_OFFSET && id < BYTE_VOCAB ? Uint8Array.of(id - BYTE_OFFSET) : EMPTY;
  }
  toJSON(): TokenizerJSON {
    return { kind: "byte", vocabSize: this.vocabSize };
  }
}
