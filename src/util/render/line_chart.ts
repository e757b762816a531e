// Line charts: series, reference lines and scatter sets on shared axes, labelled at their right ends, with an
// optional strip of counts under the plot. A standalone SVG string; the loss curve (loss_curve.ts) and other
// figures are built on it.
import {
  type AxisSpec,
  type Box,
  type LegendItem,
  GRAY,
  LEGEND_ROW,
  axes,
  dashFor,
  el,
  escapeXml,
  legend,
  legendLayout,
  legendWidth,
  noData,
  notesText,
  paletteColor,
  pathData,
  svgDocument,
  text,
  tickLabelWidth,
  titleText,
} from "./svg.ts";
import { formatNumber, integerTicks, linearScale, logScale, logTicks, niceTicks, padFor, tickFormat } from "./ticks.ts";
import { textWidth, titleWidth, wrapNotes } from "./text_width.ts";
import { endLabels, LABEL_GAP } from "./end_labels.ts";

type Point = readonly [number, number];

/** One line; `dash` is an SVG stroke-dasharray such as "6 3". */
export interface Series {
  readonly name: string;
  readonly points: readonly Point[];
  readonly color?: string;
  readonly dash?: string;
  /** Dots at the measured points; default on for series of at most 40 points (checkpoints), off for curves. */
  readonly marker?: boolean;
  readonly opacity?: number;
  /** Tooltip per point (same order as `points`), e.g. "position 7: 2.31 nats over 3 targets". */
  readonly tips?: readonly string[];
}

/** A horizontal line across the plot, e.g. a baseline's loss. */
export interface RefLine {
  readonly name: string;
  readonly y: number;
  readonly color?: string;
  readonly dash?: string;
}

export interface ScatterSet {
  readonly name: string;
  readonly points: readonly Point[];
  readonly color?: string;
}

export interface LineChartSpec {
  readonly title: string;
  readonly series: readonly Series[];
  readonly refLines?: readonly RefLine[];
  readonly scatter?: readonly ScatterSet[];
  readonly xLabel?: string;
  readonly yLabel?: string;
  readonly logY?: boolean;
  /** A discrete x axis (positions, layers): integer ticks only, every integer when they fit. */
  readonly xInteger?: boolean;
  /** Explicit x ticks (e.g. the checkpoints that were scored); the range still spans the data. */
  readonly xTicks?: readonly number[];
  /** Counts per x drawn under the plot (e.g. targets per position). */
  readonly counts?: CountStrip;
  readonly width?: number;
  readonly height?: number;
  /** Extra lines printed under the chart (e.g. how the data were produced). */
  readonly notes?: readonly string[];
}

/** Maximal runs of drawable points; anything else breaks the line and is counted. */
function splitRuns(points: readonly Point[], ok: (p: Point) => boolean): { runs: Point[][]; dropped: number } {
  const runs: Point[][] = [];
  let cur: Point[] = [];
  let dropped = 0;
  for (const p of points) {
    if (ok(p)) cur.push(p);
    else {
      dropped++;
      if (cur.length > 0) runs.push(cur);
      cur = [];
    }
  }
  if (cur.length > 0) runs.push(cur);
  return { runs, dropped };
}

