// How document and generated text is shown to a reader, on the page and on the console: special tokens as
// ⟨BOS⟩/⟨EOS⟩, control characters as escapes, invalid UTF-8 as a marked placeholder, "" as (empty). Display only.

export const BOS_MARK = "⟨BOS⟩";
export const EOS_MARK = "⟨EOS⟩";
/** What a U+FFFD from decoding invalid UTF-8 (e.g. half of a multi-byte character) is shown as. */
export const INVALID_MARK = "⟨?⟩";
export const EMPTY_MARK = "(empty)";

const NAMED: Record<string, string> = { "\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\" };

/** One character as the reader sees it: named escapes, \xNN for other control characters (C0, DEL, C1). */
function visibleChar(c: string): string {
  if (c in NAMED) return NAMED[c];
  if (c === "\uFFFD") return INVALID_MARK;
  const code = c.codePointAt(0)!;
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return `\\x${code.toString(16).padStart(2, "0")}`;
  return c;
}

/** Every character made visible (escapes, ⟨?⟩), an empty string left empty: for pieces joined into a longer text. */
export function visibleChars(s: string): string {
  return Array.from(s, visibleChar).join("");
}

/** Text made visible: nothing invisible, nothing that breaks a table row, and never an empty string. */
export function visibleText(s: string | null | undefined): string {
  if (s === null || s === undefined || s === "") return EMPTY_MARK;
  return visibleChars(s);
}

/** One token: BOS and EOS (ids 0 and 1, src/data/tokenizer.ts) by name, any other by its visible text. */
export function tokenText(id: number, text: string): string {
  return id === 0 ? BOS_MARK : id === 1 ? EOS_MARK : visibleText(text);
}

/** A generated continuation, with ⟨EOS⟩ after it when generation stopped at the end-of-sequence token. */
export function continuationText(text: string, stopped?: string): string {
  const body = text === "" && stopped === "stop-token" ? "" : visibleText(text);
  return stopped === "stop-token" ? body + EOS_MARK : body;
}
