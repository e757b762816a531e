// Labels at the right ends of a chart's lines: their wanted heights spread apart in order, a leader line drawn
// where one moved. Pure string building over svg.ts's primitives.
import { type Box, el, px, text } from "./svg.ts";

/** Gap between end-of-line labels: the 12 px font's line height. */
export const LABEL_GAP = 14;

/**
 * Vertical centres for labels wanted at `ys`, at least `gap` apart and within [lo, hi] when there is room,
 * keeping their order (ties by index, so the layout is the same on every run).
 */
export function spreadLabels(ys: readonly number[], gap: number, lo: number, hi: number): number[] {
  const order = ys
    .map((y, i) => [y, i] as const)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .map(([, i]) => i);
  const out = ys.slice();
  let prev = -Infinity;
  for (const i of order) prev = out[i] = Math.max(ys[i], lo, prev + gap);
  let next = Infinity;
  for (const i of [...order].reverse()) next = out[i] = Math.min(out[i], hi, next - gap);
  return out;
}

/** Labels in the gutter right of the plot, each at its line's last y, nudged apart, with a leader when moved. */
export function endLabels(ends: readonly { label: string; color: string; y: number }[], box: Box): string {
  const ys = spreadLabels(
    ends.map((e) => e.y),
    LABEL_GAP,
    box.y + 6,
    box.y + box.h - 2,
  );
  const x = box.x + box.w + 10;
  return `<g class="end-labels">${ends
    .map((e, i) => {
      const leader =
        Math.abs(ys[i] - e.y) > 2
          ? el("path", {
              d: `M${px(box.x + box.w + 1)} ${px(e.y)}L${px(x - 2)} ${px(ys[i])}`,
              stroke: e.color,
              "stroke-width": 0.8,
              fill: "none",
            })
          : "";
      return leader + text(x, ys[i] + 4, e.label, { fill: e.color === "#F0E442" ? "#8a7f00" : e.color });
    })
    .join("")}</g>`;
}
