// The one rule for where a command writes: an output directory it may own (not /, not a system directory, not its
// input's, holding nothing but outputs of its kind), created when absent, locked while it writes, every file it
// writes there confined to it (no name leaves it, no link below it is followed) and an output of its kind replaced
// only when the user said so; and the same rule for a lone output file (--save-model). Not a format: which files a
// kind writes is its command's.
import { existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, realpathSync, rmdirSync, type Stats } from "node:fs";
import { basename, dirname, isAbsolute, join, normalize, resolve, sep } from "node:path";
import { writeFileAtomic } from "./atomic.ts";
import { dirStore, type DirStore } from "./disk.ts";
import { checkOutputDir } from "./writable.ts";
import { lockDirectory, type Lock } from "./lock.ts";

/** What a command writes into its output directory. */
export interface OutputKind {
  /** How a refusal names an earlier output of the kind: "a report", "a run". */
  noun: string;
  /** Its files; a name ending in "/" is a subdirectory it fills (report's "figures/"). */
  files: readonly string[];
  /** It may share a directory with the other shared kinds' files, saved models and subdirectories (`results/`). */
  shared?: boolean;
  /** Other entries it accepts in its directory and never replaces (a sweep's run folders and logs). */
  accepts?: (name: string, isDirectory: boolean) => boolean;
}

/** The kinds that share `results/` (overfit's and cyclic's default) and any directory given to them. */
export const SHARED_KINDS = {
  overfit: { noun: "an overfit result", files: ["overfit.json", "overfit.svg"], shared: true },
  cyclic: { noun: "a cyclic result", files: ["cyclic.json", "cyclic.svg", "cyclic-training.svg"], shared: true },
  compare: { noun: "a comparison", files: ["compare.json", "compare.html", "compare.csv"], shared: true },
  baselines: { noun: "a baselines result", files: ["baselines.json"], shared: true },
} as const satisfies Record<string, OutputKind>;

const SHARED_FILES: readonly string[] = Object.values(SHARED_KINDS).flatMap((k) => k.files);

/** Files tinylab keeps beside what it writes: locks, takeover guards and the temp files of writers (swept when dead). */
export const isBookkeeping = (name: string) =>
  /^\.tinylab[^/]*\.lock(\.break-[0-9a-f]+)?$/.test(name) || /^\..+\.\d+\.[0-9a-f]+\.tmp$/.test(name);

/** Directories no command may own, nor any directory inside them (the second list). */
const SYSTEM_DIRS = [
  "/",
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/home",
  "/lib",
  "/lib32",
  "/lib64",
  "/opt",
  "/proc",
  "/root",
  "/run",
  "/sbin",
  "/srv",
  "/sys",
  "/tmp",
  "/usr",
  "/var",
  "/var/tmp",
];
const SYSTEM_TREES = ["/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/proc", "/sbin", "/sys", "/usr"];

/**
 * Why `abs` (absolute, links resolved) is a system directory, or undefined. A lone file (a model) may go straight
 * into /tmp or a home directory, so `forFile` refuses only / and the system trees.
 */
export function systemDir(abs: string, forFile = false): string | undefined {
  if (forFile ? abs === "/" : SYSTEM_DIRS.includes(abs)) return `${abs} is a system directory`;
  const tree = SYSTEM_TREES.find((t) => abs.startsWith(t + sep));
  return tree ? `${abs} is inside the system directory ${tree}` : undefined;
}

/** The real path of `p`, or of its nearest existing ancestor joined with the rest (a path not made yet). */
export function realish(p: string): string {
  const abs = resolve(p);
  let head = abs,
    tail = "";
  while (!existsSync(head) && dirname(head) !== head) {
    tail = join(basename(head), tail);
    head = dirname(head);
  }
  return join(realpathSync(head), tail);
}

export const inside = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/** The inputs a command reads: a text file or directory, a documents file. Its outputs stay clear of them. */
export interface Inputs {
  /** Each input as `[option, path]`, e.g. ["--text", "story/"]. */
  readonly paths: readonly (readonly [string, string])[];
}

/** Refuse `realOut` (a directory, real path) that is an input's directory, an input directory, or inside one. */
function checkClearOfInputs(realOut: string, label: string, inputs: Inputs): void {
  for (const [option, p] of inputs.paths) {
    if (!existsSync(p)) continue;
    const real = realpathSync(p);
    // a text directory is read whole, so nothing may be written inside it; beside a lone input file is fine
    const isDir = lstatSync(real).isDirectory();
    if (isDir ? inside(realOut, real) : realOut === dirname(real)) {
      throw new Error(
        `${label}: is ${realOut === real || realOut === dirname(real) ? "" : "inside "}the ${isDir ? "" : "directory of "}${option} ${p}; a command never writes among its inputs: choose another directory`,
      );
    }
  }
}

export interface OutputDirOptions {
  /** The option that named it, for refusals: "--out". */
  option: string;
  /** What its lock calls it: "output directory". */
  what: string;
  kind: OutputKind;
  /** --overwrite (or --resume) was given: files of its own kind may be replaced. */
  replace: boolean;
  inputs?: Inputs;
}

/** An output directory a command holds: locked, and every file written into it confined to it. */
export interface OutputDir {
  /** The directory as given. */
  readonly dir: string;
  /** Whether this command made it (release removes it again when it is left empty). */
  readonly created: boolean;
  /** The path of `name` inside it, its subdirectories made; a name leaving it, or a link on the way, is refused. */
  path(name: string): string;
  /** Write `name` atomically (path's checks first); returns the path written. */
  write(name: string, data: string | Uint8Array): string;
  /** The directory as a run's store (src/lab/store.ts). */
  store(): DirStore;
  /** Let go of the lock; a directory this command made and left empty is removed. */
  release(): void;
}

