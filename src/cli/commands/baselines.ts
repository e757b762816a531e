// `tinylab baselines`: fit every count baseline on a data file's train split and score each split present
// (experiments/baselines.ts). Needs no engine: count baselines do not use tfjs.
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { withOptions } from "../options.ts";

export const baselinesCommand: CommandModule = {
  command: "baselines",
  describe: "Fit every count baseline on a data file's train split; print NLL and perplexity per split",
  builder: (y) =>
    withOptions(y, { data: undefined, vocab: undefined, model: undefined, json: false, out: undefined }, {
      data: 'JSONL documents (as for evaluate --data) or a split file {"train": [[ids]], "validation": [...], "test": [...]}',
      vocab: "vocabulary size (default: 258 bytes for JSONL, largest id + 1 for a split file)",
      model: "take the tokenizer and vocabulary from this model file, so the numbers match evaluate --model",
      out: "also write baselines.json into this directory",
    }).demandOption("data"),
  handler: async (argv) => {
    const [{ toJson, writeOutput }, { runBaselines }, { formatBaselines }, { checkOutputDir }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/baselines.ts"), import("../views/baselines.ts"), import("../../util/disk.ts"),
    ]);
    if (argv.out) checkOutputDir(argv.out as string, "--out");
    const report = runBaselines({ data: argv.data as string, vocab: argv.vocab as number | undefined, model: argv.model as string | undefined });
    process.stdout.write(argv.json ? toJson(report) : formatBaselines(report) + "\n");
    if (argv.out) writeOutput(join(argv.out as string, "baselines.json"), toJson(report));
  },
};