/** Min and max by a loop: spreading a long training curve into Math.min overflows the call stack. */
export function extent(values: readonly number[]): [number, number] {
  let [lo, hi] = [Infinity, -Infinity];
  for (const v of values) [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
  return [lo, hi];
}

/** Room above every chart's plot box for its title; shared by the figures built on these primitives. */
export const MARGIN_TOP = 40;

/** Counts per x drawn as small bars under a chart (e.g. targets per position, so a spike's support shows). */
export interface CountStrip {
  readonly name: string;
  readonly points: readonly Point[];
}
// caption line (14 px), number line (13 px), bars up to 25 px, base rule
const STRIP_H = 56;

/**
 * Multiple series, reference lines and scatter sets on shared axes. Every solid series and every reference
 * line is labelled at its right end (labels nudged apart, a leader line where one moved); the legend sits
 * under the plot and wraps; the chart widens for its title and labels rather than cutting them.
 */
export function lineChart(spec: LineChartSpec): string {
  const logY = spec.logY ?? false;
  const okY = (y: number) => Number.isFinite(y) && (!logY || y > 0);
  const ok = (p: Point) => Number.isFinite(p[0]) && okY(p[1]);
  const series = spec.series.map((s, i) => ({
    ...s,
    color: s.color ?? paletteColor(i),
    dash: s.color || s.dash ? s.dash : dashFor(i),
    marker: s.marker ?? s.points.length <= 40,
    ...splitRuns(s.points, ok),
  }));
  const scatter = (spec.scatter ?? []).map((s, i) => ({
    ...s,
    color: s.color ?? paletteColor(series.length + i),
    pts: s.points.filter(ok),
    dropped: s.points.length - s.points.filter(ok).length,
  }));
  const refs = (spec.refLines ?? []).map((r) => ({ ...r, color: r.color ?? GRAY, dash: r.dash ?? "6 4", drawn: okY(r.y) }));

  const rawNotes = [...(spec.notes ?? [])];
  const dropped = [...series, ...scatter].filter((s) => s.dropped > 0).map((s) => `${s.name} (${s.dropped})`);
  if (dropped.length > 0) {
    const what = logY ? "non-finite or non-positive (log scale)" : "non-finite";
    rawNotes.push(`Omitted ${what} points, lines broken there: ${dropped.join(", ")}`);
  }
  const hidden = refs.filter((r) => !r.drawn).map((r) => `${r.name} = ${formatNumber(r.y)}`);
  if (hidden.length > 0) rawNotes.push(`Reference lines not drawable on this axis: ${hidden.join(", ")}`);

  const empty = (n: number) => (n === 0 ? " (no data)" : "");
  const items: LegendItem[] = [
    ...series.map((s) => ({
      label: s.name + empty(s.runs.length),
      color: s.color,
      kind: "line" as const,
      dash: s.dash,
      marker: s.marker,
      opacity: s.opacity,
    })),
    ...refs.map((r) => ({ label: `${r.name} (${formatNumber(r.y)})`, color: r.color, kind: "line" as const, dash: r.dash })),
    ...scatter.map((s) => ({ label: s.name + empty(s.pts.length), color: s.color, kind: "dot" as const })),
  ];
  // faded series (the raw curve under its EMA) are not labelled at their end: their smoothed twin is
  const ends = [
    ...series
      .filter((s) => s.runs.length > 0 && (s.opacity ?? 1) >= 1)
      .map((s) => ({ label: s.name, color: s.color, y: s.runs[s.runs.length - 1].at(-1)![1] })),
    ...refs.filter((r) => r.drawn).map((r) => ({ label: `${r.name} ${formatNumber(r.y)}`, color: r.color, y: r.y })),
  ];
  const gutter = ends.length > 0 ? 14 + Math.max(...ends.map((e) => textWidth(e.label))) : 0;
  // 70 px is the widest left margin (y title plus five-character ticks); the plot keeps at least 320 px
  const W = Math.max(spec.width ?? 760, titleWidth(spec.title), 70 + 320 + gutter + 16, legendWidth(items) + 40);
  const notes = wrapNotes(rawNotes, W);
  const legendRows = legendLayout(items, W - 24, false).rows;
  const strip = spec.counts && spec.counts.points.length > 0 ? spec.counts : undefined;
  const bottom = 28 + (spec.xLabel ? 22 : 0) + (strip ? STRIP_H + 24 : 0) + 10 + legendRows * LEGEND_ROW + 6 + notes.length * 15;
  const H = Math.max(spec.height ?? 420, MARGIN_TOP + Math.max(200, ends.length * LABEL_GAP + 10) + bottom);
  const plotH = H - MARGIN_TOP - bottom;
  const notesSvg = notesText(W, H, notes);
  const legendAt = (box: Box) => legend(items, 12, box.y + box.h + 28 + (spec.xLabel ? 22 : 0) + (strip ? STRIP_H + 24 : 0) + 6, W - 24);

  const allPts = [...series.flatMap((s) => s.runs.flat()), ...scatter.flatMap((s) => s.pts)];
  if (allPts.length === 0) {
    const box = { x: 50, y: MARGIN_TOP, w: W - 50 - 30, h: plotH };
    return svgDocument(W, H, titleText(W, spec.title) + noData(box) + legendAt(box) + notesSvg, spec.title);
  }

  // y first: its tick labels decide the left margin, which decides the x layout.
  let [y0, y1] = extent([...allPts.map((p) => p[1]), ...refs.filter((r) => r.drawn).map((r) => r.y)]);
  let yTicks: number[];
  if (logY) {
    if (y0 === y1) [y0, y1] = [y0 / 2, y1 * 2];
    const pad = (y1 / y0) ** 0.04; // a little headroom so extreme points do not sit on the frame
    [y0, y1] = [y0 / pad, y1 * pad];
    yTicks = logTicks(y0, y1);
  } else {
    // 2% headroom keeps points off the frame, but never pushes non-negative data (losses) below zero.
    const pad = y0 === y1 ? padFor(y0) : (y1 - y0) * 0.02;
    [y0, y1] = [y0 >= 0 ? Math.max(0, y0 - pad) : y0 - pad, y1 + pad];
    yTicks = niceTicks(y0, y1, Math.max(2, Math.floor(plotH / 55)));
    [y0, y1] = [yTicks[0], yTicks[yTicks.length - 1]];
  }
  const yScale = (logY ? logScale : linearScale)([y0, y1], [MARGIN_TOP + plotH, MARGIN_TOP]);
  const yAxis: AxisSpec = { ticks: yTicks, scale: yScale, format: tickFormat(yTicks), label: spec.yLabel };
  const left = 16 + (spec.yLabel ? 20 : 0) + tickLabelWidth(yAxis);
  const box: Box = { x: left, y: MARGIN_TOP, w: W - left - gutter - 16, h: plotH };

  // x spans the data exactly (training curves start at step 0 or 1; padding would suggest missing steps).
  let [x0, x1] = extent(allPts.map((p) => p[0]));
  if (x0 === x1) [x0, x1] = [x0 - padFor(x0), x1 + padFor(x1)];
  const within = (t: number) => t >= x0 - 1e-9 * Math.abs(x1 - x0) && t <= x1 + 1e-9 * Math.abs(x1 - x0);
  const xTicks = spec.xTicks
    ? spec.xTicks.filter(within)
    : spec.xInteger
      ? integerTicks(x0, x1, Math.max(2, Math.floor(box.w / 28)))
      : niceTicks(x0, x1, Math.max(2, Math.floor(box.w / 90))).filter(within);
  const xScale = linearScale([x0, x1], [box.x, box.x + box.w]);
  const xAxis: AxisSpec = {
    ticks: xTicks,
    scale: xScale,
    format: spec.xInteger || spec.xTicks ? formatNumber : tickFormat(xTicks),
    label: spec.xLabel,
  };

  const at = (p: Point) => [xScale(p[0]), yScale(p[1])] as const;
  const refSvg = refs
    .filter((r) => r.drawn)
    .map((r) =>
      el("line", {
        x1: box.x,
        x2: box.x + box.w,
        y1: yScale(r.y),
        y2: yScale(r.y),
        stroke: r.color,
        "stroke-width": 1.5,
        "stroke-dasharray": r.dash,
      }),
    );
  const lineSvg = series.map((s) => {
    const common = {
      stroke: s.color,
      "stroke-width": 1.8,
      "stroke-dasharray": s.dash,
      fill: "none",
      "stroke-linejoin": "round",
      "stroke-linecap": "round",
    };
    // A run of one point has no segment to draw, so it always gets a dot.
    const paths = s.runs.map((run) => (run.length > 1 ? el("path", { d: pathData(run.map(at)), ...common }) : ""));
    const tip = (p: Point) => {
      const k = s.points.indexOf(p);
      return el("title", {}, escapeXml(s.tips?.[k] ?? `${s.name}: ${formatNumber(p[1])} at ${formatNumber(p[0])}`));
    };
    const dots = s.runs
      .flatMap((run) => (run.length === 1 || s.marker ? run : []))
      .map((p) => el("circle", { cx: at(p)[0], cy: at(p)[1], r: 3, fill: s.color }, tip(p)));
    return el("g", { opacity: s.opacity }, el("title", {}, escapeXml(s.name)) + paths.join("") + dots.join(""));
  });
  const scatterSvg = scatter.map((s) =>
    el(
      "g",
      {},
      el("title", {}, escapeXml(s.name)) +
        s.pts.map((p) => el("circle", { cx: at(p)[0], cy: at(p)[1], r: 4, fill: s.color, stroke: "#fff", "stroke-width": 1 })).join(""),
    ),
  );
  const endSvg = endLabels(
    ends.map((e) => ({ ...e, y: yScale(e.y) })),
    box,
  );
  const stripSvg = strip ? countStrip(strip, xScale, box.y + box.h + 28 + (spec.xLabel ? 22 : 0) + 14, box) : "";
  const body =
    titleText(W, spec.title) +
    axes(box, xAxis, yAxis) +
    refSvg.join("") +
    lineSvg.join("") +
    scatterSvg.join("") +
    endSvg +
    stripSvg +
    legendAt(box) +
    notesSvg;
  return svgDocument(W, H, body, spec.title);
}

/** Bars of counts under the plot, aligned with its x scale, each number printed above its bar when it fits. */
function countStrip(c: CountStrip, xScale: (v: number) => number, top: number, box: Box): string {
  const max = Math.max(1, ...c.points.map((p) => p[1]).filter(Number.isFinite));
  const xs = c.points.map((p) => xScale(p[0]));
  const spacing = xs.length > 1 ? Math.min(...xs.slice(1).map((x, i) => x - xs[i])) : box.w;
  const barW = Math.max(2, Math.min(18, spacing * 0.6));
  const fits = c.points.every((p) => textWidth(String(p[1]), 10) + 3 < spacing);
  const base = top + STRIP_H - 4;
  const bars = c.points.map((p, i) => {
    const h = ((STRIP_H - 31) * p[1]) / max;
    const bar = el(
      "rect",
      { x: xs[i] - barW / 2, y: base - h, width: barW, height: h, fill: "#999999" },
      el("title", {}, escapeXml(`${formatNumber(p[0])}: ${p[1]} ${c.name}`)),
    );
    return bar + (fits ? text(xs[i], base - h - 3, String(p[1]), { "text-anchor": "middle", "font-size": 10, fill: "#333" }) : "");
  });
  const caption = text(box.x, top, `${c.name}${fits ? "" : ` (max ${max}; hover a bar for its count)`}`, { "font-size": 11, fill: GRAY });
  return `<g class="counts">${caption}${el("line", { x1: box.x, x2: box.x + box.w, y1: base, y2: base, stroke: "#999" })}${bars.join("")}</g>`;
}
