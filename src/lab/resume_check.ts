// The in-memory resume check a recipe reports: snapshot, one update, restore, the same update again, compared bit
// for bit, with a control that must differ, and the snapshot comparison it rests on. Not the file resume (store.ts
// and state_file.ts do that).
import type { ParamArrays } from "../model/init.ts";
import { STREAMS, type Run } from "./run.ts";
import type { TrainSnapshot } from "./state_file.ts";

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
    compared: {
      parameter_tensors: after.weights.size,
      parameter_values: values,
      adam_moments: 2 * after.optimizer.m.size,
      rng_streams: SAVED_STREAMS,
    },
    losses: [first.loss, second.loss],
    restore_differences: restored,
    replay_differences: replay,
    bit_identical: restored.length === 0 && replay.length === 0 && Object.is(first.loss, second.loss),
    control_without_batch_rng: { differing: control.length, identical: control.length === 0 },
  };
}

/** The streams a snapshot carries, by name: the data cursor (drawn from "batches") and the rest. */
export const SAVED_STREAMS = [STREAMS.batches, STREAMS.dropout];

/** Names of the entries whose bytes differ between two snapshots (empty: bit-identical). */
export function snapshotDifferences(a: TrainSnapshot, b: TrainSnapshot): string[] {
  const same = (x: Float32Array, y: Float32Array | undefined) =>
    y !== undefined && x.length === y.length && x.every((v, i) => Object.is(v, y[i]));
  const out: string[] = [];
  const maps: [string, ParamArrays, ParamArrays][] = [
    ["param", a.weights, b.weights],
    ["adam.m", a.optimizer.m, b.optimizer.m],
    ["adam.v", a.optimizer.v, b.optimizer.v],
  ];
  for (const [what, x, y] of maps) for (const [k, v] of x) if (!same(v, y.get(k))) out.push(`${what} ${k}`);
  if (a.optimizer.step !== b.optimizer.step) out.push("adam.step");
  if (
    (a.best === undefined) !== (b.best === undefined) ||
    (a.best &&
      b.best &&
      (a.best.update !== b.best.update ||
        !Object.is(a.best.validationNll, b.best.validationNll) ||
        a.best.scoringsSince !== b.best.scoringsSince))
  )
    out.push("best");
  else if (a.best && b.best) for (const [k, v] of a.best.weights) if (!same(v, b.best.weights.get(k))) out.push(`best ${k}`);
  if (JSON.stringify(a.cursor) !== JSON.stringify(b.cursor)) out.push(`rng ${STREAMS.batches}`);
  for (const k of Object.keys(a.rngs)) if (JSON.stringify(a.rngs[k]) !== JSON.stringify(b.rngs[k])) out.push(`rng ${k}`);
  return out;
}
