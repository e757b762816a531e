// `tinylab overfit`: the overfitting experiment per seed, as a table, JSON and an SVG figure.
import type { CommandModule } from "yargs";
import { OVERFIT_DEFAULTS, formatOverfit, overfitFigure, runOverfit } from "../../../experiments/overfit.ts";
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { modelProvenance, saveModel } from "../../checkpoint/model_file.ts";
import { overfitTokenizer } from "../../data/fixtures.ts";
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
      .option("plot", { type: "string", default: "results/overfit.svg", describe: "SVG figure path ('' for none)" })
      .option("save-model", { type: "string", describe: "save the first declared seed's model at the final update to this .safetensors file" }),
  handler: async (argv) => {
    await startEngine(argv.backend as string);
    const seeds = parseIntList(argv.seeds as string, "seeds");
    const savePath = argv["save-model"] as string | undefined;
    let saved: { path: string; seed: number; update: number; model_sha256: string } | undefined;
    // the first declared seed at the final update, not the best one: choosing by validation would be selection
    const keep = (seed: number, model: Parameters<typeof saveModel>[1]): boolean => {
      if (savePath && !saved && seed === (seeds ?? OVERFIT_DEFAULTS.seeds)[0]) {
        if (!existsSync(dirname(savePath))) mkdirSync(dirname(savePath), { recursive: true });
        const update = argv.updates as number;
        saved = { path: savePath, seed, update, model_sha256: saveModel(savePath, model, overfitTokenizer(), modelProvenance(seed, update)) };
      }
      return false; // not taking ownership: runOverfit disposes the model
    };
    const result = runOverfit({
      seeds,
      updates: argv.updates as number,
      checkpoints: parseIntList(argv.checkpoints as string, "checkpoints"),
      lr: argv.lr as number,
    }, keep);
    console.log(formatOverfit(result));
    if (saved) console.log(`\nsaved seed ${saved.seed} at update ${saved.update} → ${saved.path}\nmodel_sha256 ${saved.model_sha256}`);
    writeOutput(argv.out as string, toJson(saved ? { ...result, saved_model: saved } : result));
    console.log(`\nwrote ${argv.out}`);
    if (argv.plot) {
      writeOutput(argv.plot as string, await overfitFigure(result));
      console.log(`wrote ${argv.plot}`);
    }
  },
};
