// Every recipe's typed options with their defaults, in a module that loads no engine, so `tinylab --help` can
// show each default without importing tfjs. The recipes (overfit.ts, train.ts, cyclic.ts, brown.ts) own them.
import type { Document, Split } from "../src/data/documents.ts";
import type { ByteTokenizer, TokenizerJSON } from "../src/data/tokenizer.ts";
import { resolveModelConfig, type ModelConfig } from "../src/model/config.ts";
import { paysForThreads } from "../src/train/pool.ts";
import type { Store } from "../src/lab/store.ts";
import { DEFAULT_CLIP_NORM } from "../src/lab/config.ts";
import type { DivergencePolicy } from "../src/lab/divergence.ts";
import type { ProgressStream } from "../src/util/progress.ts";
import type { TextSource, TextSplitOptions } from "../src/data/text_split.ts";

export interface OverfitOptions {
  seeds: number[];
  updates: number;
  checkpoints: number[];
  lr: number;
  clipNorm: number;
  /** Multi-Bootstrap replicates at each checkpoint, and the seed of its "bootstrap" stream (fixed: not a training seed). */
  replicates: number;
  bootstrapSeed: number;
}

export const OVERFIT_DEFAULTS: OverfitOptions = { seeds: [39, 40, 41], updates: 80, checkpoints: [0, 10, 20, 40, 80], lr: 0.02, clipNorm: DEFAULT_CLIP_NORM, replicates: 2000, bootstrapSeed: 0 };

export interface TrainRunOptions {
  seed: number;
  updates: number;
  lr: number;
  warmup: number;
  cosineSteps: number;
  minLr: number;
  clipNorm: number;
  weightDecay: number;
  /** Microbatches per update; absent: TRAIN_DEFAULTS' on documents, `textMicrobatches` with `text`. */
  microbatches?: number;
  batchRows: number;
  shuffle: boolean;
  /** Overrides of the overfit model config (known keys only), e.g. {dropout: 0.1}. */
  modelConfig: Record<string, unknown>;
  /** Documents to train on (their train split) and what they are; the overfit fixture when absent. */
  data?: { docs: (tokenizer: ByteTokenizer) => Document[]; name: string; identity: string };
  /** Plain text to train on instead (`--text`): its documents, split by a manifest in `out`, and the tokenizer to build. */
  text?: TextInput;
  /** Score the whole validation split every N updates (history.json and loss_curve.svg in `out`). */
  evalEvery?: number;
  /** Save the training state every N updates (and after the last). */
  saveEvery?: number;
  /** The output directory: the state file (read with `resume`), and the history, manifest and summaries. */
  out?: Store;
  resume: boolean;
  /** Stop after this many validation scorings in a row without a new lowest NLL (needs evalEvery). */
  patience?: number;
  /** Where the final model file goes: a store and a file name in it. */
  saveModel?: { store: Store; name: string };
  logEvery: number;
  /** A diverging (finite) loss: warn once, or stop (src/lab/divergence.ts). */
  onDivergence: DivergencePolicy;
  /** Threads computing each update (src/node/pool.ts), capped by `microbatches`; absent: 1. */
  workers?: number;
}

/** A text input as `train --text` takes it (src/node/text_files.ts reads it; src/data/text_split.ts splits it). */
export interface TextInput {
  docs: TextSource[];
  name: string;
  split: TextSplitOptions;
  tokenizer: TokenizerJSON["kind"];
}

export const TRAIN_DEFAULTS: TrainRunOptions & { microbatches: number } = {
  seed: OVERFIT_DEFAULTS.seeds[0], updates: OVERFIT_DEFAULTS.updates, lr: OVERFIT_DEFAULTS.lr, warmup: 0, cosineSteps: 0, minLr: OVERFIT_DEFAULTS.lr,
  clipNorm: OVERFIT_DEFAULTS.clipNorm, weightDecay: 0, microbatches: 2, batchRows: 1, shuffle: false, modelConfig: {}, resume: false, logEvery: 10, onDivergence: "warn",
};

/**
 * `train --text` defaults, sized for a normal text on 2 cores: Brown's model (2 layers, d_model 128, context 128;
 * ~3,500 training tokens/s on wasm), windows of 8 rows per update (in 2 microbatches where that pays: textMicrobatches),
 * warmup then cosine over --updates, BPE 512 learned on train.
 */
export const TEXT_DEFAULTS = {
  updates: 1000, lr: 3e-3, warmup: 30, minLr: 3e-4, weightDecay: 0.1, batchRows: 8, microbatches: 2, evalEvery: 100, saveEvery: 100, logEvery: 50,
  tokenizer: "bpe" as const, vocab: 512, splitSeed: 0, validationFraction: 0.1, testFraction: 0.1, out: "results/train",
  model: { vocabSize: 512, contextLength: 128, nLayers: 2, dModel: 128, nHeads: 4, dFF: 512, dropout: 0 } as Partial<ModelConfig>,
};

/**
 * `train --text`'s microbatches per update when --microbatches is not given: TEXT_DEFAULTS' 2 for a model large
 * enough to pay for a second thread (src/train/pool.ts) when they divide the update's rows, else 1. The config alone
 * decides, never the cores, so a run's numbers are the same on every machine; the worker count follows the cores.
 */
export const textMicrobatches = (config: ModelConfig, batchRows: number): number =>
  paysForThreads(config) && batchRows % TEXT_DEFAULTS.microbatches === 0 ? TEXT_DEFAULTS.microbatches : 1;

