// Console table of `tinylab evaluate` (experiments/evaluate.ts). Presentation only.
import { round6 } from "../../util/runtime/provenance.ts";
import { engineLabel, engineRecord } from "../../util/engine.ts";
import { visibleChars } from "../../util/render/text_view.ts";
import type { EvaluateReport } from "../../../experiments/evaluate.ts";
import { strideLabel } from "../../eval/passes/windows.ts";

/** Printed before any number of a run that may score the test split. */
export const FINAL_REPORT_BANNER = "FINAL REPORT: the test split is scored. Numbers from here must not feed back into any choice.\n";

export function formatEvaluation(r: EvaluateReport): string {
  const f = (x: number) => round6(x).toFixed(6);
  const t = r.trained as { seed: number; update: number; backend: string; kernels?: string; onnxruntime?: string };
  // strings from the model file (a re-signed one may hold a newline) and paths: escaped, so none can forge a line
  const v = (s: unknown) => visibleChars(String(s));
  const lines = [
    `model ${v(r.model)}`,
    `model_sha256 ${r.model_sha256} (integrity ${r.integrity})`,
    `trained: seed ${t.seed}, update ${t.update}, backend ${v(engineLabel(t))}; scored on ${engineLabel(engineRecord(r.provenance), undefined, r.model_config as { dModel?: number; nHeads?: number })}, no training`,
    `data: ${v(r.data.source)} (${r.data.documents} documents), encoded with the model file's tokenizer; ${r.batch_rows} row(s) per batch, one window per row, ${strideLabel(r.stride, r.context_length)}`,
    ...(r.data.note ? [v(r.data.note)] : []),
    `${"split".padEnd(10)} ${"NLL".padStart(9)} ${"perplexity".padStart(12)} ${"targets".padStart(7)} ${"batches".padStart(7)}  recorded graphs`,
  ];
  for (const [split, s] of Object.entries(r.splits)) {
    lines.push(
      `${split.padEnd(10)} ${f(s.nll).padStart(9)} ${f(s.perplexity).padStart(12)} ${String(s.targets).padStart(7)} ${String(s.batches).padStart(7)}  ${s.recorded_graphs}`,
    );
  }
  if (r.test_documents_not_scored > 0)
    lines.push(`test split: ${r.test_documents_not_scored} documents not scored (pass --final-test for the final report)`);
  return lines.join("\n");
}
