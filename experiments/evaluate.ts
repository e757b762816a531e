// `tinylab evaluate` as a recipe: restore a model and its tokenizer from a model file's bytes alone and score
// documents without training. Pure (the CLI and the web page hand it bytes; evaluate_file.ts reads them from disk).
// Not a trainer and not a tokenizer fitter: the file's tokenizer encodes the text as it is.
import { SPLITS, type Document, type Split } from "../src/data/documents.ts";
import type { Batch } from "../src/data/batches.ts";
import type { ScoringBinding, ScoringModel } from "../src/model/scoring.ts";
import { decoderAdapter } from "../src/eval/passes/adapter.ts";
import { evaluateLikelihood } from "../src/eval/passes/likelihood.ts";
import { scoringStride, windowBatches } from "../src/eval/passes/windows.ts";
import { record } from "../src/eval/metrics/summary.ts";
import { lmEvalModel, type LmEvalModel, type LmEvalTask } from "../src/eval/loggers/lm_eval.ts";
import { rollingSplitTask } from "./lm_eval_tasks.ts";
import { parameterCount } from "../src/model/config.ts";
import { decodeModelFile } from "../src/lab/model_file.ts";
import { provenance, type Provenance } from "../src/util/runtime/provenance.ts";
import { tfjsOnly } from "../src/util/backend.ts";
import type { Engine } from "../src/util/engine.ts";
import { checkScoringMemory } from "../src/lab/memory.ts";
import { thisThread, withPool, type PoolOpener } from "../src/train/pool.ts";
import { phase, type ProgressStream } from "../src/util/runtime/progress.ts";
import { scoringDocuments, type ScoringText } from "./scoring_data.ts";

export interface EvaluateOptions {
  /** The model file's path (or, in the page, its name): reported and named in errors. */
  model: string;
  batchRows: number;
  split: Split | "all";
  /** A documents file's path or name (src/data/documents_jsonl.ts); the overfit fixture's texts when absent. */
  data?: string;
  /** Window stride (src/eval/passes/windows.ts scoringStride): default the context, so a document that fits is one window. */
  stride?: number;
  /** The test split is scored only in a final report: `split: "test"` is refused without it, and "all" leaves test out. */
  finalTest?: boolean;
  /**
   * The engine that computes (src/util/engine.ts), its workers (capped by the batches of the largest split) the
   * threads that score; absent: tfjs's own kernels of the current backend.
   */
  engine?: Engine;
  /** Where those threads come from (src/node/pool.ts `threadPools` on Node); absent: this thread alone. */
  openPool?: PoolOpener;
  /** Also score each split as lm-evaluation-harness's loglikelihood_rolling task (src/eval/passes/rolling.ts). */
  lmEval?: boolean;
  /** Where scoring that outlasts a phase's quiet time (QUIET_MS) shows its progress (stderr); absent: nowhere. */
  progress?: ProgressStream;
}

/** The splits scored, or a refusal: the test split is reachable only with --final-test. */
export function chosenSplits(split: Split | "all", finalTest: boolean | undefined): readonly Split[] {
  if (split === "test" && !finalTest)
    throw new Error(
      "--split test scores the test split, which only a final report may do: add --final-test (and choose nothing on its numbers)",
    );
  if (split !== "all") return [split];
  return finalTest ? SPLITS : SPLITS.filter((s) => s !== "test");
}

export interface SplitScore extends ReturnType<typeof record> {
  batches: number;
  recorded_graphs: number;
}

export interface EvaluateReport {
  model: string;
  model_sha256: string;
  /** Whether the file's integrity digest was checked ("verified") or the format has none. */
  integrity: string;
  model_config: unknown;
  tokenizer: unknown;
  trained: unknown;
  /** `note`: one line when the model was not trained on these documents (src/lab/trained_on.ts). */
  data: { source: string; documents: number; note?: string };
  batch_rows: number;
  /** One window per row (a document that fits the context is one window). */
  layout: "strided windows";
  stride: number;
  context_length: number;
  /** True when the test split was allowed (--final-test): the numbers are a final report. */
  final_test: boolean;
  /** Test documents present in the data but not scored (0 with --final-test). */
  test_documents_not_scored: number;
  splits: Partial<Record<Split, SplitScore>>;
  provenance: Provenance;
}

/** The bytes evaluateModel scores: the model file's, and the documents file's when `data` names one, or a run's text split. */
export interface EvaluateInputs {
  modelBytes: Uint8Array;
  dataBytes?: Uint8Array;
  text?: ScoringText;
}

