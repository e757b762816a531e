// brown's typed options and defaults (each value from its option's catalogue entry), in a module that loads no engine (`tinylab brown --help` shows them).
import { resolveModelConfig, type ModelConfig } from "../src/model/config.ts";
import { defaultOf, type OptionsOf } from "./option_catalogue.ts";
import type { ProgressStream } from "../src/util/runtime/progress.ts";
import type { Engine } from "../src/util/engine.ts";

/**
 * brown's options: the training group typed by the catalogue's parsers (cosineSteps absent: --updates, kept to
 * extend a run; microbatches split each update's windows so --workers can share it; patience counts validation
 * scorings), and what the recipe needs beside: its engine carries the workers (at most `microbatches` per update,
 * all of them for the report's scoring).
 */
export interface BrownOptions
  extends
    OptionsOf<
      | "out"
      | "seed"
      | "split-seed"
      | "vocab"
      | "updates"
      | "batch-rows"
      | "microbatches"
      | "lr"
      | "warmup"
      | "min-lr"
      | "weight-decay"
      | "eval-every"
      | "save-every"
      | "resume"
      | "final-test"
      | "on-divergence"
    >,
    Partial<OptionsOf<"cosine-steps" | "patience" | "tensorboard">> {
  model: ModelConfig;
  canary: { text: string; repetitions: number; secretTokens: number };
  prompts: string[];
  /** Asked between updates: true stops the run there, its state saved (Ctrl-C). */
  shouldStop?: (done: number) => boolean;
  /** Stop after this update, leaving a resumable state, as an interruption would (tests the resume path). */
  stopAt?: number;
  /** For tests and quick looks: keep this many files per genre, each cut to this many characters. */
  slice?: { filesPerGenre: number; chars: number };
  progress?: ProgressStream;
  /** The engine the run computes on, its workers included; absent: tfjs's own kernels. */
  engine?: Engine;
}

/** Brown's model shape, from the shape options' brown defaults (train --text takes the same: TEXT_DEFAULTS.model). */
export const BROWN_SHAPE: Partial<ModelConfig> = {
  vocabSize: defaultOf("vocab", "brown"),
  contextLength: defaultOf("context", "brown"),
  nLayers: defaultOf("layers", "brown"),
  dModel: defaultOf("d-model", "brown"),
  nHeads: defaultOf("heads", "brown"),
  dFF: defaultOf("d-ff", "brown"),
  dropout: defaultOf("dropout", "brown"),
};

export const BROWN_DEFAULTS: BrownOptions = {
  out: defaultOf("out", "brown"),
  seed: defaultOf("seed", "brown"),
  splitSeed: defaultOf("split-seed", "brown"),
  vocab: defaultOf("vocab", "brown"),
  // chosen by bench/brown_recipes.ts on the training graph: each recipe given the updates it affords in the same
  // training time on the 2-worker pool, scored on the whole validation split at stride 64. This one (2 layers,
  // d 128, 16 rows, lr 3e-3) scored best; 8 rows and 4 layers were worse (docs/brown.md).
  model: resolveModelConfig(BROWN_SHAPE),
  // the updates that budget affords this shape's median 2-worker step (measured interleaved with the others)
  updates: defaultOf("updates", "brown"),
  batchRows: defaultOf("batch-rows", "brown"),
  // the 16 windows as 2 microbatches of 8 rows, so the default's 2 workers share every update
  microbatches: defaultOf("microbatches", "brown"),
  lr: defaultOf("lr", "brown"),
  warmup: defaultOf("warmup", "brown"),
  minLr: defaultOf("min-lr", "brown"),
  weightDecay: defaultOf("weight-decay", "brown"),
  // the whole validation split (294,432 targets) is scored each time, so every 1,000 updates (at 0, 1,000, …,
  // 4,000 and the last, 4,495)
  evalEvery: defaultOf("eval-every", "brown"),
  saveEvery: defaultOf("save-every", "brown"),
  resume: false,
  finalTest: false,
  canary: { text: "my tinylab canary code is 7 1 9 4 8 3", repetitions: defaultOf("canary-repetitions", "brown"), secretTokens: 4 },
  prompts: ["The", "He said", "It was a", "The United States", "In the"],
  onDivergence: defaultOf("on-divergence", "brown"),
};
