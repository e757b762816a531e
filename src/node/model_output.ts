// The rule of output_dir.ts for a lone output file, a model path (--save-model): never over an input, never in
// another run's directory or a system directory, an existing file replaced only when it is a tinylab model and the
// user said so, and its directory locked while the command runs. Not the model format (src/lab/model_file.ts).
import { closeSync, existsSync, lstatSync, openSync, readSync, realpathSync } from "node:fs";
import { dirname, join, normalize, resolve } from "node:path";
import { MANIFEST_FILE } from "../data/text_manifest.ts";
import { STATE_FILE } from "../lab/store.ts";
import { MODEL_FORMAT, MODEL_FORMAT_V1, MODEL_FORMAT_V2 } from "../lab/model_file.ts";
import { checkOutputFile } from "./writable.ts";
import { DIRECTORY_LOCK, lockPath, refuseIfHeld, type Lock } from "./lock.ts";
import { inside, realish, systemDir, type Inputs } from "./output_dir.ts";

/** Every model file format a command may replace (a file of any other format is not its kind of output). */
const MODEL_FORMATS: readonly string[] = [MODEL_FORMAT, MODEL_FORMAT_V1, MODEL_FORMAT_V2];

/** Whether the file at `path` is a tinylab model file (its header's metadata format), read from its header only. */
function isModelFile(path: string): boolean {
  const HEAD_LIMIT = 1 << 20; // a model's header is kilobytes
  const fd = openSync(path, "r");
  try {
    const prefix = Buffer.alloc(8);
    if (readSync(fd, prefix, 0, 8, 0) < 8) return false;
    const n = prefix.readBigUInt64LE(0);
    if (n > BigInt(HEAD_LIMIT)) return false;
    const head = Buffer.alloc(Number(n));
    if (readSync(fd, head, 0, head.length, 8) < head.length) return false;
    const format = (JSON.parse(head.toString("utf8")) as { __metadata__?: { format?: unknown } }).__metadata__?.format;
    return typeof format === "string" && MODEL_FORMATS.includes(format);
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

export interface OutputFileOptions {
  option: string;
  /** --overwrite (or --resume) was given: an earlier model file there may be replaced. */
  replace: boolean;
  inputs?: Inputs;
  /** The command's own output directory, where a run's files are its own (a model beside its state). */
  ownDir?: string;
}

/**
 * Check a model file path a command will write (--save-model), before any work: not a directory, device or link,
 * not in a system directory, not an input (nor inside an input directory), not in another run's directory, and
 * an existing file replaced only when it is a tinylab model and `replace` was given. Its directory is the one the
 * command then locks (`lockModelPath`).
 */
export function checkModelOutput(path: string, o: OutputFileOptions): void {
  const label = `${o.option} ${path}`;
  checkOutputFile(path, o.option);
  const abs = resolve(path);
  const realDir = realish(dirname(abs));
  const sys = systemDir(realDir, true);
  if (sys) throw new Error(`${label}: ${sys}; save the model in a directory of your own`);
  const target = join(realDir, abs.slice(dirname(abs).length + 1));
  for (const [option, p] of o.inputs?.paths ?? []) {
    if (!existsSync(p)) continue;
    const real = realpathSync(p);
    if (target === real || (lstatSync(real).isDirectory() && inside(target, real))) {
      throw new Error(
        `${label}: is ${target === real ? "" : "inside "}the command's input ${option} ${p}; refusing to write over its input: choose another path`,
      );
    }
  }
  const ownDir = o.ownDir === undefined ? undefined : realish(o.ownDir);
  if (realDir !== ownDir && [STATE_FILE, MANIFEST_FILE].some((f) => existsSync(join(realDir, f)))) {
    throw new Error(
      `${label}: ${dirname(path)} holds another run (${STATE_FILE} or ${MANIFEST_FILE}); its files are that run's: save the model elsewhere`,
    );
  }
  const st = lstatSync(abs, { throwIfNoEntry: false });
  if (!st) return;
  if (st.isSymbolicLink()) throw new Error(`${label}: is a symbolic link; give the file's own path`);
  if (!isModelFile(abs)) throw new Error(`${label}: holds a file that is not a tinylab model; refusing to replace it: choose another path`);
  if (!o.replace) throw new Error(`${label}: holds a model file; pass --overwrite to replace it, or choose another path`);
}

/**
 * Lock a model file path for the life of the command (its own lock file beside it, so two commands may save two
 * models into one directory), refusing while another command holds the directory it lands in (a run's).
 */
export function lockModelPath(path: string): Lock {
  const d = dirname(resolve(path));
  refuseIfHeld(join(d, DIRECTORY_LOCK), `model directory ${normalize(dirname(path)) === "." ? d : dirname(path)}`);
  return lockPath(path, "model path");
}