/**
 * Take `dir` as a command's output directory, before any work: refused, naming `option`, when it is / or a system
 * directory, a link, an input's directory, holds anything but outputs of `kind` (or, for a shared kind, of the
 * shared kinds, saved models and subdirectories), or holds an earlier output of `kind` without `replace`. Made
 * when absent, then locked (a live holder refused by pid) and checked again under the lock.
 */
export function claimOutputDir(dir: string, o: OutputDirOptions): OutputDir {
  const label = `${o.option} ${dir}`;
  checkOutputDir(dir, o.option);
  const abs = resolve(dir);
  const link = lstatSync(abs, { throwIfNoEntry: false });
  if (link?.isSymbolicLink()) throw new Error(`${label}: is a symbolic link (to ${readlinkSync(abs)}); give the directory itself`);
  if (link && !link.isDirectory()) throw new Error(`${label}: is a file, not a directory`);
  const real = realish(abs);
  const sys = systemDir(real);
  if (sys) throw new Error(`${label}: ${sys}; a command writes only into a directory of its own: choose one (e.g. results/…)`);
  if (o.inputs) checkClearOfInputs(real, label, o.inputs);
  if (link) checkEntries(abs, label, { ...o, shown: dir }); // before anything is made or locked: a refusal leaves nothing behind
  const made = link ? undefined : mkdirSync(abs, { recursive: true });
  // a sweep's run writes into "."; its refusals name the folder
  const shown = normalize(dir) === "." ? abs : dir;
  let lock: Lock;
  try {
    lock = lockDirectory(abs, o.what, shown);
  } catch (err) {
    if (made) removeEmpty(abs, made);
    throw err;
  }
  try {
    checkEntries(abs, label, { ...o, shown: dir }); // again under the lock: another command may have written there meanwhile
  } catch (err) {
    lock.release();
    if (made) removeEmpty(abs, made);
    throw err;
  }
  const path = (name: string) => confined(abs, dir, name, label);
  return {
    dir,
    created: made !== undefined,
    path,
    write: (name, data) => {
      const p = path(name);
      writeFileAtomic(p, data);
      return join(dir, name);
    },
    store: () => dirStore(dir),
    release: () => {
      lock.release();
      if (made) removeEmpty(abs, made);
    },
  };
}

/** Remove `abs` and its parents up to `top` (the first directory mkdir made) while they are empty. */
export function removeEmpty(abs: string, top: string): void {
  for (let p = abs; inside(p, top); p = dirname(p)) {
    try {
      if (readdirSync(p).length > 0) return;
      rmdirSync(p);
    } catch {
      return;
    }
    if (p === top) return;
  }
}

/** Entries of `abs` (and of the kind's subdirectories) by the rule: foreign ones refused, the kind's own only with `replace`. */
function checkEntries(abs: string, label: string, o: OutputDirOptions & { shown: string }): void {
  const own: string[] = [],
    foreign: string[] = [];
  const subdirs = o.kind.files.filter((f) => f.endsWith("/"));
  for (const name of readdirSync(abs).sort()) {
    if (isBookkeeping(name)) continue;
    const st = lstatSync(join(abs, name));
    if (st.isSymbolicLink())
      throw new Error(
        `${label}: ${join(o.shown, name)} is a symbolic link; refusing to write through it (a write never leaves the directory): remove the link`,
      );
    if (subdirs.includes(`${name}/`) && st.isDirectory()) {
      if (readdirSync(join(abs, name)).some((f) => !isBookkeeping(f))) own.push(`${name}/`);
    } else if (o.kind.files.includes(name) && st.isFile()) own.push(name);
    else if (o.kind.accepts?.(name, st.isDirectory())) continue;
    else if (o.kind.shared && (st.isDirectory() || (st.isFile() && (SHARED_FILES.includes(name) || name.endsWith(".safetensors")))))
      continue;
    else foreign.push(name);
  }
  if (foreign.length > 0) {
    const shown =
      foreign
        .slice(0, 5)
        .map((f) => `"${f}"`)
        .join(", ") + (foreign.length > 5 ? ` and ${foreign.length - 5} more` : "");
    throw new Error(
      `${label}: holds ${shown}, which this command does not write; it writes only into a new or empty directory or one holding ${o.kind.noun}: choose another directory`,
    );
  }
  if (own.length > 0 && !o.replace) {
    throw new Error(`${label}: holds ${o.kind.noun} (${own.join(", ")}); pass --overwrite to replace it, or choose another directory`);
  }
}

/**
 * `name` under `abs`, every directory on the way made if absent and refused if it is a link or a file, and the
 * target refused if it is a link or a directory: a write never lands outside the directory the command owns.
 */
function confined(abs: string, dir: string, name: string, label: string): string {
  const parts = name.split("/");
  if (isAbsolute(name) || parts.some((p) => p === "" || p === "." || p === ".."))
    throw new Error(`${label}: refusing to write ${JSON.stringify(name)}, which is not a plain name inside it`);
  let p = abs;
  for (const [i, part] of parts.entries()) {
    p = join(p, part);
    const st: Stats | undefined = lstatSync(p, { throwIfNoEntry: false });
    const shown = join(dir, ...parts.slice(0, i + 1));
    if (st?.isSymbolicLink())
      throw new Error(
        `${label}: ${shown} is a symbolic link; refusing to write through it (a write never leaves the directory): remove the link`,
      );
    if (i < parts.length - 1) {
      if (!st) mkdirSync(p);
      else if (!st.isDirectory()) throw new Error(`${label}: ${shown} is in the way and is not a directory`);
    } else if (st?.isDirectory()) throw new Error(`${label}: ${shown} is a directory in the way of a file`);
  }
  return p;
}
