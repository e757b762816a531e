// Standalone HTML reports: a page of sections and an escaped table, with inline CSS and no external assets.
// Not a template engine: section bodies are trusted HTML (typically inline SVG from line_chart.ts or bar_chart.ts).

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** One titled block of a page; `html` is inserted as is. */
export interface HtmlSection {
  readonly heading: string;
  readonly html: string;
}

/** A formatted number (fixed decimals, right-aligned), optionally bold (the best of a group). */
export interface NumCell {
  readonly num: string;
  readonly bold?: boolean;
}

/** Text, optionally bold, left-aligned. */
export interface TextCell {
  readonly text: string;
  readonly bold?: boolean;
}

/** A table cell: text is escaped, numbers are right-aligned, null and non-finite print visibly. */
export type Cell = string | number | NumCell | TextCell | null | undefined;

function cell(c: Cell, tag: "td" | "th"): string {
  if (c === null || c === undefined) return `<${tag} class="na">—</${tag}>`;
  if (typeof c === "number") return `<${tag} class="num">${escapeHtml(String(c))}</${tag}>`;
  if (typeof c === "object" && "text" in c)
    return `<${tag}>${c.bold ? `<strong>${escapeHtml(c.text)}</strong>` : escapeHtml(c.text)}</${tag}>`;
  if (typeof c === "object") return `<${tag} class="num">${c.bold ? `<strong>${escapeHtml(c.num)}</strong>` : escapeHtml(c.num)}</${tag}>`;
  return `<${tag}>${escapeHtml(c)}</${tag}>`;
}

export function htmlTable(headers: readonly string[], rows: readonly (readonly Cell[])[], id?: string): string {
  const head = `<thead><tr>${headers.map((h) => cell(h, "th")).join("")}</tr></thead>`;
  const body = rows.map((r) => `<tr>${r.map((c) => cell(c, "td")).join("")}</tr>`).join("\n");
  return `<table${id ? ` id="${escapeHtml(id)}"` : ""}>${head}<tbody>\n${body}\n</tbody></table>`;
}

/** A two-column table of named values (provenance, settings): readable where a JSON dump is not. */
export function keyValueTable(entries: readonly (readonly [string, Cell])[]): string {
  return htmlTable(
    ["", ""],
    entries.map(([k, v]) => [k, v]),
  ).replace(/<thead>.*?<\/thead>/, "");
}

/** Flattens nested settings into "a.b" keys with printable values, in the object's own key order. */
export function flatEntries(x: unknown, prefix = ""): [string, string][] {
  if (x === null || typeof x !== "object" || Array.isArray(x))
    return [[prefix || "value", x === null ? "null" : Array.isArray(x) ? x.map(String).join(", ") : String(x)]];
  return Object.entries(x as Record<string, unknown>).flatMap(([k, v]) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? flatEntries(v, `${prefix}${k}.`)
      : [[`${prefix}${k}`, v === null ? "null" : Array.isArray(v) ? v.map(String).join(", ") : String(v)] as [string, string]],
  );
}

const CSS = `
body { font-family: sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; border-bottom: 1px solid #ddd; padding-bottom: .3em; }
h2 { font-size: 1.25em; margin-top: 2em; }
section svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 1em 0; font-size: .92em; }
th, td { border: 1px solid #ddd; padding: .3em .7em; text-align: left; vertical-align: top; }
th { background: #f5f5f5; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
#headline td { white-space: nowrap; }
p.lead { font-size: 1.05em; margin: .4em 0 .8em; }
figure { margin: 1em 0; }
figcaption { color: #555; font-size: .9em; }
td.na { color: #999; text-align: center; }
tbody tr:nth-child(even) { background: #fafafa; }
code, pre { background: #f5f5f5; border-radius: 3px; padding: .1em .3em; }
pre { padding: .6em; overflow-x: auto; }`;

/** A complete HTML document; headings are escaped, section bodies are not; `lead` is one escaped line under the title. */
export function htmlPage(page: { readonly title: string; readonly lead?: string; readonly sections: readonly HtmlSection[] }): string {
  const sections = page.sections.map((s) => `<section>\n<h2>${escapeHtml(s.heading)}</h2>\n${s.html}\n</section>`).join("\n");
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    '<head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(page.title)}</title>`,
    `<style>${CSS}\n</style></head>`,
    `<body>\n<h1>${escapeHtml(page.title)}</h1>`,
    ...(page.lead ? [`<p class="lead">${escapeHtml(page.lead)}</p>`] : []),
    sections,
    "</body></html>",
    "",
  ].join("\n");
}
