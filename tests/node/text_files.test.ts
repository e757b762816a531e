// Reading a --text file a chunk at a time (src/node/text_files.ts readTextInput): the documents of the whole text
// whatever falls on a chunk's edge, the MiB read shown as progress, and bad UTF-8 still refused naming its line.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { documentsOfText } from "../../src/data/text_documents.ts";
import { readTextInput } from "../../src/node/text_files.ts";

const dir = mkdtempSync(join(tmpdir(), "tinylab-text-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MIB = 2 ** 20;

describe("reading a text file in chunks", () => {
  // a BOM, then text up to a chunk's edge where "\r\n", a blank line and a 4-byte character are cut in two
  const head = "\ufeffone\r\n\r\ntwo\n";
  const filler = (bytes: number) => "w".repeat(bytes);
  const at = (edge: number, text: string, cut: number) => {
    const before = new TextEncoder().encode(text).length;
    return filler(edge - before - cut);
  };
  let text = head;
  text += at(MIB, text, 1) + "\r\n"; // "\r" ends the first chunk
  text += at(2 * MIB, text, 2) + "\n \t\n"; // the blank line starts two bytes before the second chunk ends
  text += at(3 * MIB, text, 2) + "𝄞 é\r"; // the 4-byte character is cut after its second byte; a "\r" ends the text
  const path = join(dir, "edges.txt");
  writeFileSync(path, text);

  it("gives the documents of the whole text, in both modes, and shows the MiB read", () => {
    const lines: string[] = [];
    const stream = { write: (s: string) => lines.push(s), quietMs: 0 };
    for (const onePerLine of [false, true]) {
      const docs = readTextInput(path, onePerLine, stream);
      expect(docs).toEqual(documentsOfText(text.slice(1), path, "edges.txt", onePerLine));
    }
    expect(lines.at(-1)).toMatch(/^read {2}4\/4 MiB {2}100\.0% .* elapsed /);
  });

  it("refuses bad UTF-8 past the first chunk, or cut short at the end, naming its line", () => {
    const bad = join(dir, "bad.txt");
    const good = `${"x".repeat(999)}\n`.repeat(1100); // 1.1 MB: the bad byte is in the second chunk, on line 1101
    writeFileSync(bad, Buffer.concat([Buffer.from(good), Buffer.from([0x61, 0xff, 0x0a])]));
    expect(() => readTextInput(bad, true)).toThrow(`${bad} line 1101: not valid UTF-8 (--text must be UTF-8 text)`);
    // a character cut short by the end of the file, and a file of its byte-order mark alone
    writeFileSync(bad, Buffer.from([0x6f, 0x6b, 0x0a, 0xe2, 0x82]));
    expect(() => readTextInput(bad, true)).toThrow(`${bad} line 2: not valid UTF-8`);
    writeFileSync(bad, Buffer.from([0xef, 0xbb, 0xbf]));
    expect(() => readTextInput(bad, true)).toThrow(`${bad}: no text (the file is empty or only blank lines)`);
  });
});
