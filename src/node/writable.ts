// Whether a command could write where it was told, asked before anything is created: an output directory's
// nearest existing ancestor a writable directory off /proc and /sys, an output file path neither a directory nor
// a device; and creating a checked directory. Not whether the command may own it (output_dir.ts, model_output.ts).
import { accessSync, constants as fsConstants, existsSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { notRegular } from "./atomic.ts";

/** What checkOutputDir asks of the file system; tests inject one (root may write anywhere chmod forbids). */
export interface FsProbe {
  /** Is `path` a directory; undefined when it does not exist (ENOENT, or ENOTDIR: a file on the way). */
  isDirectory(path: string): boolean | undefined;
  /** Throws (with the OS reason) unless the directory's entries can be created. */
  canWrite(path: string): void;
  realpath(path: string): string;
}

const nodeProbe: FsProbe = {
  isDirectory: (path) => {
    try {
      return statSync(path).isDirectory();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return undefined;
      throw err;
    }
  },
  canWrite: (path) => accessSync(path, fsConstants.W_OK | fsConstants.X_OK),
  realpath: (path) => realpathSync(path),
};

/** "EACCES: permission denied, access '/x'" → "EACCES: permission denied". */
export const osReason = (err: unknown) => ((err as Error).message ?? String(err)).split(", ")[0];

/** Kernel pseudo-filesystems: nothing can be written there, and Node 20's recursive mkdir hangs under /proc. */
const PSEUDO = ["/proc", "/sys"];

/**
 * Refuse, naming `option`, an output directory that could not be created or written, before anything is
 * created: the nearest existing ancestor must be a directory, writable, and not on /proc or /sys. Run at
 * the start of a command so a long run is never lost to an unwritable output.
 */
export function checkOutputDir(dir: string, option: string, probe: FsProbe = nodeProbe): void {
  checkDir(resolve(dir), `${option} ${dir}`, probe);
}

/**
 * Refuse an output file path (e.g. --save-model) that is a directory, a device, a FIFO or a link to one (only a
 * regular file or a new path is ever replaced), or whose directory could not be written.
 */
export function checkOutputFile(path: string, option: string, probe: FsProbe = nodeProbe): void {
  const abs = resolve(path);
  if (probe.isDirectory(abs) === true) throw new Error(`${option} ${path}: is a directory; give a file name`);
  const what = notRegular(abs);
  if (what) throw new Error(`${option} ${path}: is ${what}, not a regular file; give a file path`);
  checkDir(dirname(abs), `${option} ${path}`, probe);
}

function checkDir(abs: string, label: string, probe: FsProbe): void {
  const refuse = (why: string): never => {
    throw new Error(`${label}: ${why}`);
  };
  const pseudo = (p: string, shown: string) => {
    const root = PSEUDO.find((r) => p === r || p.startsWith(r + "/"));
    if (root)
      refuse(`${shown === root ? root : `${shown} is on ${root}, which`} is a kernel pseudo-filesystem; nothing can be written there`);
  };
  pseudo(abs, abs.split("/").slice(0, 2).join("/"));
  let p = abs,
    isDir: boolean | undefined;
  try {
    while ((isDir = probe.isDirectory(p)) === undefined && dirname(p) !== p) p = dirname(p);
  } catch (err) {
    refuse(`cannot look at ${p} (${osReason(err)})`);
  }
  if (isDir === undefined) refuse("no ancestor directory exists");
  if (!isDir) refuse(`${p} is a file, not a directory`);
  pseudo(probe.realpath(p), p);
  try {
    probe.canWrite(p);
  } catch (err) {
    refuse(`cannot write into ${p} (${osReason(err)})`);
  }
}

/** Create `dir` (and parents) unless it exists, after checkOutputDir (so a path under /proc never hangs). */
export function ensureDir(dir: string, what = "output directory"): void {
  if (existsSync(dir)) return;
  checkOutputDir(dir, what);
  mkdirSync(dir, { recursive: true });
}
