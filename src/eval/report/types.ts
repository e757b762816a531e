// The report's types, below every evaluator: report.json as declared (each namespace the value one evaluator
// computes), the resolved settings they all read. Types only: the evaluators import these, never each other or the list.
import type { Split } from "../../data/documents.ts";
import type { TokenizerJSON } from "../../data/tokenizer.ts";
import type { ScoringModel } from "../../model/scoring.ts";
import type { Provenance } from "../../util/runtime/provenance.ts";
import type { BlockInterval, WilsonBounds } from "../metrics/aggregate.ts";
import type { BinScheme } from "../metrics/calibration.ts";
import type { Reasoned } from "../metrics/reasoned.ts";
import type { groupBpb, GroupRecord } from "../passes/grouped.ts";
import type { canaryProbe } from "../passes/memorization.ts";
import type { nextTokenCalibration } from "../passes/next_token.ts";
import type { verbatimProbe, VerbatimSettings } from "../passes/verbatim.ts";
import type { EvaluatorIdentity, ModelIdentity } from "./identity.ts";

/** Probe a canary: the last `secretTokens` tokens of `text` given BOS and the rest; optionally against a model fitted without it. */
export interface CanaryOptions {
  readonly text: string;
  readonly secretTokens?: number;
  readonly without?: ScoringModel;
}
/** The smoothing the caller fitted the count baselines with, recorded in their evaluator id (default k = 1, no λ). */
export interface BaselineSmoothing {
  readonly k?: number;
  readonly lambda?: number;
}

/** The options resolved: every default applied once, here. */
export interface ReportSettings {
  readonly stride: number;
  readonly contextLength: number;
  readonly calibrationStride: number;
  readonly seed: number;
  readonly rowsPerBatch: number;
  readonly bins: number;
  readonly scheme: BinScheme;
  readonly replicates: number;
  readonly generation: GenerationSettings;
  readonly verbatim: VerbatimSettings;
  readonly canary?: CanaryOptions;
  readonly baselines: readonly ScoringModel[];
  readonly baselineSmoothing?: BaselineSmoothing;
  readonly baselinesNotRun?: string;
  readonly strides?: readonly number[];
}

/** report.json, as declared: each namespace is the value type its evaluator (src/eval/report/*.ts) computes. */
export interface Report {
  readonly report: "tinylab-evaluation";
  readonly version: number;
  readonly final_test: boolean;
  readonly test_split: string;
  readonly data: {
    readonly description: string;
    readonly path: string | null;
    readonly note?: string;
    readonly split_sha256: Record<Split, string | null>;
    readonly groups: { split: Split; source: string; documents: number; targets: number }[];
  };
  readonly perplexity: PerplexityValue;
  readonly perplexity_at_stride_context: PerplexityValue | null;
  readonly bits_per_byte: BpbValue;
  readonly loss_by_position: LossByPosition;
  readonly calibration: CalibrationValue;
  readonly generation: GenerationValue;
  readonly overlap: OverlapValue;
  readonly diversity: DiversityValue;
  readonly memorization: { readonly verbatim: VerbatimValue; readonly canary: CanaryValue };
  readonly contamination: ContaminationValue;
  readonly baselines: BaselinesValue;
  /** Only when extra strides were asked for. */
  readonly perplexity_by_stride?: PerplexityByStride;
  readonly identities: {
    readonly model: ModelIdentity;
    readonly tokenizer: TokenizerJSON | unknown;
    readonly evaluators: Record<string, EvaluatorIdentity>;
  };
  readonly provenance: Provenance & { readonly workers?: number };
}

/** How the block-bootstrap intervals beside a metric's groups were drawn (absent where a value has none). */
export interface IntervalSettings {
  readonly method: string;
  readonly replicates: number;
  readonly level: number;
  readonly block_length: string;
  readonly seed: number;
}

/** A group's 95% moving-block bootstrap interval, or null and the reason (too few documents, one window, no bytes). */
export type WithBlockInterval = { block_bootstrap_95: BlockInterval | null; block_bootstrap_95_reason?: string };

