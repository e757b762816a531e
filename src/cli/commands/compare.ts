// `tinylab compare A.safetensors [B.safetensors | --baseline NAME]`: the same targets scored by both, paired
// per-document bootstrap differences, McNemar on next-token hits, and an HTML page (experiments/compare.ts).
import { SPLITS } from "../../data/documents.ts";
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { COMPARE_DEFAULTS as d } from "../../../experiments/options.ts";
import { backendDefault, kernelsDefault, MAX_REPLICATES, SCORING_DATA, SCORING_DATA_HELP, withOptions } from "../options.ts";
import { MIN_REPLICATES } from "../../eval/intervals.ts";

export const compareCommand: CommandModule = {
  command: "compare <a> [b]",
  describe: "Compare two model files (or one against a count baseline) on the same targets: paired bootstrap, McNemar, token page",
  builder: (y) =>
    withOptions(
      y.positional("a", { type: "string", describe: "model file A (.safetensors)" }).positional("b", { type: "string", describe: "model file B (.safetensors); or give --baseline" }),
      {
        baseline: undefined, ...SCORING_DATA, split: d.split, "final-test": d.finalTest, stride: undefined, seed: d.seed, replicates: d.replicates,
        "bits-per-byte": d.bitsPerByte, out: "results/compare", json: false, backend: backendDefault(), kernels: kernelsDefault(),
      },
      {
        ...SCORING_DATA_HELP,
        split: "split to compare (train, validation, or test with --final-test)",
        "final-test": "allow --split test: a final report, never for choosing anything",
        seed: "seed of the bootstrap stream",
        replicates: `bootstrap replicates (${MIN_REPLICATES}..${MAX_REPLICATES})`,
        out: "output directory: compare.json and compare.html are written into it",
      },
      { split: SPLITS },
    ),
  handler: async (argv) => {
    const [{ scoringText, startEngine, toJson, writeOutput }, { runCompare }, { formatCompare }, { compareHtml }, { checkOutputDir, requireFile }, { FINAL_REPORT_BANNER }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/compare.ts"), import("../views/compare.ts"), import("../../../experiments/compare_page.ts"), import("../../node/disk.ts"), import("../views/evaluate.ts"),
    ]);
    const split = argv.split as string;
    const a = requireFile(argv.a as string, "model file A");
    const b = argv.b === undefined ? undefined : requireFile(argv.b as string, "model file B");
    if ((b === undefined) === (argv.baseline === undefined)) throw new Error("compare needs exactly one of a second model file (B) or --baseline NAME");
    if (argv.data !== undefined) requireFile(argv.data as string, "documents file");
    const out = argv.out as string;
    checkOutputDir(out, "--out");
    const text = await scoringText(argv); // a changed text file is refused before the engine starts
    if (split === "test") {
      if (!argv["final-test"]) throw new Error("--split test scores the test split, which only a final report may do: add --final-test (and choose nothing on its numbers)");
      (argv.json ? console.error : console.log)(FINAL_REPORT_BANNER);
    }
    await startEngine(argv.backend as string, argv.kernels as string);
    const { result, tokens } = runCompare({
      a, b, baseline: argv.baseline as undefined, data: argv.data as string | undefined, text, split: split as "validation", finalTest: argv["final-test"] as boolean,
      stride: argv.stride as number | undefined, seed: argv.seed as number, replicates: argv.replicates as number, bitsPerByte: argv["bits-per-byte"] as boolean,
    });
    writeOutput(join(out, "compare.json"), toJson(result));
    writeOutput(join(out, "compare.html"), compareHtml(result, tokens));
    if (argv.json) process.stdout.write(toJson(result));
    else console.log(formatCompare(result));
    (argv.json ? console.error : console.log)(`\nwrote ${join(out, "compare.json")}\nwrote ${join(out, "compare.html")}`);
  },
};
