// `tinylab overfit`: the overfitting experiment per seed (experiments/overfit.ts) as a table, JSON and an SVG figure.
import { basename, dirname, resolve } from "node:path";
import type { CommandModule } from "yargs";
import { defaultOf } from "../../../experiments/option_catalogue.ts";
import { OVERFIT_DEFAULTS as d } from "../../../experiments/options.ts";
import { engineOptions, MAX_REPLICATES, optionValues, withOptions, type OptionTable } from "../options.ts";
import { MIN_REPLICATES } from "../../eval/metrics/intervals.ts";

/** overfit's options and their defaults (experiments/options.ts OVERFIT_DEFAULTS). */
export const OVERFIT_OPTIONS = {
  seeds: d.seeds.join(","),
  updates: d.updates,
  checkpoints: d.checkpoints.join(","),
  lr: d.lr,
  replicates: d.replicates,
  out: defaultOf("out", "overfit"),
  overwrite: false,
  figures: true,
  json: false,
  "save-model": undefined,
  tensorboard: false,
  ...engineOptions("teaching"),
} satisfies OptionTable;

export const overfitCommand: CommandModule = {
  command: "overfit",
  describe: "Train on two documents per seed; show training loss falling while validation loss rises",
  builder: (y) =>
    withOptions(y, OVERFIT_OPTIONS, {
      out: "output directory: overfit.json and overfit.svg are written into it (a new or empty directory, or one holding only tinylab's results and models)",
      overwrite:
        "replace an earlier overfit.json and overfit.svg in --out, and the --save-model file if it is a model; without it they are refused",
      replicates: `Multi-Bootstrap replicates at each checkpoint (${MIN_REPLICATES}..${MAX_REPLICATES}; the resampling seed is fixed at ${d.bootstrapSeed})`,
      tensorboard:
        "also write each seed's training history as a TensorBoard event file, <out>/tensorboard/seed-<seed>/events.out.tfevents.tinylab: training loss, learning rate and gradient norm at every update, validation NLL at the checkpoints, tokens/s",
      "save-model":
        "save the first declared seed's model at the final update to this .safetensors file (never the best one: that would be selection)",
    }),
  handler: async (argv) => {
    const [
      { startEngine, toJson, wallTimeLine },
      { checkOverfitOptions, runOverfit },
      { formatOverfit },
      { overfitFigure },
      { dirStore },
      { claimOutputDir, SHARED_KINDS },
      { checkModelOutput, lockModelPath },
    ] = await Promise.all([
      import("../common.ts"),
      import("../../../experiments/overfit.ts"),
      import("../views/overfit.ts"),
      import("../../../experiments/overfit/figure.ts"),
      import("../../node/disk.ts"),
      import("../../node/output_dir.ts"),
      import("../../node/model_output.ts"),
    ]);
    const {
      out,
      overwrite,
      figures,
      json,
      saveModel: savePath,
      tensorboard,
      backend,
      kernels,
      workers,
      ...options
    } = optionValues(argv, OVERFIT_OPTIONS);
    checkOverfitOptions({ ...d, ...options });
    if (savePath) checkModelOutput(savePath, { option: "--save-model", replace: overwrite, ownDir: out });
    const outputs = claimOutputDir(out, { option: "--out", what: "output directory", kind: SHARED_KINDS.overfit, replace: overwrite });
    const locks: { release(): void }[] = [outputs];
    try {
      if (savePath && resolve(dirname(savePath)) !== resolve(out)) locks.push(lockModelPath(savePath));
      const engine = await startEngine({ backend, kernels, workers });
      const save = savePath ? { store: dirStore(dirname(savePath)), name: basename(savePath) } : undefined;
      const events: [number, Uint8Array][] = [];
      const onEvents = tensorboard ? (seed: number, bytes: Uint8Array) => events.push([seed, bytes]) : undefined;
      const result = runOverfit(options, {
        engine,
        save,
        onEvents,
        openPool: (await import("../../node/pool.ts")).threadPools(engine),
      });
      write(result, events);
    } finally {
      for (const l of locks.reverse()) l.release();
    }
    function write(result: ReturnType<typeof runOverfit>, events: readonly (readonly [number, Uint8Array])[]): void {
      if (json) process.stdout.write(toJson(result));
      else console.log(formatOverfit(result));
      const s = result.saved_model;
      const log = (line: string) => (json ? console.error(line) : console.log(line));
      if (s) log(`\nsaved seed ${s.seed} at update ${s.update} → ${s.path}\nmodel_sha256 ${s.model_sha256}`);
      log(`\nwrote ${outputs.write("overfit.json", toJson(result))}`);
      if (figures) log(`wrote ${outputs.write("overfit.svg", overfitFigure({ ...result, targets: result.data.targets }))}`);
      for (const [seed, bytes] of events) log(`wrote ${outputs.write(`tensorboard/seed-${seed}/events.out.tfevents.tinylab`, bytes)}`);
      log(wallTimeLine());
    }
  },
};
