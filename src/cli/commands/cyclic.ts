// `tinylab cyclic`: the cyclic-permutation experiment (experiments/cyclic.ts) as a table, JSON and SVG figures.
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { CYCLIC_DEFAULTS as d } from "../../../experiments/options.ts";
import { backendDefault, kernelsDefault, optionValues, withOptions, type OptionTable } from "../options.ts";

/** cyclic's options and their defaults (experiments/options.ts CYCLIC_DEFAULTS). */
export const CYCLIC_OPTIONS = {
  seed: d.seed, "split-seed": d.splitSeed, "split-file": undefined, updates: d.updates, lr: d.lr, "final-test": d.finalTest,
  out: "results", figures: true, json: false, backend: backendDefault(), kernels: kernelsDefault("teaching"), workers: undefined,
} satisfies OptionTable;

export const cyclicCommand: CommandModule = {
  command: "cyclic",
  describe: "Train on cyclic permutations of 4 of 5 symbols; score by position against the bigram; check resume",
  builder: (y) =>
    withOptions(y, CYCLIC_OPTIONS, {
      "split-seed": "seed of the 80/20/20 row split (its own stream: changing --seed moves no row)",
      "split-file": 'JSON {"train": [[9 ids], ...], "validation": [...], "test": [...]} used exactly instead of --split-seed',
      out: "output directory: cyclic.json, cyclic.svg (validation loss by position) and cyclic-training.svg are written into it",
    }),
  handler: async (argv) => {
    const [{ startEngine, toJson, wallTimeLine, writeOutput }, { runCyclic }, view, { checkOutputDir, requireFile }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/cyclic.ts"), import("../views/cyclic.ts"), import("../../node/disk.ts"),
    ]);
    const { threadPools } = await import("../../node/pool.ts");
    const { out, figures, json, backend, kernels, workers, ...options } = optionValues(argv, CYCLIC_OPTIONS);
    if (options.splitFile !== undefined) requireFile(options.splitFile, "split file");
    checkOutputDir(out, "--out");
    await startEngine(backend, kernels);
    const result = runCyclic(options, { workers, openPool: threadPools });
    const log = (line: string) => (json ? console.error(line) : console.log(line));
    if (json) process.stdout.write(toJson(result));
    else console.log(view.formatCyclic(result));
    writeOutput(join(out, "cyclic.json"), toJson(result));
    log(`\nwrote ${join(out, "cyclic.json")}`);
    if (figures) {
      for (const [name, figure] of [["cyclic.svg", view.cyclicPositionFigure], ["cyclic-training.svg", view.cyclicTrainingFigure]] as const) {
        writeOutput(join(out, name), figure(result));
        log(`wrote ${join(out, name)}`);
      }
    }
    log(wallTimeLine());
    if (!result.resume_check.bit_identical) process.exitCode = 1;
  },
};
