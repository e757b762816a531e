// `tinylab report`: the composed evaluation report of a model file (experiments/report.ts), as one JSON and one
// HTML page with SVG figures, and a summary on stdout.
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { REPORT_DEFAULTS as d } from "../../../experiments/options.ts";
import { backendDefault, kernelsDefault, optionValues, SCORING_DATA, SCORING_DATA_HELP, withOptions, type OptionTable } from "../options.ts";

/** report's options and their defaults (experiments/options.ts REPORT_DEFAULTS). */
export const REPORT_OPTIONS = {
  model: undefined, ...SCORING_DATA, out: d.out, stride: undefined, strides: undefined, seed: d.seed, replicates: d.replicates,
  canary: undefined, "canary-secret": d.secretTokens, "canary-reference": undefined, "final-test": false,
  bins: d.bins, scheme: d.scheme, smoothing: d.smoothing, lambda: undefined, json: false, backend: backendDefault(), kernels: kernelsDefault("data"), workers: undefined,
} satisfies OptionTable;

export const reportCommand: CommandModule = {
  command: "report",
  describe: "Compose the evaluation report of a model file: JSON plus an HTML page with SVG figures",
  builder: (y) =>
    withOptions(y, REPORT_OPTIONS, {
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
    const v = optionValues(argv, REPORT_OPTIONS);
    const { out, json } = v;
    const modelPath = requireFile(modelOfRun(v), "model file");
    const text = await scoringText(v); // a changed text file is refused before the engine starts
    checkOutputDir(out, "--out");
    if (v.finalTest) (json ? console.error : console.log)(FINAL_REPORT_BANNER);
    await startEngine(v.backend, v.kernels);
    const report = runReport({
      finalTest: v.finalTest, bins: v.bins, scheme: v.scheme, smoothing: v.smoothing, lambda: v.lambda,
      model: modelPath, data: v.data, text, stride: v.stride, strides: v.strides, seed: v.seed, replicates: v.replicates,
      canary: v.canary ? { text: v.canary, secretTokens: v.secretTokens, reference: v.canaryReference } : undefined,
      progress: process.stderr, workers: v.workers,
    });
    writeOutput(join(out, "report.json"), toJson(report));
    writeOutput(join(out, "report.html"), reportHtml(report));
    const card = reportCardFiles(report, gitState());
    for (const [name, content] of card) writeOutput(join(out, name), content);
    if (json) process.stdout.write(toJson(report));
    else console.log(formatReport(report));
    (json ? console.error : console.log)(`\nwrote ${join(out, "report.json")}\nwrote ${join(out, "report.html")}\nwrote ${join(out, "report.md")} (and ${card.length - 1} figures in ${join(out, "figures")})\n${wallTimeLine()}`);
  },
};
