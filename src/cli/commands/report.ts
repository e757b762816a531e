// `tinylab report`: the composed evaluation report of a model file (experiments/report.ts), as one JSON and one
// HTML page with SVG figures, and a summary on stdout.
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { REPORT_DEFAULTS as d } from "../../../experiments/options.ts";
import { engineOptions, MODEL_DIR, optionValues, SCORING_DATA, SCORING_DATA_HELP, withOptions, type OptionTable } from "../options.ts";
import { quietClock } from "../../util/runtime/progress.ts";

/** report's options and their defaults (experiments/options.ts REPORT_DEFAULTS). */
export const REPORT_OPTIONS = {
  model: undefined,
  ...MODEL_DIR,
  ...SCORING_DATA,
  out: d.out,
  overwrite: false,
  stride: undefined,
  strides: undefined,
  seed: d.seed,
  replicates: d.replicates,
  canary: undefined,
  "canary-secret": d.secretTokens,
  "canary-reference": undefined,
  "final-test": false,
  bins: d.bins,
  scheme: d.scheme,
  smoothing: d.smoothing,
  lambda: undefined,
  json: false,
  "lm-eval-out": undefined,
  ...engineOptions("data"),
} satisfies OptionTable;

/** What a report writes into its directory (src/node/output_dir.ts): the figures' folder is its own. */
const REPORT_KIND = { noun: "a report", files: ["report.json", "report.html", "report.md", "figures/"] };

export const reportCommand: CommandModule = {
  command: "report",
  describe: "Compose the evaluation report of a model file: JSON plus an HTML page with SVG figures",
  builder: (y) =>
    withOptions(y, REPORT_OPTIONS, {
      ...SCORING_DATA_HELP,
      model:
        "model file (.safetensors), or a Hugging Face / transformers.js model directory (docs/any-model.md); default with --run: its model.safetensors",
      out: "output directory: report.json, report.html, report.md (the report card) and figures/*.svg are written into it (a new or empty directory, or an earlier report's with --overwrite)",
      overwrite: "--out holds an earlier report: replace it; without it such a directory is refused",
      strides: "also score perplexity by split/source at each of these strides (comma-separated, each 1..context)",
      seed: "seed of the sampling and bootstrap streams",
      "lm-eval-out":
        "also write lm-evaluation-harness's results_<date>.json and one samples_<task>_<date>.jsonl per split the report scores (task <data>_<split>): each text scored after BOS with no EOS (loglikelihood_rolling), word_perplexity, byte_perplexity, bits_per_byte (docs/formats.md)",
    }),
  handler: async (argv) => {
    const [
      { modelOfRun, scoringInputs, scoringText, startEngine, toJson, wallTimeLine },
      { reportCardFiles, scoreReport },
      { formatReport },
      { reportHtml },
      { judgeModelFile, requireFile },
      { FINAL_REPORT_BANNER },
      { gitState },
      { claimOutputDir },
    ] = await Promise.all([
      import("../common.ts"),
      import("../../../experiments/report.ts"),
      import("../views/report.ts"),
      import("../../eval/render/report_page.ts"),
      import("../../node/disk.ts"),
      import("../views/evaluate.ts"),
      import("../../node/git.ts"),
      import("../../node/output_dir.ts"),
    ]);
    const { checkOutputDir } = await import("../../node/writable.ts");
    const { isModelDir } = await import("../../node/disk.ts");
    const v = optionValues(argv, REPORT_OPTIONS);
    const { out, json } = v;
    const named = modelOfRun(v);
    const isDir = isModelDir(named);
    const modelPath = isDir ? named : requireFile(named, "model file");
    checkOutputDir(out, "--out"); // where it would write, before reading anything
    if (!isDir) judgeModelFile(modelPath); // from its header, before the engine starts
    const text = await scoringText(v); // a changed text file is refused before the engine starts
    if (v.lmEvalOut !== undefined) (await import("../lm_eval_out.ts")).checkLmEvalOut(v.lmEvalOut, modelPath);
    const outputs = claimOutputDir(out, {
      option: "--out",
      what: "report directory",
      kind: REPORT_KIND,
      replace: v.overwrite,
      inputs: scoringInputs(v),
    });
    try {
      const start = new Date();
      if (v.finalTest) (json ? console.error : console.log)(FINAL_REPORT_BANNER);
      const engine = await startEngine(v);
      const { report, lmEval, lmEvalModel } = scoreReport({
        finalTest: v.finalTest,
        bins: v.bins,
        scheme: v.scheme,
        smoothing: v.smoothing,
        lambda: v.lambda,
        model: modelPath,
        data: v.data,
        text,
        stride: v.stride,
        strides: v.strides,
        seed: v.seed,
        replicates: v.replicates,
        canary: v.canary ? { text: v.canary, secretTokens: v.secretTokens, reference: v.canaryReference } : undefined,
        progress: quietClock(process.stderr),
        engine,
        lmEval: v.lmEvalOut !== undefined,
        convention: v.convention,
        graph: v.graph,
        allowNonFloat32: v.allowNonFloat32,
      });
      outputs.write("report.json", toJson(report));
      outputs.write("report.html", reportHtml(report));
      const card = reportCardFiles(report, gitState());
      for (const [name, content] of card) outputs.write(name, content);
      if (json) process.stdout.write(toJson(report));
      else console.log(formatReport(report));
      const lmEvalLines =
        v.lmEvalOut !== undefined && lmEval && lmEvalModel
          ? (await import("../lm_eval_out.ts"))
              .writeLmEvalOut(v.lmEvalOut, lmEval, lmEvalModel, {
                batchSize: 16,
                device: engine.backend,
                start,
                inputs: [modelPath, ...(v.data ? [v.data] : [])],
              })
              .map((l) => `${l}\n`)
              .join("")
          : "";
      (json ? console.error : console.log)(
        `\nwrote ${join(out, "report.json")}\nwrote ${join(out, "report.html")}\nwrote ${join(out, "report.md")} (and ${card.length - 1} figures in ${join(out, "figures")})\n${lmEvalLines}${wallTimeLine()}`,
      );
    } finally {
      outputs.release();
    }
  },
};
