// `tinylab evaluate`: restore a model and its tokenizer from a model file alone and score documents without
// training. Not a trainer and not a tokenizer fitter: the file's tokenizer encodes the text as it is.
import type { CommandModule } from "yargs";
import { loadModel } from "../../checkpoint/model_file.ts";
import { paddedBatches } from "../../data/batches.ts";
import { encodeDocument, SPLITS, targetCount, type Document, type Split } from "../../data/documents.ts";
import { readDocumentsFile } from "../../data/files.ts";
import { OVERFIT_TEXTS } from "../../data/fixtures.ts";
import { decoderAdapter } from "../../eval/adapter.ts";
import { evaluateLikelihood } from "../../eval/likelihood.ts";
import { windowBatches } from "../../eval/windows.ts";
import { record } from "../../eval/summary.ts";
import { provenance, round6, type Provenance } from "../../util/provenance.ts";
import { startEngine, toJson, withBackend } from "../common.ts";

export interface EvaluateOptions {
  model: string;
  batchRows: number;
  split: Split | "all";
  /** A documents file (src/data/files.ts); the overfit fixture's texts when absent. */
  data?: string;
  /** Score in strided windows of the context length (src/eval/windows.ts); needed for documents longer than the context. */
  stride?: number;
}

export interface SplitScore extends ReturnType<typeof record> {
  batches: number;
  recorded_graphs: number;
}

export interface EvaluateReport {
  model: string;
  model_sha256: string;
  model_config: unknown;
  tokenizer: unknown;
  trained: unknown;
  data: { source: string; documents: number };
  batch_rows: number;
  /** "padded": one whole document per row; "strided windows": one window per row. */
  layout: "padded" | "strided windows";
  stride: number | null;
  splits: Partial<Record<Split, SplitScore>>;
  provenance: Provenance;
}

/** Score the chosen splits of the documents with the restored model; the model is disposed before returning. */
export function evaluateModelFile(o: EvaluateOptions): EvaluateReport {
  if (!Number.isInteger(o.batchRows) || o.batchRows < 1) throw new Error(`--batch-rows must be a positive integer, got ${o.batchRows}`);
  const loaded = loadModel(o.model);
  try {
    const { model, tokenizer, config } = loaded;
    const docs: Document[] = o.data ? readDocumentsFile(o.data, tokenizer) : OVERFIT_TEXTS.map((d) => encodeDocument(tokenizer, d));
    const source = o.data ?? "overfit fixture";
    const splits = o.split === "all" ? SPLITS.filter((s) => docs.some((d) => d.split === s)) : [o.split];
    const binding = { vocabSize: config.vocabSize, contextLength: config.contextLength };
    const adapter = decoderAdapter(model);
    const scores: Partial<Record<Split, SplitScore>> = {};
    for (const split of splits) {
      const chosen = docs.filter((d) => d.split === split);
      if (chosen.length === 0) throw new Error(`no ${split} documents in ${source}`);
      const long = o.stride === undefined ? chosen.find((d) => targetCount(d) > config.contextLength) : undefined;
      if (long) throw new Error(`document "${long.id}" has ${targetCount(long)} targets, more than the model's context ${config.contextLength}; pass --stride S (1..${config.contextLength}) to score it in strided windows`);
      const batches = o.stride === undefined ? paddedBatches(chosen, binding, o.batchRows) : windowBatches(chosen, binding, o.stride, o.batchRows).batches;
      const e = evaluateLikelihood(adapter, split, batches);
      scores[split] = { ...record(e.metrics), batches: e.batches, recorded_graphs: e.recordedGraphs };
    }
    return {
      model: o.model, model_sha256: loaded.sha256, model_config: config, tokenizer: tokenizer.toJSON(), trained: loaded.provenance,
      data: { source, documents: docs.length }, batch_rows: o.batchRows,
      layout: o.stride === undefined ? "padded" : "strided windows", stride: o.stride ?? null, splits: scores, provenance: provenance(),
    };
  } finally {
    loaded.model.dispose();
  }
}

export function formatEvaluation(r: EvaluateReport): string {
  const f = (x: number) => round6(x).toFixed(6);
  const t = r.trained as { seed: number; update: number; backend: string };
  const lines = [
    `model ${r.model}`,
    `model_sha256 ${r.model_sha256}`,
    `trained: seed ${t.seed}, update ${t.update}, backend ${t.backend}; scored on ${r.provenance.backend}, no training`,
    `data: ${r.data.source} (${r.data.documents} documents), encoded with the model file's tokenizer; ${r.batch_rows} row(s) per batch, ${r.stride === null ? "one document per row" : `one window per row, stride ${r.stride}`}`,
    `${"split".padEnd(10)} ${"NLL".padStart(9)} ${"perplexity".padStart(12)} ${"targets".padStart(7)} ${"batches".padStart(7)}  recorded graphs`,
  ];
  for (const [split, s] of Object.entries(r.splits)) {
    lines.push(`${split.padEnd(10)} ${f(s.nll).padStart(9)} ${f(s.perplexity).padStart(12)} ${String(s.targets).padStart(7)} ${String(s.batches).padStart(7)}  ${s.recorded_graphs}`);
  }
  return lines.join("\n");
}

export const evaluateCommand: CommandModule = {
  command: "evaluate",
  describe: "Restore a saved model and its tokenizer and score documents without training",
  builder: (y) =>
    withBackend(y)
      .option("model", { type: "string", demandOption: true, describe: "model file (.safetensors) written by --save-model" })
      .option("batch-rows", { type: "number", default: 1, describe: "documents (rows) per batch" })
      .option("split", { choices: [...SPLITS, "all"], default: "all", describe: "split to score; all = every split present" })
      .option("stride", { type: "number", describe: "score in strided windows (1..context); needed for documents longer than the context" })
      .option("data", { type: "string", describe: "JSONL documents file (see src/data/files.ts); default: the overfit fixture" })
      .option("json", { type: "boolean", default: false, describe: "print the report as JSON" }),
  handler: async (argv) => {
    await startEngine(argv.backend as string);
    const report = evaluateModelFile({ model: argv.model as string, batchRows: argv["batch-rows"] as number, split: argv.split as Split | "all", data: argv.data as string | undefined, stride: argv.stride as number | undefined });
    process.stdout.write(argv.json ? toJson(report) : formatEvaluation(report) + "\n");
  },
};
