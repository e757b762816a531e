// CSV tables (RFC 4180) for spreadsheets: a header row, then one row per record; text quoted when it holds a comma,
// a quote or a line break; null as an empty cell; numbers as JSON writes them (every digit kept). Not a parser.

export type CsvCell = string | number | boolean | null;

const cell = (v: CsvCell): string => {
  if (v === null) return "";
  if (typeof v === "number" && !Number.isFinite(v)) throw new Error(`CSV: refusing to write the non-finite value ${v}`);
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** The table as CSV text with CRLF line ends (RFC 4180), every row as long as the header. */
export function csvTable(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  rows.forEach((r, i) => {
    if (r.length !== header.length) throw new Error(`CSV: row ${i + 1} has ${r.length} cells for ${header.length} columns`);
  });
  return [header, ...rows].map((r) => r.map(cell).join(",")).join("\r\n") + "\r\n";
}
