// The composed evaluation report: one object with separate namespaces (perplexity by group, bits per byte,
// loss by position, calibration, generation, overlap, diversity, memorization, contamination, baselines, intervals,
// identities, provenance). Unlike quantities are never averaged together. Not the HTML page (report_page.ts).
import { checkDocuments, SPLITS, type Document, type Split } from "../data/documents.ts";
import type { Tokenizer } from "../data/tokenizer.ts";
import { Rng } from "../util/rng.ts";
import { sha256Hex } from "../util/sha256.ts";
import { createProgress, type ProgressStream } from "../util/progress.ts";
import { provenance } from "../util/provenance.ts";
import type { ScoringModel } from "../model/scoring.ts";
import { BPB_DEFINITION } from "./bpb.ts";
import { groupBpb, groupRecord, groupWindowsWithOverall } from "./grouped.ts";
import { meanNll } from "./summary.ts";
import { evaluatorIdentity, modelIdentity, type ModelIdentity } from "./identity.ts";
import { blockBootstrap, blockBootstrapRatio, tokenWeightedStandardError, wilsonInterval } from "./intervals.ts";
import { contaminationAudit } from "./contamination.ts";
import { canaryProbe } from "./memorization.ts";
import { MIN_ECE_PREDICTIONS, nextTokenCalibration, nextTokenPredictions, topOf, type NextTokenPredictions } from "./next_token.ts";
import { GENERATION_DEFAULTS, generationSection, type GenerationSettings } from "./report_generation.ts";
import { VERBATIM_DEFAULTS, verbatimProbe, type VerbatimSettings } from "./verbatim.ts";
import { evaluateWindows, type WindowedResult } from "./windowed.ts";
import { reasoned, reasonedRecord } from "./reasoned.ts";
import { bitsPerByte } from "./bpb.ts";
import type { BinScheme } from "./calibration.ts";
import { promptable } from "./verbatim.ts";
import { documentWindows, scoringStride } from "./windows.ts";

export interface ReportOptions {
  /**
   * Reference scorers for the baselines namespace, already fitted by the caller on this call's training
   * documents (e.g. allBaselines(train, binding) from src/baselines/ngram.ts), scored in this order.
   */
  readonly baselines: readonly ScoringModel[];
  /** The smoothing the caller fitted them with, recorded in the baselines' evaluator id (default k = 1, no λ). */
  readonly baselineSmoothing?: { readonly k?: number; readonly lambda?: number };
  /** Headline stride; default the context (scoringStride, the rule of every scorer). Loss by position always uses stride = context. */
  readonly stride?: number;
  /** Stride of the next-token calibration pass; default the headline stride (the context length halves its cost). */
  readonly calibrationStride?: number;
  readonly seed?: number;
  /** Calibration bins (default 10, as 002) and their scheme (default equal-width). */
  readonly bins?: number;
  readonly scheme?: BinScheme;
  readonly replicates?: number;
  readonly rowsPerBatch?: number;
  readonly generation?: Partial<GenerationSettings>;
  readonly verbatim?: Partial<VerbatimSettings>;
  /** Probe a canary: the last `secretTokens` tokens of `text` given BOS and the rest; optionally against a model fitted without it. */
  readonly canary?: { readonly text: string; readonly secretTokens?: number; readonly without?: ScoringModel };
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
}

export const REPORT_VERSION = 1;

