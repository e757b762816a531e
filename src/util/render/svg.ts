// SVG primitives for tinylab's figures: escaping, axes, legend, document wrapper. Pure string builders with no DOM
// and no charts of their own; the charts live in line_chart.ts and bar_chart.ts, ticks and scales in ticks.ts, text
// widths in text_width.ts.
import { FONT_SIZE, fitText, NOTE_SIZE, TITLE_SIZE, textWidth } from "./text_width.ts";
import { type Scale } from "./ticks.ts";

/** Okabe–Ito colours, reordered so the first ones are the most distinct on white (yellow last). */
export const PALETTE = ["#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#000000", "#F0E442"];
export const GRAY = "#666666";

/** A rectangle in pixel coordinates (SVG y grows downward). */
export interface Box {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export function paletteColor(i: number): string {
  return PALETTE[((i % PALETTE.length) + PALETTE.length) % PALETTE.length];
}

/** Escapes text and attribute values; also drops control characters, which XML 1.0 forbids outright. */
export function escapeXml(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** Pixel coordinate as a short attribute string (two decimals is far below a pixel). */
export function px(v: number): string {
  return Number.isFinite(v) ? String(Math.round(v * 100) / 100) : "0";
}

/** One element; numeric attributes go through px(), strings are escaped, undefined ones are dropped. */
export function el(tag: string, attrs: Record<string, string | number | undefined>, inner?: string): string {
  const a = Object.entries(attrs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${typeof v === "number" ? px(v) : escapeXml(String(v))}"`)
    .join("");
  return inner === undefined ? `<${tag}${a}/>` : `<${tag}${a}>${inner}</${tag}>`;
}

export function text(x: number, y: number, s: string, attrs: Record<string, string | number | undefined> = {}): string {
  return el("text", { x, y, ...attrs }, escapeXml(s));
}

/** Dash patterns paired with the palette, so two series never differ by colour alone (solid first). */
export const DASHES: readonly (string | undefined)[] = [undefined, "7 4", "2 3", "9 3 2 3", "4 4", "12 4", "1 3", "6 2 2 2"];

export function dashFor(i: number): string | undefined {
  return DASHES[((i % DASHES.length) + DASHES.length) % DASHES.length];
}

/** Path data for a polyline; a single point becomes a zero-length segment, which round caps make visible. */
export function pathData(points: ReadonlyArray<readonly [number, number]>): string {
  if (points.length === 0) return "";
  const [first, ...rest] = points;
  const tail = rest.length > 0 ? rest.map(([x, y]) => `L${px(x)} ${px(y)}`).join("") : `L${px(first[0])} ${px(first[1])}`;
  return `M${px(first[0])} ${px(first[1])}${tail}`;
}

/** One axis: tick values, the scale placing them, how to print them, and an optional title. */
export interface AxisSpec {
  readonly ticks: readonly number[];
  readonly scale: Scale;
  readonly format: (v: number) => string;
  readonly label?: string;
  readonly grid?: boolean;
}

/** Widest formatted tick label, used to size the left margin before drawing. */
export function tickLabelWidth(axis: Pick<AxisSpec, "ticks" | "format">, size = FONT_SIZE - 1): number {
  return Math.max(0, ...axis.ticks.map((t) => textWidth(axis.format(t), size)));
}

/** Keeps every k-th x label so neighbours never overlap; the tick marks all stay. */
function xLabelStride(axis: AxisSpec): number {
  const xs = axis.ticks.map(axis.scale);
  const gap = xs.length > 1 ? Math.abs(xs[1] - xs[0]) : Infinity;
  return Math.max(1, Math.ceil((tickLabelWidth(axis) + 8) / gap));
}

/** Grid, axis lines, ticks, tick labels and axis titles around `box`. */
export function axes(box: Box, x: AxisSpec, y: AxisSpec): string {
  const parts: string[] = [];
  const bottom = box.y + box.h;
  const ls = FONT_SIZE - 1;
  for (const t of y.ticks) {
    const py = y.scale(t);
    if (y.grid !== false) parts.push(el("line", { x1: box.x, x2: box.x + box.w, y1: py, y2: py, stroke: "#e6e6e6" }));
    parts.push(el("line", { x1: box.x - 4, x2: box.x, y1: py, y2: py, stroke: "#333" }));
    parts.push(text(box.x - 7, py + 4, y.format(t), { "text-anchor": "end", "font-size": ls, fill: "#333" }));
  }
  const stride = xLabelStride(x);
  x.ticks.forEach((t, i) => {
    const pxv = x.scale(t);
    if (x.grid !== false) parts.push(el("line", { x1: pxv, x2: pxv, y1: box.y, y2: bottom, stroke: "#f0f0f0" }));
    parts.push(el("line", { x1: pxv, x2: pxv, y1: bottom, y2: bottom + 4, stroke: "#333" }));
    if (i % stride === 0) parts.push(text(pxv, bottom + 17, x.format(t), { "text-anchor": "middle", "font-size": ls, fill: "#333" }));
  });
  parts.push(el("line", { x1: box.x, x2: box.x, y1: box.y, y2: bottom, stroke: "#333" }));
  parts.push(el("line", { x1: box.x, x2: box.x + box.w, y1: bottom, y2: bottom, stroke: "#333" }));
  if (x.label) parts.push(text(box.x + box.w / 2, bottom + 36, x.label, { "text-anchor": "middle" }));
  if (y.label) {
    const lx = box.x - tickLabelWidth(y) - 20;
    const ly = box.y + box.h / 2;
    parts.push(text(lx, ly, y.label, { "text-anchor": "middle", transform: `rotate(-90 ${px(lx)} ${px(ly)})` }));
  }
  return `<g class="axes">${parts.join("")}</g>`;
}

/** A legend entry; `kind` picks the swatch drawn beside the label. */
export interface LegendItem {
  readonly label: string;
  readonly color: string;
  readonly kind: "line" | "dot" | "bar";
  readonly dash?: string;
  readonly marker?: boolean;
  readonly opacity?: number;
}

export const LEGEND_ROW = 18;
const SWATCH = 26;

/** Width of one legend entry: swatch, gap, measured label. */
export function legendItemWidth(item: LegendItem): number {
  return SWATCH + 8 + textWidth(item.label);
}

export function legendWidth(items: readonly LegendItem[]): number {
  return items.length === 0 ? 0 : Math.max(...items.map(legendItemWidth));
}

/** Where each legend entry goes: a vertical list, or rows that wrap within `width` (entries are never cut). */
export function legendLayout(items: readonly LegendItem[], width: number, vertical: boolean): { at: [number, number][]; rows: number } {
  const at: [number, number][] = [];
  let [cx, row] = [0, 0];
  for (const it of items) {
    const w = legendItemWidth(it) + 18;
    if (vertical) at.push([0, at.length]);
    else {
      if (cx > 0 && cx + w > width) [cx, row] = [0, row + 1];
      at.push([cx, row]);
      cx += w;
    }
  }
  return { at, rows: items.length === 0 ? 0 : vertical ? items.length : row + 1 };
}

/**
 * A legend from (x, y): vertical, or wrapped into rows when `wrapWidth` is given. Labels are drawn whole;
 * the caller sizes the chart from legendWidth / legendLayout so they fit.
 */
export function legend(items: readonly LegendItem[], x: number, y: number, wrapWidth?: number): string {
  const { at } = legendLayout(items, wrapWidth ?? Infinity, wrapWidth === undefined);
  const rows = items.map((it, i) => {
    const cy = y + at[i][1] * LEGEND_ROW + LEGEND_ROW / 2;
    const x0 = x + at[i][0];
    const swatch =
      it.kind === "line"
        ? el("line", {
            x1: x0,
            x2: x0 + SWATCH,
            y1: cy,
            y2: cy,
            stroke: it.color,
            "stroke-width": 2,
            "stroke-dasharray": it.dash,
            opacity: it.opacity,
          }) + (it.marker ? el("circle", { cx: x0 + SWATCH / 2, cy, r: 3, fill: it.color }) : "")
        : it.kind === "dot"
          ? el("circle", { cx: x0 + SWATCH / 2, cy, r: 4, fill: it.color, opacity: it.opacity })
          : el("rect", { x: x0 + 4, y: cy - 6, width: SWATCH - 8, height: 12, fill: it.color, opacity: it.opacity });
    return el("g", {}, swatch + text(x0 + SWATCH + 6, cy + 4, it.label));
  });
  return `<g class="legend">${rows.join("")}</g>`;
}

/** A standalone SVG document with a white background, so it reads the same in any viewer or page theme. */
export function svgDocument(width: number, height: number, body: string, title?: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${px(width)}" height="${px(height)}" viewBox="0 0 ${px(width)} ${px(height)}" ` +
    `font-family="sans-serif" font-size="${FONT_SIZE}">` +
    (title ? el("title", {}, escapeXml(title)) : "") +
    el("rect", { x: 0, y: 0, width, height, fill: "#ffffff" }) +
    body +
    "</svg>\n"
  );
}

/** Centred chart title; cut only if the caller did not make room (see titleWidth). */
export function titleText(width: number, title: string): string {
  return text(width / 2, 22, fitText(title, width - 20, TITLE_SIZE * 1.12), {
    "text-anchor": "middle",
    "font-size": TITLE_SIZE,
    "font-weight": "bold",
  });
}

/** Frame and "no data" message for a chart with nothing finite to plot. */
export function noData(box: Box): string {
  return (
    el("rect", { x: box.x, y: box.y, width: box.w, height: box.h, fill: "none", stroke: "#999", "stroke-dasharray": "4 3" }) +
    text(box.x + box.w / 2, box.y + box.h / 2, "no data", { "text-anchor": "middle", "font-size": 16, fill: GRAY })
  );
}

/** Small grey lines along the bottom edge (omitted points, how intervals were made), one per wrapped line. */
export function notesText(width: number, height: number, lines: readonly string[]): string {
  const y = (i: number) => height - 10 - (lines.length - 1 - i) * 15;
  return lines.map((n, i) => text(12, y(i), fitText(n, width - 24, NOTE_SIZE), { "font-size": NOTE_SIZE, fill: GRAY })).join("");
}
