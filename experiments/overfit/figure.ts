// The overfitting figure: training and validation NLL by update per seed, with the count baselines as lines.
// Drawing only, from plain numbers (experiments/overfit.ts computes them); the CLI and the lab page both draw it.
import { lineChart } from "../../src/util/render/line_chart.ts";
import { dashFor, paletteColor } from "../../src/util/render/svg.ts";

/** NLL of one split at a point (nats per target). */
type SplitNll = { readonly nll: number };
/** One scored checkpoint of one seed. */
type FigureCheckpoint = { readonly update: number; readonly train: SplitNll; readonly validation: SplitNll };

/** What the figure draws: each seed's checkpoints, the baselines and the target counts (a live view has only these). */
export type OverfitFigureData = {
  runs: readonly { readonly seed: number; readonly checkpoints: readonly FigureCheckpoint[] }[];
  baselines: readonly { readonly name: string; readonly validation: SplitNll }[];
  targets: { readonly train: number; readonly validation: number };
};

/** The sentence the figure shows, worked out from the checkpoints (not fixed text: a run that does not overfit says so). */
export function overfitTitle(r: Pick<OverfitFigureData, "runs">): string {
  const n = r.runs.length;
  const rose = r.runs.filter((run) => {
    const [a, b] = run.checkpoints.slice(-2);
    return b !== undefined && b.train.nll < a.train.nll && b.validation.nll > a.validation.nll;
  }).length;
  const lowest = (run: OverfitFigureData["runs"][number]) =>
    run.checkpoints.reduce((m, c) => (c.validation.nll < m.validation.nll ? c : m)).update;
  const lows = [...new Set(r.runs.filter((run) => run.checkpoints.length > 0).map(lowest))];
  const seeds = `${n} ${n === 1 ? "seed" : "seeds"}`;
  if (rose === 0) return `Training and validation NLL by update (${seeds}): validation NLL did not rise in the last interval`;
  const at = lows.length === 1 ? ` after update ${lows[0]}` : "";
  return `Overfitting: training NLL falls while validation NLL rises${at} (${rose} of ${seeds})`;
}

/** Training and validation NLL against update, one line pair per seed, each baseline its own labelled line. */
export function overfitFigure(r: OverfitFigureData): string {
  const k = r.runs.length;
  const series = r.runs.flatMap((run, i) => [
    {
      name: `seed ${run.seed}, train`,
      points: run.checkpoints.map((c) => [c.update, c.train.nll] as [number, number]),
      color: paletteColor(i),
      marker: true,
    },
    {
      name: `seed ${run.seed}, validation`,
      points: run.checkpoints.map((c) => [c.update, c.validation.nll] as [number, number]),
      color: paletteColor(i),
      dash: dashFor(1),
      marker: true,
    },
  ]);
  // baselines take the palette after the seeds' colours and their own dash patterns: no two lines look alike
  const refLines = r.baselines.map((b, i) => ({
    name: `${b.name}, validation`,
    y: b.validation.nll,
    color: paletteColor(k + i),
    dash: dashFor(2 + i),
  }));
  const updates = r.runs[0]?.checkpoints.map((c) => c.update) ?? [];
  return lineChart({
    title: overfitTitle(r),
    xLabel: "optimizer updates",
    yLabel: "NLL (nats per target)",
    series,
    refLines,
    xTicks: updates,
    width: 960,
    height: 460,
    notes: [
      `Dots are the checkpoints scored (updates ${updates.join(", ")}); straight segments join them, no update in between was scored.`,
      `Horizontal lines: count baselines fitted on the ${r.targets.train} training targets, scored on the ${r.targets.validation} validation targets.`,
    ],
  });
}
