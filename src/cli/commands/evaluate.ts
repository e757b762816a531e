// `tinylab evaluate`: restore a model and its tokenizer from a model file alone and score documents without
// training (experiments/evaluate.ts). Parses, calls, prints.
import type { CommandModule } from "yargs";
import { EVALUATE_DEFAULTS as d } from "../../../experiments/options.ts";
import { backendDefault, kernelsDefault, optionValues, SCORING_DATA, SCORING_DATA_HELP, withOptions, type OptionTable } from "../options.ts";

/** evaluate's options and their defaults (experiments/options.ts EVALUATE_DEFAULTS). */
export const EVALUATE_OPTIONS = {
  model: undefined, ...SCORING_DATA, "batch-rows": d.batchRows, split: d.split, "final-test": false, stride: undefined, json: false, backend: backendDefault(), kernels: kernelsDefault("data"), workers: undefined,
} satisfies OptionTable;

export const evaluateCommand: CommandModule = {
  command: "evaluate",
  describe: "Restore a saved model and its tokenizer and score documents without training",
  builder: (y) =>
    withOptions(y, EVALUATE_OPTIONS, {
      ...SCORING_DATA_HELP,
      model: "model file (.safetensors); default with --run: its model.safetensors",
      split: "split to score; all = train and validation (and test with --final-test); test needs --final-test",
      "final-test": "allow the test split (--split test, or all): a final report, never for choosing anything",
    }),
  handler: async (argv) => {
    const [{ modelOfRun, scoringText, startEngine, toJson }, { chosenSplits, evaluateModelFile }, { formatEvaluation, FINAL_REPORT_BANNER }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/evaluate_file.ts"), import("../views/evaluate.ts"),
    ]);
    const v = optionValues(argv, EVALUATE_OPTIONS);
    const scored = chosenSplits(v.split, v.finalTest); // refused before the engine starts
    const model = modelOfRun(v);
    const text = await scoringText(v); // a changed text file is refused before the engine starts
    if (scored.includes("test")) (v.json ? console.error : console.log)(FINAL_REPORT_BANNER);
    await startEngine(v.backend, v.kernels);
    const report = evaluateModelFile({
      model, batchRows: v.batchRows, split: v.split, data: v.data, stride: v.stride, finalTest: v.finalTest,
      workers: v.workers, openPool: (await import("../../node/pool.ts")).threadPools, progress: process.stderr,
    }, text);
    process.stdout.write(v.json ? toJson(report) : formatEvaluation(report) + "\n");
  },
};
