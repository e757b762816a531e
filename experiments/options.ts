// The recipes' typed options and their default objects, each value read from the option's catalogue entry
// (option_catalogue.ts defaultOf), in a module that loads no engine, so `tinylab --help` can show each default
// without importing tfjs; train's and brown's are in train_options.ts and brown_options.ts.
import type { Split } from "../src/data/documents.ts";
import { DEFAULT_CLIP_NORM } from "../src/lab/config.ts";
import { DEFAULT_SMOOTHING_K } from "../src/baselines/ngram.ts";
import { REPORT_SETTING_DEFAULTS as R } from "../src/eval/report/defaults.ts";
import type { EvaluateOptions } from "./evaluate.ts";
import type { Convention } from "../src/eval/passes/convention.ts";
import { COMPARE_BASELINES, defaultOf, type OptionsOf } from "./option_catalogue.ts";

/** overfit's options, typed by the catalogue's parsers; `replicates` are the Multi-Bootstrap replicates at each checkpoint. */
export interface OverfitOptions extends OptionsOf<"seeds" | "updates" | "checkpoints" | "lr" | "clip" | "replicates"> {
  /** The seed of the Multi-Bootstrap's "bootstrap" stream (fixed: not a training seed). */
  bootstrapSeed: number;
}

export const OVERFIT_DEFAULTS: OverfitOptions = {
  seeds: defaultOf("seeds", "overfit"),
  updates: defaultOf("updates", "overfit"),
  checkpoints: defaultOf("checkpoints", "overfit"),
  lr: defaultOf("lr", "overfit"),
  clipNorm: DEFAULT_CLIP_NORM,
  replicates: defaultOf("replicates", "overfit"),
  bootstrapSeed: 0,
};

/**
 * cyclic's options, typed by the catalogue's parsers: train and validation are scored every `evalEvery` updates
 * (and at 0 and the end); `splitFile`, when given, is read instead of shuffling with `splitSeed`; `finalTest` scores
 * the test split, a final report never used for choosing anything.
 */
export interface CyclicOptions
  extends
    OptionsOf<"seed" | "split-seed" | "updates" | "lr" | "batch-rows" | "clip" | "eval-every" | "final-test">,
    Partial<OptionsOf<"split-file">> {}

export const CYCLIC_DEFAULTS: CyclicOptions = {
  seed: defaultOf("seed", "cyclic"),
  splitSeed: defaultOf("split-seed", "cyclic"),
  updates: defaultOf("updates", "cyclic"),
  lr: defaultOf("lr", "cyclic"),
  batchRows: defaultOf("batch-rows", "cyclic"),
  clipNorm: DEFAULT_CLIP_NORM,
  evalEvery: defaultOf("eval-every", "cyclic"),
  finalTest: false,
};

export interface CompareOptions {
  /** Model file A; B is a second model file or a baseline fitted on the data's train split. */
  a: string;
  b?: string;
  baseline?: (typeof COMPARE_BASELINES)[number];
  /** A documents file (JSONL); a run's text split (`text`); the overfit fixture when neither. */
  data?: string;
  text?: import("./scoring_data.ts").ScoringText;
  split: Split;
  /** The test split may be compared only in a final report. */
  finalTest: boolean;
  /** Window stride (default: the context, so a document that fits is one window). */
  stride?: number;
  /** Seed of the "bootstrap" stream and its replicates. */
  seed: number;
  replicates: number;
  /** Required to compare models with different tokenizers: only bits per byte are then comparable. */
  bitsPerByte: boolean;
  /** For a side that is a model directory (experiments/model_dir.ts); default MODEL_DIR_DEFAULTS. */
  convention?: Convention;
  graph?: string;
  allowNonFloat32?: boolean;
  /** Where scoring that outlasts a phase's quiet time (QUIET_MS) shows its progress (stderr); absent: nowhere. */
  progress?: import("../src/util/runtime/progress.ts").ProgressStream;
  /** The engine that computes (src/util/engine.ts); absent: tfjs's own kernels of the current backend. */
  engine?: import("../src/util/engine.ts").Engine;
}

