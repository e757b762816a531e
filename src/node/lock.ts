// An exclusive lock on an output (an output directory or a model path) for the life of a process: a lock file
// created with O_EXCL holding the owner's pid. A live owner refuses a second run; a dead owner's lock is stale and
// taken over. Not a cross-host lock (pids are local), not a reader lock (readers never lock).
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../util/process.ts";

/** A held lock; `release()` removes the lock file (also run at process exit). */
export interface Lock {
  readonly path: string;
  release(): void;
}

/** Raised when another live process holds the lock. */
export class LockedError extends Error {
  override name = "LockedError";
}

const held = new Set<string>();

/**
 * Take the lock file `path` for `what` (e.g. "output directory /tmp/ck"), or refuse naming the holder's pid.
 * `alive` is injectable for tests.
 */
export function acquireLock(path: string, what: string, alive: (pid: number) => boolean = isAlive): Lock {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, `${JSON.stringify({ pid: process.pid, started: new Date().toISOString() })}\n`);
      closeSync(fd);
      if (held.size === 0) process.on("exit", releaseAll);
      held.add(path);
      return { path, release: () => release(path) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    // a lock just created holds no pid until its owner's write lands: read an unreadable one again after a pause
    // before taking it as stale, so two processes starting together never both hold it
    let pid = holderOf(path);
    if (pid === undefined) {
      pause(UNREADABLE_PAUSE_MS);
      pid = holderOf(path);
    }
    if (pid !== undefined && pid !== process.pid && alive(pid)) {
      throw new LockedError(`${what} is in use by process ${pid} (lock file ${path}); wait for it to finish, or remove the lock file if that process is not tinylab`);
    }
    if (pid === process.pid && held.has(path)) throw new LockedError(`${what} is already locked by this process (lock file ${path})`);
    rmSync(path, { force: true }); // stale: its owner is gone (or the file is unreadable)
  }
  throw new LockedError(`${what}: could not take the lock file ${path} (another process keeps recreating it)`);
}

/** How long an unreadable lock file is given to receive its owner's pid (one small write) before it counts as stale. */
const UNREADABLE_PAUSE_MS = 50;

/** Block this thread for `ms` (a lock is taken before any work, so nothing else is waiting on it). */
const pause = (ms: number): void => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms); };

function holderOf(path: string): number | undefined {
  try {
    const pid = (JSON.parse(readFileSync(path, "utf8")) as { pid?: unknown }).pid;
    return Number.isSafeInteger(pid) ? (pid as number) : undefined;
  } catch {
    return undefined;
  }
}

function release(path: string): void {
  if (!held.delete(path)) return;
  rmSync(path, { force: true });
  // the exit hook lives only while a lock is held, so a command run inside a longer-lived process (a test running
  // the CLI in process) leaves that process's listeners as it found them
  if (held.size === 0) process.removeListener("exit", releaseAll);
}

/** Locks are removed on a normal exit, an error exit and process.exit(); a SIGKILL leaves a stale lock, taken over later. */
function releaseAll(): void {
  for (const p of [...held]) release(p);
}

/** The lock file a run holds inside the directory it writes (its checkpoint or output directory). */
export const DIRECTORY_LOCK = ".tinylab.lock";

/** Lock a directory the run writes into (it must exist). */
export const lockDirectory = (dir: string, what: string): Lock => acquireLock(join(dir, DIRECTORY_LOCK), `${what} ${dir}`);

/** Lock a file path the run will write (a model file): the lock file sits beside it as PATH.lock. */
export const lockPath = (path: string, what: string): Lock => acquireLock(`${path}.lock`, `${what} ${path}`);
