// Console table of `tinylab gradcheck` (experiments/gradcheck.ts). Presentation only.
import { GRADCHECK_ATOL, GRADCHECK_EPS, GRADCHECK_RTOL, type GradcheckReport } from "../../model/gradcheck.ts";

export function formatGradcheck(name: string, r: GradcheckReport, backend: string): string {
  const e = (x: number) => x.toExponential(2).padStart(9);
  const lines = [
    `gradcheck ${name} on ${backend}: ${r.coordinates} coordinates, loss ${r.loss.toFixed(6)}, eps ${GRADCHECK_EPS}, pass if |Δ| ≤ ${GRADCHECK_ATOL} + ${GRADCHECK_RTOL}·|numeric|`,
    `${"tensor".padEnd(14)} ${"size".padStart(5)} ${"max abs".padStart(9)} ${"max rel".padStart(9)}  worst coordinate (index: analytic vs numeric)`,
  ];
  for (const t of r.tensors) {
    lines.push(`${t.name.padEnd(14)} ${String(t.size).padStart(5)} ${e(t.maxAbsError)} ${e(t.maxRelError)}  ${t.worst.index}: ${t.worst.analytic.toExponential(6)} vs ${t.worst.numeric.toExponential(6)}  ${t.passed ? "ok" : "FAIL"}`);
  }
  lines.push(`${r.passed ? "PASSED" : "FAILED"} in ${r.seconds.toFixed(2)} s`);
  return lines.join("\n");
}
