// The composed evaluation report: the likelihood passes run once, then the declared evaluators
import { checkDocuments, SPLITS, type Document, type Split } from "../../data/documents.ts";
import type { AnyTokenizer } from "../../data/tokenizer.ts";
import { Rng } from "../../util/primitives/rng.ts";
import { sha256Hex } from "../../util/primitives/sha256.ts";
import { phase, type ProgressStream } from "../../util/runtime/progress.ts";
import { provenance } from "../../util/runtime/provenance.ts";
import { tfjsOnly } from "../../util/backend.ts";
import type { EngineRecord } from "../../util/engine.ts";
import type { ScoringModel } from "../../model/scoring.ts";
import type { Evaluator, ReportContext, ReportInputs } from "./evaluator.ts";
import { groupWindowsWithOverall } from "../passes/grouped.ts";
import { evaluatorIdentity, modelIdentity, type ModelIdentity } from "./identity.ts";
import { topOf, type NextTokenPredictions } from "../passes/next_token.ts";
import { calibrationSharesContextPass } from "./calibration.ts";
import { REPORT_EVALUATORS } from "./evaluators.ts";
import { GENERATION_DEFAULTS, sampleGeneration } from "./generation.ts";
import type { BaselineSmoothing, CanaryOptions, GenerationSettings, GenerationValue, Report, ReportSettings } from "./types.ts";
import { VERBATIM_DEFAULTS, type VerbatimSettings } from "../passes/verbatim.ts";
import { evaluateWindows } from "../passes/windowed.ts";
import type { BinScheme } from "../metrics/calibration.ts";
import { REPORT_SETTING_DEFAULTS as D } from "./defaults.ts";
import { documentWindows, scoringStride } from "../passes/windows.ts";

export interface ReportOptions {
  /**
   * Reference scorers for the baselines namespace, already fitted by the caller on this call's training
   * documents (e.g. allBaselines(train, binding) from src/baselines/ngram.ts), scored in this order.
   */
  readonly baselines: readonly ScoringModel[];
  /** The smoothing the caller fitted them with, recorded in the baselines' evaluator id (default k = 1, no λ). */
  readonly baselineSmoothing?: BaselineSmoothing;
  /** Headline stride; default the context (scoringStride, the rule of every scorer). Loss by position always uses stride = context. */
  readonly stride?: number;
  /** Stride of the next-token calibration pass; default the headline stride (the context length halves its cost). */
  readonly calibrationStride?: number;
  readonly seed?: number;
  /** Calibration bins and their scheme (defaults of these and the rest: REPORT_SETTING_DEFAULTS). */
  readonly bins?: number;
  readonly scheme?: BinScheme;
  readonly replicates?: number;
  readonly rowsPerBatch?: number;
  readonly generation?: Partial<GenerationSettings>;
  readonly verbatim?: Partial<VerbatimSettings>;
  readonly canary?: CanaryOptions;
  readonly model?: ModelIdentity;
  /** `note`: one line when the model was not trained on these documents. */
  readonly data?: { readonly description: string; readonly path?: string; readonly note?: string };
  readonly progress?: ProgressStream;
  /**
   * Splits to score (default: train and validation, plus test when `finalTest`). Training documents always serve
   * as references (baselines, recall); documents of a split not scored are not read at all (no prompts either).
   */
  readonly scoreSplits?: readonly Split[];
  /** The test split may be scored only in a final report; scoring it without this flag is refused. */
  readonly finalTest?: boolean;
  readonly command?: string;
  /** The engine that scored, recorded in the provenance (absent: tfjs's own kernels of the current backend). */
  readonly engine?: EngineRecord;
  /** Extra strides at which perplexity is scored (each 1..context), beside the headline stride: `perplexity_by_stride`. */
  readonly strides?: readonly number[];
  /** Threads that scored the likelihood passes, recorded in the provenance when given. */
  readonly workers?: number;
  /** The metrics to compute (default REPORT_EVALUATORS); the page, card and console take the same list. */
  readonly evaluators?: readonly Evaluator[];
  /** Why no count baselines are given (e.g. a vocabulary too large for their table), shown in their section. */
  readonly baselinesNotRun?: string;
}

