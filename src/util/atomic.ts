// Crash-safe file replacement (temp file + fsync + rename) and SHA-256 digests of files and bytes.
// Not a general file API: no locking, no async variants, no handling of concurrent writers.
import { randomBytes, createHash } from "node:crypto";
import { closeSync, fsyncSync, openSync, readSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Writes all of `bytes` to the open descriptor `fd`; replaceable so tests can fail a write midway. */
export type ByteWriter = (fd: number, bytes: Uint8Array) => void;

const writeAll: ByteWriter = (fd, bytes) => {
  // writeSync may write fewer bytes than asked (large buffers, pipes); loop until done.
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
};

/**
 * Replaces `path` with `data` so that a reader (or a crash) sees either the old file or the whole
 * new one, never a prefix. Strings are written as UTF-8. Throws an Error naming `path` on failure,
 * after removing the temporary file; the previous contents of `path` are left untouched.
 */
export function writeFileAtomic(path: string, data: Uint8Array | string, write: ByteWriter = writeAll): void {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const dir = dirname(path);
  // Same directory as the target, so rename() stays on one filesystem and is atomic.
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, "wx"); // "x": never clobber a file that happens to share the temp name
    write(fd, bytes);
    fsyncSync(fd); // data on disk before the rename makes it visible
    closeSync(fd);
    fd = undefined;
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