/** compare's defaults, and the directory it writes compare.json and compare.html into. */
export const COMPARE_DEFAULTS: Omit<CompareOptions, "a"> & { out: string } = {
  split: defaultOf("split", "compare"),
  finalTest: false,
  seed: defaultOf("seed", "compare"),
  replicates: defaultOf("replicates", "compare"),
  bitsPerByte: false,
  out: defaultOf("out", "compare"),
};

export const EVALUATE_DEFAULTS: Pick<EvaluateOptions, "batchRows" | "split"> = {
  batchRows: defaultOf("batch-rows", "evaluate"),
  split: defaultOf("split", "evaluate"),
};

/** A model directory's defaults: lm-evaluation-harness's convention, what an external model's published numbers mean (src/eval/passes/convention.ts). */
export const MODEL_DIR_DEFAULTS: { convention: Convention; allowNonFloat32: boolean } = {
  convention: defaultOf("convention", "model-dir"),
  allowNonFloat32: false,
};

/** `tinylab report`'s defaults: the report's own settings (src/eval/report/defaults.ts), the count baselines' k, and its output directory. */
export const REPORT_DEFAULTS = {
  seed: R.seed,
  replicates: R.replicates,
  bins: R.bins,
  scheme: R.scheme,
  secretTokens: R.secretTokens,
  smoothing: DEFAULT_SMOOTHING_K,
  out: defaultOf("out", "report"),
};

/** gradcheck's preset and the seed of its parameters and data. */
export const GRADCHECK_DEFAULTS: { config: "overfit" | "micro"; seed: number } = {
  config: defaultOf("config", "gradcheck"),
  seed: defaultOf("seed", "gradcheck"),
};

/** Where `tinylab lab` builds the page and the localhost port it serves it on. */
export const LAB_DEFAULTS = { port: defaultOf("port", "lab"), out: defaultOf("out", "lab") };

export interface SampleOptions {
  model: string;
  prompt: string;
  /** 0 = greedy; > 0 samples from softmax(log p / temperature). */
  temperature: number;
  topK?: number;
  seed: number;
  maxTokens: number;
  samples: number;
  /** The engine that computes (src/util/engine.ts); absent: tfjs's own kernels of the current backend. */
  engine?: import("../src/util/engine.ts").Engine;
}

export const SAMPLE_DEFAULTS: Omit<SampleOptions, "model" | "prompt"> = {
  temperature: defaultOf("temperature", "sample"),
  seed: defaultOf("seed", "sample"),
  maxTokens: defaultOf("max-tokens", "sample"),
  samples: defaultOf("samples", "sample"),
};

export interface CanaryOptions {
  /** A documents file (JSONL) whose train split is fitted; 000's base text when absent. */
  data?: string;
  canary: string;
  /** Never inserted: the same probe on it measures what the model gives an unseen string of the same shape. */
  control: string;
  secretTokens: number;
  repetitions: number[];
  /** The add-k bigram's k (000 used 0.05). */
  smoothing: number;
}

export const CANARY_DEFAULTS: Omit<CanaryOptions, "data"> = {
  canary: defaultOf("canary", "canary"),
  control: defaultOf("canary-control", "canary"),
  secretTokens: defaultOf("canary-secret", "canary"),
  repetitions: defaultOf("canary-sweep", "canary"),
  smoothing: defaultOf("smoothing", "canary"),
};

/** The recipes `tinylab sweep` runs, by command name (experiments/sweep.ts says how it runs and reads each). */
export const SWEEP_RECIPE_NAMES = ["overfit", "cyclic", "train"] as const;
export type SweepRecipe = (typeof SWEEP_RECIPE_NAMES)[number];
