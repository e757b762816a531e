// The write protocol of a run directory: which files a run writes, the order in which they move so that a kill at
// any instant leaves a directory the next --resume accepts, and claiming a directory (refused when it holds a run,
// unless resumed or overwritten; an overwrite removes only the run's own files). Not the files' formats.
import { MANIFEST_FILE } from "../data/text_manifest.ts";
import { STATE_FILE, writeChunked, type Store } from "./store.ts";
import { HISTORY_FILE } from "./history.ts";
import { EVENTS_FILE, HISTORY_CSV_FILE } from "./history_events.ts";

export const CURVE_FILE = "loss_curve.svg";
/** The last update's weights, written when the run ends. */
export const MODEL_FILE = "model.safetensors";
/** The weights validation chose (lowest validation NLL), written beside the last ones when the run ends. */
export const BEST_MODEL_FILE = "model_best.safetensors";
/** The closing summaries a command writes last, once its run is complete. */
export const SUMMARY_FILES = ["train.json", "brown.json", "report.html"] as const;

/**
 * Every file a run writes, in the order an overwrite removes them: the state first (what is left is never an old
 * run to resume), the split manifest last (everything else was made from it).
 */
export const RUN_FILES = [
  STATE_FILE,
  ...SUMMARY_FILES,
  MODEL_FILE,
  BEST_MODEL_FILE,
  CURVE_FILE,
  EVENTS_FILE,
  HISTORY_CSV_FILE,
  HISTORY_FILE,
  MANIFEST_FILE,
] as const;

/** What a run writes of its history at each point: history.json, the curve drawn from it and (--tensorboard) its event file. */
export interface HistoryFiles {
  json: string;
  curve: string;
  events?: Uint8Array;
}

/** What a run writes into its directory, as src/node/output_dir.ts's claim of an output directory takes it. */
export const RUN_KIND = { noun: "a run", files: RUN_FILES };

/** A directory refused because of what it holds; the message names the directory, the files and the flags. */
export class RunDirectoryError extends Error {
  override name = "RunDirectoryError";
}

export interface Claim {
  /** Continue the run the directory holds. */
  resume: boolean;
  /** Remove the run the directory holds (only its files) and start afresh. */
  overwrite: boolean;
}

/**
 * Take a directory for a run, before anything is written to it. Holding any of a run's files, it is refused
 * unless `resume` (continue it) or `overwrite` (its files are removed first, state first). `label` names it,
 * e.g. "--out results/train". Returns what was removed. A resume of a directory with no state file
 * starts at update 0: a kill can land before the first write, and the next --resume must still go on.
 */
export function claimRunDir(store: Store, how: Claim, label: string): { removed: string[] } {
  if (how.resume && how.overwrite) throw new RunDirectoryError("give one of --resume (continue the run) and --overwrite (replace it)");
  const held = RUN_FILES.filter((name) => store.read(name) !== undefined);
  if (held.length === 0 || how.resume) return { removed: [] };
  if (!how.overwrite) {
    throw new RunDirectoryError(
      `${label} holds a run (${held.join(", ")}); pass --resume to continue it, or --overwrite to remove its files and start afresh`,
    );
  }
  for (const name of held) store.remove(name);
  return { removed: held };
}

/**
 * One consistent point of a run: its history and the curve drawn from it, then the state that points at them.
 * A history may run ahead of the state (a resume drops the entries past the state's update, src/lab/history.ts
 * `resumeHistory`) but never behind it, so a kill between any two of these writes resumes without advice.
 */
export function commitState(store: Store, state: Iterable<Uint8Array>, history?: HistoryFiles): void {
  if (history) writeHistory(store, history);
  writeChunked(store, STATE_FILE, state);
}

/** The history alone, between saves of the state (after a validation scoring): ahead of the state, which is allowed. */
export function writeHistory(store: Store, history: HistoryFiles): void {
  store.write(HISTORY_FILE, history.json);
  store.write(CURVE_FILE, history.curve);
  if (history.events) store.write(EVENTS_FILE, history.events);
}
