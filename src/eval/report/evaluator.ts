// What every metric of the report declares (lm-evaluation-harness's habit: a metric names its aggregation
// beside its function): where its value sits in report.json, the name and version hashed into its identity,
// how it aggregates, how it is computed from the report's passes, and how the page, the report card and the
// console show it. Not a metric: the report's evaluators are the other files of src/eval/report, listed in evaluators.ts.
import type { Document, Split } from "../../data/documents.ts";
import type { AnyTokenizer } from "../../data/tokenizer.ts";
import type { ScoringModel } from "../../model/scoring.ts";
import type { HtmlSection } from "../../util/render/html.ts";
import type { Rng } from "../../util/primitives/rng.ts";
import type { WindowGroup } from "../passes/grouped.ts";
import type { NextTokenPredictions } from "../passes/next_token.ts";
import type { Aggregation } from "../metrics/aggregate.ts";
import type { GenerationValue, Report, ReportSettings } from "./types.ts";
import type { WindowedResult } from "../passes/windowed.ts";

/** What the report has before any pass runs: the model, the documents, the resolved settings. */
export interface ReportInputs {
  readonly model: ScoringModel;
  readonly tokenizer: AnyTokenizer;
  readonly documents: readonly Document[];
  readonly settings: ReportSettings;
  /** Scored splits that have documents, in SPLITS order. */
  readonly bySplit: readonly (readonly [Split, readonly Document[]])[];
  /** Training documents: the reference of baselines, recall and audits, scored or not. */
  readonly train: readonly Document[];
  /** Documents of the scored held-out splits (an unscored test split is never read). */
  readonly heldOut: readonly Document[];
  /** Where prompts come from: the scored held-out documents, else the training ones. */
  readonly promptDocs: readonly Document[];
  /** Likelihood batches of one pass over every scored split at `stride`. */
  batchesAt(stride: number): number;
}

/** The inputs and the likelihood passes every evaluator reads: run once, by buildReport, before any evaluator. */
export interface ReportContext extends ReportInputs {
  /** One result per scored split at the headline stride. */
  readonly headline: readonly WindowedResult[];
  /** The headline windows by (split, source), with a merged group per split of several sources. */
  readonly groups: readonly WindowGroup[];
  /** One result per scored split at stride = context (the headline's when the stride is the context). */
  readonly full: readonly WindowedResult[];
  /** Next-token predictions read off the stride-context pass, when calibration rides on it. */
  readonly captured: ReadonlyMap<Split, NextTokenPredictions>;
  readonly rng: Rng;
  /** The seeded samples and greedy margins from held-out prompts: drawn once, on first call, whoever asks first. */
  samples(): GenerationValue;
  /** One step of progress (a batch, a sample). */
  tick(): void;
  /**
   * Score documents with a scorer (the model or a baseline) at a stride: windowed.ts evaluateWindows, passed in
   * so an evaluator's file, which the page imports for its renderers, never reaches the engine.
   */
  score(
    scorer: ScoringModel,
    docs: readonly Document[],
    stride: number,
    opts?: { readonly tokenizer?: AnyTokenizer; readonly rowsPerBatch?: number },
  ): WindowedResult;
}

/** A standalone SVG figure with the file name the report card links it by. */
export interface Figure {
  readonly name: string;
  readonly title: string;
  readonly svg: string;
}

/**
 * How each output shows a value: pure functions of the value and of the report it sits in. A form that does not
 * show the metric says so with `notShown`; tables that join several metrics are the renderers' (src/eval/render).
 */
export interface Renderers<V> {
  /** Sections of report.html; sections of one namespace with the same heading are one section. */
  html(value: V, report: Report): readonly HtmlSection[];
  /** Lines of report.md, between the headline and the figures; a section ends with an empty line. */
  markdown(value: V, report: Report): readonly string[];
  /** Lines of the console summary. */
  console(value: V, report: Report): readonly string[];
  /** Figures of the page (and files beside the card). */
  figures(value: V, report: Report): readonly Figure[];
}

export const notShown = (): readonly never[] => [];

export interface Evaluator<V = unknown> {
  /** Where the value sits in report.json: a namespace ("perplexity") or a field of one ("memorization.canary"). */
  readonly key: string;
  /** The evaluator's name, hashed with its settings and version into its identity ("windowed-perplexity"). */
  readonly id: string;
  /** Bump whenever the definition changes, so old and new numbers get different identities. */
  readonly version: number;
  /**
   * Its identity under identities.evaluators: the key, and the settings hashed with `id` and `version`. Absent
   * when its numbers come from a pass another evaluator names (overlap and diversity: the samples
   * "sampled-generation" names).
   */
  readonly identity?: { readonly key: string; settings(inputs: ReportInputs): Readonly<Record<string, unknown>> };
  /** How its per-item numbers pool, run by aggregate() (src/eval/metrics/aggregate.ts) for the value and its interval. */
  readonly aggregation: Aggregation;
  /** Absent: always. An evaluator that does not apply leaves no key in the report. */
  applies?(inputs: ReportInputs): boolean;
  /** Refuse bad settings before any pass runs (a one-line error naming what was wrong). */
  check?(inputs: ReportInputs): void;
  /** Progress steps `compute` will tick, counted before any pass runs. */
  steps?(inputs: ReportInputs): number;
  /** The value, from the passes alone: no evaluator reads another's value, so the list's order is only the order shown. */
  compute(ctx: ReportContext): V;
  readonly render: Renderers<V>;
}

/** An evaluator's value in a report (undefined when it did not apply, or the report predates it). */
export function valueOf<V>(report: Report, e: Evaluator<V>): V | undefined {
  let v: unknown = report;
  for (const part of e.key.split(".")) v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[part] : undefined;
  return v as V | undefined;
}

/** Each evaluator's value with the evaluator, in list order; evaluators without a value in `r` are left out. */
export function presentEvaluators(r: Report, evaluators: readonly Evaluator[]): { e: Evaluator; value: unknown }[] {
  return evaluators.flatMap((e) => {
    const value = valueOf(r, e);
    return value === undefined ? [] : [{ e, value }];
  });
}
