// `tinylab report` as a recipe: load a model file (and optionally a canary reference), encode documents with the
// file's own tokenizer, and compose the evaluation report (src/eval/report/build.ts) with the count baselines beside it;
// then the report card (report.md with its figures), with the git state read at the edge (src/node/git.ts).
import { SPLITS } from "../src/data/documents.ts";
import { lmEvalModel as lmEvalModelOf, type LmEvalModel, type LmEvalTask } from "../src/eval/loggers/lm_eval.ts";
import { parameterCount } from "../src/model/config.ts";
import { rollingSplitTask } from "./lm_eval_tasks.ts";
import { allBaselines, MAX_BASELINE_TABLE } from "../src/baselines/ngram.ts";
import { conventionLabel, type Convention } from "../src/eval/passes/convention.ts";
import { isModelDir, openModelDir } from "../src/node/model_dir.ts";
import { dirDocuments, dirTokenizer } from "./model_dir.ts";
import { MODEL_DIR_DEFAULTS } from "./options.ts";
import type { BinScheme } from "../src/eval/metrics/calibration.ts";
import { readDocumentsBytes } from "../src/node/files.ts";
import { decoderAdapter } from "../src/eval/passes/adapter.ts";
import { modelIdentity } from "../src/eval/report/identity.ts";
import { buildReport } from "../src/eval/report/build.ts";
import type { Report } from "../src/eval/report/types.ts";
import type { ScoringModel } from "../src/model/scoring.ts";
import { reportCard, type CardContext } from "../src/eval/render/report_card.ts";
import { reportFigures } from "../src/eval/render/report_page.ts";
import { decodeModelFile, type LoadedModel } from "../src/lab/model_file.ts";
import type { ProgressStream } from "../src/util/runtime/progress.ts";
import { readModelFileBytes, requireFile } from "../src/node/disk.ts";
import { threadPools } from "../src/node/pool.ts";
import { withPool } from "../src/train/pool.ts";
import { tfjsOnly } from "../src/util/backend.ts";
import type { Engine } from "../src/util/engine.ts";
import { scoringDocuments, type ScoringText } from "./scoring_data.ts";

export const DEFAULT_DATA_DESCRIPTION =
  "built-in overfit fixture (OVERFIT_TEXTS in src/data/fixtures.ts: 2 train, 2 validation documents), encoded with the model file's tokenizer";

export interface ReportRunOptions {
  model: string;
  /** A documents file (JSONL); a run's text split (`text`); the overfit fixture when neither. */
  data?: string;
  text?: ScoringText;
  stride?: number;
  /** Extra strides at which perplexity is scored (each 1..context), beside the report's headline stride. */
  strides?: number[];
  seed: number;
  replicates: number;
  canary?: { text: string; secretTokens: number; reference?: string };
  /** Score the test split too: a final report. Without it test documents are not read. */
  finalTest?: boolean;
  /** Calibration bins and scheme (absent: buildReport's, src/eval/report/defaults.ts). */
  bins?: number;
  scheme?: BinScheme;
  /** The count baselines' smoothing k (default DEFAULT_SMOOTHING_K) and unigram-prior λ (default: per-context weight). */
  smoothing?: number;
  lambda?: number;
  progress?: ProgressStream;
  /**
   * The engine that computes (src/util/engine.ts), its workers the threads that score the likelihood passes;
   * absent: tfjs's own kernels of the current backend.
   */
  engine?: Engine;
  /** Also score each split the report scores as lm-evaluation-harness's loglikelihood_rolling task. */
  lmEval?: boolean;
  /** For a model directory (experiments/model_dir.ts); default MODEL_DIR_DEFAULTS. */
  convention?: Convention;
  graph?: string;
  allowNonFloat32?: boolean;
}

/** The report's settings a model file and a model directory share, as given. */
const passSettings = (o: ReportRunOptions) => ({
  baselineSmoothing: { k: o.smoothing, lambda: o.lambda },
  stride: o.stride,
  seed: o.seed,
  replicates: o.replicates,
  finalTest: o.finalTest,
  bins: o.bins,
  scheme: o.scheme,
});

/** `report --model DIR`: the harness on the directory's adapter; what cannot apply is refused or says why in its section. */
function runReportDir(o: ReportRunOptions): Report {
  if (o.canary?.reference)
    throw new Error(
      "--canary-reference with a model directory: the with/without comparison needs two models of one tokenizer fitted here; probe the canary alone (drop --canary-reference)",
    );
  const convention = o.convention ?? MODEL_DIR_DEFAULTS.convention;
  const m = openModelDir(o.model, o);
  const { docs, source } = dirDocuments(m, convention, { data: o.data, text: o.text });
  const V = m.config.vocabSize;
  const fits = V * V <= MAX_BASELINE_TABLE;
  const label = conventionLabel(convention, m.special);
  return buildReport(m.model, dirTokenizer(m, convention), docs, {
    baselines: fits
      ? allBaselines(
          docs.filter((d) => d.split === "train"),
          m.model.binding,
          o.smoothing,
          o.lambda,
        )
      : [],
    baselinesNotRun: fits
      ? undefined
      : `a count baseline of this ${V}-token vocabulary holds a ${V} × ${V} table, more than MAX_BASELINE_TABLE (${MAX_BASELINE_TABLE}) entries`,
    ...passSettings(o),
    canary: o.canary ? { text: o.canary.text, secretTokens: o.canary.secretTokens } : undefined,
    model: modelIdentity(o.model, { path: o.model, sha256: m.provenance.sha256 }),
    data: {
      description: `${o.data ? `documents file ${o.data}` : source}, encoded with the directory's tokenizer.json; convention ${label}`,
      ...(o.data ? { path: o.data } : {}),
      note: `model directory ${o.model} (sha256 ${m.provenance.sha256}; graph ${m.provenance.graph.file}, opset ${m.provenance.graph.opset}, ${m.provenance.graph.dtype}; ${m.provenance.manifest})`,
    },
    strides: o.strides,
    workers: 1,
    progress: o.progress,
    engine: o.engine,
  });
}