export interface CyclicOptions {
  seed: number;
  splitSeed: number;
  updates: number;
  lr: number;
  batchRows: number;
  clipNorm: number;
  /** Score train and validation every this many updates (and at 0 and the end). */
  evalEvery: number;
  /** Read the split from this file instead of shuffling with `splitSeed`. */
  splitFile?: string;
  /** Score the test split: a final report, never for choosing anything. */
  finalTest: boolean;
}

export const CYCLIC_DEFAULTS: CyclicOptions = { seed: 1, splitSeed: 1, updates: 300, lr: 0.01, batchRows: 16, clipNorm: DEFAULT_CLIP_NORM, evalEvery: 25, finalTest: false };

export interface BrownOptions {
  outDir: string;
  seed: number;
  splitSeed: number;
  vocab: number;
  model: ModelConfig;
  updates: number;
  /** The schedule's length (cosine decay over this many updates); absent: --updates. Keep it to extend a run. */
  cosineSteps?: number;
  batchRows: number;
  /** Microbatches each update's rows are split into (the same windows): what lets --workers share an update. */
  microbatches: number;
  lr: number;
  warmup: number;
  minLr: number;
  weightDecay: number;
  evalEvery: number;
  saveEvery: number;
  resume: boolean;
  /** Stop after this many validation scorings in a row without a new lowest NLL. */
  patience?: number;
  finalTest: boolean;
  canary: { text: string; repetitions: number; secretTokens: number };
  prompts: string[];
  /** Asked between updates: true stops the run there, its state saved (Ctrl-C). */
  shouldStop?: (done: number) => boolean;
  /** Stop after this update, leaving a resumable state, as an interruption would (tests the resume path). */
  stopAt?: number;
  /** For tests and quick looks: keep this many files per genre, each cut to this many characters. */
  slice?: { filesPerGenre: number; chars: number };
  progress?: ProgressStream;
  /** A diverging (finite) loss: warn once, or stop (src/lab/divergence.ts). */
  onDivergence: DivergencePolicy;
  /**
   * Threads that train and score (src/node/pool.ts); absent: 1. An update uses at most its microbatch count
   * (`microbatches`), the report's scoring all of them.
   */
  workers?: number;
}

export const BROWN_DEFAULTS: BrownOptions = {
  outDir: "results/brown",
  seed: 1,
  splitSeed: 0,
  vocab: 512,
  // chosen by bench/brown_recipes.ts on the training graph: each recipe given the updates it affords in the same
  // training time on the 2-worker pool, scored on the whole validation split at stride 64. This one (2 layers,
  // d 128, 16 rows, lr 3e-3) scored best; 8 rows and 4 layers were worse (docs/brown.md).
  model: resolveModelConfig({ vocabSize: 512, contextLength: 128, nLayers: 2, dModel: 128, nHeads: 4, dFF: 512, dropout: 0 }),
  // the updates that budget affords this shape's median 2-worker step (measured interleaved with the others)
  updates: 4495,
  batchRows: 16,
  // the 16 windows as 2 microbatches of 8 rows, so the default's 2 workers share every update
  microbatches: 2,
  lr: 3e-3,
  warmup: 30,
  minLr: 3e-4,
  weightDecay: 0.1,
  // the whole validation split (294,432 targets) is scored each time, so every 1,000 updates (at 0, 1,000, …,
  // 4,000 and the last, 4,495)
  evalEvery: 1000,
  saveEvery: 100,
  resume: false,
  finalTest: false,
  canary: { text: "my tinylab canary code is 7 1 9 4 8 3", repetitions: 8, secretTokens: 4 },
  prompts: ["The", "He said", "It was a", "The United States", "In the"],
  onDivergence: "warn",
};


/** The baselines `compare --baseline` accepts: the count baselines of src/baselines/ngram.ts at smoothing k = 1. */
export const COMPARE_BASELINES = ["uniform", "unigram-add1", "bigram-add1", "unigram-prior-bigram"] as const;

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
}

export const COMPARE_DEFAULTS: Omit<CompareOptions, "a"> = { split: "validation", finalTest: false, seed: 0, replicates: 2000, bitsPerByte: false };

export interface SampleOptions {
  model: string;
  prompt: string;
  /** 0 = greedy; > 0 samples from softmax(log p / temperature). */
  temperature: number;
  topK?: number;
  seed: number;
  maxTokens: number;
  samples: number;
}

export const SAMPLE_DEFAULTS: Omit<SampleOptions, "model" | "prompt"> = { temperature: 0, seed: 0, maxTokens: 32, samples: 1 };

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

export const CANARY_DEFAULTS: Omit<CanaryOptions, "data"> = { canary: "<Q7|zebra|X9>", control: "<Q7|zebra|K4>", secretTokens: 2, repetitions: [0, 1, 3, 8], smoothing: 0.05 };

/** The recipes `tinylab sweep` runs, by command name (experiments/sweep.ts says how it runs and reads each). */
export const SWEEP_RECIPE_NAMES = ["overfit", "cyclic", "train"] as const;
export type SweepRecipe = (typeof SWEEP_RECIPE_NAMES)[number];

/** What `tinylab export --format` writes (experiments/export.ts writes each). */
export const EXPORT_FORMATS = ["hf-gpt2", "onnx"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
