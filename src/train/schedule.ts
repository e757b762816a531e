// Learning-rate schedules: constant, or linear warmup then cosine decay to a floor. Pure functions of the step.

export interface Schedule {
  lr: number;
  warmup: number;
  /** Total updates for the cosine; 0 keeps the rate constant after warmup. */
  cosineSteps: number;
  minLr: number;
}

export const constantSchedule = (lr: number): Schedule => ({ lr, warmup: 0, cosineSteps: 0, minLr: lr });

/** Rate for update number `step` (1-based: the first update is step 1). */
export function learningRate(s: Schedule, step: number): number {
  if (step <= s.warmup) return (s.lr * step) / s.warmup;
  if (s.cosineSteps <= 0) return s.lr;
  const progress = Math.min(1, (step - s.warmup) / Math.max(1, s.cosineSteps - s.warmup));
  return s.minLr + 0.5 * (s.lr - s.minLr) * (1 + Math.cos(Math.PI * progress));
}
