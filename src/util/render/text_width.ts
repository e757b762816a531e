// Estimated widths of SVG text without a DOM, and text cut or wrapped to fit them: what every chart lays out by.
// Not drawing (svg.ts draws the text these measure).

export const FONT_SIZE = 12;

// Advance widths (em) of DejaVu Sans, the face Debian's Chromium resolves "sans-serif" to; other sans faces
// (Helvetica, Arial, Liberation) are narrower, so budgets made from these hold there too. The browser test
// (tests/browser/) measures the rendered boxes and fails on any overlap or clipping these estimates cause.
const NARROW = "iljI.,:;'|!`"; // about 0.28–0.34 em
const WIDE_LOWER = "mw"; // about 0.82–0.97 em
const EM: Record<string, number> = {
  " ": 0.318,
  "(": 0.39,
  ")": 0.39,
  "[": 0.39,
  "]": 0.39,
  "-": 0.361,
  "/": 0.337,
  f: 0.352,
  r: 0.411,
  t: 0.392,
  s: 0.521,
  c: 0.55,
  z: 0.525,
  "=": 0.838,
  "+": 0.838,
  "×": 0.838,
  "<": 0.838,
  ">": 0.838,
  "%": 0.95,
  "—": 1,
  "…": 1,
  M: 0.863,
  W: 0.989,
};

/** Width of one character in em, from the table above (wide guesses for anything it lacks). */
function charEm(c: string): number {
  if (c in EM) return EM[c];
  if (NARROW.includes(c)) return 0.34;
  if (WIDE_LOWER.includes(c)) return 0.98;
  if (c >= "0" && c <= "9") return 0.636;
  if (c >= "a" && c <= "z") return 0.636;
  if (c >= "A" && c <= "Z") return 0.78;
  return c.charCodeAt(0) < 128 ? 0.7 : 0.9; // punctuation; then Greek, arrows, ⟨⟩ and the like
}

/**
 * Estimated rendered width of a label in pixels: no font metrics without a DOM, so layout uses a table of
 * per-character widths; bold text is about 8% wider in DejaVu Sans Bold, rounded up to 12%.
 */
export function textWidth(s: string, size = FONT_SIZE, bold = false): number {
  let em = 0;
  for (const c of s) em += charEm(c);
  return em * size * (bold ? 1.12 : 1);
}

/** Shortens a label to fit `maxPx`, marking the cut with an ellipsis rather than silently overflowing. */
export function fitText(s: string, maxPx: number, size = FONT_SIZE): string {
  if (textWidth(s, size) <= maxPx + 1e-6) return s;
  const chars = Array.from(s);
  while (chars.length > 0 && textWidth(`${chars.join("")}…`, size) > maxPx) chars.pop();
  return `${chars.join("")}…`;
}

export const TITLE_SIZE = 15;

/** Width a chart needs for its title to show whole (charts widen rather than cut a title that states the message). */
export function titleWidth(title: string): number {
  return textWidth(title, TITLE_SIZE, true) + 24;
}

export const NOTE_SIZE = 11;

/** Words of `s` broken into lines no wider than `maxPx` (a single over-long word is cut with an ellipsis). */
export function wrapText(s: string, maxPx: number, size = FONT_SIZE): string[] {
  const lines: string[] = [];
  let cur = "";
  for (const word of s.split(/\s+/).filter(Boolean)) {
    const next = cur ? `${cur} ${word}` : word;
    if (cur && textWidth(next, size) > maxPx) {
      lines.push(cur);
      cur = word;
    } else cur = next;
  }
  if (cur) lines.push(cur);
  return lines.map((l) => fitText(l, maxPx, size));
}

/** Notes wrapped to the chart's width: charts size their height from the number of lines this returns. */
export function wrapNotes(notes: readonly string[], width: number): string[] {
  return notes.flatMap((n) => wrapText(n, width - 24, NOTE_SIZE));
}
