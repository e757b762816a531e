// `tinylab brown`: the Brown corpus lab (experiments/brown.ts): split manifest, BPE, training with saved state
// and resume, the evaluation harness; a summary on stdout, brown.json, report.html and the loss curve in --out.
import { join } from "node:path";
import type { CommandModule } from "yargs";
import type { DivergencePolicy } from "../../lab/divergence.ts";
import { BROWN_DEFAULTS as d } from "../../../experiments/options.ts";
import { backendDefault, kernelsDefault, checkMicrobatchRows, checkMinLr, modelOverrides, refuseRenamed, withOptions } from "../options.ts";

export const brownCommand: CommandModule = {
  command: "brown",
  describe: "Train a decoder on the Brown corpus (BPE, saved state, resume) and evaluate it with the harness",
  builder: (y) =>
    withOptions(refuseRenamed(y, ["checkpoint-every"]), {
      seed: d.seed, "split-seed": d.splitSeed, vocab: d.vocab, updates: d.updates, "batch-rows": d.batchRows, microbatches: d.microbatches,
      layers: d.model.nLayers, "d-model": d.model.dModel, heads: d.model.nHeads, "d-ff": d.model.dFF, context: d.model.contextLength, dropout: d.model.dropout, "model-config": undefined,
      lr: d.lr, warmup: d.warmup, "cosine-steps": undefined, "min-lr": d.minLr, "weight-decay": d.weightDecay, "eval-every": d.evalEvery, "save-every": d.saveEvery, resume: false, overwrite: false, patience: undefined, "on-divergence": d.onDivergence,
      "canary-repetitions": d.canary.repetitions, "final-test": false, out: d.outDir, json: false, backend: backendDefault(), kernels: kernelsDefault("auto"), workers: undefined,
    }, {
      vocab: "BPE vocabulary size (≥ 258), learned on the train split only",
      "batch-rows": "rows of --context tokens per update",
      microbatches: "microbatches the update's rows are split into (the same windows; --workers uses at most this many threads per update)",
      context: "context length; the harness scores at strides context/2 (headline) and context",
      lr: "peak learning rate (linear warmup, then cosine decay over --cosine-steps to --min-lr)",
      "cosine-steps": "the schedule's length: cosine decay over this many updates (default: --updates); to extend a finished run, raise --updates with --resume and pass the run's --cosine-steps",
      "eval-every": "score the whole validation split every N updates (history.json, drawn in loss_curve.svg with the baselines)",
      resume: "continue from <out>/train_state.safetensors (refused if any setting differs; a run stopped before its first state starts at update 0)",
      overwrite: "<out> holds a run: remove that run's files (only those) and start afresh; without it or --resume such a directory is refused",
      out: "output directory: manifest, training state, model, brown.json, report.html, loss_curve.svg",
    }),
  handler: async (argv) => {
    const [{ startEngine, toJson, wallTimeLine, writeOutput }, { CURVE_NOTE, runBrown }, view, { brownPageHtml }, { resolveModelConfig }, { checkOutputDir, dirStore }, { lockDirectory }, { onInterrupt, reportInterrupted }, { claimRunDir }] = await Promise.all([
      import("../common.ts"), import("../../../experiments/brown.ts"), import("../views/brown.ts"), import("../../../experiments/brown_page.ts"), import("../../model/config.ts"),
      import("../../node/disk.ts"), import("../../node/lock.ts"), import("../interrupt.ts"), import("../../lab/run_dir.ts"),
    ]);
    checkOutputDir(argv.out as string, "--out");
    const model = resolveModelConfig(modelOverrides(argv), d.model);
    checkMicrobatchRows(argv.microbatches as number, argv["batch-rows"] as number);
    checkMinLr(argv["min-lr"] as number, argv.lr as number);
    const store = dirStore(argv.out as string);
    const lock = lockDirectory(argv.out as string, "Brown output directory");
    const interrupt = onInterrupt();
    try {
      // under the lock and before the engine starts: a directory holding a run is refused, resumed or emptied of it
      claimRunDir(store, { resume: argv.resume as boolean, overwrite: argv.overwrite as boolean }, `--out ${argv.out as string}`);
      await startEngine(argv.backend as string, argv.kernels as string);
      const o = {
        ...d,
        outDir: argv.out as string, seed: argv.seed as number, splitSeed: argv["split-seed"] as number, vocab: argv.vocab as number,
        updates: argv.updates as number, cosineSteps: argv["cosine-steps"] as number | undefined, batchRows: argv["batch-rows"] as number, microbatches: argv.microbatches as number, lr: argv.lr as number, warmup: argv.warmup as number,
        minLr: argv["min-lr"] as number, weightDecay: argv["weight-decay"] as number, evalEvery: argv["eval-every"] as number,
        saveEvery: argv["save-every"] as number, resume: argv.resume as boolean, finalTest: argv["final-test"] as boolean,
        canary: { ...d.canary, repetitions: argv["canary-repetitions"] as number }, model, progress: process.stderr,
        onDivergence: argv["on-divergence"] as DivergencePolicy, workers: argv.workers as number, patience: argv.patience as number | undefined,
      };
      const log = (line: string) => (argv.json ? console.error(line) : console.log(line));
      if (o.finalTest) log("FINAL REPORT: scoring the test split. Numbers from here must not feed back into any choice.\n");
      const result = await runBrown({ ...o, shouldStop: interrupt.requested });
      if ("stopped" in result) {
        if (interrupt.requested()) reportInterrupted(result.stopped!, result.state); // "stopped" in result: both are set
        return;
      }
      if (argv.json) process.stdout.write(toJson(result));
      else console.log(view.formatBrown(result));
      writeOutput(join(o.outDir, "brown.json"), toJson(result));
      writeOutput(join(o.outDir, "report.html"), brownPageHtml(result, CURVE_NOTE));
      log(`\nwrote ${join(o.outDir, "brown.json")}, report.html, loss_curve.svg, model.safetensors, manifest.json`);
      log(wallTimeLine());
    } finally {
      interrupt.dispose();
      lock.release();
    }
  },
};
