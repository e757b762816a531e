// The file-system edge: reading whole files as bytes with named errors, safetensors files on disk, and a
// directory store that writes atomically and sweeps the temp files of killed writers (whether a path can be
// written at all is writable.ts). Not a format (that is
// src/util/formats/safetensors.ts, src/lab/*_file.ts): bytes and paths only. The core never imports this file.
import { constants } from "node:buffer";
import {
  closeSync,
  constants as fsConstants,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
  type Stats,
} from "node:fs";
import { join, resolve } from "node:path";
import { notRegular, writeFileAtomic } from "./atomic.ts";
import { ensureDir, osReason } from "./writable.ts";
import { isAlive } from "../util/runtime/process.ts";
import {
  checkHeader,
  decodeSafetensors,
  encodeSafetensors,
  headerLength,
  SafetensorsError,
  type HeaderLayout,
  type SafetensorsContents,
  type TensorEntry,
} from "../util/formats/safetensors.ts";
import { judgeModelHeader } from "../lab/model_file.ts";
import { parseConfig } from "../lab/model_metadata.ts";
import type { ModelConfig } from "../model/config.ts";
import { ModelFileError } from "../lab/file_checks.ts";

const { MAX_LENGTH } = constants;

/** A size a read is checked against before it allocates: the bytes, and how a refusal states them. */
export interface SizeLimit {
  bytes: number;
  /** e.g. "256 MiB": the refusal says `more than the 268435456 (256 MiB) limit`. */
  label: string;
}

/** The largest file one buffer can hold: the ceiling of every read here. */
export const BUFFER_LIMIT: SizeLimit = { bytes: MAX_LENGTH, label: "one buffer" };

/** What an open file is, for a refusal of anything but a regular file. */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

/** Why a path names no file, or undefined for any other error: one wording for every reader and every command. */
export function notFoundReason(err: unknown): string | undefined {
  switch ((err as NodeJS.ErrnoException).code) {
    case "ENOENT":
      return "";
    case "ENOTDIR":
      return " (a part of the path is not a directory)";
    case "ELOOP":
      return " (a loop of symbolic links)";
    case "ENAMETOOLONG":
      return " (the name is too long)";
    default:
      return undefined;
  }
}

/** The one refusal of a path that names no file (or cannot be opened: its OS reason, e.g. EACCES). */
export function notFound(what: string, path: string, err: unknown, Refusal: new (message: string) => Error = Error): Error {
  const why = notFoundReason(err);
  if (why !== undefined) return new Refusal(`${what} not found: ${path}${why}`);
  return (err as NodeJS.ErrnoException).code === undefined ? (err as Error) : new Refusal(`cannot read ${what} ${path} (${osReason(err)})`);
}

/**
 * Open `path` for reading, refusing (as `Refusal`, naming `what`) a missing path, anything but a regular file
 * and a file over `limit`, all before a byte is read. O_NONBLOCK: opening a FIFO must not wait for a writer.
 */