/** Evaluate `model` on `documents` (any mix of splits and sources) and compose every namespace. */
export function buildReport(model: ScoringModel, tokenizer: Tokenizer, documents: readonly Document[], opts: ReportOptions) {
  const T = model.binding.contextLength;
  const stride = scoringStride(opts.stride, T);
  const calStride = opts.calibrationStride ?? stride;
  const seed = opts.seed ?? 0;
  const rows = opts.rowsPerBatch ?? 16;
  const bins = opts.bins ?? 10;
  const scheme = opts.scheme ?? "equal-width";
  const replicates = opts.replicates ?? 1000;
  const gen = { ...GENERATION_DEFAULTS, ...opts.generation };
  const verb = { ...VERBATIM_DEFAULTS, ...opts.verbatim };
  const rng = Rng.fromSeed(seed);
  checkDocuments(documents); // ids unique across splits: groups find their documents by id
  if (opts.canary) canaryParts(tokenizer, opts.canary);
  for (const b of opts.baselines) {
    if (b.binding.vocabSize !== model.binding.vocabSize || b.binding.contextLength !== model.binding.contextLength) {
      throw new Error(`report: baseline "${b.name}" is bound to vocab ${b.binding.vocabSize}/context ${b.binding.contextLength}, the model to ${model.binding.vocabSize}/${model.binding.contextLength}`);
    }
  }
  const finalTest = opts.finalTest === true;
  const scored = opts.scoreSplits ?? SPLITS.filter((s) => finalTest || s !== "test");
  if (scored.includes("test") && !finalTest) throw new Error("report: the test split is scored only in a final report (finalTest, --final-test)");
  const testNotScored = scored.includes("test") ? 0 : documents.filter((d) => d.split === "test").length;
  const bySplit = SPLITS.filter((s) => scored.includes(s)).map((s) => [s, documents.filter((d) => d.split === s)] as const).filter(([, d]) => d.length > 0);
  if (bySplit.length === 0) throw new Error("report: no documents");
  const train = documents.filter((d) => d.split === "train");
  // held-out prompts come from the scored held-out splits only: an unscored test split is never read
  const heldOut = documents.filter((d) => d.split !== "train" && scored.includes(d.split));
  const promptDocs = heldOut.length > 0 ? heldOut : train;
  const usable = (docs: readonly Document[], n: number, k: number) => Math.min(k, promptable(docs, n, tokenizer).docs.length);

  const batchesAt = (s: number) => bySplit.reduce((n, [, d]) => n + Math.ceil(d.reduce((w, x) => w + documentWindows(x, T, s).length, 0) / rows), 0);
  // calibration at stride T rides on the stride-T pass (one forward per window); otherwise it is a pass of its own
  const shared = calStride === T && stride !== T;
  const total = batchesAt(stride) + (shared ? 0 : batchesAt(calStride)) + (stride === T ? 0 : batchesAt(T)) + usable(promptDocs, gen.promptTokens, gen.prompts) * (gen.samplesPerPrompt + 1) +
    (train.length > 0 ? usable(train, verb.promptTokens, verb.prompts) + usable(heldOut, verb.promptTokens, verb.prompts) : 0);
  const progress = opts.progress ? createProgress({ total, label: "report", unit: "steps", stream: opts.progress }) : undefined;
  const tick = () => progress?.tick();

  const headline = bySplit.map(([, d]) => evaluateWindows(model, d, stride, { tokenizer, rowsPerBatch: rows, onBatch: tick }));
  const captured = new Map<Split, NextTokenPredictions>();
  const full = stride === T ? headline : bySplit.map(([split, d]) =>
    evaluateWindows(shared ? capturingNextToken(model, split, T, captured) : model, d, T, { rowsPerBatch: rows, onBatch: tick }));
  const groups = groupWindowsWithOverall(headline);
  const calibration = bySplit.map(([split, d]) => nextTokenCalibration(captured.get(split) ?? nextTokenPredictions(model, d, calStride, { rowsPerBatch: rows, onBatch: tick }), { bins, scheme }));
  const generated = generationSection(model, tokenizer, promptDocs, train, gen, rng.child("sampling"), tick);
  const verbatim = train.length > 0 ? verbatimProbe(model, tokenizer, train, heldOut, verb, tick) : { status: "not run: no training documents to match against" };
  const canary = opts.canary ? canarySection(model, tokenizer, train, opts.canary) : { status: "not run: no canary given" };
  const contamination = contaminationSection(tokenizer, train, bySplit, headline);
  const baselines = train.length > 0 ? baselineSection(opts.baselines, tokenizer, bySplit.map(([, d]) => d), stride) : { status: "not run: no training documents to fit baselines on" };
  progress?.done();

  const boot = rng.child("bootstrap");
  const intervalSettings = { replicates, level: 0.95, block_length: "round(cbrt(windows))", seed };
  return {
    report: "tinylab-evaluation",
    version: REPORT_VERSION,
    final_test: finalTest,
    test_split: finalTest ? "scored: a final report, choose nothing on it" : testNotScored > 0 ? `not scored: ${testNotScored} test documents left unread (--final-test for the final report)` : "not scored (no --final-test)",
    data: {
      description: opts.data?.description ?? "documents passed in memory",
      path: opts.data?.path ?? null,
      ...(opts.data?.note ? { note: opts.data.note } : {}),
      // identity of what was scored: sha256 of the JSON [[id, token ids], …] per split in input order; an unscored split is not read
      split_sha256: Object.fromEntries(SPLITS.map((s) => [s, scored.includes(s) || s === "train" ? splitHash(documents.filter((d) => d.split === s)) : null])),
      groups: groups.map((g) => ({ split: g.split, source: g.source, documents: new Set(g.windows.map((w) => w.doc)).size, targets: g.windows.reduce((n, w) => n + w.scored, 0) })),
    },
    perplexity: { stride, context_length: T, unit: "nats per target", groups: groups.map(groupRecord) },
    // the loss-by-position pass (stride = context) gives a second, separately labelled perplexity: never compare the two silently
    perplexity_at_stride_context: stride === T ? null : { stride: T, context_length: T, unit: "nats per target", groups: groupWindowsWithOverall(full).map(groupRecord) },
    bits_per_byte: { stride, definition: BPB_DEFINITION, groups: groups.map((g) => groupBpb(g, documents, tokenizer)) },
    loss_by_position: { stride: T, context_length: T, note: "position p predicts from p + 1 tokens of context; non-overlapping windows", by_split: full.map(positionRecord) },
    calibration: { stride: calStride, bins, scheme, by_split: calibration },
    ...generated,
    memorization: { verbatim, canary },
    contamination,
    baselines,
    intervals: {
      settings: intervalSettings,
      // one window cannot be resampled: every replicate is that window, so [x, x] would be no interval at all
      perplexity_by_group: groups.map((g) => {
        const means = g.windows.map((w) => w.totalNll / w.scored), counts = g.windows.map((w) => w.scored);
        const b = blockBootstrap(means, counts, boot.child(`${g.split}/${g.source}`), { replicates });
        const naive = tokenWeightedStandardError(means, counts);
        const single = g.windows.length < 2;
        return {
          split: g.split, source: g.source, stride: g.stride, windows: g.windows.length, targets: naive.tokens, nll: b.estimate,
          ...reasonedRecord("block_bootstrap_95", single ? null : { lo: b.lo, hi: b.hi, se: b.se, block_length: b.blockLength, replicates: b.replicates }, ONE_WINDOW),
          ...reasoned("independent_windows_se", naive.se, ONE_WINDOW),
        };
      }),
      // the same resampling of windows for the ratio Σ(nats/ln 2)/Σbytes, from its own stream
      bits_per_byte_by_group: groups.map((g) => {
        const num = g.windows.map((w) => w.totalNll / Math.LN2), den = g.windows.map((w) => w.bytes);
        const bytes = den.reduce((s, d) => s + d, 0);
        const b = bytes > 0 ? blockBootstrapRatio(num, den, boot.child(`bpb/${g.split}/${g.source}`), { replicates }) : null;
        const why = bytes === 0 ? NO_BYTES : ONE_WINDOW;
        return {
          split: g.split, source: g.source, stride: g.stride, windows: g.windows.length,
          ...reasoned("bits_per_byte", b?.estimate ?? NaN, NO_BYTES),
          ...reasonedRecord("block_bootstrap_95", b && g.windows.length > 1 ? { lo: b.lo, hi: b.hi, se: b.se, block_length: b.blockLength, replicates: b.replicates } : null, why),
        };
      }),
      next_token_accuracy: calibration.map((c) => ({ split: c.split, stride: calStride, ...c.accuracy, wilson95: c.accuracy.predictions > 0 ? wilsonInterval(c.accuracy.correct, c.accuracy.predictions) : null })),
    },
    identities: {
      model: opts.model ?? modelIdentity(model.name),
      tokenizer: tokenizer.toJSON(),
      evaluators: {
        perplexity: evaluatorIdentity("windowed-perplexity", { stride, context_length: T }, 1),
        bits_per_byte: evaluatorIdentity("bits-per-byte", { stride, definition: BPB_DEFINITION }, 1),
        loss_by_position: evaluatorIdentity("loss-by-position", { stride: T }, 1),
        calibration: evaluatorIdentity("next-token-calibration", { stride: calStride, bins, scheme, min_ece_predictions: MIN_ECE_PREDICTIONS }, 1),
        generation: evaluatorIdentity("sampled-generation", { ...gen, seed }, 1),
        verbatim: evaluatorIdentity("verbatim-recall", { ...verb }, 1),
        canary: evaluatorIdentity("canary-probe", { text: opts.canary?.text ?? null, secret_tokens: opts.canary?.secretTokens ?? 2 }, 1),
        baselines: evaluatorIdentity("count-baselines", { stride, k: opts.baselineSmoothing?.k ?? 1, ...(opts.baselineSmoothing?.lambda !== undefined ? { lambda: opts.baselineSmoothing.lambda } : {}) }, 1),
        contamination: evaluatorIdentity("ngram-contamination", { n: CONTAMINATION_N, threshold: 0, words: "lowercased runs of letters, digits and _" }, 1),
        intervals: evaluatorIdentity("intervals", intervalSettings, 1),
      },
    },
    provenance: provenance(opts.command),
  };
}

