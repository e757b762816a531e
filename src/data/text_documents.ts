// Plain text cut into documents: at blank lines (a line holding only spaces or tabs counts as blank), or one per
// non-blank line. A text given a piece at a time (read in chunks) cuts to exactly the documents of the whole, so a
// large file is cut as it is read. Pure: no file system (src/node/text_files.ts reads), not the split (text_split.ts).

/** One document of a text input before the split; `file` is the file it came from (named when it changes). */
export interface TextSource {
  id: string;
  source: string;
  file: string;
  text: string;
}

/** A blank line between two documents; found left to right, as String.prototype.split finds it. */
const SEPARATOR = /\n[ \t]*\n/g;

/**
 * Cuts text given in pieces (`push`, in order, then `end`) into the documents `documentsOfText` gives of the whole
 * text: the same texts, ids and order whatever the pieces. Held between pieces: a trailing "\r" (it may be half of
 * "\r\n"), the unfinished document's pieces, and the part of it where a separator may have begun (its last newline
 * followed only by spaces or tabs).
 */
export class DocumentCutter {
  readonly documents: TextSource[] = [];
  private readonly prefix: string;
  private started = false; // a non-empty piece came: its leading byte-order mark is gone
  private cr = false; // the last piece ended in "\r"
  private pending: string[] = []; // the unfinished document, newlines normalised
  private tail = ""; // its end from the last "\n" followed only by spaces or tabs (blank-line mode): rescanned with the next piece

  constructor(
    private readonly file: string,
    private readonly source: string,
    private readonly onePerLine: boolean,
  ) {
    this.prefix = `${file}#`;
  }

  push(piece: string): this {
    if (!this.started) {
      if (piece.length === 0) return this;
      this.started = true;
      if (piece.charCodeAt(0) === 0xfeff) piece = piece.slice(1);
    }
    let s = this.cr ? "\r" + piece : piece;
    this.cr = s.endsWith("\r");
    if (this.cr) s = s.slice(0, -1);
    this.cut(s.includes("\r") ? s.replace(/\r\n?/g, "\n") : s);
    return this;
  }

  /** The documents, once the last piece is in: a "\r" left at the very end is a newline, as it is in the whole. */
  end(): TextSource[] {
    if (this.cr) this.cut("\n");
    this.cr = false;
    this.emit(this.tail);
    this.tail = "";
    return this.documents;
  }

  private cut(s: string): void {
    if (this.onePerLine) {
      const lines = s.split("\n");
      for (let i = 0; i < lines.length - 1; i++) this.emit(lines[i]);
      this.pending.push(lines[lines.length - 1]);
      return;
    }
    const text = this.tail + s;
    let from = 0;
    SEPARATOR.lastIndex = 0;
    for (let m = SEPARATOR.exec(text); m !== null; m = SEPARATOR.exec(text)) {
      this.emit(text.slice(from, m.index));
      from = m.index + m[0].length;
    }
    // a separator not yet complete can only start at the last newline, and only if spaces or tabs alone follow it
    let k = text.length;
    while (k > from && (text.charCodeAt(k - 1) === 32 || text.charCodeAt(k - 1) === 9)) k--;
    const open = k > from && text.charCodeAt(k - 1) === 10 ? k - 1 : text.length;
    this.pending.push(text.slice(from, open));
    this.tail = text.slice(open);
  }

  /** The unfinished document ends with `last`: kept, trimmed, when it holds anything but white space. */
  private emit(last: string): void {
    const text = (this.pending.length > 0 ? this.pending.join("") + last : last).trim();
    this.pending = [];
    if (text.length > 0) this.documents.push({ id: this.prefix + (this.documents.length + 1), source: this.source, file: this.file, text });
  }
}

/**
 * Documents of one text: separated by blank lines (a line holding only spaces counts as blank), or one per
 * non-blank line with `onePerLine`. Ids are `<file>#<n>` (n from 1), the source is given. A leading byte-order mark
 * is dropped and "\r\n" or "\r" read as "\n"; each document is trimmed, and an empty one dropped.
 */
export function documentsOfText(text: string, file: string, source: string, onePerLine: boolean): TextSource[] {
  return new DocumentCutter(file, source, onePerLine).push(text).end();
}

/** Bytes of `s` in UTF-8 (a lone surrogate counts 3, as U+FFFD), without encoding it. */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a pair: 2 units, 4 bytes
      i++;
    } else n += 2;
  }
  return n;
}
