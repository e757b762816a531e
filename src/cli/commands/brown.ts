// `tinylab brown`: the Brown corpus lab (experiments/brown.ts): split manifest, BPE, training with saved state
// and resume, the evaluation harness; a summary on stdout, brown.json, report.html and the loss curve in --out.
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { BROWN_DEFAULTS as d } from "../../../experiments/brown_options.ts";
import { checkMicrobatchRows, checkMinLr } from "../../../experiments/train_options.ts";
import { engineOptions, modelOverrides, refuseRenamed, optionValues, shapeNames, withOptions, type OptionTable } from "../options.ts";
import { quietClock } from "../../util/runtime/progress.ts";

/** brown's options and their defaults (experiments/options.ts BROWN_DEFAULTS). */
export const BROWN_OPTIONS = {
  seed: d.seed,
  "split-seed": d.splitSeed,
  vocab: d.vocab,
  updates: d.updates,
  "batch-rows": d.batchRows,
  microbatches: d.microbatches,
  layers: d.model.nLayers,
  "d-model": d.model.dModel,
  heads: d.model.nHeads,
  "d-ff": d.model.dFF,
  context: d.model.contextLength,
  dropout: d.model.dropout,
  "model-config": undefined,
  lr: d.lr,
  warmup: d.warmup,
  "cosine-steps": undefined,
  "min-lr": d.minLr,
  "weight-decay": d.weightDecay,
  "eval-every": d.evalEvery,
  "save-every": d.saveEvery,
  resume: false,
  overwrite: false,
  patience: undefined,
  tensorboard: false,
  "on-divergence": d.onDivergence,
  "canary-repetitions": d.canary.repetitions,
  "final-test": false,
  out: d.out,
  json: false,
  ...engineOptions("data"),
} satisfies OptionTable;

export const brownCommand: CommandModule = {
  command: "brown",
  describe: "Train a decoder on the Brown corpus (BPE, saved state, resume) and evaluate it with the harness",
  builder: (y) =>
    withOptions(refuseRenamed(y, ["checkpoint-every"]), BROWN_OPTIONS, {
      vocab: "BPE vocabulary size (≥ 258), learned on the train split only",
      "batch-rows": "rows of --context tokens per update",
      microbatches: "microbatches the update's rows are split into (the same windows; --workers uses at most this many threads per update)",
      context: "context length; the harness scores at strides context/2 (headline) and context",
      "cosine-steps":
        "the schedule's length: cosine decay over this many updates (default: --updates); to extend a finished run, raise --updates with --resume and pass the run's --cosine-steps",
      "eval-every": "score the whole validation split every N updates (history.json, drawn in loss_curve.svg with the baselines)",
      resume:
        "continue from <out>/train_state.safetensors (refused if any setting differs; a run stopped before its first state starts at update 0)",
      overwrite:
        "<out> holds a run: remove that run's files (only those) and start afresh; without it or --resume such a directory is refused",
      out: "output directory: manifest, training state, model, brown.json, report.html, loss_curve.svg",
    }),
  handler: async (argv) => {
    const [
      { startEngine, toJson, wallTimeLine },
      { CURVE_NOTE, runBrown },
      view,
      { brownPageHtml },
      { resolveModelConfig },
      { claimOutputDir },
      { onInterrupt, reportInterrupted },
      { claimRunDir, RUN_KIND },
    ] = await Promise.all([
      import("../common.ts"),
      import("../../../experiments/brown.ts"),
      import("../views/brown.ts"),
      import("../../../experiments/brown_page.ts"),
      import("../../model/config.ts"),
      import("../../node/output_dir.ts"),
      import("../interrupt.ts"),
      import("../../lab/run_dir.ts"),
    ]);
    const { checkOutputDir } = await import("../../node/writable.ts");
    const { json, backend, kernels, overwrite, canaryRepetitions, layers, dModel, heads, dFf, context, dropout, modelConfig, ...given } =
      optionValues(argv, BROWN_OPTIONS);
    checkOutputDir(given.out, "--out");
    const model = resolveModelConfig(
      modelOverrides({ layers, dModel, heads, dFf, context, dropout, modelConfig }),
      d.model,
      shapeNames(modelConfig),
    );
    checkMicrobatchRows(given.microbatches, given.batchRows);
    checkMinLr(given.minLr, given.lr);
    const outputs = claimOutputDir(given.out, { option: "--out", what: "Brown output directory", kind: RUN_KIND, replace: true });
    const store = outputs.store();
    const interrupt = onInterrupt();
    try {
      // under the lock and before the engine starts: a directory holding a run is refused, resumed or emptied of it
      claimRunDir(store, { resume: given.resume, overwrite }, `--out ${given.out}`);
      const engine = await startEngine({ backend, kernels, workers: given.workers });
      const o = {
        ...d,
        ...given,
        canary: { ...d.canary, repetitions: canaryRepetitions },
        model,
        progress: quietClock(process.stderr),
        engine,
      };
      const log = (line: string) => (json ? console.error(line) : console.log(line));
      if (o.finalTest) log("FINAL REPORT: scoring the test split. Numbers from here must not feed back into any choice.\n");
      const result = await runBrown({ ...o, shouldStop: interrupt.requested });
      // last, after every file a resume reads: the history as a spreadsheet table
      const historyCsv = async () => (await import("../../lab/history_events.ts")).writeHistoryCsv(store);
      if ("stopped" in result) {
        await historyCsv();
        if (interrupt.requested()) reportInterrupted(result.stopped!, result.state); // "stopped" in result: both are set
        return;
      }
      if (json) process.stdout.write(toJson(result));
      else console.log(view.formatBrown(result));
      outputs.write("brown.json", toJson(result));
      outputs.write("report.html", brownPageHtml(result, CURVE_NOTE));
      await historyCsv();
      log(`\nwrote ${join(o.out, "brown.json")}, report.html, loss_curve.svg, model.safetensors, manifest.json`);
      log(wallTimeLine());
    } finally {
      interrupt.dispose();
      outputs.release();
    }
  },
};
