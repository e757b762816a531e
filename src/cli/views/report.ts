// Console summary of `tinylab report` (experiments/report.ts): the model and data lines, then each evaluator's
// console renderer in list order (src/eval/report/*.ts), then the test split's line. Presentation only.
// A quantity without a value (null in report.json, src/eval/metrics/reasoned.ts) prints as "n/a (its reason)".
import { presentEvaluators, type Evaluator } from "../../eval/report/evaluator.ts";
import type { Report } from "../../eval/report/types.ts";
import { REPORT_EVALUATORS } from "../../eval/report/evaluators.ts";

/** The readable summary printed on stdout; every number sits beside its stride and its count. */
export function formatReport(r: Report, evaluators: readonly Evaluator[] = REPORT_EVALUATORS): string {
  const m = r.identities.model;
  return [
    `model ${m.name}${m.sha256 ? `  sha256 ${m.sha256}` : ""}`,
    `data: ${r.data.description}`,
    ...(r.data.note ? [r.data.note] : []),
    ...presentEvaluators(r, evaluators).flatMap(({ e, value }) => e.render.console(value, r)),
    ...(!r.final_test && r.test_split.startsWith("not scored: ") ? [`test split: ${r.test_split.slice("not scored: ".length)}`] : []),
  ].join("\n");
}
