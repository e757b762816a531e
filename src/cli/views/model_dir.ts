// Console text of `evaluate` and `sample` on a model directory (experiments/model_dir.ts): the directory named by
// its path and hash, its graph's contract, and the BOS/EOS convention with every number. Presentation only.
import { round6 } from "../../util/runtime/provenance.ts";
import { visibleChars } from "../../util/render/text_view.ts";
import type { DirEvaluateReport, DirSampleResult } from "../../../experiments/model_dir.ts";
import type { ModelDirProvenance } from "../../node/model_dir.ts";
import { strideLabel } from "../../eval/passes/windows.ts";
import { decodingLabel } from "./sample.ts";

const v = (s: unknown) => visibleChars(String(s));

/** The lines that name a directory: its path and hash, the graph's file, opset, dtype and inputs, the seal's check. */
export function dirLines(p: ModelDirProvenance): string[] {
  return [
    `model directory ${v(p.directory)} (sha256 ${p.sha256}, over ${p.files.length} files: ${p.files.map((f) => v(f.name)).join(", ")})`,
    `graph ${v(p.graph.file)}: opset ${p.graph.opset}, ${p.graph.dtype}, inputs ${p.graph.inputs.map(v).join(", ")}; ${p.architecture}, context ${p.context_length}, vocabulary ${p.vocab_size}; ${p.manifest}`,
  ];
}

export function formatDirEvaluation(r: DirEvaluateReport): string {
  const f = (x: number) => round6(x).toFixed(6);
  const lines = [
    ...dirLines(r.model_dir),
    `convention: ${r.convention.label}`,
    `data: ${v(r.data.source)} (${r.data.documents} documents), encoded with the directory's tokenizer; ${r.batch_rows} row(s) per batch, one window per row, ${strideLabel(r.stride, r.context_length)}; scored on onnxruntime-node, float64 log-softmax`,
    `${"split".padEnd(10)} ${"NLL".padStart(9)} ${"perplexity".padStart(12)} ${"targets".padStart(7)} ${"batches".padStart(7)}`,
  ];
  for (const [split, s] of Object.entries(r.splits)) {
    lines.push(
      `${split.padEnd(10)} ${f(s.nll).padStart(9)} ${f(s.perplexity).padStart(12)} ${String(s.targets).padStart(7)} ${String(s.batches).padStart(7)}`,
    );
  }
  if (r.test_documents_not_scored > 0)
    lines.push(`test split: ${r.test_documents_not_scored} documents not scored (pass --final-test for the final report)`);
  return lines.join("\n");
}

export function formatDirSample(r: DirSampleResult): string {
  const how = decodingLabel(r.decoding);
  const lines = [
    ...dirLines(r.model_dir),
    `convention: ${r.convention.label}`,
    `${how}; at most ${r.max_tokens} tokens, stopping after EOS`,
    `prompt ids: ${r.prompt.ids.join(" ")}`,
  ];
  for (const s of r.samples) {
    lines.push(
      "",
      `sample ${s.index + 1} (${s.ids.length} tokens, ${s.stopped === "stop-token" ? "stopped at EOS" : "length limit"}): ${v(r.prompt.text)}${v(s.text)}`,
      `ids: ${s.ids.join(" ")}`,
    );
  }
  return lines.join("\n");
}
