// Console report and SVG figures of the cyclic-permutation experiment (experiments/cyclic.ts). Presentation only.
import { round6 } from "../../util/provenance.ts";
import { count } from "./table.ts";
import { lineChart, rawAndSmoothed } from "../../util/charts.ts";
import type { Split } from "../../data/documents.ts";
import type { CyclicResult, Score } from "../../../experiments/cyclic.ts";

/** The readable report (values rounded to 6 decimals for display only). */
export function formatCyclic(r: CyclicResult): string {
  const f = (x: number) => round6(x).toFixed(6);
  const c = r.model_config, o = r.options;
  const lines = [
    ...(r.scores.test ? ["FINAL REPORT (--final-test): the test split is scored at the end of this report."] : []),
    `cyclic permutations: rows train ${r.data.rows.train} / validation ${r.data.rows.validation} / test ${r.data.rows.test} (${r.data.split_from}), ${r.data.targets_per_row} targets per row`,
    `decoder: ${count(c.nLayers, "layer")}, d_model ${c.dModel}, ${count(c.nHeads, "head")}, d_ff ${c.dFF}, context ${c.contextLength}, vocab ${c.vocabSize}, ${r.parameters} parameters; seed ${o.seed}`,
    `training: ${o.updates} updates × ${o.batchRows} rows drawn with replacement, Adam β ${r.optimizer.beta1}/${r.optimizer.beta2} ε ${r.optimizer.eps}, lr ${o.lr}, clip ${o.clipNorm} (${r.training.clipped_updates} updates clipped); backend ${r.provenance.backend}`,
    "", "  update   train NLL   validation NLL",
    ...r.training.checkpoints.map((k) => `  ${String(k.update).padStart(6)}   ${f(k.train)}    ${f(k.validation)}`),
  ];
  const last = r.data.targets_per_row - 1;
  // one row: name, NLL, perplexity, NLL at the determined positions, then NLL at each position
  const row = (name: string, nll: number, determined: number, byPosition: number[]) =>
    `  ${name.padEnd(28)} ${f(nll)} ${f(Math.exp(nll)).padStart(11)} ${f(determined).padStart(11)}   ${byPosition.map((x) => x.toFixed(4).padStart(7)).join(" ")}`;
  const table = (split: Split) => {
    const rows = r.scores[split]!;
    const pos = Array.from({ length: r.data.targets_per_row }, (_, t) => `p${t}`.padStart(7)).join(" ");
    const floor = r.task_entropy_by_position;
    return [
      `${`${split} (${rows[0].targets} targets)`.padEnd(30)} ${"NLL".padStart(8)} ${"perplexity".padStart(11)} ${`p${r.first_determined_position}-${last} NLL`.padStart(11)}   ${pos}`,
      ...rows.map((m) => row(m.name, m.nll, m.determined_positions.nll, m.by_position.map((p) => p.nll))),
      row("task entropy (all 120 rows)", floor.reduce((a, b) => a + b, 0) / floor.length, 0, floor),
    ];
  };
  lines.push("", ...table("train"), "", ...table("validation"));
  const v = r.scores.validation!;
  const dec = v[0].determined_positions.nll, big = v.find((m) => m.name.startsWith("bigram"))!.determined_positions.nll;
  lines.push("", `validation, positions ${r.first_determined_position}-${last} (one full cycle seen, target determined): decoder ${f(dec)} vs ${v.find((m) => m.name.startsWith("bigram"))!.name} ${f(big)} nats per target`);
  const rc = r.resume_check;
  lines.push("", `resume check: snapshot after update ${rc.at_update} (weights, Adam moments and step, RNG streams ${rc.compared.rng_streams.join(", ")}), update ${rc.replayed_update}, restore, update ${rc.replayed_update} again:`);
  lines.push(`  ${rc.compared.parameter_values} weights in ${rc.compared.parameter_tensors} tensors, ${rc.compared.adam_moments} moment tensors, step and RNG states ${rc.bit_identical ? "bit-identical" : `DIFFER: ${[...rc.restore_differences, ...rc.replay_differences].join(", ")}`}; losses ${rc.losses.map(f).join(" / ")}`);
  lines.push(`  control, batch-sampling stream not restored: ${rc.control_without_batch_rng.identical ? "IDENTICAL (the check could not detect a missing stream)" : `${rc.control_without_batch_rng.differing} entries differ, as they must`}`);
  if (r.scores.test) {
    const banner = "=".repeat(100);
    lines.push("", banner, "FINAL REPORT: the test split is scored below. Report it once; choosing anything by it turns it into validation.", banner, ...table("test"), banner);
  } else lines.push("", "test split: not scored (pass --final-test for the final report)");
  return lines.join("\n");
}

/** Loss by position: the decoder (validation and train) against the count baselines and the task's entropy. */
export function cyclicPositionFigure(r: CyclicResult): string {
  const line = (m: Score) => m.by_position.map((p, t) => [t, p.nll] as [number, number]);
  const v = r.scores.validation!;
  const [decoder, unigram, bigram] = [v[0], v.find((m) => m.name.startsWith("unigram (")), v.find((m) => m.name.startsWith("bigram"))].map((m) => m!);
  return lineChart({
    title: `Cyclic permutations: loss by position after ${r.options.updates} updates`, xLabel: "input position (the target is the next token)", yLabel: "NLL (nats per target)",
    series: [
      { name: "decoder, validation", points: line(decoder), marker: true },
      { name: "decoder, train", points: line(r.scores.train![0]), marker: true, dash: "6 4" },
      { name: "bigram (add-1), validation", points: line(bigram), marker: true },
      { name: "unigram, validation", points: line(unigram), dash: "3 3" },
      { name: "task entropy (floor)", points: r.task_entropy_by_position.map((h, t) => [t, h] as [number, number]), marker: true, dash: "2 3" },
    ],
    notes: [`From position ${r.first_determined_position} one full cycle has been seen and the target is determined (entropy 0).`],
  });
}

/** Training batch loss per update (raw and smoothed) with train/validation NLL at checkpoints. */
export function cyclicTrainingFigure(r: CyclicResult): string {
  const bigram = r.scores.validation!.find((m) => m.name.startsWith("bigram"))!;
  return lineChart({
    title: "Cyclic permutations: training curve", xLabel: "update", yLabel: "NLL (nats per target)",
    series: [
      ...rawAndSmoothed({ name: "batch loss", points: r.training.steps.map((x, i) => [i + 1, x.loss] as [number, number]) }, 0.1),
      { name: "train NLL (all rows)", points: r.training.checkpoints.map((k) => [k.update, k.train] as [number, number]), marker: true },
      { name: "validation NLL", points: r.training.checkpoints.map((k) => [k.update, k.validation] as [number, number]), marker: true, dash: "6 4" },
    ],
    refLines: [{ name: "bigram, validation", y: bigram.nll }],
  });
}
