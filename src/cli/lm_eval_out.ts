// --lm-eval-out DIR for the scoring commands (evaluate, choice): the tasks a recipe scored, written as
// lm-evaluation-harness's results and samples files with the run's identity. Not the format (src/eval/lm_eval.ts).
import { lmEvalDateId, lmEvalFiles, type LmEvalModel, type LmEvalTask } from "../eval/lm_eval.ts";
import { gitState } from "../node/git.ts";
import { writeLmEvalFiles } from "../node/lm_eval_files.ts";

/** Write the files into `dir` (the evaluation started at `start`, read `inputs`); one "wrote PATH" line per file. */
export function writeLmEvalOut(dir: string, tasks: readonly LmEvalTask[], model: LmEvalModel, run: { batchSize: number; device: string; start: Date; inputs: readonly string[] }): string[] {
  const files = lmEvalFiles(tasks, {
    model, batchSize: run.batchSize, device: run.device, gitHash: gitState()?.commit ?? null,
    start: run.start.getTime() / 1000, seconds: (Date.now() - run.start.getTime()) / 1000,
  }, lmEvalDateId(run.start));
  return writeLmEvalFiles(dir, files, run.inputs).map((p) => `wrote ${p}`);
}
