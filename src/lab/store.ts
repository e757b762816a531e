// Where a run's files live: a tiny Store interface (a directory on disk from src/node/disk.ts, or memory in a
// browser or a test), the state file's name, and opening a run fresh or from its saved state. Not a format.
import { joinChunks } from "../util/primitives/bytes.ts";
import { sha256Hex } from "../util/primitives/sha256.ts";
import type { WorkerPool } from "../train/pool.ts";
import { Run, type RunSpec } from "./run.ts";
import { decodeTrainState } from "./state_file.ts";

/** Named byte files, each write atomic (a reader or a crash sees the old file or the whole new one). */
export interface Store {
  read(name: string): Uint8Array | undefined;
  write(name: string, data: Uint8Array | string): void;
  /**
   * Write `name` from chunks, each consumed before the next is made (it may reuse one buffer), atomically as write:
   * a file of a few hundred MB is then never whole in memory. Absent (memory), callers join the chunks and write.
   */
  writeChunks?(name: string, chunks: Iterable<Uint8Array>): void;
  /** Remove `name` if it is there (only a file the store holds: a directory store refuses anything but a regular file). */
  remove(name: string): void;
  /** How to name the file in messages (a path on disk). */
  where(name: string): string;
}

/** The single, atomically replaced training-state file of a run's store. */
export const STATE_FILE = "train_state.safetensors";

/** A store in memory (tests, the browser). */
export function memoryStore(): Store & { files: Map<string, Uint8Array> } {
  const files = new Map<string, Uint8Array>();
  return {
    files,
    read: (name) => files.get(name)?.slice(),
    write: (name, data) => {
      files.set(name, typeof data === "string" ? new TextEncoder().encode(data) : data.slice());
    },
    remove: (name) => {
      files.delete(name);
    },
    where: (name) => `memory:${name}`,
  };
}

/**
 * The run from its saved state when `resume`, else fresh. With `resumeFromNothing`, a store without a state file (a
 * run killed before its first one, at any instant) resumes at update 0; without it, that is refused.
 */
export function openRun(spec: RunSpec, store: Store | undefined, resume: boolean, pool?: WorkerPool, resumeFromNothing = false): Run {
  if (!resume) return Run.create(spec, undefined, pool);
  if (!store) throw new Error("--resume needs an output directory (--out) to resume from");
  const where = store.where(STATE_FILE);
  const bytes = store.read(STATE_FILE);
  if (!bytes && resumeFromNothing) return Run.create(spec, undefined, pool);
  if (!bytes) throw new Error(`training-state file not found: ${where} (nothing to resume)`);
  return Run.create(spec, { state: decodeTrainState(bytes, where), where }, pool);
}

/** Write the run's state file; returns where it went. */
export function saveState(run: Run, store: Store): string {
  writeChunked(store, STATE_FILE, run.stateChunks());
  return store.where(STATE_FILE);
}

/** Write `name` from chunks: through the store's writeChunks where it has one, else joined and written whole. */
export function writeChunked(store: Store, name: string, chunks: Iterable<Uint8Array>): void {
  if (store.writeChunks) store.writeChunks(name, chunks);
  else store.write(name, joinChunks(chunks, { reused: true })); // Store.writeChunks's producers may reuse a buffer
}

/** Write the run's model file as `name`; returns its sha256 (the model's id). */
export function saveModel(run: Run, store: Store, name: string): string {
  const bytes = run.modelBytes();
  store.write(name, bytes);
  return sha256Hex(bytes);
}
