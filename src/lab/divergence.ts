// Divergence that stays finite: a training loss above DIVERGENCE_FACTOR × ln V is warned about once, or stops the
// run when asked. Not the non-finite refusal (src/train/trainer.ts refuses NaN and ±∞ outright).

/** A fresh model scores about ln V (near uniform); three times that is far worse than guessing: divergence, not noise. */
export const DIVERGENCE_FACTOR = 3;

export type DivergencePolicy = "warn" | "stop";
export const DIVERGENCE_POLICIES: readonly DivergencePolicy[] = ["warn", "stop"];

/** Raised by the "stop" policy after the update that crossed the threshold; no state was saved for it. */
export class DivergenceError extends Error {
  override name = "DivergenceError";
}

/** The threshold for vocabulary size `vocab`, in nats per target. */
export const divergenceThreshold = (vocab: number): number => DIVERGENCE_FACTOR * Math.log(vocab);

/** What is wrong with this update's loss, or undefined when it is below the threshold (pure). */
export function divergence(vocab: number, step: number, loss: number): string | undefined {
  const limit = divergenceThreshold(vocab);
  if (!(loss > limit)) return undefined;
  return `update ${step}: training loss ${loss.toPrecision(4)} exceeds ${DIVERGENCE_FACTOR} × ln V = ${limit.toFixed(2)} (V = ${vocab}): the run is diverging`;
}

/** The line a "warn" policy prints, and the error a "stop" policy raises. */
export const divergenceWarning = (what: string): string => `warning: ${what}; lower --lr, or pass --on-divergence stop`;
export const divergenceStop = (what: string): DivergenceError =>
  new DivergenceError(`${what}; stopped (--on-divergence stop) before this update was checkpointed; earlier checkpoints are kept`);
