// Console tables with columns sized from their contents, so a header sits over its values at any width of names.
// Formatting only: cells arrive as strings (numbers already rounded by the caller). In util: the report's console
// renderers (src/eval) draw tables too.

/** Column alignment: "l" pads on the right (names), "r" on the left (numbers). */
export type Align = "l" | "r";

/** Printed width of a cell: code points, so ⟨EOS⟩ or × count as one column each. */
const width = (s: string) => Array.from(s).length;

/** Header and rows as aligned lines, `gap` spaces between columns, each line prefixed by `indent`. */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly Align[],
  indent = "  ",
  gap = 2,
): string[] {
  const n = header.length;
  for (const r of rows) if (r.length !== n) throw new Error(`formatTable: a row has ${r.length} cells, the header ${n}`);
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i]))));
  const pad = (s: string, i: number) => {
    const fill = " ".repeat(widths[i] - width(s));
    return (align[i] ?? "l") === "r" ? fill + s : s + fill;
  };
  const line = (cells: readonly string[]) => (indent + cells.map(pad).join(" ".repeat(gap))).trimEnd();
  return [line(header), ...rows.map(line)];
}

/** "1 layer", "2 layers": a count with its noun in the right number. */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