function openRegular(
  path: string,
  what: string,
  limit: SizeLimit | null,
  Refusal: new (message: string) => Error,
): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  } catch (err) {
    throw notFound(what, path, err, Refusal);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Refusal(`${what} is not a regular file: ${path} (it is ${kindOf(st)})`);
    if (limit !== null) checkSize(st.size, path, what, limit, Refusal);
    return { fd, size: st.size };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function checkSize(size: number, path: string, what: string, limit: SizeLimit, Refusal: new (message: string) => Error): void {
  const cap = Math.min(limit.bytes, MAX_LENGTH);
  if (size > cap)
    throw new Refusal(
      `${what} ${path} has ${size} bytes, more than the ${cap} (${cap === limit.bytes ? limit.label : BUFFER_LIMIT.label}) limit`,
    );
}

/**
 * The whole file as a plain Uint8Array (not a Buffer: Buffer#slice shares memory where decoders need copies).
 * A missing path, anything but a regular file (directory, FIFO, device) and a file over `limit` are refused as
 * `Refusal` (e.g. the lab's ModelFileError), naming `what`, before anything is read.
 */
export function readFileBytes(
  path: string,
  what: string,
  Refusal: new (message: string) => Error = Error,
  limit: SizeLimit = BUFFER_LIMIT,
): Uint8Array {
  const { fd, size } = openRegular(path, what, limit, Refusal);
  try {
    return readOpen(fd, size, path);
  } finally {
    closeSync(fd);
  }
}

/**
 * A file's bytes a chunk at a time (views of one reused buffer of `chunkBytes`, each valid until the next), refused
 * as readFileBytes refuses before a byte is read; `size` is called once with the file's size, before the first chunk.
 */
export function* readFileChunks(
  path: string,
  what: string,
  limit: SizeLimit,
  chunkBytes: number,
  size?: (bytes: number) => void,
): Generator<Uint8Array> {
  const { fd, size: total } = openRegular(path, what, limit, Error);
  try {
    size?.(total);
    const buffer = new Uint8Array(Math.max(1, Math.min(chunkBytes, total)));
    for (let at = 0; at < total;) {
      const got = readSync(fd, buffer, 0, Math.min(buffer.length, total - at), at);
      if (got === 0) throw new Error(`${path}: file shrank while being read (${at} of ${total} bytes)`);
      at += got;
      yield buffer.subarray(0, got);
    }
  } finally {
    closeSync(fd);
  }
}

/** A regular file's text as UTF-8 (invalid bytes replaced), bounded as readFileBytes is. */
export function readFileText(path: string, what: string, limit: SizeLimit = BUFFER_LIMIT): string {
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(readFileBytes(path, what, Error, limit));
}

/** All `size` bytes of an open file from `from`, refusing one that shrank while being read. */
function readOpen(fd: number, size: number, path: string, into = new Uint8Array(size), from = 0): Uint8Array {
  let got = from;
  for (let r = 1; got < size && r > 0; got += r) r = readSync(fd, into, got, size - got, got);
  if (got !== size) throw new Error(`${path}: file shrank while being read (${got} of ${size} bytes)`);
  return into;
}

/**
 * A safetensors file's bytes (a model or training-state file), read as readFileBytes reads, except that the
 * 8-byte prefix and the header are read and checked against the file's size first: a file whose header does not
 * describe exactly its bytes (say a valid model followed by a GiB of zeros) is refused having read only its header.
 */
export function readSafetensorsBytes(
  path: string,
  what: string,
  Refusal: new (message: string) => Error = Error,
  says = "not a valid safetensors file: ",
  judge?: (layout: HeaderLayout) => void,
): Uint8Array {
  const { fd, size } = openRegular(path, what, null, Refusal);
  try {
    const { head, layout } = readHeader(fd, size, path, says);
    judge?.(layout);
    checkSize(size, path, what, BUFFER_LIMIT, Refusal);
    const bytes = new Uint8Array(size);
    bytes.set(head);
    return readOpen(fd, size, path, bytes, head.length);
  } finally {
    closeSync(fd);
  }
}

/** The prefix and header of an open safetensors file, checked against its size; nothing past the header is read. */
function readHeader(fd: number, size: number, path: string, says: string): { head: Uint8Array; layout: HeaderLayout } {
  const prefix = new Uint8Array(Math.min(8, size));
  readOpen(fd, prefix.length, path, prefix);
  try {
    const end = 8 + headerLength(prefix, size);
    const head = readOpen(fd, end, path, new Uint8Array(end));
    return { head, layout: checkHeader(head, size) };
  } catch (err) {
    throw err instanceof SafetensorsError ? new SafetensorsError(`${path}: ${says}${err.message}`) : err;
  }
}

/** Whether `path` names a directory (a model directory), as opposed to a model file. */
export function isModelDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A model file judged from its header alone (judgeModelHeader), no tensor read: what a command checks before it
 * starts an engine, so a file it would refuse costs no engine start. Returns the file's config (for a memory estimate).
 */
export function judgeModelFile(path: string, what = "model file"): ModelConfig {
  const { fd, size } = openRegular(path, what, null, ModelFileError);
  try {
    const { layout } = readHeader(fd, size, path, "not a valid safetensors file: ");
    judgeModelHeader(layout, path);
    return parseConfig(layout.metadata, `${what} ${path}`);
  } finally {
    closeSync(fd);
  }
}

/**
 * A model file's bytes, judged from its header before any tensor is read (judgeModelHeader: format, config, exactly
 * the tensors the config calls for): a valid model with a GiB tensor added is refused having read only its header.
 */
export function readModelFileBytes(path: string, what = "model file"): Uint8Array {
  return readSafetensorsBytes(path, what, ModelFileError, undefined, (layout) => judgeModelHeader(layout, path));
}

/**
 * Reads and decodes a safetensors file, its header checked against its size before the body is read
 * (readSafetensorsBytes), so a corrupt prefix never triggers a large read.
 */
export function readSafetensorsFile(path: string): SafetensorsContents {
  const bytes = readSafetensorsBytes(path, "safetensors file", SafetensorsError, "");
  try {
    return decodeSafetensors(bytes);
  } catch (err) {
    throw err instanceof SafetensorsError ? new SafetensorsError(`${path}: ${err.message}`) : err;
  }
}

/** Encodes and writes atomically: the file at `path` is either the old one or the complete new one. */
export function writeSafetensorsFile(path: string, tensors: Record<string, TensorEntry>, metadata: Record<string, string> = {}): void {
  writeFileAtomic(path, encodeSafetensors(tensors, metadata));
}

/** Files in a directory, by name: what src/lab's Store interface asks of a place to keep a run's files. */
export interface DirStore {
  readonly dir: string;
  read(name: string): Uint8Array | undefined;
  write(name: string, data: Uint8Array | string): void;
  /** Write `name` atomically from chunks made one after another (src/lab/store.ts Store.writeChunks). */
  writeChunks(name: string, chunks: Iterable<Uint8Array>): void;
  /** Remove the regular file `name` if it is there; anything else by that name is refused, never removed. */
  remove(name: string): void;
  where(name: string): string;
}

/**
 * A directory as a store: created on first use, every write atomic (writeFileAtomic), and temp files left by
 * writers that are no longer alive (`.NAME.PID.HEX.tmp`) removed when the store is opened.
 */
export function dirStore(dir: string): DirStore {
  ensureDir(dir);
  removeStaleTemps(dir);
  return {
    dir,
    read: (name) => (existsSync(join(dir, name)) ? readFileBytes(join(dir, name), "file") : undefined),
    write: (name, data) => writeFileAtomic(join(dir, name), data),
    writeChunks: (name, chunks) => writeFileAtomic(join(dir, name), chunks),
    remove: (name) => {
      const path = join(dir, name);
      const what = notRegular(path);
      if (what) throw new Error(`${path} is ${what}, not a file this run wrote; refusing to remove it`);
      rmSync(path, { force: true });
    },
    where: (name) => join(dir, name),
  };
}

/** Remove temp files that a killed writer left in `dir` (writeFileAtomic names them .NAME.PID.HEX.tmp). */
export function removeStaleTemps(dir: string): void {
  for (const f of readdirSync(dir)) {
    const m = /^\..+\.(\d+)\.[0-9a-f]+\.tmp$/.exec(f);
    if (m && !isAlive(Number(m[1]))) rmSync(join(dir, f), { force: true });
  }
}

/** Refuse a path that must be an existing regular file, naming what it is for (the wording of readFileBytes). */
export function requireFile(path: string, what: string): string {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (err) {
    throw notFound(what, path, err);
  }
  if (!st.isFile()) throw new Error(`${what} is not a regular file: ${path} (it is ${kindOf(st)})`);
  return path;
}

/**
 * A path resolved against this process's working directory and normalized (`/../x` is `/x`), for recipes that pass
 * paths on to processes run elsewhere.
 */
export const absolutePath = (p: string): string => resolve(p);
