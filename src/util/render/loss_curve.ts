// The training-loss figure: the loss of each update's batch (raw and smoothed, both drawn) and the validation
// points against update, with baselines as labelled lines; and the smoothing it uses.
import { lineChart, type RefLine, type Series } from "./line_chart.ts";
import { paletteColor } from "./svg.ts";

/**
 * Exponential moving average with weight `alpha` on the newest value (alpha = 1 returns the input).
 * Non-finite values give NaN at their position and leave the running average untouched.
 * Callers always draw the raw values too (see rawAndSmoothed): a smoothed curve alone can hide a spike.
 */
export function smoothEma(values: readonly number[], alpha: number): number[] {
  if (!(alpha > 0 && alpha <= 1)) throw new Error(`smoothEma alpha must be in (0, 1], got ${alpha}`);
  let avg = NaN;
  return values.map((v) => {
    if (!Number.isFinite(v)) return NaN;
    avg = Number.isNaN(avg) ? v : alpha * v + (1 - alpha) * avg;
    return avg;
  });
}

/** The raw series, faded, followed by its EMA in full colour: both are always drawn. */
export function rawAndSmoothed(series: Series, alpha: number, colorIndex = 0): Series[] {
  const color = series.color ?? paletteColor(colorIndex);
  const smooth = smoothEma(
    series.points.map((p) => p[1]),
    alpha,
  );
  return [
    { ...series, color, name: `${series.name} (raw)`, opacity: 0.3, marker: false },
    { ...series, color, name: `${series.name} (EMA α=${alpha})`, points: series.points.map((p, i) => [p[0], smooth[i]] as const) },
  ];
}

/** A training history: the loss of each update's own batch and validation points, both as [update, nats]. */
export interface LossHistory {
  train: [number, number][];
  validation: [number, number][];
}

/**
 * Training loss (raw and smoothed, both drawn) and validation points against update, with each baseline (e.g. its
 * validation NLL) as a labelled horizontal line; `note` says what each is.
 */
export function lossCurve(
  h: LossHistory,
  title: string,
  note: string,
  baselines: readonly RefLine[] = [],
  validationName = "validation",
): string {
  return lineChart({
    title,
    xLabel: "update",
    yLabel: "NLL (nats per token)",
    notes: [note],
    series: rawAndSmoothed({ name: "train loss", points: h.train }, 0.1),
    scatter: [{ name: validationName, points: h.validation }],
    refLines: baselines.map((b, i) => ({ dash: "4 3", color: paletteColor(i + 2), ...b })),
  });
}
