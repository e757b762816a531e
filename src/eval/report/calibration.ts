// The report's next-token calibration per scored split: confidence = top next-token probability, correct = top
// token is the target; accuracy as correct/predictions, ECE, Brier and the bins. Read off the stride-context pass
// when the calibration stride is the context and the headline's is not, else a pass of its own.
import { escapeHtml, htmlTable } from "../../util/render/html.ts";
import { count } from "../../util/render/table.ts";
import { notShown, type Evaluator } from "./evaluator.ts";
import { reliabilityDiagram } from "../render/figures.ts";
import { MIN_ECE_PREDICTIONS, nextTokenCalibration, nextTokenPredictions } from "../passes/next_token.ts";
import { f4, fixed, para, shown } from "../render/format.ts";
import { aggregate, type RatioOfSums } from "../metrics/aggregate.ts";
import { MIN_INTERVAL_DOCUMENTS } from "../metrics/intervals.ts";
import { reasoned, reasonedRecord } from "../metrics/reasoned.ts";
import type { CalibrationValue, ReportSettings } from "./types.ts";

const NO_PREDICTIONS = "no predictions";
/** Top-1 accuracy: Σ correct / Σ predictions of a split, with Wilson's interval (under MIN_INTERVAL_DOCUMENTS documents: none). */
const ACCURACY = {
  kind: "ratio-of-sums",
  numerator: "correct",
  denominator: "predictions",
  over: "the scored targets of a split (ECE: per bin, weighted by its count)",
  interval: "wilson-95",
  noDenominator: NO_PREDICTIONS,
} as const satisfies RatioOfSums;

/** Calibration at stride = context rides on the stride-context pass (one forward per window) when that pass is its own. */
export const calibrationSharesContextPass = (s: ReportSettings) => s.calibrationStride === s.contextLength && s.stride !== s.contextLength;

export const calibrationEvaluator: Evaluator<CalibrationValue> = {
  key: "calibration",
  id: "next-token-calibration",
  version: 2,
  aggregation: ACCURACY,
  identity: {
    key: "calibration",
    settings: ({ settings: s }) => ({
      stride: s.calibrationStride,
      bins: s.bins,
      scheme: s.scheme,
      min_ece_predictions: MIN_ECE_PREDICTIONS,
      accuracy_interval: ACCURACY.interval,
      min_interval_documents: MIN_INTERVAL_DOCUMENTS,
    }),
  },
  steps: (inputs) => (calibrationSharesContextPass(inputs.settings) ? 0 : inputs.batchesAt(inputs.settings.calibrationStride)),
  compute: (ctx) => {
    const s = ctx.settings;
    const predictions = (split: (typeof ctx.bySplit)[number][0], d: (typeof ctx.bySplit)[number][1]) =>
      ctx.captured.get(split) ??
      nextTokenPredictions(ctx.model, d, s.calibrationStride, { rowsPerBatch: s.rowsPerBatch, onBatch: ctx.tick });
    return {
      stride: s.calibrationStride,
      bins: s.bins,
      scheme: s.scheme,
      by_split: ctx.bySplit.map(([split, d]) => {
        const p = predictions(split, d),
          c = nextTokenCalibration(p, { bins: s.bins, scheme: s.scheme });
        const a = aggregate(ACCURACY, { numerators: p.correct.map(Number), denominators: p.correct.map(() => 1), documents: d.length });
        return {
          ...c,
          accuracy: {
            ...c.accuracy,
            ...reasoned("rate", a.value, NO_PREDICTIONS),
            ...reasonedRecord("wilson95", a.interval, a.interval_reason ?? ""),
          },
        };
      }),
    };
  },
  render: {
    html: (cal) => [
      {
        heading: `Next-token calibration (stride ${cal.stride}, ${cal.bins} ${cal.scheme} ${cal.bins === 1 ? "bin" : "bins"})`,
        html: cal.by_split
          .map((c) => {
            const w = c.accuracy.wilson95;
            const populated = `${c.report.populatedBins} populated ${c.report.populatedBins === 1 ? "bin" : "bins"}`;
            return (
              `<h3>${escapeHtml(c.split)}</h3>` +
              para(
                `${c.definition}. Accuracy ${c.accuracy.correct}/${c.accuracy.predictions}${w ? ` (Wilson 95% [${fixed(w.lo)}, ${fixed(w.hi)}])` : ""}; ECE ${c.report.ece === null ? `n/a (${c.report.ece_reason})` : fixed(c.report.ece)} over ${populated}; Brier ${fixed(c.report.brier)}.`,
              ) +
              htmlTable(
                ["bin", "predictions", "mean confidence", "accuracy"],
                c.report.bins.map((b) => [
                  `[${fixed(b.lo, 2)}, ${fixed(b.hi, 2)}]`,
                  b.count,
                  { num: fixed(b.meanConfidence) },
                  { num: fixed(b.accuracy) },
                ]),
              )
            );
          })
          .join("\n"),
      },
    ],
    markdown: notShown,
    console: (cal) =>
      cal.by_split.map(
        (c) =>
          `calibration ${c.split} (stride ${c.stride}): accuracy ${c.accuracy.correct}/${c.accuracy.predictions}, ECE ${shown(c.report, "ece")} over ${count(c.report.populatedBins, "populated bin")}, Brier ${f4(c.report.brier)}`,
      ),
    figures: (cal) =>
      cal.by_split.map((c) => ({
        name: `reliability_${c.split}.svg`,
        title: `Reliability, ${c.split}`,
        svg: reliabilityDiagram(c.report.bins, { title: `Reliability, ${c.split} (stride ${c.stride})`, ece: c.report.ece ?? undefined }),
      })),
  },
};
