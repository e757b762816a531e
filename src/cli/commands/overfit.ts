// `tinylab overfit`: the overfitting experiment per seed, as a table, JSON and an SVG figure.
import type { CommandModule } from "yargs";
import { OVERFIT_DEFAULTS, formatOverfit, overfitFigure, runOverfit } from "../../../experiments/overfit.ts";
import { parseIntList, startEngine, toJson, withBackend, writeOutput } from "../common.ts";

export const overfitCommand: CommandModule = {
  command: "overfit",
  describe: "Train on two documents per seed; show training loss falling while validation loss rises",
  builder: (y) =>
    withBackend(y)
      .option("seeds", { type: "string", default: OVERFIT_DEFAULTS.seeds.join(","), describe: "comma-separated initialization seeds" })
      .option("updates", { type: "number", default: OVERFIT_DEFAULTS.updates, describe: "optimizer updates per seed" })
      .option("checkpoints", { type: "string", default: OVERFIT_DEFAULTS.checkpoints.join(","), describe: "updates at which both splits are scored" })
      .option("lr", { type: "number", default: OVERFIT_DEFAULTS.lr, describe: "constant learning rate" })
      .option("out", { type: "string", default: "results/overfit.json", describe: "JSON result path" })
      .option("plot", { type: "string", default: "results/overfit.svg", describe: "SVG figure path ('' for none)" }),
  handler: async (argv) => {
    await startEngine(argv.backend as string);
    const result = runOverfit({
      seeds: parseIntList(argv.seeds as string, "seeds"),
      updates: argv.updates as number,
      checkpoints: parseIntList(argv.checkpoints as string, "checkpoints"),
      lr: argv.lr as number,
    });
    console.log(formatOverfit(result));
    writeOutput(argv.out as string, toJson(result));
    console.log(`\nwrote ${argv.out}`);
    if (argv.plot) {
      writeOutput(argv.plot as string, await overfitFigure(result));
      console.log(`wrote ${argv.plot}`);
    }
  },
};
