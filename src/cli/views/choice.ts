// Console table of `tinylab choice` (experiments/choice.ts). Presentation only.
import type { ChoiceReport } from "../../../experiments/choice.ts";

const pct = (x: number) => `${(100 * x).toFixed(2)}%`;

export function formatChoice(r: ChoiceReport): string {
  const row = (name: string, m: ChoiceReport["acc"]) =>
    `  ${name.padEnd(9)} ${pct(m.value).padStart(7)}  (${m.correct} of ${r.questions})  ${m.wilson ? `Wilson 95% [${pct(m.wilson.lo)}, ${pct(m.wilson.hi)}]` : `(${m.wilson_reason}: no interval)`}`;
  return [
    `model ${r.model} (model_sha256 ${r.model_sha256.slice(0, 16)}…), ${r.questions} questions from ${r.data}`,
    ...(r.convention ? [`convention: ${r.convention.label}`] : []),
    row("acc", r.acc),
    row("acc_norm", r.acc_norm),
    `  chance    ${pct(r.chance).padStart(7)}  (mean of 1/candidates: a uniform guess)`,
    `  acc picks the highest summed log-likelihood; acc_norm divides it by the candidate's token count; ties go to the lower index`,
  ].join("\n");
}
