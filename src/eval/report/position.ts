// The report's loss by position in the window: token-weighted NLL at each position p (predicting from p + 1
// tokens of context), from windows at stride = context (each target scored once), per scored split. Shown as a figure.
import { lineChart } from "../../util/render/line_chart.ts";
import { dashFor, paletteColor } from "../../util/render/svg.ts";
import type { LossByPosition } from "./types.ts";
import { notShown, type Evaluator } from "./evaluator.ts";
import { fixed } from "../render/format.ts";

export const lossByPositionEvaluator: Evaluator<LossByPosition> = {
  key: "loss_by_position",
  id: "loss-by-position",
  version: 1,
  aggregation: {
    kind: "ratio-of-sums",
    numerator: "total_nll",
    denominator: "targets",
    over: "the targets at one position of every window of a split",
  },
  identity: { key: "loss_by_position", settings: ({ settings: s }) => ({ stride: s.contextLength }) },
  compute: (ctx) => ({
    stride: ctx.settings.contextLength,
    context_length: ctx.settings.contextLength,
    note: "position p predicts from p + 1 tokens of context; stride = context, each target scored once",
    by_split: ctx.full.map((r) => ({
      split: r.split,
      positions: r.byPosition.map((p) => ({ position: p.position, targets: p.targets, nll: p.totalNll / p.targets })),
    })),
  }),
  render: {
    html: notShown,
    markdown: notShown,
    console: notShown,
    figures: (l) => {
      const splits = l.by_split;
      const svg = lineChart({
        title: `Loss by position in the window (stride ${l.stride} = context)`,
        xLabel: "position p in the window (predicts from p + 1 tokens)",
        yLabel: "NLL (nats per target)",
        xInteger: true,
        series: splits.map((s, i) => ({
          name: s.split,
          points: s.positions.map((p) => [p.position, p.nll] as [number, number]),
          color: paletteColor(i),
          dash: dashFor(i),
          marker: true,
          tips: s.positions.map((p) => `${s.split}, position ${p.position}: ${fixed(p.nll)} nats over ${p.targets} targets`),
        })),
        // the last split's counts (held out, when scored): a spike resting on two or three targets shows as a short bar
        counts:
          splits.length > 0
            ? {
                name: `targets per position (${splits.at(-1)!.split})`,
                points: splits.at(-1)!.positions.map((p) => [p.position, p.targets] as [number, number]),
              }
            : undefined,
        notes: [l.note],
      });
      return [{ name: "loss_by_position.svg", title: "Loss by position", svg }];
    },
  },
};
