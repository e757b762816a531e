// Console table of `tinylab canary` (experiments/canary.ts). Presentation only.
import type { CanaryResult } from "../../../experiments/canary.ts";

export function formatCanary(r: CanaryResult): string {
  const f = (x: number) => x.toFixed(4).padStart(9);
  const lines = [
    `canary ${JSON.stringify(r.canary.text)} (secret ${JSON.stringify(r.canary.secret)}), control ${JSON.stringify(r.control.text)} (secret ${JSON.stringify(r.control.secret)}, never inserted)`,
    `model: ${r.model}; data: ${r.data}`,
    `${"repetitions".padStart(11)}  ${"canary ln p".padStart(11)} recovered  ${"control ln p".padStart(12)} recovered  ${"gap".padStart(9)}`,
  ];
  for (const row of r.rows)
    lines.push(
      `${String(row.repetitions).padStart(11)}  ${f(row.canary.log_prob).padStart(11)} ${String(row.canary.recovered).padEnd(9)}  ${f(row.control.log_prob).padStart(12)} ${String(row.control.recovered).padEnd(9)}  ${f(row.gap)}`,
    );
  lines.push(`  ${r.note}`);
  return lines.join("\n");
}
