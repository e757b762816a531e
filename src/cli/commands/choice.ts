// `tinylab choice --model FILE --data FILE`: multiple-choice accuracy by candidate log-likelihood (experiments/choice.ts).
// Parses, calls, prints.
import type { CommandModule } from "yargs";
import { backendDefault, kernelsDefault, withOptions } from "../options.ts";

export const choiceCommand: CommandModule = {
  command: "choice",
  describe: "Score multiple-choice questions (JSONL question/candidates/answer) by candidate log-likelihood: acc, acc_norm, chance",
  builder: (y) =>
    withOptions(y, { model: undefined, data: undefined, json: false, backend: backendDefault(), kernels: kernelsDefault() }, {
      data: 'JSONL, one {"id"?, "question": "...", "candidates": ["...", ...], "answer": index} per line (src/data/choice_file.ts)',
    }).demandOption(["model", "data"]),
  handler: async (argv) => {
    const [{ startEngine, toJson }, { runChoice }, { formatChoice }, { requireFile }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/choice.ts"), import("../views/choice.ts"), import("../../node/disk.ts"),
    ]);
    const model = requireFile(argv.model as string, "model file"), data = requireFile(argv.data as string, "choice file");
    await startEngine(argv.backend as string, argv.kernels as string);
    const r = runChoice({ model, data });
    process.stdout.write(argv.json ? toJson(r) : formatChoice(r) + "\n");
  },
};
