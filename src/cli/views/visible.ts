// Token text made visible for printing: special tokens as ⟨bos⟩/⟨eos⟩/⟨id N⟩, control characters as escapes.
// Presentation only; not a tokenizer (decoding stays src/data/tokenizer.ts's).
import type { Tokenizer } from "../../data/tokenizer.ts";

/** Control characters (C0, DEL, C1) as \n, \t, \r or \xNN / \u{NNNN}; a backslash is doubled so escapes stay unambiguous. */
export function escapeControls(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\\]/g, (c) => {
    if (c === "\\") return "\\\\";
    if (c === "\n") return "\\n";
    if (c === "\t") return "\\t";
    if (c === "\r") return "\\r";
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
  });
}

/** One token's text: its bytes decoded alone (a lone piece of a multi-byte character shows as U+FFFD). */
export function visibleToken(tokenizer: Tokenizer, id: number): string {
  if (id === tokenizer.bos) return "⟨bos⟩";
  if (id === tokenizer.eos) return "⟨eos⟩";
  if (tokenizer.bytesOf(id).length === 0) return `⟨id ${id}⟩`;
  return escapeControls(tokenizer.decode([id]));
}

/** A token sequence's text: runs of byte-carrying tokens decoded together (so split characters rejoin), specials marked. */
export function visibleText(tokenizer: Tokenizer, ids: readonly number[]): string {
  let out = "", run: number[] = [];
  const flush = () => {
    if (run.length > 0) out += escapeControls(tokenizer.decode(run));
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
