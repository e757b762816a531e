// `tinylab evaluate`: restore a model and its tokenizer from a model file alone and score documents without
// training (experiments/evaluate.ts). Parses, calls, prints.
import type { CommandModule } from "yargs";
import { backendDefault, kernelsDefault, withOptions } from "../options.ts";

export const evaluateCommand: CommandModule = {
  command: "evaluate",
  describe: "Restore a saved model and its tokenizer and score documents without training",
  builder: (y) =>
    withOptions(y, { model: undefined, "batch-rows": 1, split: "all", "final-test": false, stride: undefined, data: undefined, json: false, backend: backendDefault(), kernels: kernelsDefault(), workers: undefined }, {
      split: "split to score; all = train and validation (and test with --final-test); test needs --final-test",
      "final-test": "allow the test split (--split test, or all): a final report, never for choosing anything",
      stride: "score in strided windows (1..context); needed for documents longer than the context",
    }).demandOption("model"),
  handler: async (argv) => {
    const [{ startEngine, toJson }, { chosenSplits, evaluateModelFile }, { formatEvaluation, FINAL_REPORT_BANNER }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/evaluate_file.ts"), import("../views/evaluate.ts"),
    ]);
    const finalTest = argv["final-test"] as boolean;
    const scored = chosenSplits(argv.split as "all", finalTest); // refused before the engine starts
    if (scored.includes("test")) (argv.json ? console.error : console.log)(FINAL_REPORT_BANNER);
    await startEngine(argv.backend as string, argv.kernels as string);
    const report = evaluateModelFile({
      model: argv.model as string, batchRows: argv["batch-rows"] as number, split: argv.split as "all", data: argv.data as string | undefined, stride: argv.stride as number | undefined, finalTest,
      workers: argv.workers as number, openPool: (await import("../../../experiments/pool.ts")).threadPools,
    });
    process.stdout.write(argv.json ? toJson(report) : formatEvaluation(report) + "\n");
  },
};
