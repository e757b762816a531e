// Console report and SVG figures of the cyclic-permutation experiment (experiments/cyclic.ts). Presentation only.
import { round6 } from "../../util/runtime/provenance.ts";
import { engineLabel, engineRecord } from "../../util/engine.ts";
import { count, formatTable } from "./table.ts";
import { lineChart } from "../../util/render/line_chart.ts";
import { rawAndSmoothed } from "../../util/render/loss_curve.ts";
import { dashFor, paletteColor } from "../../util/render/svg.ts";
import type { Split } from "../../data/documents.ts";
import type { CyclicResult, Score } from "../../../experiments/cyclic.ts";

/** The readable report (values rounded to 6 decimals for display only). */
export function formatCyclic(r: CyclicResult): string {
  const f = (x: number) => round6(x).toFixed(6);
  const c = r.model_config,
    o = r.options;
  const lines = [
    ...(r.scores.test ? ["FINAL REPORT (--final-test): the test split is scored at the end of this report."] : []),
    `cyclic permutations: rows train ${r.data.rows.train} / validation ${r.data.rows.validation} / test ${r.data.rows.test} (${r.data.split_from}), ${r.data.targets_per_row} targets per row`,
    `decoder: ${count(c.nLayers, "layer")}, d_model ${c.dModel}, ${count(c.nHeads, "head")}, d_ff ${c.dFF}, context ${c.contextLength}, vocab ${c.vocabSize}, ${r.parameters} parameters; seed ${o.seed}`,
    `training: ${o.updates} updates × ${o.batchRows} rows drawn with replacement, Adam β ${r.optimizer.beta1}/${r.optimizer.beta2} ε ${r.optimizer.eps}, lr ${o.lr}, clip ${o.clipNorm} (${r.training.clipped_updates} updates clipped); backend ${engineLabel(engineRecord(r.provenance), c)}`,
    "",
    ...formatTable(
      ["update", "train NLL", "validation NLL"],
      r.training.checkpoints.map((k) => [String(k.update), f(k.train), f(k.validation)]),
      ["r", "r", "r"],
    ),
  ];
  const last = r.data.targets_per_row - 1;
  // one row: name, NLL, perplexity, NLL at the determined positions, then NLL at each position (nats per target)
  const row = (name: string, nll: number, determined: number, byPosition: number[]) => [
    name,
    f(nll),
    f(Math.exp(nll)),
    f(determined),
    ...byPosition.map((x) => x.toFixed(4)),
  ];
  const table = (split: Split) => {
    const rows = r.scores[split]!;
    const floor = r.task_entropy_by_position;
    const positions = Array.from({ length: r.data.targets_per_row }, (_, t) => `p${t}`);
    return [
      ...formatTable(
        [`${split} (${rows[0].targets} targets)`, "NLL", "perplexity", `p${r.first_determined_position}-${last} NLL`, ...positions],
        [
          ...rows.map((m) =>
            row(
              m.name,
              m.nll,
              m.determined_positions.nll,
              m.by_position.map((p) => p.nll),
            ),
          ),
          row(
            `task entropy (all ${r.data.rows.train + r.data.rows.validation + r.data.rows.test} rows)`,
            floor.reduce((a, b) => a + b, 0) / floor.length,
            0,
            floor,
          ),
        ],
        ["l", ...Array(4 + positions.length - 1).fill("r")],
        "",
      ),
      `  NLL in nats per target; ${rows[0].by_position[0].targets} targets at each position p0-p${last}`,
    ];
  };
  lines.push("", ...table("train"), "", ...table("validation"));
  const v = r.scores.validation!;
  const dec = v[0].determined_positions.nll,
    big = v.find((m) => m.name.startsWith("bigram"))!.determined_positions.nll;
  lines.push(
    "",
    `validation, positions ${r.first_determined_position}-${last} (one full cycle seen, target determined): decoder ${f(dec)} vs ${v.find((m) => m.name.startsWith("bigram"))!.name} ${f(big)} nats per target`,
  );
  const rc = r.resume_check;
  lines.push(
    "",
    `resume check: snapshot after update ${rc.at_update} (weights, Adam moments and step, RNG streams ${rc.compared.rng_streams.join(", ")}), update ${rc.replayed_update}, restore, update ${rc.replayed_update} again:`,
  );
  lines.push(
    `  ${rc.compared.parameter_values} weights in ${rc.compared.parameter_tensors} tensors, ${rc.compared.adam_moments} moment tensors, step and RNG states ${rc.bit_identical ? "bit-identical" : `DIFFER: ${[...rc.restore_differences, ...rc.replay_differences].join(", ")}`}; losses ${rc.losses.map(f).join(" / ")}`,
  );
  lines.push(
    `  control, batch-sampling stream not restored: ${rc.control_without_batch_rng.identical ? "IDENTICAL (the check could not detect a missing stream)" : `${rc.control_without_batch_rng.differing} entries differ, as they must`}`,
  );
  if (r.scores.test) {
    const banner = "=".repeat(100);
    lines.push(
      "",
      banner,
      "FINAL REPORT: the test split is scored below. Report it once; choosing anything by it turns it into validation.",
      banner,
      ...table("test"),
      banner,
    );
  } else lines.push("", "test split: not scored (pass --final-test for the final report)");
  return lines.join("\n");
}

