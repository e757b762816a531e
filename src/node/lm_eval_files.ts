// Writing lm-evaluation-harness's files (src/eval/lm_eval.ts builds them) into --lm-eval-out: under the directory's
// lock, each file atomically, samples before the results file that hashes them, never over an existing file or an input.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { writeFileAtomic } from "./atomic.ts";
import { ensureDir } from "./disk.ts";
import { lockDirectory } from "./lock.ts";

/** Write `files` ([name, text], the results file last) into `dir`; the paths written. `inputs` are the files the command read. */
export function writeLmEvalFiles(dir: string, files: readonly [string, string][], inputs: readonly string[]): string[] {
  ensureDir(dir, "--lm-eval-out");
  const lock = lockDirectory(dir, "--lm-eval-out directory");
  try {
    const paths = files.map(([name]) => join(dir, name));
    const read = new Set(inputs.map((p) => resolve(p)));
    for (const p of paths) {
      if (read.has(resolve(p))) throw new Error(`--lm-eval-out ${dir}: ${p} is an input of this command; refusing to write over it`);
      if (existsSync(p)) throw new Error(`--lm-eval-out ${dir}: ${p} already exists (another evaluation in the same instant?); refusing to replace it`);
    }
    files.forEach(([, text], i) => writeFileAtomic(paths[i], text));
    return paths;
  } finally {
    lock.release();
  }
}