const load = (path: string, what: string, engine: Engine): LoadedModel => decodeModelFile(readModelFileBytes(path, what), path, engine);

/** The report of one model file; every model loaded is disposed before returning. */
export function runReport(o: ReportRunOptions): Report {
  return scoreReport(o).report;
}

/**
 * The report, and with `o.lmEval` each split it scores (train, validation, test with finalTest) as an
 * lm-evaluation-harness task; `lmEvalModel` for a model file only (a directory's report writes no harness files).
 */
export function scoreReport(o: ReportRunOptions): { report: Report; lmEval?: LmEvalTask[]; lmEvalModel?: LmEvalModel } {
  if (isModelDir(o.model)) return { report: runReportDir(o) };
  const loaded: LoadedModel[] = [];
  const engine = o.engine ?? tfjsOnly();
  try {
    const main = load(o.model, "model file", engine);
    loaded.push(main);
    const { docs, source, note } = scoringDocuments(o.model, main, {
      text: o.text,
      documents: o.data ? { name: o.data, bytes: readDocumentsBytes(requireFile(o.data, "documents file")) } : undefined,
    });
    let without: ScoringModel | undefined;
    if (o.canary?.reference) {
      const ref = load(o.canary.reference, "canary reference model", engine);
      loaded.push(ref);
      // the canary is encoded once, with the model's tokenizer: under another tokenizer its ids are other text
      const [mine, theirs] = [JSON.stringify(main.tokenizer.toJSON()), JSON.stringify(ref.tokenizer.toJSON())];
      if (mine !== theirs) {
        throw new Error(
          `--canary-reference ${o.canary.reference}: its tokenizer (${ref.tokenizer.kind}, vocabulary ${ref.tokenizer.vocabSize}) is not the model's (${main.tokenizer.kind}, vocabulary ${main.tokenizer.vocabSize}), so the canary's token ids would mean other text under it; fit the reference with the model's tokenizer`,
        );
      }
      without = decoderAdapter(ref.model, { name: `without canary (${o.canary.reference})` });
    }
    const binding = { vocabSize: main.config.vocabSize, contextLength: main.config.contextLength };
    return withPool(threadPools(engine), engine.workers, Infinity, main.config, (pool) => {
      // the report scores many batches: every asked worker
      const adapter = decoderAdapter(main.model, { name: o.model, pool });
      const splits = SPLITS.filter((s) => (s !== "test" || o.finalTest) && docs.some((d) => d.split === s));
      const lmEval = o.lmEval
        ? splits.map((s) =>
            rollingSplitTask(
              adapter,
              docs.filter((d) => d.split === s),
              main.tokenizer,
              source,
              s,
              16,
            ),
          )
        : undefined;
      const lmEvalModel = lmEvalModelOf(o.model, main, parameterCount(main.config));
      const report = buildReport(adapter, main.tokenizer, docs, {
        baselines: allBaselines(
          docs.filter((d) => d.split === "train"),
          binding,
          o.smoothing,
          o.lambda,
        ),
        ...passSettings(o),
        canary: o.canary ? { text: o.canary.text, secretTokens: o.canary.secretTokens, without } : undefined,
        model: modelIdentity(o.model, { path: o.model, sha256: main.sha256 }),
        data: {
          ...(o.data
            ? { description: `documents file ${o.data}`, path: o.data }
            : { description: o.text ? `${source}, encoded with the model file's tokenizer` : DEFAULT_DATA_DESCRIPTION }),
          note,
        },
        strides: o.strides,
        workers: pool.size,
        progress: o.progress,
        engine,
      });
      return { report, ...(lmEval ? { lmEval } : {}), lmEvalModel };
    });
  } finally {
    for (const l of loaded) l.model.dispose();
  }
}

/** The report card and its figures as [file name relative to the output directory, content]; the caller writes them. */
export function reportCardFiles(report: Report, git: CardContext["git"]): [string, string][] {
  const figures = reportFigures(report).map((f) => ({ file: `figures/${f.name}`, title: f.title, svg: f.svg }));
  return [...figures.map((f): [string, string] => [f.file, f.svg]), ["report.md", reportCard(report, { git, figures })]];
}
