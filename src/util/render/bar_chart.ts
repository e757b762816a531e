// Bars (or dots) with interval whiskers and value labels, one row or column per item: the chart of a metric with
// its interval. Returns a standalone SVG string; nothing here computes the intervals it draws.
import { extent, MARGIN_TOP } from "./line_chart.ts";
import {
  type AxisSpec,
  type Box,
  GRAY,
  axes,
  el,
  escapeXml,
  noData,
  notesText,
  paletteColor,
  px,
  svgDocument,
  text,
  tickLabelWidth,
  titleText,
} from "./svg.ts";
import { linearScale, niceTicks, padFor, tickFormat } from "./ticks.ts";
import { textWidth, titleWidth, wrapNotes } from "./text_width.ts";

/** A bar's value with an optional interval [lo, hi] (e.g. a bootstrap interval) and a short note. */
export interface BarItem {
  readonly label: string;
  readonly value: number;
  readonly lo?: number;
  readonly hi?: number;
  readonly note?: string;
}

export interface BarChartOptions {
  readonly title: string;
  readonly valueLabel?: string;
  readonly orientation?: "horizontal" | "vertical";
  readonly width?: number;
  readonly height?: number;
  readonly color?: string;
  readonly format?: (v: number) => string;
  /**
   * Bars must start at zero or they exaggerate differences; with false the chart draws dots with
   * whiskers instead of bars, which is honest for a value axis that does not start at zero.
   */
  readonly includeZero?: boolean;
  readonly notes?: readonly string[];
}

/** Fixed decimals for every label, enough to resolve the narrowest interval (or 3 significant digits). */
function barFormat(items: readonly BarItem[]): (v: number) => string {
  const widths = items.map((it) => (it.hi ?? NaN) - (it.lo ?? NaN)).filter((w) => Number.isFinite(w) && w > 0);
  const big = Math.max(0, ...items.map((it) => Math.abs(it.value)).filter(Number.isFinite));
  const decimals = widths.length > 0 ? 1 - Math.floor(Math.log10(Math.min(...widths))) : big > 0 ? 2 - Math.floor(Math.log10(big)) : 0;
  const d = Math.min(6, Math.max(0, decimals));
  return (v) => v.toFixed(d);
}