export interface PerplexityValue {
  readonly stride: number;
  readonly context_length: number;
  readonly unit: "nats per target";
  /** The headline's groups carry an interval; the stride-context and extra-stride passes' do not. */
  readonly interval?: IntervalSettings;
  readonly groups: (GroupRecord & Partial<WithBlockInterval>)[];
}

/** Perplexity by split/source at each stride: every target once per stride, only the context before it changes. */
export interface PerplexityByStride {
  readonly note: string;
  readonly strides: { stride: number; groups: GroupRecord[] }[];
}

export interface BpbValue {
  readonly stride: number;
  readonly definition: string;
  readonly interval: IntervalSettings;
  readonly groups: (ReturnType<typeof groupBpb> & WithBlockInterval)[];
}

export interface LossByPosition {
  readonly stride: number;
  readonly context_length: number;
  readonly note: string;
  readonly by_split: { split: Split; positions: { position: number; targets: number; nll: number }[] }[];
}

export interface CalibrationValue {
  readonly stride: number;
  readonly bins: number;
  readonly scheme: BinScheme;
  readonly by_split: CalibrationSplit[];
}

type NextTokenCalibration = ReturnType<typeof nextTokenCalibration>;
/** One split's calibration; its accuracy (Σ correct / Σ predictions) carries Wilson's 95% interval or the reason it has none. */
export type CalibrationSplit = Omit<NextTokenCalibration, "accuracy"> & {
  accuracy: NextTokenCalibration["accuracy"] & { wilson95: WilsonBounds | null; wilson95_reason?: string };
};

export interface GenerationSettings {
  readonly prompts: number;
  readonly promptTokens: number;
  readonly maxTokens: number;
  readonly samplesPerPrompt: number;
  readonly temperature: number;
  /** Omitted: sample from the whole vocabulary. */
  readonly topK?: number;
  readonly overlapOrders: readonly number[];
}

export interface GenerationValue {
  readonly unit: "tokens";
  readonly prompt_source: string[];
  readonly prompt_documents_skipped_too_short: number;
  readonly samples: { doc: string; sample: number; prompt: string; text: string; tokens: number[]; stopped: "stop-token" | "length" }[];
  readonly greedy_margins: {
    doc: string;
    prompt: string;
    token: number;
    token_text: string;
    probability: number;
    runner_up: number;
    runner_up_text: string;
    margin_logits: number;
  }[];
}

export interface OverlapValue {
  readonly definition: string;
  readonly samples: number;
  readonly orders: ({ n: number; samples_scored: number; samples_with_ngrams: number } & Reasoned<"mean_overlap">)[];
}

export type DiversityValue = { readonly unit: "token ids"; readonly samples: number } & Reasoned<"distinct_1"> &
  Reasoned<"distinct_2"> &
  Reasoned<"unique_sequence_ratio"> &
  Reasoned<"mean_pairwise_jaccard_2">;

export type VerbatimValue = ReturnType<typeof verbatimProbe> | { status: string };

/** The canary probe's reading: log p(secret | prefix) of the model, and of a model fitted without the canary when given. */
export type CanaryValue =
  | {
      text: string;
      prefix: string;
      secret: string;
      occurrences_in_training_documents_given: number;
      evaluated: CanaryProbe;
      without_canary: CanaryProbe | null;
      log_prob_gain: number | null;
      note: string;
    }
  | { status: string };
type CanaryProbe = ReturnType<typeof canaryProbe>;

type Nll = { targets: number; nll: number | null };

export type ContaminationValue =
  | { status: string }
  | {
      n: number;
      threshold: number;
      against: string;
      note: string;
      splits: {
        split: Split;
        documents: number;
        flagged: readonly string[];
        flagged_fraction: number;
        unauditable: number;
        all_documents: Nll;
        unflagged_documents: Nll;
      }[];
    };

export type BaselinesValue =
  { status: string } | { stride: number; fitted_on: string; groups: ({ baseline: string } & GroupRecord & Reasoned<"bits_per_byte">)[] };