/** Each chosen split's window batches (with `split: "all"`, the splits the documents hold); a chosen split without documents is refused. */
export function splitBatches(
  docs: readonly Document[],
  source: string,
  allowed: readonly Split[],
  o: Pick<EvaluateOptions, "split" | "stride" | "batchRows">,
  binding: ScoringBinding,
): (readonly [Split, readonly Batch[]])[] {
  const stride = scoringStride(o.stride, binding.contextLength);
  const splits = o.split === "all" ? allowed.filter((s) => docs.some((d) => d.split === s)) : allowed;
  return splits.map((split) => {
    const chosen = docs.filter((d) => d.split === split);
    if (chosen.length === 0) throw new Error(`no ${split} documents in ${source}`);
    return [split, windowBatches(chosen, binding, stride, o.batchRows).batches] as const;
  });
}

/** Each split's batches (splitBatches) scored by `model`: what evaluate reports for a model file or a model directory. */
export function scoreSplits(
  model: ScoringModel,
  bySplit: readonly (readonly [Split, readonly Batch[]])[],
  onBatches?: (n: number) => void,
): Partial<Record<Split, SplitScore>> {
  const splits: Partial<Record<Split, SplitScore>> = {};
  for (const [split, batches] of bySplit) {
    const e = evaluateLikelihood(model, split, batches, onBatches);
    splits[split] = { ...record(e.metrics), batches: e.batches, recorded_graphs: e.recordedGraphs };
  }
  return splits;
}

/** Score the chosen splits of the documents with the restored model; the model is disposed before returning. */
export function evaluateModel(o: EvaluateOptions, input: EvaluateInputs): EvaluateReport {
  return scoreModel(o, input).report;
}

/**
 * The report, and with `o.lmEval` one lm-evaluation-harness loglikelihood_rolling task per scored split, all of
 * that split's documents in it: the text (the content ids decoded; an `ids` row's trailing EOS is not text) scored
 * after BOS with no EOS, in disjoint windows of the context, as the harness scores a text.
 */
export function scoreModel(
  o: EvaluateOptions,
  input: EvaluateInputs,
): { report: EvaluateReport; lmEval?: LmEvalTask[]; lmEvalModel: LmEvalModel } {
  if (!Number.isInteger(o.batchRows) || o.batchRows < 1) throw new Error(`--batch-rows must be a positive integer, got ${o.batchRows}`);
  const allowed = chosenSplits(o.split, o.finalTest);
  if (o.data !== undefined && input.dataBytes === undefined) throw new Error(`documents file ${o.data}: no bytes were given`);
  // --batch-rows against the model's shape, before the model is built or a batch made
  const engine = o.engine ?? tfjsOnly();
  const loaded = decodeModelFile(input.modelBytes, o.model, engine, (config) =>
    checkScoringMemory(config, 4 * parameterCount(config), o.batchRows),
  );
  try {
    const { model, tokenizer, config } = loaded;
    const { docs, source, note } = scoringDocuments(o.model, loaded, {
      text: input.text,
      documents: o.data !== undefined ? { name: o.data, bytes: input.dataBytes! } : undefined,
    });
    const stride = scoringStride(o.stride, config.contextLength);
    const bySplit = splitBatches(docs, source, allowed, o, config);
    const lmEval: LmEvalTask[] = [];
    let used = 1,
      scores: Partial<Record<Split, SplitScore>> = {};
    withPool(o.openPool ?? thisThread, engine.workers, Math.max(...bySplit.map(([, b]) => b.length)), config, (pool) => {
      used = pool.size;
      const adapter = decoderAdapter(model, { pool });
      const bar = phase(
        o.progress,
        "evaluate",
        bySplit.reduce((n, [, b]) => n + b.length, 0),
        "batches",
      );
      scores = scoreSplits(adapter, bySplit, (n) => bar?.tick(n));
      bar?.done();
      if (o.lmEval)
        for (const [split] of bySplit)
          lmEval.push(
            rollingSplitTask(
              adapter,
              docs.filter((d) => d.split === split),
              tokenizer,
              source,
              split,
              o.batchRows,
            ),
          );
    });
    const splits = bySplit.map(([s]) => s);
    const report: EvaluateReport = {
      model: o.model,
      model_sha256: loaded.sha256,
      integrity: loaded.integrity,
      model_config: config,
      tokenizer: tokenizer.toJSON(),
      trained: loaded.provenance,
      data: { source, documents: docs.length, ...(note ? { note } : {}) },
      batch_rows: o.batchRows,
      layout: "strided windows",
      stride,
      context_length: config.contextLength,
      final_test: o.finalTest === true,
      test_documents_not_scored: splits.includes("test") ? 0 : docs.filter((d) => d.split === "test").length,
      splits: scores,
      provenance: { ...provenance(engine), workers: used },
    };
    return { report, ...(o.lmEval ? { lmEval } : {}), lmEvalModel: lmEvalModel(o.model, loaded, parameterCount(config)) };
  } finally {
    loaded.model.dispose();
  }
}
