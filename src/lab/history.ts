// A run's training history: one entry per update (loss, rate, grad norm, speed, time; validation NLL where it was
// scored), kept across resumes without duplicates. Pure data and JSON; the recipe writes it (history.json).
import type { LossHistory } from "../util/charts.ts";

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

/**
 * The history a run resumed at update `from` continues: the saved one up to `from` (entries after it were made
 * by updates the state does not hold, and will be made again), or an empty one for a fresh run.
 */
export function resumeHistory(saved: Uint8Array | undefined, from: number, where: string): History {
  if (from === 0 || !saved) return emptyHistory();
  let h: History;
  try {
    h = JSON.parse(new TextDecoder().decode(saved)) as History;
  } catch (err) {
    throw new Error(`${where}: not valid JSON (${(err as Error).message})`);
  }
  if (h?.format !== HISTORY_FORMAT || !Array.isArray(h.entries)) throw new Error(`${where}: not a ${HISTORY_FORMAT} file`);
  const kept = h.entries.filter((e) => e.update <= from);
  // contiguous up to the state's update; it may start later, when --eval-every was first given on a resume
  const first = kept[0]?.update ?? from + 1;
  if (kept.some((e, i) => e.update !== first + i) || (kept.length > 0 && kept[kept.length - 1].update !== from)) {
    throw new Error(`${where}: does not hold every update up to ${from}, where the training state is (delete it to start the history afresh)`);
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
