// train's typed options and its two default sets: the overfit fixture's and --text's (the recipe picks by whether
// --text is given), each value from the catalogue (train's own, else overfit's; --text's own, else brown's). Loads no engine, so `tinylab --help` shows every default without importing tfjs.
import type { Document } from "../src/data/documents.ts";
import type { ByteTokenizer, TokenizerJSON } from "../src/data/tokenizer.ts";
import type { ModelConfig } from "../src/model/config.ts";
import { paysForThreads } from "../src/train/pool.ts";
import type { Store } from "../src/lab/store.ts";
import type { TextSource } from "../src/data/text_documents.ts";
import type { TextSplitOptions } from "../src/data/text_split.ts";
import type { ProgressStream } from "../src/util/runtime/progress.ts";
import type { Engine } from "../src/util/engine.ts";
import { OVERFIT_DEFAULTS } from "./options.ts";
import { defaultOf, type OptionsOf } from "./option_catalogue.ts";
import { BROWN_DEFAULTS as B, BROWN_SHAPE } from "./brown_options.ts";

/**
 * train's options: the training group typed by the catalogue's parsers (microbatches absent: TRAIN_DEFAULTS' on
 * documents, `textMicrobatches` with `text`; patience needs evalEvery and counts its scorings; tensorboard writes the
 * history as an event file into `out`), and what a run needs beside: its engine carries the workers.
 */
export interface TrainRunOptions
  extends
    OptionsOf<
      | "seed"
      | "updates"
      | "lr"
      | "warmup"
      | "cosine-steps"
      | "min-lr"
      | "clip"
      | "weight-decay"
      | "batch-rows"
      | "shuffle"
      | "model-config"
      | "resume"
      | "log-every"
      | "on-divergence"
    >,
    Partial<OptionsOf<"microbatches" | "eval-every" | "save-every" | "patience" | "tensorboard">> {
  /** Documents to train on (their train split) and what they are; the overfit fixture when absent. */
  data?: { docs: (tokenizer: ByteTokenizer) => Document[]; name: string; identity: string };
  /** Plain text to train on instead (`--text`): its documents, split by a manifest in `out`, and the tokenizer to build. */
  text?: TextInput;
  /** The output directory: the state file (read with `resume`), and the history, manifest and summaries. */
  out?: Store;
  /** Where the final model file goes: a store and a file name in it. */
  saveModel?: { store: Store; name: string };
  /** The engine the run computes on, its workers (capped by the microbatches) included; absent: tfjs's own kernels. */
  engine?: Engine;
  /** Where each phase that outlasts its quiet time (BPE, tokenizing, validation, updates; QUIET_MS) shows its progress (stderr); absent: nowhere. */
  progress?: ProgressStream;
}

/** A text input as `train --text` takes it (src/node/text_files.ts reads it; src/data/text_split.ts splits it). */
export interface TextInput {
  docs: TextSource[];
  name: string;
  split: TextSplitOptions;
  tokenizer: TokenizerJSON["kind"];
}

export const TRAIN_DEFAULTS: TrainRunOptions & { microbatches: number } = {
  seed: OVERFIT_DEFAULTS.seeds[0],
  updates: OVERFIT_DEFAULTS.updates,
  lr: OVERFIT_DEFAULTS.lr,
  warmup: defaultOf("warmup", "train"),
  cosineSteps: defaultOf("cosine-steps", "train"),
  minLr: OVERFIT_DEFAULTS.lr,
  clipNorm: OVERFIT_DEFAULTS.clipNorm,
  weightDecay: defaultOf("weight-decay", "train"),
  microbatches: defaultOf("microbatches", "train"),
  batchRows: defaultOf("batch-rows", "train"),
  shuffle: false,
  modelConfig: {},
  resume: false,
  logEvery: defaultOf("log-every", "train"),
  onDivergence: defaultOf("on-divergence", "train"),
};

/**
 * `train --text` defaults, sized for a normal text on 2 cores: Brown's model (2 layers, d_model 128, context 128)
 * and Brown's schedule and BPE (peak rate, warmup, floor, weight decay, vocabulary: taken from BROWN_DEFAULTS, where
 * bench/brown_recipes.ts chose them), windows of 8 rows per update (in 2 microbatches where that pays:
 * textMicrobatches), cosine over --updates, BPE learned on train.
 */
