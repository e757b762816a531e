// `tinylab report` as a recipe: load a model file (and optionally a canary reference), encode documents with the
// file's own tokenizer, and compose the evaluation report (src/eval/report.ts) with the count baselines beside it.
import { allBaselines } from "../src/baselines/ngram.ts";
import type { BinScheme } from "../src/eval/calibration.ts";
import { encodeDocument, type Document } from "../src/data/documents.ts";
import { readDocumentsFile } from "../src/data/files.ts";
import { OVERFIT_TEXTS } from "../src/data/fixtures.ts";
import { decoderAdapter, type ScoringModel } from "../src/eval/adapter.ts";
import { modelIdentity } from "../src/eval/identity.ts";
import { buildReport, type Report } from "../src/eval/report.ts";
import { CheckpointError, decodeModelFile, type LoadedModel } from "../src/lab/model_file.ts";
import type { ProgressStream } from "../src/util/progress.ts";
import { readFileBytes, requireFile } from "../src/util/disk.ts";
import { usingPool } from "./pool.ts";

export const DEFAULT_DATA_DESCRIPTION = "built-in overfit fixture (OVERFIT_TEXTS in src/data/fixtures.ts: 2 train, 2 validation documents), encoded with the model file's tokenizer";

export interface ReportRunOptions {
  model: string;
  /** A documents file (JSONL); the overfit fixture when absent. */
  data?: string;
  stride?: number;
  seed: number;
  replicates: number;
  canary?: { text: string; secretTokens: number; reference?: string };
  /** Score the test split too: a final report. Without it test documents are not read. */
  finalTest?: boolean;
  /** Calibration bins and scheme (buildReport's defaults: 10, equal-width). */
  bins?: number;
  scheme?: BinScheme;
  /** The count baselines' smoothing k (default DEFAULT_SMOOTHING_K) and unigram-prior λ (default: per-context weight). */
  k?: number;
  lambda?: number;
  progress?: ProgressStream;
  /** Threads that score the likelihood passes (experiments/pool.ts); absent: 1. */
  workers?: number;
}

const load = (path: string, what: string): LoadedModel => decodeModelFile(readFileBytes(requireFile(path, what), what, CheckpointError), path);

/** The report of one model file; every model loaded is disposed before returning. */
export function runReport(o: ReportRunOptions): Report {
  const loaded: LoadedModel[] = [];
  try {
    const main = load(o.model, "model file");
    loaded.push(main);
    const docs: Document[] = o.data ? readDocumentsFile(requireFile(o.data, "documents file"), main.tokenizer) : OVERFIT_TEXTS.map((d) => encodeDocument(main.tokenizer, d));
    let without: ScoringModel | undefined;
    if (o.canary?.reference) {
      const ref = load(o.canary.reference, "canary reference model");
      loaded.push(ref);
      without = decoderAdapter(ref.model, { name: `without canary (${o.canary.reference})` });
    }
    const binding = { vocabSize: main.config.vocabSize, contextLength: main.config.contextLength };
    return usingPool(o.workers ?? 1, main.config, (pool) => {
      const report = buildReport(decoderAdapter(main.model, { name: o.model, pool }), main.tokenizer, docs, {
        baselines: allBaselines(docs.filter((d) => d.split === "train"), binding, o.k, o.lambda),
        baselineSmoothing: { k: o.k, lambda: o.lambda },
        stride: o.stride, seed: o.seed, replicates: o.replicates, finalTest: o.finalTest, bins: o.bins, scheme: o.scheme,
        canary: o.canary ? { text: o.canary.text, secretTokens: o.canary.secretTokens, without } : undefined,
        model: modelIdentity(o.model, { path: o.model, sha256: main.sha256 }),
        data: o.data ? { description: `documents file ${o.data}`, path: o.data } : { description: DEFAULT_DATA_DESCRIPTION },
        progress: o.progress,
      });
      return { ...report, provenance: { ...report.provenance, workers: pool.size } };
    });
  } finally {
    for (const l of loaded) l.model.dispose();
  }
}
