// Crash-safe file replacement (temp file + fsync + rename) of regular files only, and SHA-256 digests of files
// and bytes. Not a general file API: no locking, no async variants, no handling of concurrent writers.
import { randomBytes, createHash } from "node:crypto";
import { closeSync, fsyncSync, lstatSync, openSync, readSync, renameSync, rmSync, statSync, type Stats, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Writes all of `bytes` to the open descriptor `fd`; replaceable so tests can fail a write midway. */
export type ByteWriter = (fd: number, bytes: Uint8Array) => void;

const writeAll: ByteWriter = (fd, bytes) => {
  // writeSync may write fewer bytes than asked (large buffers, pipes); loop until done.
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
};

/** What is at `path` when it is not a regular file (or a link to one), e.g. "a character device"; undefined when it is one or is absent. */
export function notRegular(path: string): string | undefined {
  let st: Stats;
  try {
    st = statSync(path); // follows a link: a link to a device is refused like the device
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR") return undefined; // a file on the way: nothing is there (the write fails naming the path)
    if (code === "ENOENT") return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ? "a dangling symbolic link" : undefined;
    if (code === "ELOOP") return "a symbolic link loop";
    throw err;
  }
  if (st.isFile()) return undefined;
  return st.isDirectory()
    ? "a directory"
    : st.isCharacterDevice()
      ? "a character device"
      : st.isBlockDevice()
        ? "a block device"
        : st.isFIFO()
          ? "a FIFO"
          : st.isSocket()
            ? "a socket"
            : "not a regular file";
}

/** Raised before anything is written when the target exists and is not a regular file (rename would replace it). */
export class NotRegularFileError extends Error {
  override name = "NotRegularFileError";
}

/**
 * Test hook, off unless TINYLAB_TEST_KILL_AT is set: "N" kills this process with SIGKILL just before its N-th atomic
 * write starts, "N.tmp" once the N-th write's temp file is complete but not yet renamed. A kill can land anywhere;
 * between these points the files do not change, so they are the moments a kill can tell apart.
 */
const KILL_AT = /^(\d+)(\.tmp)?$/.exec(process.env.TINYLAB_TEST_KILL_AT ?? "");
let writes = 0;
const killPoint = (n: number, tmp: boolean) => {
  if (KILL_AT && Number(KILL_AT[1]) === n && (KILL_AT[2] !== undefined) === tmp) process.kill(process.pid, "SIGKILL");
};

/**
 * Replaces `path` with `data` so that a reader (or a crash) sees either the old file or the whole
 * new one, never a prefix. Strings are written as UTF-8, chunks (a large file made a piece at a time, each
 * written before the next is made) in order. Only a regular file (or a new path) is replaced:
 * a device, FIFO, directory or a link to one is refused before anything is written. Throws an Error naming
 * `path` on failure, after removing the temporary file; the previous contents of `path` are left untouched.
 */
export function writeFileAtomic(path: string, data: Uint8Array | string | Iterable<Uint8Array>, write: ByteWriter = writeAll): void {
  const chunks = typeof data === "string" ? [new TextEncoder().encode(data)] : data instanceof Uint8Array ? [data] : data;
  const dir = dirname(path);
  const n = ++writes;
  killPoint(n, false);
  const refuse = () => {
    const what = notRegular(path);
    if (what) throw new NotRegularFileError(`${path} is ${what}, not a regular file; refusing to replace it (give a file path)`);
  };
  refuse();
  // Same directory as the target, so rename() stays on one filesystem and is atomic.
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, "wx"); // "x": never clobber a file that happens to share the temp name
    for (const chunk of chunks) write(fd, chunk);
    fsyncSync(fd); // data on disk before the rename makes it visible
    closeSync(fd);
    fd = undefined;
    killPoint(n, true);
    refuse(); // again at the last moment: something may have been put there while the bytes were written
    renameSync(tmp, path);
  } catch (err) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // already failing; the original error is the one worth reporting
      }
    }
    rmSync(tmp, { force: true });
    if (err instanceof NotRegularFileError) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`writeFileAtomic: could not write ${path}: ${reason}`, { cause: err });
  }
  fsyncDir(dir);
}

/** Persists the rename itself; best effort because some platforms refuse fsync on directories. */
function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // e.g. EISDIR/EPERM on Windows: the file is written, only its durability across a crash is weaker
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Hex SHA-256 of a file's contents, read in chunks so large checkpoints are not held in memory. */
export function sha256File(path: string): string {
  const hash = createHash("sha256");
  const chunk = new Uint8Array(1 << 20);
  const fd = openSync(path, "r");
  try {
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) hash.update(chunk.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

/** Hex SHA-256 of a byte array (only the view's bytes, not its whole underlying buffer). */
export function sha256Bytes(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
