// Console summary of `tinylab export` (experiments/export.ts). Presentation only.
import { basename, dirname } from "node:path";
import type { ExportReport } from "../../../experiments/export.ts";

export function formatExport(r: ExportReport): string {
  return [
    `model ${r.model}`,
    `model_sha256 ${r.model_sha256} (integrity ${r.integrity})`,
    `exported as ${r.format} → ${r.out}`,
    ...r.files.map((f) => `  ${f.name.padEnd(24)} ${String(f.bytes).padStart(9)} bytes  sha256 ${f.sha256}`),
    r.format === "onnx"
      ? `run it with onnxruntime: InferenceSession.create("${r.out}/model.onnx") (inputs and outputs: docs/model-format.md §8)`
      : `load it with transformers.js offline: env.localModelPath = "${dirname(r.out)}"; pipeline("text-generation", "${basename(r.out)}") (docs/transformers-js.md)`,
  ].join("\n");
}
