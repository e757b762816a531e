// A run's training history: one entry per update (loss, rate, grad norm, speed, time; validation NLL where it was
// scored), kept across resumes without duplicates. Pure data and JSON; the recipe writes it (history.json).
import type { LossHistory } from "../util/render/loss_curve.ts";
import { arr, int, nullable, num, obj, oneOf, parseJsonFile, refine, type Schema } from "../util/formats/schema.ts";

export const HISTORY_FILE = "history.json";
export const HISTORY_FORMAT = "tinylab-history/1";

export interface HistoryEntry {
  update: number;
  train_loss: number;
  lr: number;
  grad_norm: number;
  /** Mean NLL over the whole validation split (token-weighted, each target once) after this update; null when not scored. */
  validation_nll: number | null;
  validation_targets: number | null;
  /** Training targets per second of this process since it started training (a time: differs between runs). */
  tokens_per_second: number;
  /** Seconds since this process started training (a time). */
  wall_seconds: number;
}

export interface History {
  format: typeof HISTORY_FORMAT;
  /** Validation at update 0 (before any training), when scored. */
  initial_validation_nll: number | null;
  entries: HistoryEntry[];
}

export const emptyHistory = (): History => ({ format: HISTORY_FORMAT, initial_validation_nll: null, entries: [] });

/** One entry as the file holds it: every quantity finite and of its sign; a validation score with its target count or neither. */
const ENTRY: Schema<HistoryEntry> = refine(
  obj({
    update: int({ min: 1 }),
    train_loss: num({ min: 0 }),
    lr: num({ min: 0 }),
    grad_norm: num({ min: 0 }),
    validation_nll: nullable(num({ min: 0 })),
    validation_targets: nullable(int({ min: 1 })),
    tokens_per_second: num({ min: 0 }),
    wall_seconds: num({ min: 0 }),
  }),
  (e) =>
    (e.validation_nll === null) !== (e.validation_targets === null)
      ? ["validation_targets", "must be null exactly when validation_nll is", e.validation_targets]
      : undefined,
);

/** history.json: the format, the score before training, and one entry per update (no update twice). */
export const HISTORY_SCHEMA: Schema<History> = obj({
  format: oneOf([HISTORY_FORMAT] as const),
  initial_validation_nll: nullable(num({ min: 0 })),
  entries: arr(ENTRY, { unique: "update" }),
});

/** Parse and validate a history file's bytes; every refusal names the file (`where`) and the field. */
export function parseHistory(bytes: Uint8Array, where: string): History {
  return parseJsonFile(new TextDecoder().decode(bytes), HISTORY_SCHEMA, where);
}

/**
 * The history a run resumed at update `from` continues: the saved one up to `from` (entries after it were made
 * by updates the state does not hold, and will be made again), or an empty one for a fresh run.
 *
 * A history missing while the state is past 0 is rebuilt, not refused: its updates cannot be recomputed without
 * training again, a refusal would leave deleting the state as the only way on, and a history that starts late is
 * already a valid one (--eval-every first given on a resume). So the new history starts at update `from` + 1,
 * its first entry saying where, and `warn` says so in one line.
 */
export function resumeHistory(saved: Uint8Array | undefined, from: number, where: string, warn?: (line: string) => void): History {
  if (from === 0) return emptyHistory();
  if (!saved) {
    warn?.(
      `${where}: not found while the training state is at update ${from}: the history starts again at update ${from + 1} (updates 1-${from} have no record)`,
    );
    return emptyHistory();
  }
  const h = parseHistory(saved, where);
  const kept = h.entries.filter((e) => e.update <= from);
  // contiguous up to the state's update; it may start later, when --eval-every was first given on a resume
  const first = kept[0]?.update ?? from + 1;
  if (kept.some((e, i) => e.update !== first + i) || (kept.length > 0 && kept[kept.length - 1].update !== from)) {
    throw new Error(
      `${where}: does not hold every update up to ${from}, where the training state is (delete it to start the history afresh)`,
    );
  }
  return { ...h, entries: kept };
}

/** The chart's view: [update, loss] of every update and [update, NLL] of every validation point (update 0 included). */
export function lossPoints(h: History): LossHistory {
  const validation: [number, number][] = h.initial_validation_nll === null ? [] : [[0, h.initial_validation_nll]];
  for (const e of h.entries) if (e.validation_nll !== null) validation.push([e.update, e.validation_nll]);
  return { train: h.entries.map((e) => [e.update, e.train_loss]), validation };
}

/** Entries with their times removed: what two runs of the same recipe must agree on bit for bit. */
export const withoutTimes = (h: History) => ({ ...h, entries: h.entries.map(({ tokens_per_second: _t, wall_seconds: _w, ...e }) => e) });
