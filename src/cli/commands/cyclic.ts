// `tinylab cyclic`: the cyclic-permutation experiment (experiments/cyclic.ts) as a table, JSON and SVG figures.
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { CYCLIC_DEFAULTS as d } from "../../../experiments/options.ts";
import { backendDefault, kernelsDefault, withOptions } from "../options.ts";

export const cyclicCommand: CommandModule = {
  command: "cyclic",
  describe: "Train on cyclic permutations of 4 of 5 symbols; score by position against the bigram; check resume",
  builder: (y) =>
    withOptions(y, {
      seed: d.seed, "split-seed": d.splitSeed, "split-file": undefined, updates: d.updates, lr: d.lr, "final-test": false,
      out: "results", figures: true, json: false, backend: backendDefault(), kernels: kernelsDefault(), workers: undefined,
    }, {
      "split-seed": "seed of the 80/20/20 row split (its own stream: changing --seed moves no row)",
      "split-file": 'JSON {"train": [[9 ids], ...], "validation": [...], "test": [...]} used exactly instead of --split-seed',
      out: "output directory: cyclic.json, cyclic.svg (validation loss by position) and cyclic-training.svg are written into it",
    }),
  handler: async (argv) => {
    const [{ startEngine, toJson, wallTimeLine, writeOutput }, { runCyclic }, view, { checkOutputDir, requireFile }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/cyclic.ts"), import("../views/cyclic.ts"), import("../../node/disk.ts"),
    ]);
    const { threadPools } = await import("../../node/pool.ts");
    const splitFile = argv["split-file"] as string | undefined;
    if (splitFile !== undefined) requireFile(splitFile, "split file");
    checkOutputDir(argv.out as string, "--out");
    await startEngine(argv.backend as string, argv.kernels as string);
    const result = runCyclic({
      seed: argv.seed as number, splitSeed: argv["split-seed"] as number, splitFile, updates: argv.updates as number, lr: argv.lr as number, finalTest: argv["final-test"] as boolean,
    }, { workers: argv.workers as number, openPool: threadPools });
    const log = (line: string) => (argv.json ? console.error(line) : console.log(line));
    if (argv.json) process.stdout.write(toJson(result));
    else console.log(view.formatCyclic(result));
    const out = argv.out as string;
    writeOutput(join(out, "cyclic.json"), toJson(result));
    log(`\nwrote ${join(out, "cyclic.json")}`);
    if (argv.figures) {
      for (const [name, figure] of [["cyclic.svg", view.cyclicPositionFigure], ["cyclic-training.svg", view.cyclicTrainingFigure]] as const) {
        writeOutput(join(out, name), figure(result));
        log(`wrote ${join(out, name)}`);
      }
    }
    log(wallTimeLine());
    if (!result.resume_check.bit_identical) process.exitCode = 1;
  },
};
