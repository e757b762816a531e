// Formatting shared by the report's renderers: the page's fixed decimals with "n/a" and intervals, the console's
// rounded numbers with "n/a (reason)" for a value that is null in report.json (reasoned.ts), Markdown cells.
import { escapeHtml } from "../../util/render/html.ts";
import { round6 } from "../../util/primitives/round.ts";
import { reasonOf } from "../metrics/reasoned.ts";

export type Interval = { lo: number; hi: number } | null | undefined;

/** Page: a quantity without a value is null in the report; the page says n/a, the JSON keeps the reason. */
export const fixed = (x: number | null | undefined, d = 4): string =>
  x !== null && x !== undefined && Number.isFinite(x) ? x.toFixed(d) : "n/a";

/** Page: a value with its interval in brackets, both through `f` (e.g. exp for a perplexity). */
export const withIv = (x: number | null | undefined, iv: Interval, f: (v: number) => number = (v) => v, d = 4): string =>
  `${fixed(x === null || x === undefined ? x : f(x), d)}${iv ? ` [${fixed(f(iv.lo), d)}, ${fixed(f(iv.hi), d)}]` : ""}`;

export const para = (s: string) => `<p>${escapeHtml(s)}</p>`;

/** Console: 4 decimals of the value rounded to 6, so float noise below 1e-6 never flips a printed digit. */
export const f4 = (x: number) => round6(x).toFixed(4);

/** Console: `record[key]` to 4 decimals, or "n/a (reason)" when it is null. */
export function shown(record: object, key: string, format: (x: number) => string = f4): string {
  const v = (record as Record<string, unknown>)[key];
  return typeof v === "number" ? format(v) : `n/a (${reasonOf(record, key)})`;
}

/** Console: an interval record as "[lo, hi]", or "[n/a (reason)]" when it could not be computed. */
export function interval(record: object, key: string): string {
  const v = (record as Record<string, unknown>)[key] as { lo: number; hi: number } | null;
  return v ? `[${f4(v.lo)}, ${f4(v.hi)}]` : `[n/a (${reasonOf(record, key)})]`;
}

/**
 * A Markdown cell: pipes escaped, line breaks flattened (a table row is one line), and `<`, `>`, `&`, `[`, `]`
 * escaped, so a source or file name is shown as text: never raw HTML (Markdown renderers pass it through) nor a link.
 */
export const md = (s: string | number) =>
  String(s)
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/\r?\n/g, " ")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[[\]]/g, (c) => `\\${c}`);
const row = (cells: readonly (string | number)[]) => `| ${cells.map(md).join(" | ")} |`;
export function markdownTable(
  headers: readonly string[],
  rows: readonly (readonly (string | number)[])[],
  right: readonly boolean[] = [],
): string[] {
  return [row(headers), `|${headers.map((_, i) => (right[i] ? " ---: " : " --- ")).join("|")}|`, ...rows.map(row)];
}
