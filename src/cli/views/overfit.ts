// Console table and SVG figure of the overfitting experiment (experiments/overfit.ts). Presentation only.
import { round6 } from "../../util/provenance.ts";
import { lineChart } from "../../util/charts.ts";
import { PALETTE } from "../../util/svg.ts";
import type { OverfitResult } from "../../../experiments/overfit.ts";

/** The readable table printed on stdout (values rounded to 6 decimals for display only). */
export function formatOverfit(r: OverfitResult): string {
  const f = (x: number) => round6(x).toFixed(6);
  const lines: string[] = [];
  const w = r.weighting_probe;
  lines.push(`overfit: ${r.options.seeds.length} seeds × ${r.options.updates} updates, lr ${r.options.lr}, backend ${r.provenance.backend}, targets train ${r.data.targets.train} / validation ${r.data.targets.validation}`);
  lines.push("", "weighting probe (constructed probabilities [0.5, 0.25] and [0.5, 0.5, 0.25, 0.5]):");
  lines.push(`  correct merged mean ${f(w.correct.mean_nll)} nats, perplexity ${f(w.correct.perplexity)} over ${w.correct.targets} targets`);
  lines.push(`  wrong unweighted mean ${f(w.wrong_unweighted_mean_nll)}, wrong mean perplexity ${f(w.wrong_mean_perplexity)}`);
  lines.push("", `layouts at seed ${r.options.seeds[0]}'s initial weights, validation:`);
  for (const l of r.layout_comparison.rows) lines.push(`  ${l.layout.padEnd(8)} batches ${l.batches} rows ${l.rows} targets ${l.targets} NLL ${f(l.nll)} recorded graphs ${l.recorded_graphs}`);
  lines.push(`  largest NLL difference ${r.layout_comparison.largest_nll_difference.toExponential(3)}`);
  lines.push("", "baselines (fitted on train):                 train NLL (ppl)              validation NLL (ppl)");
  for (const b of r.baselines) lines.push(`  ${b.name.padEnd(30)} ${f(b.train.nll)} (${f(b.train.perplexity).padStart(11)})   ${f(b.validation.nll)} (${f(b.validation.perplexity).padStart(11)})   [${b.train.targets}/${b.validation.targets} targets]`);
  for (const run of r.runs) {
    lines.push("", `seed ${run.seed}:  update   train NLL (ppl)            validation NLL (ppl)`);
    for (const c of run.checkpoints) lines.push(`  ${String(c.update).padStart(12)}   ${f(c.train.nll)} (${f(c.train.perplexity).padStart(10)})   ${f(c.validation.nll)} (${f(c.validation.perplexity).padStart(10)})`);
    for (const i of run.intervals) lines.push(`  ${i.from}→${i.to}: training ${i.train_fell ? "fell" : "did not fall"}, validation ${i.validation_rose ? "rose" : "did not rise"}`);
    lines.push(`  lowest validation NLL among checkpoints: update ${run.lowest_validation_checkpoint}`);
  }
  const s = r.final_validation_seed_summary;
  lines.push("", `final validation NLL over ${s.count} seeds: mean ${f(s.mean)}, sample SD ${s.sample_sd === null ? `n/a (${s.sample_sd_reason})` : f(s.sample_sd)}, min ${f(s.min)}, max ${f(s.max)}`);
  lines.push(`  ${s.interpretation}`);
  const m = r.multi_bootstrap;
  const iv = (x: { lo: number; hi: number }) => `[${f(x.lo)}, ${f(x.hi)}]`;
  lines.push("", `Multi-Bootstrap of validation NLL over ${m.seeds} seeds × ${m.documents} documents (${m.replicates} replicates, 95% percentile intervals, bootstrap seed ${m.bootstrap_seed}):`);
  lines.push(`  ${"update".padStart(6)}   ${"NLL".padStart(8)}   ${"seeds and documents".padEnd(22)}   ${"seeds only".padEnd(22)}   documents only`);
  for (const c of m.checkpoints) lines.push(`  ${String(c.update).padStart(6)}   ${f(c.both.estimate)}   ${iv(c.both).padEnd(22)}   ${iv(c.seeds_only).padEnd(22)}   ${iv(c.documents_only)}`);
  lines.push(`  ${m.note}`);
  return lines.join("\n");
}

/** Training and validation NLL against update, one line pair per seed, baselines as horizontal lines. */
export function overfitFigure(r: OverfitResult): string {
  const series = r.runs.flatMap((run, i) => [
    { name: `seed ${run.seed} train`, points: run.checkpoints.map((c) => [c.update, c.train.nll] as [number, number]), color: PALETTE[i % PALETTE.length], marker: true },
    { name: `seed ${run.seed} validation`, points: run.checkpoints.map((c) => [c.update, c.validation.nll] as [number, number]), color: PALETTE[i % PALETTE.length], dash: "6 4", marker: true },
  ]);
  const refLines = r.baselines.map((b) => ({ name: b.name.replace(/ \(.*\)$/, ""), y: b.validation.nll, color: "#888888", dash: "2 3" }));
  return lineChart({ title: "Overfitting: training vs validation NLL by update (baselines: validation)", xLabel: "update", yLabel: "NLL (nats per target)", series, refLines });
}