export const REPORT_VERSION = 1;

/** Evaluate `model` on `documents` (any mix of splits and sources): the passes once, then every evaluator in order. */
export function buildReport(model: ScoringModel, tokenizer: AnyTokenizer, documents: readonly Document[], opts: ReportOptions): Report {
  const evaluators = opts.evaluators ?? REPORT_EVALUATORS;
  const T = model.binding.contextLength;
  const stride = scoringStride(opts.stride, T);
  const settings: ReportSettings = {
    stride,
    contextLength: T,
    calibrationStride: opts.calibrationStride ?? stride,
    seed: opts.seed ?? D.seed,
    rowsPerBatch: opts.rowsPerBatch ?? D.rowsPerBatch,
    bins: opts.bins ?? D.bins,
    scheme: opts.scheme ?? D.scheme,
    replicates: opts.replicates ?? D.replicates,
    generation: { ...GENERATION_DEFAULTS, ...opts.generation },
    verbatim: { ...VERBATIM_DEFAULTS, ...opts.verbatim },
    canary: opts.canary,
    baselines: opts.baselines,
    baselineSmoothing: opts.baselineSmoothing,
    baselinesNotRun: opts.baselinesNotRun,
    strides: opts.strides,
  };
  checkDocuments(documents); // ids unique across splits: groups find their documents by id
  const finalTest = opts.finalTest === true;
  const scored = opts.scoreSplits ?? SPLITS.filter((s) => finalTest || s !== "test");
  if (scored.includes("test") && !finalTest)
    throw new Error("report: the test split is scored only in a final report (finalTest, --final-test)");
  const testNotScored = scored.includes("test") ? 0 : documents.filter((d) => d.split === "test").length;
  const bySplit = SPLITS.filter((s) => scored.includes(s))
    .map((s) => [s, documents.filter((d) => d.split === s)] as const)
    .filter(([, d]) => d.length > 0);
  const train = documents.filter((d) => d.split === "train");
  // held-out prompts come from the scored held-out splits only: an unscored test split is never read
  const heldOut = documents.filter((d) => d.split !== "train" && scored.includes(d.split));
  const rows = settings.rowsPerBatch;
  const inputs: ReportInputs = {
    model,
    tokenizer,
    documents,
    settings,
    bySplit,
    train,
    heldOut,
    promptDocs: heldOut.length > 0 ? heldOut : train,
    batchesAt: (s) => bySplit.reduce((n, [, d]) => n + Math.ceil(d.reduce((w, x) => w + documentWindows(x, T, s).length, 0) / rows), 0),
  };
  const active = evaluators.filter((e) => e.applies?.(inputs) ?? true);
  for (const e of active) e.check?.(inputs); // refused before any pass
  if (bySplit.length === 0) throw new Error("report: no documents");

  // the likelihood passes: headline stride, and stride = context for loss by position (one pass when they agree)
  const shared = calibrationSharesContextPass(settings);
  const total =
    inputs.batchesAt(stride) + (stride === T ? 0 : inputs.batchesAt(T)) + active.reduce((n, e) => n + (e.steps?.(inputs) ?? 0), 0);
  const progress = phase(opts.progress, "report", total, "steps");
  const tick = () => progress?.tick();
  const headline = bySplit.map(([, d]) => evaluateWindows(model, d, stride, { tokenizer, rowsPerBatch: rows, onBatch: tick }));
  const captured = new Map<Split, NextTokenPredictions>();
  const full =
    stride === T
      ? headline
      : bySplit.map(([split, d]) =>
          evaluateWindows(shared ? capturingNextToken(model, split, T, captured) : model, d, T, { rowsPerBatch: rows, onBatch: tick }),
        );
  const groups = groupWindowsWithOverall(headline);
  const rng = Rng.fromSeed(settings.seed);
  let samples: GenerationValue | undefined;
  const drawSamples = () =>
    (samples ??= sampleGeneration(model, tokenizer, inputs.promptDocs, settings.generation, rng.child("sampling"), tick));
  const ctx: ReportContext = { ...inputs, headline, groups, full, captured, rng, samples: drawSamples, tick, score: evaluateWindows };

  // each value lands at its key, in list order: a namespace first named by a field ("memorization.verbatim") is placed there
  const namespaces: Record<string, unknown> = {};
  for (const e of active) {
    const value = e.compute(ctx);
    const [ns, field] = e.key.split(".");
    if (field === undefined) namespaces[ns] = value;
    else namespaces[ns] = { ...(namespaces[ns] as object | undefined), [field]: value };
  }
  progress?.done();

  const head = {
    report: "tinylab-evaluation" as const,
    version: REPORT_VERSION,
    final_test: finalTest,
    test_split: finalTest
      ? "scored: a final report, choose nothing on it"
      : testNotScored > 0
        ? `not scored: ${testNotScored} test documents left unread (--final-test for the final report)`
        : "not scored (no --final-test)",
    data: {
      description: opts.data?.description ?? "documents passed in memory",
      path: opts.data?.path ?? null,
      ...(opts.data?.note ? { note: opts.data.note } : {}),
      // identity of what was scored: sha256 of the JSON [[id, token ids], …] per split in input order; an unscored split is not read
      split_sha256: Object.fromEntries(
        SPLITS.map((s) => [s, scored.includes(s) || s === "train" ? splitHash(documents.filter((d) => d.split === s)) : null]),
      ) as Record<Split, string | null>,
      groups: groups.map((g) => ({
        split: g.split,
        source: g.source,
        documents: new Set(g.windows.map((w) => w.doc)).size,
        targets: g.windows.reduce((n, w) => n + w.scored, 0),
      })),
    },
  };
  const identities = {
    model: opts.model ?? modelIdentity(model.name),
    tokenizer: tokenizer.toJSON(),
    evaluators: Object.fromEntries(
      active.flatMap((e) => (e.identity ? [[e.identity.key, evaluatorIdentity(e.id, e.identity.settings(inputs), e.version)]] : [])),
    ),
  };
  const prov = provenance(opts.engine ?? tfjsOnly(), opts.command);
  // the one place the list's values meet the declared type: each evaluator's value type is its namespace's in Report
  return {
    ...head,
    ...namespaces,
    identities,
    provenance: opts.workers !== undefined ? { ...prov, workers: opts.workers } : prov,
  } as unknown as Report;
}

