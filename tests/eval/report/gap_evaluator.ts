// Test fixture (not a test): a metric the report does not have, declared as any evaluator is, to show that adding
// one is this file and one line in the list. The generalization gap: token-weighted validation NLL minus train NLL.
import { notShown, type Evaluator } from "../../../src/eval/report/evaluator.ts";
import { ratioOfSums } from "../../../src/eval/metrics/aggregate.ts";
import { escapeHtml } from "../../../src/util/render/html.ts";
import { f4 } from "../../../src/eval/render/format.ts";

export interface Gap {
  readonly stride: number;
  readonly train_nll: number;
  readonly validation_nll: number;
  readonly gap: number;
}

export const gapEvaluator: Evaluator<Gap> = {
  key: "generalization_gap",
  id: "generalization-gap",
  version: 1,
  aggregation: { kind: "ratio-of-sums", numerator: "total_nll", denominator: "targets", over: "every headline window of a split" },
  identity: { key: "generalization_gap", settings: ({ settings }) => ({ stride: settings.stride }) },
  applies: ({ bySplit }) => bySplit.some(([s]) => s === "train") && bySplit.some(([s]) => s === "validation"),
  compute: ({ bySplit, headline, settings }) => {
    const nll = (split: string) =>
      ratioOfSums(headline[bySplit.findIndex(([s]) => s === split)].windows.map((w) => ({ numerator: w.totalNll, denominator: w.scored })));
    const train = nll("train"),
      validation = nll("validation");
    return { stride: settings.stride, train_nll: train, validation_nll: validation, gap: validation - train };
  },
  render: {
    html: (g) => [
      {
        heading: "Generalization gap",
        html: `<p id="gap">${escapeHtml(`validation − train NLL at stride ${g.stride}: ${f4(g.gap)} nats per target`)}</p>`,
      },
    ],
    markdown: (g) => ["## Generalization gap", "", `validation − train NLL at stride ${g.stride}: ${f4(g.gap)} nats per target`, ""],
    console: (g) => [
      `generalization gap (stride ${g.stride}): validation ${f4(g.validation_nll)} − train ${f4(g.train_nll)} = ${f4(g.gap)} nats per target`,
    ],
    figures: notShown,
  },
};
