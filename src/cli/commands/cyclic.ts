// `tinylab cyclic`: the cyclic-permutation experiment as a table, JSON and SVG figures.
import { performance } from "node:perf_hooks";
import type { CommandModule } from "yargs";
import { CYCLIC_DEFAULTS, cyclicPositionFigure, cyclicTrainingFigure, formatCyclic, runCyclic } from "../../../experiments/cyclic.ts";
import { requireFile, startEngine, toJson, withBackend, writeOutput } from "../common.ts";

export const cyclicCommand: CommandModule = {
  command: "cyclic",
  describe: "Train on cyclic permutations of 4 of 5 symbols; score by position against the bigram; check resume",
  builder: (y) =>
    withBackend(y)
      .option("seed", { type: "number", default: CYCLIC_DEFAULTS.seed, describe: "seed of initialization, batch sampling and dropout" })
      .option("split-seed", { type: "number", default: CYCLIC_DEFAULTS.splitSeed, describe: "seed of the 80/20/20 row split (independent of --seed)" })
      .option("split-file", { type: "string", describe: 'JSON {"train": [[9 ids], ...], "validation": [...], "test": [...]} used exactly instead of --split-seed' })
      .option("updates", { type: "number", default: CYCLIC_DEFAULTS.updates, describe: "optimizer updates" })
      .option("lr", { type: "number", default: CYCLIC_DEFAULTS.lr, describe: "constant learning rate" })
      .option("final-test", { type: "boolean", default: false, describe: "also score the test split (a final report: do not tune on it)" })
      .option("out", { type: "string", default: "results/cyclic.json", describe: "JSON result path" })
      .option("plot", { type: "string", default: "results/cyclic.svg", describe: "SVG of validation loss by position ('' for none)" })
      .option("curve", { type: "string", default: "results/cyclic-training.svg", describe: "SVG of the training curve ('' for none)" }),
  handler: async (argv) => {
    const splitFile = argv["split-file"] as string | undefined;
    if (splitFile !== undefined) requireFile(splitFile, "split file");
    const t0 = performance.now();
    await startEngine(argv.backend as string);
    const engineSeconds = (performance.now() - t0) / 1000;
    const result = runCyclic({
      seed: argv.seed as number,
      splitSeed: argv["split-seed"] as number,
      splitFile,
      updates: argv.updates as number,
      lr: argv.lr as number,
      finalTest: argv["final-test"] as boolean,
    });
    console.log(formatCyclic(result));
    writeOutput(argv.out as string, toJson(result));
    console.log(`\nwrote ${argv.out}`);
    for (const [path, figure] of [[argv.plot, cyclicPositionFigure], [argv.curve, cyclicTrainingFigure]] as const) {
      if (!path) continue;
      writeOutput(path as string, await figure(result));
      console.log(`wrote ${path}`);
    }
    console.log(`wall time ${process.uptime().toFixed(1)} s since the process started (engine start-up ${engineSeconds.toFixed(1)} s)`);
    if (!result.resume_check.bit_identical) process.exitCode = 1;
  },
};
