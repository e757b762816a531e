// `tinylab evaluate`: restore a model and its tokenizer from a model file alone and score documents without
// training (experiments/evaluate.ts). Parses, calls, prints.
import type { CommandModule } from "yargs";
import { backendDefault, kernelsDefault, SCORING_DATA, SCORING_DATA_HELP, withOptions } from "../options.ts";

export const evaluateCommand: CommandModule = {
  command: "evaluate",
  describe: "Restore a saved model and its tokenizer and score documents without training",
  builder: (y) =>
    withOptions(y, { model: undefined, ...SCORING_DATA, "batch-rows": 1, split: "all", "final-test": false, stride: undefined, json: false, backend: backendDefault(), kernels: kernelsDefault(), workers: undefined }, {
      ...SCORING_DATA_HELP,
      model: "model file (.safetensors); default with --run: its model.safetensors",
      split: "split to score; all = train and validation (and test with --final-test); test needs --final-test",
      "final-test": "allow the test split (--split test, or all): a final report, never for choosing anything",
    }),
  handler: async (argv) => {
    const [{ modelOfRun, scoringText, startEngine, toJson }, { chosenSplits, evaluateModelFile }, { formatEvaluation, FINAL_REPORT_BANNER }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/evaluate_file.ts"), import("../views/evaluate.ts"),
    ]);
    const finalTest = argv["final-test"] as boolean;
    const scored = chosenSplits(argv.split as "all", finalTest); // refused before the engine starts
    const model = modelOfRun(argv);
    const text = await scoringText(argv); // a changed text file is refused before the engine starts
    if (scored.includes("test")) (argv.json ? console.error : console.log)(FINAL_REPORT_BANNER);
    await startEngine(argv.backend as string, argv.kernels as string);
    const report = evaluateModelFile({
      model, batchRows: argv["batch-rows"] as number, split: argv.split as "all", data: argv.data as string | undefined, stride: argv.stride as number | undefined, finalTest,
      workers: argv.workers as number, openPool: (await import("../../node/pool.ts")).threadPools,
    }, text);
    process.stdout.write(argv.json ? toJson(report) : formatEvaluation(report) + "\n");
  },
};
