// Console table of `tinylab baselines` (experiments/baselines.ts). Presentation only.
import { round6 } from "../../util/runtime/provenance.ts";
import type { BaselinesReport } from "../../../experiments/baselines.ts";

export function formatBaselines(r: BaselinesReport): string {
  const f = (x: number) => round6(x).toFixed(6);
  const counts = Object.entries(r.data.documents)
    .map(([s, n]) => `${s} ${n}`)
    .join(", ");
  const lines = [
    `data: ${r.data.path} (${r.data.format}; documents ${counts})`,
    `vocabulary ${r.data.vocab}, from ${r.data.vocab_from}; every baseline fitted on the train split only`,
    `${"split".padEnd(11)} ${"baseline".padEnd(28)} ${"NLL".padStart(9)} ${"perplexity".padStart(12)} ${"targets".padStart(8)}`,
  ];
  for (const [split, rows] of Object.entries(r.splits)) {
    for (const b of rows)
      lines.push(
        `${split.padEnd(11)} ${b.baseline.padEnd(28)} ${f(b.nll).padStart(9)} ${f(b.perplexity).padStart(12)} ${String(b.targets).padStart(8)}`,
      );
  }
  if (r.test_documents_not_scored > 0)
    lines.push(`test split: ${r.test_documents_not_scored} documents not scored (pass --final-test for the final report)`);
  return lines.join("\n");
}
