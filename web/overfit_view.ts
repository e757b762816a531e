// The lab page's overfitting panel as it fills in: the live loss curves, the set-up tables (weighting probe,
// layouts, baselines) and each seed's checkpoints with the summary over seeds. Rendering only.
import type { OverfitProgress, OverfitResult } from "../experiments/overfit.ts";
import { lineChart } from "../src/util/render/line_chart.ts";
import { PALETTE } from "../src/util/render/svg.ts";
import { escapeHtml } from "../src/util/render/html.ts";
import { $, cell, num, table } from "./dom.ts";

export type Live = {
  setup?: Extract<OverfitProgress, { kind: "setup" }>;
  runs: Map<number, { checkpoints: OverfitResult["runs"][number]["checkpoints"]; losses: number[] }>;
};

export function drawLive(live: Live, figure: string | undefined) {
  if (figure !== undefined) $("curves").innerHTML = figure;
  const series = [...live.runs].map(([seed, r], i) => ({
    name: `seed ${seed}`,
    points: r.losses.map((l, k) => [k + 1, l] as [number, number]),
    color: PALETTE[i % PALETTE.length],
  }));
  $("loss-curves").innerHTML = series.some((s) => s.points.length > 1)
    ? lineChart({
        title: "Training loss of each update (the update's own forward pass, before it is applied)",
        xLabel: "update",
        yLabel: "loss (nats per target)",
        series,
      })
    : "";
}

export function showSetup(s: Extract<OverfitProgress, { kind: "setup" }>) {
  const w = s.weighting_probe;
  $("probe").innerHTML = table(
    ["quantity", "value"],
    [
      `<tr>${cell("correct: merged mean NLL over " + w.correct.targets + " targets")}${num("probe:correct:mean_nll", w.correct.mean_nll)}</tr>`,
      `<tr>${cell("correct: perplexity of the merged mean")}${num("probe:correct:perplexity", w.correct.perplexity)}</tr>`,
      `<tr>${cell("wrong: unweighted mean of the two batch means")}${num("probe:wrong:mean_nll", w.wrong_unweighted_mean_nll)}</tr>`,
      `<tr>${cell("wrong: mean of the two batch perplexities")}${num("probe:wrong:perplexity", w.wrong_mean_perplexity)}</tr>`,
    ],
  );
  const l = s.layout_comparison;
  $("layouts").innerHTML =
    table(
      ["layout", "batches", "rows", "targets", "validation NLL", "recorded graphs"],
      l.rows.map(
        (r) =>
          `<tr>${cell(r.layout)}${cell(r.batches)}${cell(r.rows)}${cell(r.targets)}${num(`layout:${r.layout}:nll`, r.nll)}${cell(r.recorded_graphs)}</tr>`,
      ),
    ) +
    `<p>largest NLL difference <span data-metric="layout:largest_difference" data-exact="${l.largest_nll_difference}">${l.largest_nll_difference.toExponential(3)}</span></p>`;
  $("baselines").innerHTML = table(
    ["baseline (fitted on train)", "train NLL", "train ppl", "validation NLL", "validation ppl", "targets"],
    s.baselines.map(
      (b) =>
        `<tr>${cell(b.name)}${num(`baseline:${b.name}:train:nll`, b.train.nll)}${num(`baseline:${b.name}:train:perplexity`, b.train.perplexity)}${num(`baseline:${b.name}:validation:nll`, b.validation.nll)}${num(`baseline:${b.name}:validation:perplexity`, b.validation.perplexity)}${cell(`${b.train.targets}/${b.validation.targets}`)}</tr>`,
    ),
  );
}

export function showRuns(r: OverfitResult) {
  $("seeds-tables").innerHTML = r.runs
    .map(
      (run) =>
        `<h4>seed ${run.seed}</h4>` +
        table(
          ["update", "train NLL", "train ppl", "validation NLL", "validation ppl"],
          run.checkpoints.map(
            (c) =>
              `<tr>${cell(c.update)}${num(`run:${run.seed}:${c.update}:train:nll`, c.train.nll)}${num(`run:${run.seed}:${c.update}:train:perplexity`, c.train.perplexity)}${num(`run:${run.seed}:${c.update}:validation:nll`, c.validation.nll)}${num(`run:${run.seed}:${c.update}:validation:perplexity`, c.validation.perplexity)}</tr>`,
          ),
        ) +
        `<ul>${run.intervals.map((i) => `<li>${i.from}→${i.to}: training ${i.train_fell ? "fell" : "did not fall"}, validation ${i.validation_rose ? "rose" : "did not rise"}</li>`).join("")}<li>lowest validation NLL among checkpoints: update ${run.lowest_validation_checkpoint}</li></ul>`,
    )
    .join("");
  const s = r.final_validation_seed_summary;
  $("summary").innerHTML =
    table(
      ["final validation NLL over seeds", "value"],
      [
        `<tr>${cell("count")}${cell(s.count)}</tr>`,
        `<tr>${cell("mean")}${num("summary:mean", s.mean)}</tr>`,
        `<tr>${cell("sample SD (K − 1)")}${s.sample_sd === null ? cell(`n/a (${s.sample_sd_reason})`) : num("summary:sd", s.sample_sd)}</tr>`,
        `<tr>${cell("min")}${num("summary:min", s.min)}</tr>`,
        `<tr>${cell("max")}${num("summary:max", s.max)}</tr>`,
      ],
    ) + `<p>${escapeHtml(s.interpretation)}</p>`;
}
