// Bits per UTF-8 byte and bits per Unicode character of scored targets: the tokenizer-free normalisations
// of a summed NLL. Not a scorer: the NLL total comes from the likelihood evaluators.
import type { Tokenizer } from "../../data/tokenizer.ts";
import { reasoned } from "./reasoned.ts";

/**
 * UTF-8 bytes of the scored targets ids[1..]: the first token is context only, so its bytes are excluded
 * (nothing predicted them); BOS, EOS and PAD stand for no text and count zero bytes (tokenizer.bytesOf).
 */
export function scoredBytes(tokenizer: Pick<Tokenizer, "bytesOf">, ids: readonly number[]): number {
  let n = 0;
  for (let i = 1; i < ids.length; i++) n += tokenizer.bytesOf(ids[i]).length;
  return n;
}

/**
 * Unicode code points of the text the scored targets ids[1..] decode to. Exact when the first token
 * ends on a character boundary (always so after BOS); equals scoredBytes only for ASCII text.
 */
export function scoredChars(tokenizer: Pick<Tokenizer, "decode">, ids: readonly number[]): number {
  return Array.from(tokenizer.decode(ids.slice(1))).length;
}

/** NLL in nats summed over targets, divided by ln 2 and by the bytes those targets stand for. */
export function bitsPerByte(totalNll: number, bytes: number): number {
  if (!Number.isInteger(bytes) || bytes < 0) throw new Error(`byte count must be a non-negative integer, got ${bytes}`);
  return bytes === 0 ? NaN : totalNll / (Math.LN2 * bytes);
}

/** The same normalisation by Unicode characters (code points) instead of bytes. */
export function bitsPerChar(totalNll: number, chars: number): number {
  if (!Number.isInteger(chars) || chars < 0) throw new Error(`character count must be a non-negative integer, got ${chars}`);
  return chars === 0 ? NaN : totalNll / (Math.LN2 * chars);
}

/** Stated with every bits-per-byte number, so nobody has to guess the denominator. */
export const BPB_DEFINITION =
  "bits per UTF-8 byte of the scored targets (each sequence's first token excluded; BOS, EOS and PAD count 0 bytes); bits per character use Unicode code points of the same targets";

/** The JSON record: both normalisations with their denominators beside them. */
export function bpbRecord(totalNll: number, targets: number, bytes: number, chars: number) {
  return {
    targets,
    bytes,
    chars,
    ...reasoned("bytes_per_target", targets === 0 ? NaN : bytes / targets, "no targets"),
    ...reasoned("nats_per_target", targets === 0 ? NaN : totalNll / targets, "no targets"),
    ...reasoned("bits_per_byte", bitsPerByte(totalNll, bytes), "the scored targets stand for no bytes (BOS, EOS and PAD count 0)"),
    ...reasoned("bits_per_char", bitsPerChar(totalNll, chars), "the scored targets stand for no characters"),
  };
}
