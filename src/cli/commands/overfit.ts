// `tinylab overfit`: the overfitting experiment per seed (experiments/overfit.ts) as a table, JSON and an SVG figure.
import { basename, dirname, join } from "node:path";
import type { CommandModule } from "yargs";
import { OVERFIT_DEFAULTS as d } from "../../../experiments/options.ts";
import { backendDefault, kernelsDefault, MAX_REPLICATES, optionValues, withOptions, type OptionTable } from "../options.ts";
import { MIN_REPLICATES } from "../../eval/intervals.ts";

/** overfit's options and their defaults (experiments/options.ts OVERFIT_DEFAULTS). */
export const OVERFIT_OPTIONS = {
  seeds: d.seeds.join(","), updates: d.updates, checkpoints: d.checkpoints.join(","), lr: d.lr, replicates: d.replicates,
  out: "results", figures: true, json: false, "save-model": undefined, backend: backendDefault(), kernels: kernelsDefault("teaching"), workers: undefined,
} satisfies OptionTable;

export const overfitCommand: CommandModule = {
  command: "overfit",
  describe: "Train on two documents per seed; show training loss falling while validation loss rises",
  builder: (y) =>
    withOptions(y, OVERFIT_OPTIONS, {
      out: "output directory: overfit.json and overfit.svg are written into it",
      replicates: `Multi-Bootstrap replicates at each checkpoint (${MIN_REPLICATES}..${MAX_REPLICATES}; the resampling seed is fixed at ${d.bootstrapSeed})`,
      "save-model": "save the first declared seed's model at the final update to this .safetensors file (never the best one: that would be selection)",
    }),
  handler: async (argv) => {
    const [{ startEngine, toJson, wallTimeLine, writeOutput }, { checkOverfitOptions, runOverfit }, { formatOverfit }, { overfitFigure }, { checkOutputDir, checkOutputFile, dirStore }, { lockPath }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/overfit.ts"), import("../views/overfit.ts"), import("../../eval/overfit_figure.ts"), import("../../node/disk.ts"), import("../../node/lock.ts"),
    ]);
    const { out, figures, json, saveModel: savePath, backend, kernels, workers, ...options } = optionValues(argv, OVERFIT_OPTIONS);
    checkOverfitOptions({ ...d, ...options });
    checkOutputDir(out, "--out");
    if (savePath) checkOutputFile(savePath, "--save-model");
    await startEngine(backend, kernels);
    const save = savePath ? { store: dirStore(dirname(savePath)), name: basename(savePath) } : undefined;
    const lock = savePath ? lockPath(savePath, "model path") : undefined;
    let result;
    try {
      result = runOverfit(options, { save, workers, openPool: (await import("../../node/pool.ts")).threadPools });
    } finally {
      lock?.release();
    }
    if (json) process.stdout.write(toJson(result));
    else console.log(formatOverfit(result));
    const s = result.saved_model;
    const log = (line: string) => (json ? console.error(line) : console.log(line));
    if (s) log(`\nsaved seed ${s.seed} at update ${s.update} → ${s.path}\nmodel_sha256 ${s.model_sha256}`);
    writeOutput(join(out, "overfit.json"), toJson(result));
    log(`\nwrote ${join(out, "overfit.json")}`);
    if (figures) {
      writeOutput(join(out, "overfit.svg"), overfitFigure({ ...result, targets: result.data.targets }));
      log(`wrote ${join(out, "overfit.svg")}`);
    }
    log(wallTimeLine());
  },
};
