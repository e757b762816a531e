// An exclusive lock on an output (an output directory or a model path) for the life of a process: a lock file
// holding the owner's pid, made whole beside it and hard-linked into place (link fails when the name exists, so
// a lock is never seen half-written). A live owner refuses a second run; a dead owner's lock is stale and taken
// over, by one process only. A sweep task's claim (task_claim.ts) is taken by the same mechanism, judged by host
// as well. Not a cross-host lock (pids are local), not a reader lock (readers never lock).
import { randomBytes, createHash } from "node:crypto";
import { closeSync, linkSync, openSync, readFileSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { isAlive } from "../util/runtime/process.ts";

/** A held lock; `release()` removes the lock file (also run at process exit). */
export interface Lock {
  readonly path: string;
  release(): void;
}

/** Raised when another live process holds the lock. */
export class LockedError extends Error {
  override name = "LockedError";
}

/** Each held lock's path and the exact text of its file (a release removes only a file that still holds it). */
const held = new Map<string, string>();

/** Tries before giving up on a lock whose file keeps changing under us (others taking and releasing it). */
const ATTEMPTS = 200;

/**
 * Take the lock file `path` for `what` (e.g. "output directory /tmp/ck"), or refuse naming the holder's pid.
 * `alive` is injectable for tests.
 */
export function acquireLock(path: string, what: string, alive: (pid: number) => boolean = isAlive): Lock {
  const mine = `${JSON.stringify({ pid: process.pid, started: new Date().toISOString(), nonce: randomBytes(8).toString("hex") })}\n`;
  return takeLock(path, mine, what, (seen) => heldBy(path, what, alive, seen));
}

/**
 * Judges an existing lock file by its text (its pid, when it has one): the refusal naming its holder while that
 * holder may still be at work, or undefined when it is stale and may be taken over.
 */
export type LockJudge = (seen: { text: string; pid: number | undefined }) => string | undefined;

/**
 * Take the lock file `path`, writing `mine` into it, or refuse with what `judge` says of the holder. The one
 * mechanism of every lock and claim: created whole only when no file has the name (a hard link), a stale file
 * removed only by the one process that holds the right to remove that very file (removeStale), then created
 * again; so two processes that find the same stale file never both hold the lock.
 */
export function takeLock(path: string, mine: string, what: string, judge: LockJudge): Lock {
  const ours = held.get(path);
  if (ours !== undefined)
    throw new LockedError(judge({ text: ours, pid: process.pid }) ?? `${what} is already locked by this process (lock file ${path})`);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (createWhole(path, mine)) {
      if (held.size === 0) process.on("exit", releaseAll);
      held.set(path, mine);
      return { path, release: () => release(path) };
    }
    const seen = holder(path);
    if (seen === undefined) continue; // released between our link and our read: try again
    const refusal = judge(seen);
    if (refusal !== undefined) throw new LockedError(refusal);
    removeStale(path, seen.text);
  }
  throw new LockedError(`${what}: could not take the lock file ${path} (other processes keep taking it)`);
}

/**
 * Create `path` holding `text` only if no file has that name: the text is written whole to a temp file beside it
 * and hard-linked to `path`, which fails when the name exists. Where links are not supported, an exclusive create
 * and a write (a reader may then see it empty for a moment: `holder` pauses once on an unreadable file).
 */
function createWhole(path: string, text: string): boolean {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(temp, "wx");
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw err;
    return createExclusive(path, text);
  } finally {
    rmSync(temp, { force: true });
  }
}

