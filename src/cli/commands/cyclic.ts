// `tinylab cyclic`: the cyclic-permutation experiment (experiments/cyclic.ts) as a table, JSON and SVG figures.
import type { CommandModule } from "yargs";
import { defaultOf } from "../../../experiments/option_catalogue.ts";
import { CYCLIC_DEFAULTS as d } from "../../../experiments/options.ts";
import { engineOptions, optionValues, withOptions, type OptionTable } from "../options.ts";

/** cyclic's options and their defaults (experiments/options.ts CYCLIC_DEFAULTS). */
export const CYCLIC_OPTIONS = {
  seed: d.seed,
  "split-seed": d.splitSeed,
  "split-file": undefined,
  updates: d.updates,
  lr: d.lr,
  "final-test": d.finalTest,
  out: defaultOf("out", "cyclic"),
  overwrite: false,
  figures: true,
  json: false,
  tensorboard: false,
  ...engineOptions("teaching"),
} satisfies OptionTable;

export const cyclicCommand: CommandModule = {
  command: "cyclic",
  describe: "Train on cyclic permutations of 4 of 5 symbols; score by position against the bigram; check resume",
  builder: (y) =>
    withOptions(y, CYCLIC_OPTIONS, {
      "split-seed": "seed of the 80/20/20 row split (its own stream: changing --seed moves no row)",
      "split-file": 'JSON {"train": [[9 ids], ...], "validation": [...], "test": [...]} used exactly instead of --split-seed',
      out: "output directory: cyclic.json, cyclic.svg (validation loss by position) and cyclic-training.svg are written into it (a new or empty directory, or one holding only tinylab's results and models)",
      overwrite: "replace an earlier cyclic.json and its figures in --out; without it they are refused",
      tensorboard:
        "also write the training history as a TensorBoard event file, <out>/tensorboard/cyclic/events.out.tfevents.tinylab: training loss, learning rate and gradient norm at every update, validation NLL at the evaluations, tokens/s",
    }),
  handler: async (argv) => {
    const [{ startEngine, toJson, wallTimeLine }, { runCyclic }, view, { requireFile }, { claimOutputDir, SHARED_KINDS }] =
      await Promise.all([
        import("../common.ts"),
        import("../../../experiments/cyclic.ts"),
        import("../views/cyclic.ts"),
        import("../../node/disk.ts"),
        import("../../node/output_dir.ts"),
      ]);
    const { threadPools } = await import("../../node/pool.ts");
    const { out, overwrite, figures, json, tensorboard, backend, kernels, workers, ...options } = optionValues(argv, CYCLIC_OPTIONS);
    if (options.splitFile !== undefined) requireFile(options.splitFile, "split file");
    const outputs = claimOutputDir(out, { option: "--out", what: "output directory", kind: SHARED_KINDS.cyclic, replace: overwrite });
    let result;
    try {
      const engine = await startEngine({ backend, kernels, workers });
      let events: Uint8Array | undefined;
      result = runCyclic(options, {
        engine,
        openPool: threadPools(engine),
        onEvents: tensorboard ? (bytes) => (events = bytes) : undefined,
      });
      const log = (line: string) => (json ? console.error(line) : console.log(line));
      if (json) process.stdout.write(toJson(result));
      else console.log(view.formatCyclic(result));
      log(`\nwrote ${outputs.write("cyclic.json", toJson(result))}`);
      if (figures) {
        for (const [name, figure] of [
          ["cyclic.svg", view.cyclicPositionFigure],
          ["cyclic-training.svg", view.cyclicTrainingFigure],
        ] as const)
          log(`wrote ${outputs.write(name, figure(result))}`);
      }
      if (events) log(`wrote ${outputs.write("tensorboard/cyclic/events.out.tfevents.tinylab", events)}`);
      log(wallTimeLine());
    } finally {
      outputs.release();
    }
    if (!result.resume_check.bit_identical) process.exitCode = 1;
  },
};
