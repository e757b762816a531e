// `tinylab baselines`: fit every count baseline on a data file's train split and score each split present
// (experiments/baselines.ts). Needs no engine: count baselines do not use tfjs.
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { withOptions } from "../options.ts";
import { DEFAULT_SMOOTHING_K } from "../../baselines/ngram.ts";

export const baselinesCommand: CommandModule = {
  command: "baselines",
  describe: "Fit every count baseline on a data file's train split; print NLL and perplexity per split",
  builder: (y) =>
    withOptions(y, { data: undefined, vocab: undefined, model: undefined, smoothing: DEFAULT_SMOOTHING_K, lambda: undefined, "final-test": false, json: false, out: undefined }, {
      data: 'JSONL documents (as for evaluate --data) or a split file {"train": [[ids]], "validation": [...], "test": [...]}',
      vocab: "vocabulary size (default: 258 bytes for JSONL, largest id + 1 for a split file)",
      model: "take the tokenizer and vocabulary from this model file, so the numbers match evaluate --model",
      out: "also write baselines.json into this directory",
      "final-test": "also score the test split: a final report, never for choosing anything",
    }).demandOption("data"),
  handler: async (argv) => {
    const [{ toJson, writeOutput }, { runBaselines }, { formatBaselines }, { FINAL_REPORT_BANNER }, { checkOutputDir }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/baselines.ts"), import("../views/baselines.ts"), import("../views/evaluate.ts"), import("../../node/disk.ts"),
    ]);
    if (argv.out) checkOutputDir(argv.out as string, "--out");
    const finalTest = argv["final-test"] as boolean;
    if (finalTest) (argv.json ? console.error : console.log)(FINAL_REPORT_BANNER);
    const report = runBaselines({ data: argv.data as string, vocab: argv.vocab as number | undefined, model: argv.model as string | undefined, k: argv.smoothing as number, lambda: argv.lambda as number | undefined, finalTest });
    process.stdout.write(argv.json ? toJson(report) : formatBaselines(report) + "\n");
    if (argv.out) writeOutput(join(argv.out as string, "baselines.json"), toJson(report));
  },
};