export const TEXT_DEFAULTS = {
  updates: defaultOf("updates", "text"),
  lr: B.lr,
  warmup: B.warmup,
  minLr: B.minLr,
  weightDecay: B.weightDecay,
  batchRows: defaultOf("batch-rows", "text"),
  microbatches: defaultOf("microbatches", "text"),
  evalEvery: defaultOf("eval-every", "text"),
  saveEvery: defaultOf("save-every", "text"),
  logEvery: defaultOf("log-every", "text"),
  tokenizer: defaultOf("tokenizer", "text"),
  vocab: B.vocab,
  splitSeed: defaultOf("split-seed", "text"),
  validationFraction: defaultOf("validation-fraction", "text"),
  testFraction: defaultOf("test-fraction", "text"),
  out: defaultOf("out", "text"),
  model: BROWN_SHAPE,
};

/**
 * `train --text`'s microbatches per update when --microbatches is not given: TEXT_DEFAULTS' 2 for a model large
 * enough to pay for a second thread (src/train/pool.ts) when they divide the update's rows, else 1. The config alone
 * decides, never the cores, so a run's numbers are the same on every machine; the worker count follows the cores.
 */
export const textMicrobatches = (config: ModelConfig, batchRows: number): number =>
  paysForThreads(config) && batchRows % TEXT_DEFAULTS.microbatches === 0 ? TEXT_DEFAULTS.microbatches : 1;

/** The settings train's two default sets decide; each the user leaves out is taken from one of them. */
export type TrainChoices = Partial<
  OptionsOf<
    | "updates"
    | "lr"
    | "warmup"
    | "cosine-steps"
    | "min-lr"
    | "weight-decay"
    | "batch-rows"
    | "eval-every"
    | "save-every"
    | "log-every"
    | "tokenizer"
    | "out"
    | "patience"
    | "microbatches"
  >
>;

/**
 * train's settings, each left out taken from the overfit fixture's defaults or, with `--text`, the text recipe's
 * (cosine over --updates, the floor TEXT_DEFAULTS.minLr, validation and saves every 100, output results/train);
 * refused here, before any work, when they contradict each other.
 */
export function trainSettings(given: TrainChoices, text: boolean) {
  const pick = <K extends keyof TrainChoices>(k: K, fixture: TrainChoices[K], forText: TrainChoices[K]) =>
    given[k] ?? (text ? forText : fixture);
  const updates = pick("updates", TRAIN_DEFAULTS.updates, TEXT_DEFAULTS.updates)!;
  const lr = pick("lr", TRAIN_DEFAULTS.lr, TEXT_DEFAULTS.lr)!;
  const s = {
    updates,
    lr,
    warmup: pick("warmup", TRAIN_DEFAULTS.warmup, TEXT_DEFAULTS.warmup)!,
    cosineSteps: pick("cosineSteps", TRAIN_DEFAULTS.cosineSteps, updates)!,
    minLr: pick("minLr", lr, TEXT_DEFAULTS.minLr)!,
    weightDecay: pick("weightDecay", TRAIN_DEFAULTS.weightDecay, TEXT_DEFAULTS.weightDecay)!,
    batchRows: pick("batchRows", TRAIN_DEFAULTS.batchRows, TEXT_DEFAULTS.batchRows)!,
    evalEvery: pick("evalEvery", undefined, TEXT_DEFAULTS.evalEvery),
    saveEvery: pick("saveEvery", undefined, TEXT_DEFAULTS.saveEvery),
    logEvery: pick("logEvery", TRAIN_DEFAULTS.logEvery, TEXT_DEFAULTS.logEvery)!,
    tokenizer: pick("tokenizer", TEXT_DEFAULTS.tokenizer, TEXT_DEFAULTS.tokenizer)!,
    out: pick("out", undefined, TEXT_DEFAULTS.out),
  };
  checkMinLr(s.minLr, s.lr, given.minLr === undefined ? " (its default with --text)" : "");
  if (given.patience !== undefined && s.evalEvery === undefined)
    throw new Error("--patience counts validation scorings: it needs --eval-every");
  // an explicit count must divide the rows; the default (textMicrobatches) always does
  if (text && given.microbatches !== undefined) checkMicrobatchRows(given.microbatches, s.batchRows);
  return s;
}

/** The cosine's floor above its peak would make the rate rise as it "decays": refused naming both flags. */
export function checkMinLr(minLr: number, lr: number, minLrNote = ""): void {
  if (minLr > lr)
    throw new Error(`--min-lr ${minLr}${minLrNote} must be ≤ --lr ${lr} (the floor of the cosine decay cannot be above its peak)`);
}

/** --microbatches cuts an update's --batch-rows rows into equal blocks: refused by name, before any work, when it does not divide them. */
export function checkMicrobatchRows(microbatches: number, batchRows: number): void {
  if (batchRows % microbatches !== 0)
    throw new Error(
      `--microbatches ${microbatches} must divide --batch-rows ${batchRows} (an update's rows are cut into equal microbatches)`,
    );
}
