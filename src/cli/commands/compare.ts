// `tinylab compare A.safetensors [B.safetensors | --baseline NAME]`: the same targets scored by both, paired
// per-document bootstrap differences, McNemar on next-token hits, and an HTML page (experiments/compare.ts).
import { SPLITS } from "../../data/documents.ts";
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { COMPARE_DEFAULTS as d, MODEL_DIR_DEFAULTS } from "../../../experiments/options.ts";
import { findOption } from "../../../experiments/option_catalogue.ts";
import {
  oneThreadEngineOptions,
  MODEL_DIR,
  narrowedTo,
  optionValues,
  positional,
  SCORING_DATA,
  SCORING_DATA_HELP,
  withOptions,
  type OptionTable,
} from "../options.ts";
import { quietClock } from "../../util/runtime/progress.ts";

const CONVENTION_HELP = findOption("convention")[1].describe;

/** compare's options and their defaults (experiments/options.ts COMPARE_DEFAULTS); --split offers train, validation and test only. */
export const COMPARE_OPTIONS = {
  baseline: undefined,
  ...MODEL_DIR,
  // no default on the command line: a directory against a model file needs it named (experiments/compare.ts
  // checkConventions); otherwise the recipe takes MODEL_DIR_DEFAULTS.convention
  convention: undefined,
  ...SCORING_DATA,
  split: d.split,
  "final-test": d.finalTest,
  stride: undefined,
  seed: d.seed,
  replicates: d.replicates,
  "bits-per-byte": d.bitsPerByte,
  out: d.out,
  overwrite: false,
  json: false,
  ...oneThreadEngineOptions("data"),
} satisfies OptionTable;

export const compareCommand: CommandModule = {
  command: "compare <a> [b]",
  describe: "Compare two model files (or one against a count baseline) on the same targets: paired bootstrap, McNemar, token page",
  builder: (y) =>
    withOptions(
      y
        .positional("a", { type: "string", describe: "model file A (.safetensors), or a model directory (docs/any-model.md)" })
        .positional("b", { type: "string", describe: "model file B (.safetensors) or a model directory; or give --baseline" }),
      COMPARE_OPTIONS,
      {
        ...SCORING_DATA_HELP,
        convention: `${CONVENTION_HELP} (default ${MODEL_DIR_DEFAULTS.convention} for two directories; a directory against a model file, scored tinylab's way, must name one)`,
        split: "split to compare (train, validation, or test with --final-test)",
        "final-test": "allow --split test: a final report, never for choosing anything",
        seed: "seed of the bootstrap stream",
        out: "output directory: compare.json, compare.html and compare.csv (the table for a spreadsheet) are written into it (a new or empty directory, or one holding only tinylab's results and models)",
        overwrite: "replace an earlier compare.json, compare.html and compare.csv in --out; without it they are refused",
      },
      { split: SPLITS },
    ),
  handler: async (argv) => {
    const [
      { scoringInputs, scoringText, startEngine, toJson },
      { runCompare },
      { compareCsv, formatCompare },
      { compareHtml },
      { requireFile: requireRegular },
      { FINAL_REPORT_BANNER },
      { chosenSplits },
      { claimOutputDir, SHARED_KINDS },
      { isModelDir },
    ] = await Promise.all([
      import("../common.ts"),
      import("../../../experiments/compare.ts"),
      import("../views/compare.ts"),
      import("../../eval/render/compare_page.ts"),
      import("../../node/disk.ts"),
      import("../views/evaluate.ts"),
      import("../../../experiments/evaluate_file.ts"),
      import("../../node/output_dir.ts"),
      import("../../node/model_dir.ts"),
    ]);
    const { checkOutputDir } = await import("../../node/writable.ts");
    const requireFile = (path: string, what: string) => (what.startsWith("model") && isModelDir(path) ? path : requireRegular(path, what));
    const { json, backend, kernels, out, overwrite, ...v } = optionValues(argv, COMPARE_OPTIONS);
    const split = narrowedTo(SPLITS, v.split, "split");
    const a = requireFile(positional(argv, "a", "required"), "model file A");
    const named = positional(argv, "b");
    const b = named === undefined ? undefined : requireFile(named, "model file B");
    if ((b === undefined) === (v.baseline === undefined))
      throw new Error("compare needs exactly one of a second model file (B) or --baseline NAME");
    if (v.data !== undefined) requireFile(v.data, "documents file");
    checkOutputDir(out, "--out");
    const text = await scoringText(v); // a changed text file is refused before the engine starts
    const outputs = claimOutputDir(out, {
      option: "--out",
      what: "output directory",
      kind: SHARED_KINDS.compare,
      replace: overwrite,
      inputs: scoringInputs(v),
    });
    try {
      if (chosenSplits(split, v.finalTest).includes("test")) (json ? console.error : console.log)(FINAL_REPORT_BANNER);
      const engine = await startEngine({ backend, kernels });
      const { result, tokens } = runCompare({
        a,
        b,
        baseline: v.baseline,
        data: v.data,
        text,
        split,
        finalTest: v.finalTest,
        stride: v.stride,
        seed: v.seed,
        replicates: v.replicates,
        bitsPerByte: v.bitsPerByte,
        convention: v.convention,
        graph: v.graph,
        allowNonFloat32: v.allowNonFloat32,
        progress: quietClock(process.stderr),
        engine,
      });
      outputs.write("compare.json", toJson(result));
      outputs.write("compare.html", compareHtml(result, tokens));
      outputs.write("compare.csv", compareCsv(result));
      if (json) process.stdout.write(toJson(result));
      else console.log(formatCompare(result));
      (json ? console.error : console.log)(
        `\nwrote ${join(out, "compare.json")}\nwrote ${join(out, "compare.html")}\nwrote ${join(out, "compare.csv")}`,
      );
    } finally {
      outputs.release();
    }
  },
};