/** Bars (or dots) with interval whiskers and value labels; one row or column per item. */
export function barChartWithIntervals(items: readonly BarItem[], opts: BarChartOptions): string {
  const horizontal = (opts.orientation ?? "horizontal") === "horizontal";
  const zero = opts.includeZero ?? true;
  const fmt = opts.format ?? barFormat(items);
  const color = opts.color ?? paletteColor(0);
  const finite = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v);
  const valueText = (it: BarItem) =>
    finite(it.value) ? fmt(it.value) + (finite(it.lo) && finite(it.hi) ? ` [${fmt(it.lo)}, ${fmt(it.hi)}]` : "") : "n/a";
  const labelText = (it: BarItem) => valueText(it) + (it.note ? `  ${it.note}` : "");
  // widen for whole category and value labels (a cut genre name cannot be read back), and for the title
  const catW = Math.max(0, ...items.map((it) => textWidth(it.label)));
  const valW = Math.max(0, ...items.map((it) => textWidth(labelText(it))));
  const W = Math.max(opts.width ?? 760, titleWidth(opts.title), horizontal ? catW + valW + 48 + 260 : 0);
  const notes = wrapNotes(opts.notes ?? [], W);
  const catH = horizontal ? 0 : Math.max(0, ...items.map((it) => textWidth(it.note ? `${it.label} · ${it.note}` : it.label))) * 0.6; // rotated labels' depth
  const H =
    opts.height ??
    (horizontal ? MARGIN_TOP + 50 + items.length * 30 + notes.length * 15 + 10 : Math.max(420, 300 + catH + notes.length * 15));
  const bottomPad = (horizontal ? 50 : 36) + notes.length * 15;
  const notesSvg = notesText(W, H, notes);

  const values = items.flatMap((it) => [it.value, it.lo, it.hi].filter(finite));
  if (values.length === 0) {
    return svgDocument(
      W,
      H,
      titleText(W, opts.title) + noData({ x: 40, y: MARGIN_TOP, w: W - 80, h: H - MARGIN_TOP - bottomPad }) + notesSvg,
      opts.title,
    );
  }
  let [v0, v1] = extent(zero ? [0, ...values] : values);
  if (v0 === v1) [v0, v1] = [v0 - padFor(v0), v1 + padFor(v1)];
  const mark = (pos: number, base: number, it: BarItem, scale: (v: number) => number): string => {
    if (!finite(it.value)) return "";
    const tip = el("title", {}, escapeXml(`${it.label}: ${labelText(it)}`));
    const [a, b] = [scale(zero ? 0 : it.value), scale(it.value)];
    const bar = zero
      ? horizontal
        ? el("rect", { x: Math.min(a, b), y: pos - base / 2, width: Math.abs(b - a), height: base, fill: color, opacity: 0.8 })
        : el("rect", { x: pos - base / 2, y: Math.min(a, b), width: base, height: Math.abs(b - a), fill: color, opacity: 0.8 })
      : el("circle", { cx: horizontal ? b : pos, cy: horizontal ? pos : b, r: 4.5, fill: color });
    if (!finite(it.lo) || !finite(it.hi)) return el("g", {}, tip + bar);
    const [l, h, c] = [scale(it.lo), scale(it.hi), 5];
    const [L, Hh, P, P0, P1] = [l, h, pos, pos - c, pos + c].map(px);
    const whisker = horizontal
      ? `M${L} ${P}H${Hh}M${L} ${P0}V${P1}M${Hh} ${P0}V${P1}`
      : `M${P} ${L}V${Hh}M${P0} ${L}H${P1}M${P0} ${Hh}H${P1}`;
    return el("g", {}, tip + bar + el("path", { d: whisker, stroke: "#222", "stroke-width": 1.5, fill: "none" }));
  };

  if (horizontal) {
    const [labelW, valueW] = [catW, valW];
    const box: Box = { x: labelW + 24, y: MARGIN_TOP + 10, w: W - labelW - valueW - 48, h: H - MARGIN_TOP - 10 - bottomPad };
    const ticks = niceTicks(v0, v1, Math.max(2, Math.floor(box.w / 90)));
    const scale = linearScale([ticks[0], ticks[ticks.length - 1]], [box.x, box.x + box.w]);
    const row = box.h / Math.max(1, items.length);
    const yAxis: AxisSpec = { ticks: [], scale: (v) => v, format: () => "" };
    const parts = items.map((it, i) => {
      const pos = box.y + (i + 0.5) * row;
      return (
        mark(pos, Math.min(20, row * 0.6), it, scale) +
        text(box.x - 8, pos + 4, it.label, { "text-anchor": "end" }) +
        text(box.x + box.w + 10, pos + 4, labelText(it), { fill: "#222" })
      );
    });
    const body =
      titleText(W, opts.title) +
      axes(box, { ticks, scale, format: tickFormat(ticks), label: opts.valueLabel }, yAxis) +
      parts.join("") +
      notesSvg;
    return svgDocument(W, H, body, opts.title);
  }

  // No room for a value column here, so a note rides along with its category name.
  const catLabel = (it: BarItem) => (it.note ? `${it.label} · ${it.note}` : it.label);
  const maxLabel = Math.max(...items.map((it) => textWidth(catLabel(it))));
  const slot = (W - 120) / Math.max(1, items.length);
  const rotate = maxLabel > slot - 6; // long category names tilt rather than collide
  const labelH = rotate ? maxLabel * 0.6 : 0; // sin(35°) ≈ 0.57 of the text's length: the whole label fits
  // Height first: it fixes the ticks, whose labels fix the left margin.
  const boxH = H - MARGIN_TOP - 24 - bottomPad - labelH;
  const ticks = niceTicks(v0, v1, Math.max(2, Math.floor(boxH / 55)));
  // a label tilted at 35° reaches 0.82 of its length to the left of its bar: the first one must stay inside
  const left = Math.max(
    20 + (opts.valueLabel ? 20 : 0) + tickLabelWidth({ ticks, format: tickFormat(ticks) }),
    rotate ? 0.82 * textWidth(catLabel(items[0])) - slot / 2 + 12 : 0,
  );
  const box: Box = { x: left, y: MARGIN_TOP + 24, w: W - left - 20, h: boxH };
  const scale = linearScale([ticks[0], ticks[ticks.length - 1]], [box.y + box.h, box.y]);
  const col = box.w / Math.max(1, items.length);
  const xAxis: AxisSpec = { ticks: [], scale: (v) => v, format: () => "" };
  const parts = items.map((it, i) => {
    const pos = box.x + (i + 0.5) * col;
    const top = Math.min(...[it.value, it.hi].filter(finite).map(scale), box.y + box.h);
    const ly = box.y + box.h + 16;
    const label = rotate
      ? text(pos, ly, catLabel(it), { "text-anchor": "end", transform: `rotate(-35 ${px(pos)} ${px(ly)})` })
      : text(pos, ly, catLabel(it), { "text-anchor": "middle" });
    const interval = finite(it.lo) && finite(it.hi) ? `[${fmt(it.lo)}, ${fmt(it.hi)}]` : "";
    const fits = textWidth(interval, 10) < col - 4;
    return (
      mark(pos, Math.min(48, col * 0.6), it, scale) +
      label +
      text(pos, top - (interval && fits ? 18 : 6), finite(it.value) ? fmt(it.value) : "n/a", {
        "text-anchor": "middle",
        "font-weight": "bold",
      }) +
      (interval && fits ? text(pos, top - 6, interval, { "text-anchor": "middle", "font-size": 10, fill: GRAY }) : "")
    );
  });
  const body =
    titleText(W, opts.title) +
    axes(box, xAxis, { ticks, scale, format: tickFormat(ticks), label: opts.valueLabel }) +
    parts.join("") +
    notesSvg;
  return svgDocument(W, H, body, opts.title);
}
