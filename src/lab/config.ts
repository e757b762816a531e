// A training run's typed config: model shape plus the options that decide every update (seed, optimizer,
// schedule, clip, batch shape, data identity), with the defaults every recipe starts from. Not the run (run.ts).
import { DEFAULT_ADAMW } from "../train/adamw_config.ts";
import type { Schedule } from "../train/schedule.ts";
import { bool, int, num, obj, refine, str, type Schema } from "../util/formats/schema.ts";

/** Everything that decides the run except where it stops: a resume must match all of it. */
export interface TrainOptions {
  seed: number;
  schedule: Schedule;
  clipNorm: number;
  adamw: { beta1: number; beta2: number; eps: number; weightDecay: number };
  microbatchesPerUpdate: number;
  batchRows: number;
  shuffle: boolean;
  /** What was trained on, by content: "overfit-fixture", "file sha256:<hex>", a manifest's identity. */
  data: string;
}

/** TrainOptions as a state file stores them: each field's type and range, and a floor no higher than the peak. */
export const TRAIN_OPTIONS: Schema<TrainOptions> = obj({
  seed: int(),
  schedule: refine(obj({ lr: num({ above: 0 }), warmup: int({ min: 0 }), cosineSteps: int({ min: 0 }), minLr: num({ min: 0 }) }), (s) =>
    s.minLr > s.lr ? ["minLr", `must be ≤ lr (${s.lr})`, s.minLr] : undefined,
  ),
  clipNorm: num({ above: 0 }),
  adamw: obj({ beta1: num({ min: 0, below: 1 }), beta2: num({ min: 0, below: 1 }), eps: num({ above: 0 }), weightDecay: num({ min: 0 }) }),
  microbatchesPerUpdate: int({ min: 1 }),
  batchRows: int({ min: 1 }),
  shuffle: bool,
  data: str({ nonEmpty: true }),
});

/** PyTorch-style global-norm clip every recipe uses unless told otherwise. */
export const DEFAULT_CLIP_NORM = 1;

/** The options a recipe gives; everything else takes the defaults above and AdamW's β, ε. */
export interface TrainSettings {
  seed: number;
  lr: number;
  data: string;
  warmup?: number;
  cosineSteps?: number;
  minLr?: number;
  clipNorm?: number;
  weightDecay?: number;
  microbatchesPerUpdate?: number;
  batchRows?: number;
  shuffle?: boolean;
}

/** Resolve settings into options (key order fixed: it is what a state file stores). */
export function trainOptions(s: TrainSettings): TrainOptions {
  return {
    seed: s.seed,
    schedule: { lr: s.lr, warmup: s.warmup ?? 0, cosineSteps: s.cosineSteps ?? 0, minLr: s.minLr ?? s.lr },
    clipNorm: s.clipNorm ?? DEFAULT_CLIP_NORM,
    adamw: { beta1: DEFAULT_ADAMW.beta1, beta2: DEFAULT_ADAMW.beta2, eps: DEFAULT_ADAMW.eps, weightDecay: s.weightDecay ?? 0 },
    microbatchesPerUpdate: s.microbatchesPerUpdate ?? 1,
    batchRows: s.batchRows ?? 1,
    shuffle: s.shuffle ?? false,
    data: s.data,
  };
}