export type Report = ReturnType<typeof buildReport>;

/** The sha256 of a split's documents (ids and token ids, in order), or null when it has none. */
export function splitHash(docs: readonly Document[]): string | null {
  return docs.length === 0 ? null : sha256Hex(JSON.stringify(docs.map((d) => [d.id, Array.from(d.ids)])));
}

const ONE_WINDOW = "one window: a bootstrap or standard error over windows needs at least two";
const NO_BYTES = "the scored targets stand for no bytes (BOS, EOS and PAD count 0)";

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

function positionRecord(r: WindowedResult) {
  return { split: r.split, positions: r.byPosition.map((p) => ({ position: p.position, targets: p.targets, nll: p.totalNll / p.targets })) };
}

/** The caller's baselines (fitted on the training documents), scored on the same windows at the same stride. */
function baselineSection(baselines: readonly ScoringModel[], tokenizer: Tokenizer, splits: readonly (readonly Document[])[], stride: number) {
  const docs = splits.flat();
  const rows = baselines.flatMap((b) =>
    groupWindowsWithOverall(splits.map((d) => evaluateWindows(b, d, stride, { tokenizer }))).map((g) => {
      const r = groupRecord(g);
      return { baseline: b.name, ...r, ...reasoned("bits_per_byte", bitsPerByte(r.total_nll, groupBpb(g, docs, tokenizer).bytes), NO_BYTES) };
    }),
  );
  return { stride, fitted_on: "train documents", groups: rows };
}

