// --lm-eval-out DIR for the scoring commands (evaluate, choice): the tasks a recipe scored, written as
// lm-evaluation-harness's results and samples files with the run's identity. Not the format (src/eval/loggers/lm_eval.ts).
import { lmEvalDateId, lmEvalFiles, type LmEvalModel, type LmEvalTask } from "../eval/loggers/lm_eval.ts";
import { checkOutputDir } from "../node/writable.ts";
import { gitState } from "../node/git.ts";
import { writeLmEvalFiles } from "../node/lm_eval_files.ts";
import { isModelDir } from "../node/disk.ts";

/**
 * Refuse --lm-eval-out before any work: for a model directory (the harness's record it writes is a tinylab model
 * file's: seed, update, parameters), and a directory no command may write into.
 */
export function checkLmEvalOut(dir: string, model: string): void {
  if (isModelDir(model))
    throw new Error(
      `--lm-eval-out: not available for a model directory (${model}) yet; it writes the harness's record of a tinylab model file`,
    );
  checkOutputDir(dir, "--lm-eval-out");
}

/** Write the files into `dir` (the evaluation started at `start`, read `inputs`); one "wrote PATH" line per file. */
export function writeLmEvalOut(
  dir: string,
  tasks: readonly LmEvalTask[],
  model: LmEvalModel,
  run: { batchSize: number; device: string; start: Date; inputs: readonly string[] },
): string[] {
  const files = lmEvalFiles(
    tasks,
    {
      model,
      batchSize: run.batchSize,
      device: run.device,
      gitHash: gitState()?.commit ?? null,
      start: run.start.getTime() / 1000,
      seconds: (Date.now() - run.start.getTime()) / 1000,
    },
    lmEvalDateId(run.start),
  );
  return writeLmEvalFiles(dir, files, run.inputs).map((p) => `wrote ${p}`);
}
