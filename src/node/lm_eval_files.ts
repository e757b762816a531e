// Writing lm-evaluation-harness's files (src/eval/loggers/lm_eval.ts builds them) into --lm-eval-out: a directory claimed
// by the one write rule (output_dir.ts: locked, no link followed, nothing but such files in it), each file
// atomically, samples before the results file that hashes them, never over an existing file or an input.
import { existsSync } from "node:fs";
import { claimOutputDir, realish, type OutputKind } from "./output_dir.ts";

/** What --lm-eval-out holds: the harness's dated results and samples files, of as many evaluations as were written there. */
const LM_EVAL_KIND: OutputKind = {
  noun: "lm-evaluation-harness files",
  files: [],
  accepts: (name, isDir) => !isDir && /^(results_.*\.json|samples_.*\.jsonl)$/.test(name),
};

/** Write `files` ([name, text], the results file last) into `dir`; the paths written. `inputs` are the files the command read. */
export function writeLmEvalFiles(dir: string, files: readonly [string, string][], inputs: readonly string[]): string[] {
  const outputs = claimOutputDir(dir, { option: "--lm-eval-out", what: "--lm-eval-out directory", kind: LM_EVAL_KIND, replace: false });
  try {
    const read = new Set(inputs.map((p) => realish(p)));
    for (const [name] of files) {
      const p = outputs.path(name);
      if (read.has(realish(p))) throw new Error(`--lm-eval-out ${dir}: ${name} is an input of this command; refusing to write over it`);
      if (existsSync(p))
        throw new Error(`--lm-eval-out ${dir}: ${name} already exists (another evaluation in the same instant?); refusing to replace it`);
    }
    return files.map(([name, text]) => outputs.write(name, text));
  } finally {
    outputs.release();
  }
}