/** The sha256 of a split's documents (ids and token ids, in order), or null when it has none. */
export function splitHash(docs: readonly Document[]): string | null {
  return docs.length === 0 ? null : sha256Hex(JSON.stringify(docs.map((d) => [d.id, Array.from(d.ids)])));
}

/**
 * The model, but each positionNll is read off one logProbs call whose top-1 predictions are kept for
 * calibration: the stride-T likelihood pass and the calibration pass become one forward per window.
 */
function capturingNextToken(model: ScoringModel, split: Split, stride: number, into: Map<Split, NextTokenPredictions>): ScoringModel {
  const V = model.binding.vocabSize;
  const p = { split, stride, confidences: [] as number[], correct: [] as boolean[] };
  into.set(split, p);
  return {
    ...model,
    positionNlls: undefined, // every score must pass through the capture below, never a pool's batched call
    positionNll: (batch) => {
      const lp = model.logProbs(batch.input);
      const nll = new Float64Array(batch.targets.length);
      for (let i = 0; i < nll.length; i++) {
        if (batch.mask[i] === 0) continue;
        nll[i] = -lp[i * V + batch.targets[i]];
        const top = topOf(lp, i, V);
        p.confidences.push(Math.min(1, Math.exp(top.logProb)));
        p.correct.push(top.token === batch.targets[i]);
      }
      return nll;
    },
  };
}