const CONTAMINATION_N = 13;

type ContaminationSection = { status: string } | {
  n: number; threshold: number; against: string; note: string;
  splits: { split: Split; documents: number; flagged: readonly string[]; flagged_fraction: number; unauditable: number; all_documents: { targets: number; nll: number | null }; unflagged_documents: { targets: number; nll: number | null } }[];
};

/**
 * Word 13-gram audit of each scored held-out split against the training documents given, with the
 * token-weighted NLL of the headline pass on every document and on the unflagged ones only.
 */
function contaminationSection(tokenizer: Tokenizer, train: readonly Document[], bySplit: readonly (readonly [Split, Document[]])[], headline: readonly WindowedResult[]): ContaminationSection {
  if (train.length === 0) return { status: "not run: no training documents to audit against" };
  const trainTexts = train.map((d) => tokenizer.decode(d.ids));
  const nllOf = (ws: readonly { totalNll: number; scored: number }[]) => {
    const sums = { totalNll: ws.reduce((t, w) => t + w.totalNll, 0), targets: ws.reduce((n, w) => n + w.scored, 0) };
    return { targets: sums.targets, ...reasoned("nll", meanNll(sums), "no targets: every document is flagged") };
  };
  const splits = bySplit.flatMap(([split, docs], i) => {
    if (split === "train") return [];
    const audit = contaminationAudit(docs.map((d) => ({ id: d.id, text: tokenizer.decode(d.ids) })), trainTexts, { n: CONTAMINATION_N });
    const flagged = new Set(audit.flaggedIds);
    const windows = headline[i].windows;
    return [{ split, documents: docs.length, flagged: audit.flaggedIds, flagged_fraction: audit.flaggedFraction, unauditable: audit.unauditable, all_documents: nllOf(windows), unflagged_documents: nllOf(windows.filter((w) => !flagged.has(w.doc))) }];
  });
  return { n: CONTAMINATION_N, threshold: 0, against: `${train.length} training documents`, note: "exact word n-gram matches only: paraphrases and text not given are invisible; an unauditable document is shorter than n words", splits };
}

/** BOS + all but the last k canary tokens, and those k tokens; refused before any work is done. */
function canaryParts(tokenizer: Tokenizer, c: NonNullable<ReportOptions["canary"]>): { prefix: number[]; secret: number[] } {
  const k = c.secretTokens ?? 2;
  const ids = tokenizer.encode(c.text);
  if (ids.length < 2) throw new Error(`canary "${c.text}" is ${ids.length} token(s); it needs a prefix and a secret`);
  if (!Number.isInteger(k) || k < 1 || k >= ids.length) throw new Error(`canary secret must be 1 to ${ids.length - 1} tokens, got ${k}`);
  return { prefix: [tokenizer.bos, ...ids.slice(0, -k)], secret: ids.slice(-k) };
}

function canarySection(model: ScoringModel, tokenizer: Tokenizer, train: readonly Document[], c: NonNullable<ReportOptions["canary"]>) {
  const { prefix, secret } = canaryParts(tokenizer, c);
  const occurrences = train.reduce((n, d) => n + tokenizer.decode(d.ids).split(c.text).length - 1, 0);
  const withModel = canaryProbe(model, prefix, secret);
  const without = c.without ? canaryProbe(c.without, prefix, secret) : null;
  return {
    text: c.text,
    prefix: tokenizer.decode(prefix),
    secret: tokenizer.decode(secret),
    occurrences_in_training_documents_given: occurrences,
    evaluated: withModel,
    without_canary: without,
    log_prob_gain: without ? withModel.log_prob - without.log_prob : null,
    note: without ? "gain = log p(secret | prefix) of the evaluated model minus that of the model fitted without the canary" : "no model fitted without the canary was given: a log-probability alone is not evidence of memorization",
  };
}
