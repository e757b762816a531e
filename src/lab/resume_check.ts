// The in-memory resume check a recipe reports: snapshot, one update, restore, the same update again, compared bit
// for bit, with a control that must differ. Not the file resume (store.ts and state_file.ts do that).
import { SAVED_STREAMS, snapshotDifferences, type Run } from "./run.ts";

/**
 * Snapshot (weights, Adam moments and step, every RNG state), one update, restore, the same update again:
 * the two results must match bit for bit. A control then restores everything but the batch-sampling
 * stream, which must change the update (else the check could not fail). The state is left as before.
 */
export function resumeCheck(run: Run) {
  const before = run.snapshot();
  const first = run.update();
  const after = run.snapshot();
  run.restore(before);
  const restored = snapshotDifferences(before, run.snapshot());
  const second = run.update();
  const replay = snapshotDifferences(after, run.snapshot());
  run.restore(before, { keepCursor: true });
  run.update();
  const control = snapshotDifferences(after, run.snapshot());
  run.restore(before);
  const values = [...after.weights.values()].reduce((n, v) => n + v.length, 0);
  return {
    at_update: before.optimizer.step,
    replayed_update: after.optimizer.step,
    compared: { parameter_tensors: after.weights.size, parameter_values: values, adam_moments: 2 * after.optimizer.m.size, rng_streams: SAVED_STREAMS },
    losses: [first.loss, second.loss],
    restore_differences: restored,
    replay_differences: replay,
    bit_identical: restored.length === 0 && replay.length === 0 && Object.is(first.loss, second.loss),
    control_without_batch_rng: { differing: control.length, identical: control.length === 0 },
  };
}
