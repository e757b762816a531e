// Figures specific to evaluation metrics, drawn with the generic SVG primitives of src/util: the reliability
import { MARGIN_TOP } from "../../util/render/line_chart.ts";
import {
  type Box,
  type LegendItem,
  axes,
  el,
  escapeXml,
  GRAY,
  legend,
  legendWidth,
  noData,
  notesText,
  paletteColor,
  svgDocument,
  titleText,
} from "../../util/render/svg.ts";
import { formatNumber, linearScale, niceTicks, tickFormat } from "../../util/render/ticks.ts";
import type { ReliabilityBin } from "../metrics/calibration.ts";
import { wrapNotes } from "../../util/render/text_width.ts";

export interface ReliabilityOptions {
  readonly title?: string;
  readonly ece?: number;
  readonly width?: number;
  readonly height?: number;
  readonly notes?: readonly string[];
}

/** Accuracy bars per confidence bin against the y = x diagonal, with a count histogram underneath. */
export function reliabilityDiagram(bins: readonly ReliabilityBin[], opts: ReliabilityOptions = {}): string {
  const legendW0 = legendWidth([{ label: "perfect calibration (y = x)", color: GRAY, kind: "line" }]);
  const W = Math.max(opts.width ?? 700, 70 + 300 + legendW0 + 40);
  const H = opts.height ?? 560;
  const total = bins.reduce((a, b) => a + (Number.isFinite(b.count) ? b.count : 0), 0);
  const title = [opts.title ?? "Reliability diagram", opts.ece !== undefined ? `ECE = ${opts.ece.toFixed(4)}` : "", `n = ${total}`]
    .filter(Boolean)
    .join("  ·  ");
  const items: LegendItem[] = [
    { label: "accuracy in bin", color: paletteColor(0), kind: "bar", opacity: 0.75 },
    { label: "mean confidence in bin", color: paletteColor(1), kind: "line" },
    { label: "perfect calibration (y = x)", color: GRAY, kind: "line", dash: "5 4" },
    { label: "predictions per bin", color: "#999999", kind: "bar" },
  ];
  const legendW = legendWidth(items);
  const notes = wrapNotes(opts.notes ?? [], W);
  const stripH = 70;
  const gap = 14;
  const bottom = 52 + notes.length * 15;
  const left = 70;
  // Square, so the diagonal is at 45° and a gap reads the same along either axis.
  const w = Math.max(50, Math.min(W - left - legendW - 40, H - MARGIN_TOP - bottom - stripH - gap));
  const main: Box = { x: left, y: MARGIN_TOP, w, h: w };
  const strip: Box = { x: left, y: main.y + main.h + gap, w, h: stripH };
  const notesSvg = notesText(W, H, notes);
  const legendSvg = legend(items, main.x + main.w + 20, main.y);

  const shown = bins.filter((b) => b.count > 0 && [b.lo, b.hi, b.accuracy, b.meanConfidence].every(Number.isFinite));
  if (shown.length === 0) {
    return svgDocument(W, H, titleText(W, title) + noData({ ...main, h: main.h + gap + stripH }) + legendSvg + notesSvg, title);
  }

  const unit = [0, 0.2, 0.4, 0.6, 0.8, 1];
  const xScale = linearScale([0, 1], [main.x, main.x + main.w]);
  const yScale = linearScale([0, 1], [main.y + main.h, main.y]);
  const f1 = tickFormat(unit);
  const mainAxes = axes(
    main,
    { ticks: unit, scale: xScale, format: () => "" },
    { ticks: unit, scale: yScale, format: f1, label: "accuracy" },
  );
  const maxCount = Math.max(...shown.map((b) => b.count));
  const cTicks = niceTicks(0, maxCount, 2);
  const cScale = linearScale([0, cTicks[cTicks.length - 1]], [strip.y + strip.h, strip.y]);
  const stripAxes = axes(
    strip,
    { ticks: unit, scale: xScale, format: f1, label: "confidence", grid: false },
    { ticks: cTicks, scale: cScale, format: tickFormat(cTicks), label: "count" },
  );

  const barsSvg = shown.map((b) => {
    const x = xScale(b.lo) + 1;
    const bw = Math.max(1, xScale(b.hi) - xScale(b.lo) - 2);
    const tip = el(
      "title",
      {},
      escapeXml(
        `[${formatNumber(b.lo)}, ${formatNumber(b.hi)}]: n=${b.count}, conf=${b.meanConfidence.toFixed(3)}, acc=${b.accuracy.toFixed(3)}`,
      ),
    );
    const acc = el("rect", {
      x,
      y: yScale(b.accuracy),
      width: bw,
      height: yScale(0) - yScale(b.accuracy),
      fill: paletteColor(0),
      opacity: 0.75,
    });
    const conf = el("line", {
      x1: x,
      x2: x + bw,
      y1: yScale(b.meanConfidence),
      y2: yScale(b.meanConfidence),
      stroke: paletteColor(1),
      "stroke-width": 2.5,
    });
    const count = el("rect", { x, y: cScale(b.count), width: bw, height: cScale(0) - cScale(b.count), fill: "#999999" });
    return el("g", {}, tip + acc + conf + count);
  });
  const diagonal = el("line", {
    x1: xScale(0),
    y1: yScale(0),
    x2: xScale(1),
    y2: yScale(1),
    stroke: GRAY,
    "stroke-width": 1.5,
    "stroke-dasharray": "5 4",
    class: "diagonal",
  });
  const body = titleText(W, title) + mainAxes + stripAxes + barsSvg.join("") + diagonal + legendSvg + notesSvg;
  return svgDocument(W, H, body, title);
}
