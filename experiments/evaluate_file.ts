// The evaluate recipe's file-system edge: reads the model file (and the documents file) from disk, then scores
// them with the pure evaluateModel (evaluate.ts). Not the recipe itself, so the browser page can bundle that.
import { readDocumentsBytes } from "../src/node/files.ts";
import { readModelFileBytes } from "../src/node/disk.ts";
import { scoreModel, type EvaluateOptions, type EvaluateReport } from "./evaluate.ts";
import type { ScoringText } from "./scoring_data.ts";
export { chosenSplits } from "./evaluate.ts";

/** `evaluateModel` over files named by path: the model at `o.model`, the documents at `o.data` when given (or a run's `text`). */
export function evaluateModelFile(o: EvaluateOptions, text?: ScoringText): EvaluateReport {
  return scoreModelFile(o, text).report;
}

/** evaluateModelFile with, when `o.lmEval`, each split as an lm-evaluation-harness task too. */
export function scoreModelFile(o: EvaluateOptions, text?: ScoringText): ReturnType<typeof scoreModel> {
  if (!Number.isInteger(o.batchRows) || o.batchRows < 1) throw new Error(`--batch-rows must be a positive integer, got ${o.batchRows}`);
  const modelBytes = readModelFileBytes(o.model);
  return scoreModel(o, { modelBytes, dataBytes: o.data === undefined ? undefined : readDocumentsBytes(o.data), text });
}
