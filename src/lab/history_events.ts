// A run's history as a TensorBoard event file (--tensorboard) and as CSV: the same updates and values as
// history.json (scalars as float32). Not the history's rules (history.ts) and not the byte format (src/util/formats/tensorboard.ts).
import { fileVersionEvent, recordsUpTo, scalarsEvent } from "../util/formats/tensorboard.ts";
import { csvTable } from "../util/formats/csv.ts";
import { joinChunks } from "../util/primitives/bytes.ts";
import { emptyHistory, HISTORY_FILE, parseHistory, type History, type HistoryEntry } from "./history.ts";
import type { Store } from "./store.ts";

/** TensorBoard loads files whose name holds "tfevents"; one fixed name per run directory, so a resume finds it. */
export const EVENTS_FILE = "events.out.tfevents.tinylab";
export const HISTORY_CSV_FILE = "history.csv";

/** The scalar tags, one per history column; validation only at the updates it was scored. */
export const SCALAR_TAGS = {
  train_loss: "train/loss",
  lr: "train/learning_rate",
  grad_norm: "train/grad_norm",
  validation_nll: "validation/nll",
  tokens_per_second: "train/tokens_per_second",
} as const;

export function entryScalars(e: HistoryEntry): [string, number][] {
  const out: [string, number][] = [
    [SCALAR_TAGS.train_loss, e.train_loss],
    [SCALAR_TAGS.lr, e.lr],
    [SCALAR_TAGS.grad_norm, e.grad_norm],
  ];
  if (e.validation_nll !== null) out.push([SCALAR_TAGS.validation_nll, e.validation_nll]);
  out.push([SCALAR_TAGS.tokens_per_second, e.tokens_per_second]);
  return out;
}

/**
 * An event file that grows with the history: started from what a resume at update `from` keeps of the saved file
 * (records up to that update; a torn last record or one past the state is dropped, so no update appears twice),
 * then one event per history entry not yet in it. `wallTime(step)` gives each new event's wall time in seconds
 * (when that update finished, where the run knows it).
 */
export class HistoryEvents {
  private readonly chunks: Uint8Array[] = [];
  private lastStep: number;

  constructor(
    saved: Uint8Array | undefined,
    from: number,
    private readonly wallTime: (step: number) => number,
  ) {
    const kept = saved ? recordsUpTo(saved, from) : { bytes: new Uint8Array(), lastStep: -1, records: 0 };
    if (kept.records === 0) {
      this.chunks.push(fileVersionEvent(wallTime(0)));
      this.lastStep = -1;
    } else {
      this.chunks.push(kept.bytes);
      this.lastStep = kept.lastStep;
    }
  }

  /** Append the events of the history's points past the file's last step (update 0: the validation before training). */
  sync(h: History): void {
    if (this.lastStep < 0 && h.initial_validation_nll !== null) {
      this.chunks.push(scalarsEvent(this.wallTime(0), 0, [[SCALAR_TAGS.validation_nll, h.initial_validation_nll]]));
      this.lastStep = 0;
    }
    for (const e of h.entries) {
      if (e.update <= this.lastStep) continue;
      this.chunks.push(scalarsEvent(this.wallTime(e.update), e.update, entryScalars(e)));
      this.lastStep = e.update;
    }
  }

  bytes(): Uint8Array {
    const out = joinChunks(this.chunks);
    this.chunks.splice(0, this.chunks.length, out);
    return out;
  }
}

/**
 * history.csv from the store's history.json, written when the command ends (after its other files: a table for
 * spreadsheets, not a file a resume reads); the path written, or undefined without a history.
 */
export function writeHistoryCsv(store: Store): string | undefined {
  const saved = store.read(HISTORY_FILE);
  if (!saved) return undefined;
  store.write(HISTORY_CSV_FILE, historyCsv(parseHistory(saved, store.where(HISTORY_FILE))));
  return store.where(HISTORY_CSV_FILE);
}

/** history.json's entries as a spreadsheet table: one row per update, empty cells where validation was not scored. */
export function historyCsv(h: History): string {
  const columns = [
    "update",
    "train_loss",
    "lr",
    "grad_norm",
    "validation_nll",
    "validation_targets",
    "tokens_per_second",
    "wall_seconds",
  ] as const;
  const initial = h.initial_validation_nll === null ? [] : [[0, null, null, null, h.initial_validation_nll, null, null, null]];
  return csvTable(columns, [...initial, ...h.entries.map((e) => columns.map((c) => e[c]))]);
}

/**
 * A history kept as a driver runs, for the runs that write no history.json (overfit per seed, cyclic): their
 * event files hold the same columns. `lr(step)` is the schedule's rate at an update.
 */
export function historyRecorder(lr: (step: number) => number) {
  const history = emptyHistory();
  const finishedAt = new Map<number, number>();
  const t0 = performance.now();
  let tokens = 0;
  return {
    history,
    /** The validation NLL at update 0, before training. */
    initial(nll: number): void {
      history.initial_validation_nll = nll;
    },
    update(step: number, r: { loss: number; gradNorm: number; targets: number }, validation?: { nll: number; targets: number }): void {
      tokens += r.targets;
      const seconds = (performance.now() - t0) / 1000;
      history.entries.push({
        update: step,
        train_loss: r.loss,
        lr: lr(step),
        grad_norm: r.gradNorm,
        validation_nll: validation?.nll ?? null,
        validation_targets: validation?.targets ?? null,
        tokens_per_second: tokens / Math.max(seconds, 1e-9),
        wall_seconds: seconds,
      });
      finishedAt.set(step, Date.now() / 1000);
    },
    /** The whole history as an event file. */
    events(): Uint8Array {
      const e = new HistoryEvents(undefined, 0, (step) => finishedAt.get(step) ?? Date.now() / 1000);
      e.sync(history);
      return e.bytes();
    },
  };
}
