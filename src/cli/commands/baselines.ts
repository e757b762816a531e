// `tinylab baselines`: fit every count baseline on a data file's train split and score each split present
// (experiments/baselines.ts). Needs no engine: count baselines do not use tfjs.
import type { CommandModule } from "yargs";
import { optionValues, REQUIRED, withOptions, type OptionTable } from "../options.ts";
import { DEFAULT_SMOOTHING_K } from "../../baselines/ngram.ts";

/** baselines' options: the smoothing default is the count baselines' own (src/baselines/ngram.ts). */
export const BASELINES_OPTIONS = {
  data: REQUIRED,
  vocab: undefined,
  model: undefined,
  smoothing: DEFAULT_SMOOTHING_K,
  lambda: undefined,
  "final-test": false,
  json: false,
  out: undefined,
  overwrite: false,
} satisfies OptionTable;

export const baselinesCommand: CommandModule = {
  command: "baselines",
  describe: "Fit every count baseline on a data file's train split; print NLL and perplexity per split",
  builder: (y) =>
    withOptions(y, BASELINES_OPTIONS, {
      data: 'JSONL documents (as for evaluate --data) or a split file {"train": [[ids]], "validation": [...], "test": [...]}',
      vocab: "vocabulary size (default: 258 bytes for JSONL, largest id + 1 for a split file)",
      model: "take the tokenizer and vocabulary from this model file, so the numbers match evaluate --model",
      out: "also write baselines.json into this directory (a new or empty directory, or one holding only tinylab's results and models)",
      overwrite: "replace an earlier baselines.json in --out; without it it is refused",
      "final-test": "also score the test split: a final report, never for choosing anything",
    }),
  handler: async (argv) => {
    const [{ toJson }, { runBaselines }, { formatBaselines }, { FINAL_REPORT_BANNER }, { claimOutputDir, SHARED_KINDS }] =
      await Promise.all([
        import("../common.ts"),
        import("../../../experiments/baselines.ts"),
        import("../views/baselines.ts"),
        import("../views/evaluate.ts"),
        import("../../node/output_dir.ts"),
      ]);
    const { json, out, overwrite, ...o } = optionValues(argv, BASELINES_OPTIONS);
    if (overwrite && !out) throw new Error("--overwrite needs --out (the directory whose baselines.json it replaces)");
    const outputs = out
      ? claimOutputDir(out, {
          option: "--out",
          what: "output directory",
          kind: SHARED_KINDS.baselines,
          replace: overwrite,
          inputs: { paths: [["--data", o.data]] },
        })
      : undefined;
    try {
      if (o.finalTest) (json ? console.error : console.log)(FINAL_REPORT_BANNER);
      const report = runBaselines(o);
      process.stdout.write(json ? toJson(report) : formatBaselines(report) + "\n");
      outputs?.write("baselines.json", toJson(report));
    } finally {
      outputs?.release();
    }
  },
};