function createExclusive(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** How long an unreadable lock file is given to receive its owner's pid (a writer without links) before it counts as stale. */
const UNREADABLE_PAUSE_MS = 50;
/** How long to wait for another process that is taking a stale lock over before looking again. */
const BUSY_PAUSE_MS = 2;

/** Block this thread for `ms` (a lock is taken before any work, so nothing else is waiting on it). */
const pause = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/** The lock file's text and the pid it names; undefined when there is no file. An unreadable one is read again after a pause. */
function holder(path: string): { text: string; pid: number | undefined } | undefined {
  let text = readText(path);
  if (text === undefined) return undefined;
  let pid = pidOf(text);
  if (pid === undefined) {
    pause(UNREADABLE_PAUSE_MS);
    text = readText(path);
    if (text === undefined) return undefined;
    pid = pidOf(text);
  }
  return { text, pid };
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

function pidOf(text: string): number | undefined {
  try {
    const pid = (JSON.parse(text) as { pid?: unknown }).pid;
    return Number.isSafeInteger(pid) ? (pid as number) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Remove `path` if it still holds `stale` (a dead owner's, or unreadable, text). Removing by name races: two
 * processes that judged the same stale file would both remove, the second deleting the first's fresh lock. So the
 * right to remove this one stale file is itself a lock, named after its text (`PATH.break-HASH`): one process holds
 * it, compares the file's text and removes it only if unchanged (a stale file changes only by being removed, and
 * only the guard's holder removes it). A guard whose holder died is removed the same way, one level up.
 */
function removeStale(path: string, stale: string): void {
  const guard = `${path}.break-${createHash("sha256").update(stale).digest("hex").slice(0, 16)}`;
  const mine = `${JSON.stringify({ pid: process.pid, host: hostname(), nonce: randomBytes(8).toString("hex") })}\n`;
  if (createWhole(guard, mine)) {
    try {
      if (readText(path) === stale) unlinkSync(path);
    } finally {
      if (readText(guard) === mine) rmSync(guard, { force: true });
    }
    return;
  }
  const other = holder(guard);
  if (other === undefined) return; // its holder finished: look at the lock again
  // a guard is held for an instant; one of another host (a claim on a shared disk) cannot be judged by its pid
  if (other.pid !== undefined && (hostOf(other.text) !== hostname() || isAlive(other.pid))) {
    pause(BUSY_PAUSE_MS);
    return;
  }
  removeStale(guard, other.text);
}

function hostOf(text: string): string {
  try {
    const host = (JSON.parse(text) as { host?: unknown }).host;
    return typeof host === "string" ? host : hostname();
  } catch {
    return hostname();
  }
}

function release(path: string): void {
  const text = held.get(path);
  if (text === undefined) return;
  held.delete(path);
  if (readText(path) === text) rmSync(path, { force: true }); // never another process's lock that replaced a stolen one
  // the exit hook lives only while a lock is held, so a command run inside a longer-lived process (a test running
  // the CLI in process) leaves that process's listeners as it found them
  if (held.size === 0) process.removeListener("exit", releaseAll);
}

/** Locks are removed on a normal exit, an error exit and process.exit(); a SIGKILL leaves a stale lock, taken over later. */
function releaseAll(): void {
  for (const p of [...held.keys()]) release(p);
}

/** The lock file a run holds inside the directory it writes (its checkpoint or output directory). */
export const DIRECTORY_LOCK = ".tinylab.lock";

/** Lock a directory the run writes into (it must exist). `shown` is how a refusal names it (default `dir`). */
export const lockDirectory = (dir: string, what: string, shown = dir): Lock => acquireLock(join(dir, DIRECTORY_LOCK), `${what} ${shown}`);

/** Lock a file path the run will write (a model file): the lock file sits beside it as .tinylab.NAME.lock. */
export const lockPath = (path: string, what: string): Lock =>
  acquireLock(join(dirname(path), `.tinylab.${basename(path)}.lock`), `${what} ${path}`);

/**
 * Refuse, as acquireLock would, while a live process other than this one holds the lock file `path`, without
 * taking it: a file written into a directory another command holds (a model saved into a running run's directory).
 */
export function refuseIfHeld(path: string, what: string, alive: (pid: number) => boolean = isAlive): void {
  const seen = holder(path);
  const refusal = seen === undefined ? undefined : heldBy(path, what, alive, seen);
  if (refusal !== undefined) throw new LockedError(refusal);
}

/** The refusal for a pid lock whose holder, another live process of this host, may still be at work; undefined when stale. */
function heldBy(path: string, what: string, alive: (pid: number) => boolean, seen: { pid: number | undefined }): string | undefined {
  if (seen.pid === undefined || seen.pid === process.pid || !alive(seen.pid)) return undefined;
  return `${what} is in use by process ${seen.pid} (lock file ${path}); wait for it to finish, or remove the lock file if that process is not tinylab`;
}
