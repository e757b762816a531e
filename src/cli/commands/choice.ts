// `tinylab choice --model FILE --data FILE`: multiple-choice accuracy by candidate log-likelihood (experiments/choice.ts).
// Parses, calls, prints.
import type { CommandModule } from "yargs";
import { oneThreadEngineOptions, MODEL_DIR, optionValues, REQUIRED, withOptions, type OptionTable } from "../options.ts";

export const CHOICE_OPTIONS = {
  model: REQUIRED,
  ...MODEL_DIR,
  data: REQUIRED,
  json: false,
  "lm-eval-out": undefined,
  ...oneThreadEngineOptions("data"),
} satisfies OptionTable;

export const choiceCommand: CommandModule = {
  command: "choice",
  describe: "Score multiple-choice questions (JSONL question/candidates/answer) by candidate log-likelihood: acc, acc_norm, chance",
  builder: (y) =>
    withOptions(y, CHOICE_OPTIONS, {
      data: 'JSONL, one {"id"?, "question": "...", "candidates": ["...", ...], "answer": index} per line (src/data/choice_file.ts)',
      "lm-eval-out":
        "also write lm-evaluation-harness's results_<date>.json and samples_<task>_<date>.jsonl (task <choice file>_choice, multiple_choice: acc, acc_norm by characters as the harness counts them, and tinylab's Wilson intervals) into this directory (docs/formats.md)",
    }),
  handler: async (argv) => {
    const [{ startEngine, toJson }, { scoreChoices }, { formatChoice }, { requireFile }, { isModelDir }] = await Promise.all([
      import("../common.ts"),
      import("../../../experiments/choice.ts"),
      import("../views/choice.ts"),
      import("../../node/disk.ts"),
      import("../../node/model_dir.ts"),
    ]);
    const v = optionValues(argv, CHOICE_OPTIONS);
    const model = isModelDir(v.model) ? v.model : requireFile(v.model, "model file"),
      data = requireFile(v.data, "choice file");
    if (v.lmEvalOut !== undefined) (await import("../lm_eval_out.ts")).checkLmEvalOut(v.lmEvalOut, model);
    const start = new Date();
    const engine = await startEngine(v);
    const task = `${(await import("../../eval/loggers/lm_eval.ts")).lmEvalDataName(data)}_choice`;
    const {
      report: r,
      lmEval,
      lmEvalModel,
    } = scoreChoices({ model, data, engine, convention: v.convention, graph: v.graph, allowNonFloat32: v.allowNonFloat32 }, task);
    process.stdout.write(v.json ? toJson(r) : formatChoice(r) + "\n");
    if (v.lmEvalOut !== undefined && lmEvalModel) {
      const wrote = (await import("../lm_eval_out.ts")).writeLmEvalOut(v.lmEvalOut, [lmEval], lmEvalModel, {
        batchSize: 1,
        device: engine.backend,
        start,
        inputs: [model, data],
      });
      for (const line of wrote) (v.json ? console.error : console.log)(line);
    }
  },
};
