// Token ids made visible for printing, through the one text-display helper (src/util/render/text_view.ts): special tokens
// as ⟨BOS⟩/⟨EOS⟩/⟨id N⟩, control characters as escapes, invalid UTF-8 as ⟨?⟩. Presentation only; decoding stays the tokenizer's.
import type { Tokenizer } from "../../data/tokenizer.ts";
import { BOS_MARK, EOS_MARK, visibleChars } from "../../util/render/text_view.ts";

/** One token's text: its bytes decoded alone (a lone piece of a multi-byte character shows as ⟨?⟩). */
export function visibleToken(tokenizer: Tokenizer, id: number): string {
  if (id === tokenizer.bos) return BOS_MARK;
  if (id === tokenizer.eos) return EOS_MARK;
  if (tokenizer.bytesOf(id).length === 0) return `⟨id ${id}⟩`;
  return visibleChars(tokenizer.decode([id]));
}

/** A token sequence's text: runs of byte-carrying tokens decoded together (so split characters rejoin), specials marked. */
export function visibleIds(tokenizer: Tokenizer, ids: readonly number[]): string {
  let out = "",
    run: number[] = [];
  const flush = () => {
    if (run.length > 0) out += visibleChars(tokenizer.decode(run));
    run = [];
  };
  for (const id of ids) {
    if (tokenizer.bytesOf(id).length > 0) run.push(id);
    else {
      flush();
      out += visibleToken(tokenizer, id);
    }
  }
  flush();
  return out;
}
