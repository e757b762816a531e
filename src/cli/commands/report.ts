// `tinylab report`: the composed evaluation report of a model file (experiments/report.ts), as one JSON and one
// HTML page with SVG figures, and a summary on stdout.
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { backendDefault, kernelsDefault, SCORING_DATA, SCORING_DATA_HELP, withOptions } from "../options.ts";
import { DEFAULT_SMOOTHING_K } from "../../baselines/ngram.ts";
import type { BinScheme } from "../../eval/calibration.ts";

export const reportCommand: CommandModule = {
  command: "report",
  describe: "Compose the evaluation report of a model file: JSON plus an HTML page with SVG figures",
  builder: (y) =>
    withOptions(y, {
      model: undefined, ...SCORING_DATA, out: "results/report", stride: undefined, strides: undefined, seed: 0, replicates: 1000,
      canary: undefined, "canary-secret": 2, "canary-reference": undefined, "final-test": false,
      bins: 10, scheme: "equal-width", smoothing: DEFAULT_SMOOTHING_K, lambda: undefined, json: false, backend: backendDefault(), kernels: kernelsDefault(), workers: undefined,
    }, {
      ...SCORING_DATA_HELP,
      model: "model file (.safetensors); default with --run: its model.safetensors",
      out: "output directory: report.json, report.html, report.md (the report card) and figures/*.svg are written into it",
      strides: "also score perplexity by split/source at each of these strides (comma-separated, each 1..context)",
      seed: "seed of the sampling and bootstrap streams",
    }),
  handler: async (argv) => {
    const [{ modelOfRun, scoringText, startEngine, toJson, wallTimeLine, writeOutput }, { reportCardFiles, runReport }, { formatReport }, { reportHtml }, { checkOutputDir, requireFile }, { FINAL_REPORT_BANNER }, { gitState }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/report.ts"), import("../views/report.ts"), import("../../eval/report_page.ts"), import("../../node/disk.ts"), import("../views/evaluate.ts"), import("../../node/git.ts"),
    ]);
    const modelPath = requireFile(modelOfRun(argv), "model file");
    const text = await scoringText(argv); // a changed text file is refused before the engine starts
    checkOutputDir(argv.out as string, "--out");
    const finalTest = argv["final-test"] as boolean;
    if (finalTest) (argv.json ? console.error : console.log)(FINAL_REPORT_BANNER);
    await startEngine(argv.backend as string, argv.kernels as string);
    const report = runReport({
      finalTest, bins: argv.bins as number, scheme: argv.scheme as BinScheme, k: argv.smoothing as number, lambda: argv.lambda as number | undefined,
      model: modelPath, data: argv.data as string | undefined, text, stride: argv.stride as number | undefined, strides: argv.strides as number[] | undefined, seed: argv.seed as number, replicates: argv.replicates as number,
      canary: argv.canary ? { text: argv.canary as string, secretTokens: argv["canary-secret"] as number, reference: argv["canary-reference"] as string | undefined } : undefined,
      progress: process.stderr, workers: argv.workers as number,
    });
    const out = argv.out as string;
    writeOutput(join(out, "report.json"), toJson(report));
    writeOutput(join(out, "report.html"), reportHtml(report));
    const card = reportCardFiles(report, gitState());
    for (const [name, content] of card) writeOutput(join(out, name), content);
    if (argv.json) process.stdout.write(toJson(report));
    else console.log(formatReport(report));
    (argv.json ? console.error : console.log)(`\nwrote ${join(out, "report.json")}\nwrote ${join(out, "report.html")}\nwrote ${join(out, "report.md")} (and ${card.length - 1} figures in ${join(out, "figures")})\n${wallTimeLine()}`);
  },
};