/** Loss by position: the decoder (validation and train) against the count baselines and the task's entropy. */
export function cyclicPositionFigure(r: CyclicResult): string {
  const line = (m: Score) => m.by_position.map((p, t) => [t, p.nll] as [number, number]);
  const tips = (m: Score, what: string) =>
    m.by_position.map((p, t) => `${what}, position ${t}: ${p.nll.toFixed(4)} nats over ${p.targets} targets`);
  const v = r.scores.validation!;
  const [decoder, unigram, bigram] = [v[0], v.find((m) => m.name.startsWith("unigram (")), v.find((m) => m.name.startsWith("bigram"))].map(
    (m) => m!,
  );
  const k = r.first_determined_position;
  const [dec, big] = [decoder.determined_positions.nll, bigram.determined_positions.nll];
  const verdict = dec < big ? "beats" : "does not beat";
  // five series, five colours and five dash patterns: no two differ by one cue only
  return lineChart({
    title: `Cyclic permutations: from position ${k} the decoder ${verdict} the bigram on validation (${dec.toFixed(3)} vs ${big.toFixed(3)} nats)`,
    xLabel: "input position (the target is the next token)",
    yLabel: "NLL (nats per target)",
    xInteger: true,
    series: [
      {
        name: "decoder, validation",
        points: line(decoder),
        color: paletteColor(0),
        marker: true,
        tips: tips(decoder, "decoder, validation"),
      },
      {
        name: "decoder, train",
        points: line(r.scores.train![0]),
        color: paletteColor(1),
        dash: dashFor(1),
        marker: true,
        tips: tips(r.scores.train![0], "decoder, train"),
      },
      {
        name: `${bigram.name}, validation`,
        points: line(bigram),
        color: paletteColor(2),
        dash: dashFor(3),
        marker: true,
        tips: tips(bigram, "bigram, validation"),
      },
      {
        name: `${unigram.name}, validation`,
        points: line(unigram),
        color: paletteColor(4),
        dash: dashFor(2),
        marker: true,
        tips: tips(unigram, "unigram, validation"),
      },
      {
        name: "task entropy (floor)",
        points: r.task_entropy_by_position.map((h, t) => [t, h] as [number, number]),
        color: paletteColor(6),
        dash: dashFor(6),
        marker: true,
      },
    ],
    counts: { name: "validation targets per position", points: decoder.by_position.map((p, t) => [t, p.targets] as [number, number]) },
    notes: [`From position ${k} one full cycle has been seen and the target is determined (entropy 0).`],
  });
}

/** Training batch loss per update (raw and smoothed) with train/validation NLL at checkpoints. */
export function cyclicTrainingFigure(r: CyclicResult): string {
  const bigram = r.scores.validation!.find((m) => m.name.startsWith("bigram"))!;
  return lineChart({
    title: "Cyclic permutations: training curve",
    xLabel: "update",
    yLabel: "NLL (nats per target)",
    series: [
      ...rawAndSmoothed({ name: "batch loss", points: r.training.steps.map((x, i) => [i + 1, x.loss] as [number, number]) }, 0.1),
      { name: "train NLL (all rows)", points: r.training.checkpoints.map((k) => [k.update, k.train] as [number, number]), marker: true },
      {
        name: "validation NLL",
        points: r.training.checkpoints.map((k) => [k.update, k.validation] as [number, number]),
        marker: true,
        dash: "6 4",
      },
    ],
    refLines: [{ name: "bigram, validation", y: bigram.nll }],
  });
}
