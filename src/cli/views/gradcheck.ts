// Console table of `tinylab gradcheck` (experiments/gradcheck.ts). Presentation only.
// Per tensor it shows two coordinates, each labelled: the largest relative error, and the one closest to its bound.
import { GRADCHECK_ATOL, GRADCHECK_EPS, GRADCHECK_RTOL, type GradcheckReport } from "../../model/gradcheck.ts";
import { formatTable } from "./table.ts";

const e = (x: number, d = 2) => x.toExponential(d);
const coordinate = (c: { index: number; analytic: number; numeric: number }) => `[${c.index}] ${e(c.analytic, 6)} vs ${e(c.numeric, 6)}`;

export function formatGradcheck(name: string, r: GradcheckReport, backend: string): string {
  const rows = r.tensors.map((t) => [
    t.name,
    String(t.size),
    e(t.maxAbsError),
    e(t.maxRelError),
    coordinate(t.maxRelAt),
    t.worstBoundRatio.toFixed(3),
    coordinate(t.worst),
    t.passed ? "ok" : "FAIL",
  ]);
  const worst = r.tensors.reduce((a, b) => (b.worstBoundRatio > a.worstBoundRatio ? b : a), r.tensors[0]);
  const failed = r.tensors.filter((t) => !t.passed).length;
  return [
    `gradcheck ${name} on ${backend}: ${r.coordinates} coordinates, loss ${r.loss.toFixed(6)} nats per target, eps ${GRADCHECK_EPS}; a coordinate passes if |Δ| ≤ bound = ${GRADCHECK_ATOL} + ${GRADCHECK_RTOL}·|numeric|`,
    ...(r.gradients === "onnxruntime-graph"
      ? ["analytic gradients: the training step's forward and backward as one ONNX graph on onnxruntime (src/model/onnx_train.ts)"]
      : []),
    ...formatTable(
      [
        "tensor",
        "size",
        "max |Δ|",
        "max rel",
        "max rel at [index] analytic vs numeric",
        "max |Δ|/bound",
        "closest to bound at [index] analytic vs numeric",
        "",
      ],
      rows,
      ["l", "r", "r", "r", "l", "r", "l", "l"],
      "",
    ),
    "rel = |Δ| / max(|analytic|, |numeric|); a near-zero gradient can have rel near 1 and still pass on the absolute term.",
    `${r.passed ? "PASSED" : `FAILED (${failed} of ${r.tensors.length} tensors)`}: largest |Δ|/bound ${worst ? worst.worstBoundRatio.toFixed(3) : "n/a"}${worst ? ` at ${worst.name}[${worst.worst.index}]` : ""} (pass ≤ 1)`,
  ].join("\n");
}
