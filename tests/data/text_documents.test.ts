// Cutting text into documents a piece at a time: the same documents as the whole text cut at once, by main's
// regular-expression rule (copied below as the reference), whatever the pieces and wherever they end.
import { describe, expect, it } from "vitest";
import { DocumentCutter, documentsOfText } from "../../src/data/text_documents.ts";
import { Rng } from "../../src/util/primitives/rng.ts";

/** The rule as one pass over the whole text: the reference the cutter must agree with. */
function reference(text: string, file: string, source: string, onePerLine: boolean) {
  const body = text.replace(/^\ufeff/, "").replace(/\r\n?/g, "\n");
  const parts = onePerLine ? body.split("\n") : body.split(/\n[ \t]*\n/);
  const out: { id: string; source: string; file: string; text: string }[] = [];
  for (const p of parts) {
    const t = p.trim();
    if (t.length > 0) out.push({ id: `${file}#${out.length + 1}`, source, file, text: t });
  }
  return out;
}

/** A text built from the characters the rule looks at: newlines of three kinds, blanks, a BOM, and words. */
function randomText(rng: Rng, length: number): string {
  const atoms = ["\n", "\r\n", "\r", " ", "\t", "  \t ", "\n\n", "\r\n\r\n", "\n \n", "word", "é", "𝄞", "\ufeff", "x y"];
  let s = rng.next() < 0.3 ? "\ufeff" : "";
  while (s.length < length) s += atoms[Math.floor(rng.next() * atoms.length)];
  return s;
}

/** `text` cut at random places (a surrogate pair may be cut too: a decoder never does that, the cutter need not care). */
function randomPieces(rng: Rng, text: string): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < text.length;) {
    const n = Math.min(text.length - at, Math.floor(rng.next() * 12));
    pieces.push(text.slice(at, at + n));
    at += n;
  }
  return pieces;
}

describe("cutting text into documents", () => {
  it("gives the whole text's documents however the text is cut into pieces, in both modes", () => {
    const rng = Rng.fromSeed(7);
    for (let k = 0; k < 400; k++) {
      const text = randomText(rng, Math.floor(rng.next() * 120));
      for (const onePerLine of [false, true]) {
        const expected = reference(text, "f.txt", "f", onePerLine);
        expect(documentsOfText(text, "f.txt", "f", onePerLine)).toEqual(expected);
        const cutter = new DocumentCutter("f.txt", "f", onePerLine);
        for (const p of randomPieces(rng, text)) cutter.push(p);
        expect(cutter.end(), JSON.stringify({ text, onePerLine })).toEqual(expected);
      }
    }
  });

  it("cuts at the edges that matter: \\r and \\n in two pieces, a blank line across pieces, a BOM after empty pieces", () => {
    const cases: [string[], boolean][] = [
      [["a\r", "\nb"], true],
      [["a\r", "\r\nb\r"], true],
      [["one\n", "  \t", "\n", "two"], false],
      [["one\n \t", " \t\n", "two"], false],
      [["one\n \t", "x\n\ntwo"], false],
      [["", "", "\ufeffone\r", "\n\r", "\ntwo\r"], false],
    ];
    for (const [pieces, onePerLine] of cases) {
      const cutter = new DocumentCutter("f", "f", onePerLine);
      for (const p of pieces) cutter.push(p);
      expect(cutter.end(), JSON.stringify(pieces)).toEqual(reference(pieces.join(""), "f", "f", onePerLine));
    }
  });

  it("keeps a document longer than every piece whole, in time linear in it (no piece rescanned)", () => {
    const piece = "word ".repeat(2000) + "\n   "; // ends where a blank line may begin
    const cutter = new DocumentCutter("f", "f", false);
    for (let k = 0; k < 200; k++) cutter.push(piece);
    const docs = cutter.end();
    expect(docs).toHaveLength(1);
    expect(docs[0].text).toBe(reference(piece.repeat(200), "f", "f", false)[0].text);
  });
});
