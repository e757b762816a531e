// `tinylab choice --model FILE --data FILE`: multiple-choice accuracy by candidate log-likelihood (experiments/choice.ts).
// Parses, calls, prints.
import type { CommandModule } from "yargs";
import { backendDefault, kernelsDefault, optionValues, REQUIRED, withOptions, type OptionTable } from "../options.ts";

export const CHOICE_OPTIONS = { model: REQUIRED, data: REQUIRED, json: false, backend: backendDefault(), kernels: kernelsDefault("data") } satisfies OptionTable;

export const choiceCommand: CommandModule = {
  command: "choice",
  describe: "Score multiple-choice questions (JSONL question/candidates/answer) by candidate log-likelihood: acc, acc_norm, chance",
  builder: (y) =>
    withOptions(y, CHOICE_OPTIONS, {
      data: 'JSONL, one {"id"?, "question": "...", "candidates": ["...", ...], "answer": index} per line (src/data/choice_file.ts)',
    }),
  handler: async (argv) => {
    const [{ startEngine, toJson }, { runChoice }, { formatChoice }, { requireFile }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/choice.ts"), import("../views/choice.ts"), import("../../node/disk.ts"),
    ]);
    const v = optionValues(argv, CHOICE_OPTIONS);
    const model = requireFile(v.model, "model file"), data = requireFile(v.data, "choice file");
    await startEngine(v.backend, v.kernels);
    const r = runChoice({ model, data });
    process.stdout.write(v.json ? toJson(r) : formatChoice(r) + "\n");
  },
};
