import { round6 } from "../../util/runtime/provenance.ts";
import { engineLabel, engineRecord } from "../../util/engine.ts";
import { formatTable } from "./table.ts";
import type { OverfitResult } from "../../../experiments/overfit.ts";

/** The readable table printed on stdout (values rounded to 6 decimals for display only). */
export function formatOverfit(r: OverfitResult): string {
  const f = (x: number) => round6(x).toFixed(6);
  const lines: string[] = [];
  const w = r.weighting_probe;
  lines.push(
    `overfit: ${r.options.seeds.length} seeds × ${r.options.updates} updates, lr ${r.options.lr}, backend ${engineLabel(engineRecord(r.provenance), r.model_config)}, targets train ${r.data.targets.train} / validation ${r.data.targets.validation}`,
  );
  lines.push("", "weighting probe (constructed probabilities [0.5, 0.25] and [0.5, 0.5, 0.25, 0.5]):");
  lines.push(
    `  correct merged mean ${f(w.correct.mean_nll)} nats, perplexity ${f(w.correct.perplexity)} over ${w.correct.targets} targets`,
  );
  lines.push(`  wrong unweighted mean ${f(w.wrong_unweighted_mean_nll)}, wrong mean perplexity ${f(w.wrong_mean_perplexity)}`);
  lines.push("", `layouts at seed ${r.options.seeds[0]}'s initial weights, validation:`);
  lines.push(
    ...formatTable(
      ["layout", "batches", "rows", "targets", "NLL", "recorded graphs"],
      r.layout_comparison.rows.map((l) => [
        l.layout,
        String(l.batches),
        String(l.rows),
        String(l.targets),
        f(l.nll),
        String(l.recorded_graphs),
      ]),
      ["l", "r", "r", "r", "r", "r"],
    ),
  );
  lines.push(`  largest NLL difference ${r.layout_comparison.largest_nll_difference.toExponential(3)} nats per target`);
  lines.push("", "baselines (fitted on train; NLL in nats per target, perplexity = exp NLL):");
  lines.push(
    ...formatTable(
      ["baseline", "train NLL", "train ppl", "validation NLL", "validation ppl", "targets train/validation"],
      r.baselines.map((b) => [
        b.name,
        f(b.train.nll),
        f(b.train.perplexity),
        f(b.validation.nll),
        f(b.validation.perplexity),
        `${b.train.targets}/${b.validation.targets}`,
      ]),
      ["l", "r", "r", "r", "r", "r"],
    ),
  );
  for (const run of r.runs) {
    lines.push("", `seed ${run.seed}:`);
    lines.push(
      ...formatTable(
        ["update", "train NLL", "train ppl", "validation NLL", "validation ppl"],
        run.checkpoints.map((c) => [
          String(c.update),
          f(c.train.nll),
          f(c.train.perplexity),
          f(c.validation.nll),
          f(c.validation.perplexity),
        ]),
        ["r", "r", "r", "r", "r"],
      ),
    );
    for (const i of run.intervals)
      lines.push(
        `  ${i.from}→${i.to}: training ${i.train_fell ? "fell" : "did not fall"}, validation ${i.validation_rose ? "rose" : "did not rise"}`,
      );
    lines.push(`  lowest validation NLL among checkpoints: update ${run.lowest_validation_checkpoint}`);
  }
  const s = r.final_validation_seed_summary;
  lines.push(
    "",
    `final validation NLL over ${s.count} seeds: mean ${f(s.mean)}, sample SD ${s.sample_sd === null ? `n/a (${s.sample_sd_reason})` : f(s.sample_sd)}, min ${f(s.min)}, max ${f(s.max)}`,
  );
  lines.push(`  ${s.interpretation}`);
  const m = r.multi_bootstrap;
  lines.push(
    "",
    `Multi-Bootstrap of validation NLL over ${m.seeds} seeds × ${m.documents} documents (${m.replicates} replicates, 95% percentile intervals, bootstrap seed ${m.bootstrap_seed}):`,
  );
  const withheld = m.checkpoints.find((c) => c.both.lo === null)?.both;
  if (withheld && "interval_reason" in withheld) {
    // too few documents: the NLL at each checkpoint alone, the reason once
    lines.push(`  ${"update".padStart(6)}   ${"NLL".padStart(8)}   95% interval`);
    for (const c of m.checkpoints)
      lines.push(`  ${String(c.update).padStart(6)}   ${f(c.both.estimate)}   n/a (n too small for an interval)`);
    lines.push(`  n/a interval: ${withheld.interval_reason}`);
  } else {
    const iv = (x: { lo: number | null; hi: number | null }) => (x.lo === null || x.hi === null ? "n/a" : `[${f(x.lo)}, ${f(x.hi)}]`);
    lines.push(
      `  ${"update".padStart(6)}   ${"NLL".padStart(8)}   ${"seeds and documents".padEnd(22)}   ${"seeds only".padEnd(22)}   documents only`,
    );
    for (const c of m.checkpoints)
      lines.push(
        `  ${String(c.update).padStart(6)}   ${f(c.both.estimate)}   ${iv(c.both).padEnd(22)}   ${iv(c.seeds_only).padEnd(22)}   ${iv(c.documents_only)}`,
      );
  }
  lines.push(`  ${m.note}`);
  return lines.join("\n");
}
