// Console table of `tinylab compare` (experiments/compare.ts): the paired differences. Presentation only; the
import { round6 } from "../../util/runtime/provenance.ts";
import type { CompareResult } from "../../eval/compare/compare.ts";
import { strideLabel } from "../../eval/passes/windows.ts";
import { csvTable } from "../../util/formats/csv.ts";
import { conventionSuffix } from "../../eval/render/compare_page.ts";

const f = (x: number) => round6(x).toFixed(6);
const pct = (x: number) => `${(100 * x).toFixed(2)}%`;

type Diff = CompareResult["bits_per_byte"]["difference"];
const diffLine = (label: string, d: Diff) =>
  d.lo === null
    ? `  ${label.padEnd(22)} B − A ${f(d.estimate)}  (${d.interval_reason}: no interval, no p-value)`
    : `  ${label.padEnd(22)} B − A ${f(d.estimate)}  95% [${f(d.lo)}, ${f(d.hi)}]  one-sided p ${d.p_one_sided.toPrecision(4)} (floor ${d.p_floor.toPrecision(4)})`;

export function formatCompare(r: CompareResult): string {
  const lines = [
    `A ${r.a.name}${r.a.model_sha256 ? ` (model_sha256 ${r.a.model_sha256.slice(0, 16)}…)` : ""}${conventionSuffix(r, r.a)}`,
    `B ${r.b.name}${r.b.model_sha256 ? ` (model_sha256 ${r.b.model_sha256.slice(0, 16)}…)` : ""}${conventionSuffix(r, r.b)}`,
    `data: ${r.data.source}, split ${r.data.split}: ${r.data.documents} documents, ${r.data.targets ?? "—"} targets, ${r.data.bytes} bytes; ${strideLabel(r.stride, r.context_length)}; ${r.same_tokenizer ? "same tokenizer, same targets" : "different tokenizers: bits per byte only"}`,
    ...(r.data.notes ?? []),
    "",
    `${"".padEnd(24)} ${"A".padStart(9)} ${"B".padStart(9)}`,
  ];
  if (r.nll) lines.push(`  ${"NLL (nats/target)".padEnd(22)} ${f(r.nll.a)} ${f(r.nll.b)}`);
  lines.push(`  ${"bits per byte".padEnd(22)} ${f(r.bits_per_byte.a)} ${f(r.bits_per_byte.b)}`);
  if (r.accuracy) {
    const { a, b } = r.accuracy;
    const wilson =
      a.wilson && b.wilson
        ? `Wilson 95% A [${pct(a.wilson.lo)}, ${pct(a.wilson.hi)}], B [${pct(b.wilson.lo)}, ${pct(b.wilson.hi)}]`
        : `${a.wilson_reason ?? b.wilson_reason}: no interval`;
    lines.push(
      `  ${"next-token accuracy".padEnd(22)} ${pct(a.acc).padStart(9)} ${pct(b.acc).padStart(9)}   (${a.hits} and ${b.hits} of ${a.targets}; ${wilson})`,
    );
  }
  lines.push(
    "",
    `paired differences (positive: A predicts better), ${r.bootstrap.replicates} replicates over ${r.bootstrap.resampled}, seed ${r.bootstrap.seed}:`,
  );
  if (r.nll) lines.push(diffLine("NLL (nats/target)", r.nll.difference));
  else lines.push(`  NLL: not compared (${r.nll_reason})`);
  lines.push(diffLine("bits per byte", r.bits_per_byte.difference));
  if (r.accuracy) {
    const m = r.accuracy.mcnemar;
    lines.push(
      `  next-token accuracy: of the targets, ${m.a_only} only A got right and ${m.b_only} only B; ${m.test}: ${m.p_two_sided === null ? `no p-value (${m.p_reason})` : `p ${m.p_two_sided.toPrecision(4)}`}`,
    );
  } else lines.push(`  accuracy: not compared (${r.accuracy_reason})`);
  lines.push(`  ${r.bootstrap.note}`);
  return lines.join("\n");
}

/** The comparison's table for a spreadsheet (compare.csv): one row per metric, A, B and the paired difference B − A with its interval and p. */
export function compareCsv(r: CompareResult): string {
  const row = (metric: string, a: number, b: number, d: Diff) => [metric, a, b, d.estimate, d.lo, d.hi, d.p_one_sided, d.p_floor];
  return csvTable(
    ["metric", "a", "b", "difference_b_minus_a", "difference_lo95", "difference_hi95", "p_one_sided", "p_floor"],
    [
      ...(r.nll ? [row("nll_nats_per_target", r.nll.a, r.nll.b, r.nll.difference)] : []),
      row("bits_per_byte", r.bits_per_byte.a, r.bits_per_byte.b, r.bits_per_byte.difference),
      ...(r.accuracy
        ? [["next_token_accuracy", r.accuracy.a.acc, r.accuracy.b.acc, r.accuracy.b.acc - r.accuracy.a.acc, null, null, null, null]]
        : []),
    ],
  );
}
