// `tinylab overfit`: the overfitting experiment per seed (experiments/overfit.ts) as a table, JSON and an SVG figure.
import { basename, dirname, join } from "node:path";
import type { CommandModule } from "yargs";
import { OVERFIT_DEFAULTS as d } from "../../../experiments/options.ts";
import { backendDefault, kernelsDefault, MAX_REPLICATES, withOptions } from "../options.ts";
import { MIN_REPLICATES } from "../../eval/intervals.ts";

export const overfitCommand: CommandModule = {
  command: "overfit",
  describe: "Train on two documents per seed; show training loss falling while validation loss rises",
  builder: (y) =>
    withOptions(y, {
      seeds: d.seeds.join(","), updates: d.updates, checkpoints: d.checkpoints.join(","), lr: d.lr, replicates: d.replicates,
      out: "results", figures: true, json: false, "save-model": undefined, backend: backendDefault(), kernels: kernelsDefault(), workers: undefined,
    }, {
      out: "output directory: overfit.json and overfit.svg are written into it",
      replicates: `Multi-Bootstrap replicates at each checkpoint (${MIN_REPLICATES}..${MAX_REPLICATES}; the resampling seed is fixed at ${d.bootstrapSeed})`,
      "save-model": "save the first declared seed's model at the final update to this .safetensors file (never the best one: that would be selection)",
    }),
  handler: async (argv) => {
    const [{ startEngine, toJson, wallTimeLine, writeOutput }, { checkOverfitOptions, runOverfit }, { formatOverfit }, { overfitFigure }, { checkOutputDir, checkOutputFile, dirStore }, { lockPath }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/overfit.ts"), import("../views/overfit.ts"), import("../../eval/overfit_figure.ts"), import("../../node/disk.ts"), import("../../node/lock.ts"),
    ]);
    const options = { seeds: argv.seeds as number[], updates: argv.updates as number, checkpoints: argv.checkpoints as number[], lr: argv.lr as number, replicates: argv.replicates as number };
    checkOverfitOptions({ ...d, ...options });
    const savePath = argv["save-model"] as string | undefined;
    const out = argv.out as string;
    checkOutputDir(out, "--out");
    if (savePath) checkOutputFile(savePath, "--save-model");
    await startEngine(argv.backend as string, argv.kernels as string);
    const save = savePath ? { store: dirStore(dirname(savePath)), name: basename(savePath) } : undefined;
    const lock = savePath ? lockPath(savePath, "model path") : undefined;
    let result;
    try {
      result = runOverfit(options, { save, workers: argv.workers as number, openPool: (await import("../../node/pool.ts")).threadPools });
    } finally {
      lock?.release();
    }
    if (argv.json) process.stdout.write(toJson(result));
    else console.log(formatOverfit(result));
    const s = result.saved_model;
    const log = (line: string) => (argv.json ? console.error(line) : console.log(line));
    if (s) log(`\nsaved seed ${s.seed} at update ${s.update} → ${s.path}\nmodel_sha256 ${s.model_sha256}`);
    writeOutput(join(out, "overfit.json"), toJson(result));
    log(`\nwrote ${join(out, "overfit.json")}`);
    if (argv.figures) {
      writeOutput(join(out, "overfit.svg"), overfitFigure({ ...result, targets: result.data.targets }));
      log(`wrote ${join(out, "overfit.svg")}`);
    }
    log(wallTimeLine());
  },
};
