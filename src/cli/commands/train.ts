// `tinylab train`: the overfit model on the overfit fixture or a documents file, or a model on your own text
// (--text), with validation history, atomic saves of the state, exact resume and extension (experiments/train.ts).
// Parses, calls, prints.
import { basename, dirname, join, resolve } from "node:path";
import type { CommandModule } from "yargs";
import { TEXT_DEFAULTS as t, TRAIN_DEFAULTS as d, trainSettings } from "../../../experiments/train_options.ts";
import { MIN_THREAD_WORK } from "../../train/pool.ts";
import {
  byText,
  engineOptions,
  modelOverrides,
  optionValues,
  refuseRenamed,
  shapeNames,
  withOptions,
  type OptionTable,
} from "../options.ts";
import { quietClock } from "../../util/runtime/progress.ts";

/**
 * train's options. Those `byText` take one of two sets (experiments/train_options.ts trainSettings): the overfit
 * fixture's, or with --text the text recipe's; --help names both.
 */
export const TRAIN_OPTIONS = {
  seed: d.seed,
  updates: byText(d.updates, t.updates),
  lr: byText(d.lr, t.lr),
  warmup: byText(d.warmup, t.warmup),
  "cosine-steps": byText(d.cosineSteps, "--updates"),
  "min-lr": byText("--lr", t.minLr),
  clip: d.clipNorm,
  "weight-decay": byText(d.weightDecay, t.weightDecay),
  microbatches: undefined,
  "batch-rows": byText(d.batchRows, t.batchRows),
  shuffle: d.shuffle,
  layers: undefined,
  "d-model": undefined,
  heads: undefined,
  "d-ff": undefined,
  context: undefined,
  dropout: undefined,
  vocab: undefined,
  "model-config": undefined,
  text: undefined,
  "one-per-line": false,
  tokenizer: undefined,
  "split-seed": t.splitSeed,
  "validation-fraction": t.validationFraction,
  "test-fraction": t.testFraction,
  data: undefined,
  "eval-every": byText("never", t.evalEvery),
  "save-every": byText("only with --out, at the end", t.saveEvery),
  out: undefined,
  resume: false,
  overwrite: false,
  patience: undefined,
  tensorboard: false,
  "save-model": undefined,
  "log-every": byText(d.logEvery, t.logEvery),
  "on-divergence": d.onDivergence,
  json: false,
  ...engineOptions("data"),
} satisfies OptionTable;

export const trainCommand: CommandModule = {
  command: "train",
  describe:
    "Train on your own text (--text), a documents file or the overfit fixture, with validation history, saved state, exact resume and extension",
  builder: (y) =>
    withOptions(refuseRenamed(y, ["checkpoint-dir", "checkpoint-every"]), TRAIN_OPTIONS, {
      updates: "optimizer updates in total; raise it with --resume to extend a run",
      "batch-rows": "rows per batch (documents; with --text, windows of --context tokens)",
      microbatches: `microbatches accumulated per update (with --text: the update's --batch-rows windows cut into this many, so --workers can share it) (default: ${d.microbatches}; with --text ${t.microbatches} where they divide --batch-rows and the model pays for a second thread (parameters × context ≥ ${MIN_THREAD_WORK.toLocaleString("en-US")}), else 1: the config decides, not the cores, so the numbers are the same on every machine)`,
      layers: `transformer blocks (default: the overfit config's 1; with --text ${t.model.nLayers}, d_model ${t.model.dModel}, ${t.model.nHeads} heads, d_ff ${t.model.dFF}, context ${t.model.contextLength}; likewise every shape flag)`,
      vocab: `vocabulary size (with --text --tokenizer bpe: the BPE's, default ${t.vocab}; byte: 258)`,
      "model-config": "JSON overrides of the model config for any other key, e.g. '{\"tiedHead\": false}'",
      tokenizer: `with --text: byte or bpe (default ${t.tokenizer})`,
      data: "JSONL documents file to train on (its train split; text as bytes); default: the overfit fixture",
      "eval-every": "score the whole validation split every N updates: history.json and loss_curve.svg in --out",
      out: `output directory: the training state, and with --text manifest.json, history.json, loss_curve.svg, train.json, model.safetensors and, with --eval-every, model_best.safetensors, history.csv and, with --tensorboard, events.out.tfevents.tinylab (with --text default ${t.out})`,
      json: "print train.json's summary as JSON on stdout (progress lines go to stderr)",
    }),
  handler: async (argv) => {
    // the shape and its memory estimate are refused before the engine's modules load (a bounded refusal costs none of it)
    const [{ PRESETS, resolveModelConfig }, { checkTrainingMemory }] = await Promise.all([
      import("../../model/config.ts"),
      import("../../lab/memory.ts"),
    ]);
    const {
      text,
      data,
      onePerLine,
      splitSeed,
      validationFraction,
      testFraction,
      saveModel,
      overwrite,
      json,
      backend,
      kernels,
      workers,
      layers,
      dModel,
      heads,
      dFf,
      context,
      dropout,
      vocab,
      modelConfig,
      ...given
    } = optionValues(argv, TRAIN_OPTIONS);
    if (text && data) throw new Error("give one of --text (plain text) and --data (a JSONL documents file)");
    if (!text && given.tokenizer !== undefined) throw new Error("--tokenizer needs --text");
    if (!text && onePerLine) throw new Error("--one-per-line needs --text");
    const s = trainSettings(given, text !== undefined);
    if (given.tensorboard && (!s.out || s.evalEvery === undefined))
      throw new Error("--tensorboard writes the history's event file into --out: it needs --out and --eval-every");
    if (given.resume && !given.out) throw new Error("--resume needs --out (the directory holding train_state.safetensors)");
    if (overwrite && !given.out && !text) throw new Error("--overwrite needs --out (the run directory to replace)");
    const overrides = modelOverrides({ layers, dModel, heads, dFf, context, dropout, vocab, modelConfig });
    // refuses a bad or oversized shape before the engine starts, naming the flags that set it
    const config = !text
      ? resolveModelConfig(overrides, PRESETS.overfit, shapeNames(modelConfig))
      : resolveModelConfig(
          { ...overrides, vocabSize: overrides.vocabSize ?? t.vocab },
          resolveModelConfig(t.model),
          shapeNames(modelConfig),
        );
    checkTrainingMemory(config, s.batchRows); // and its memory estimate, as the run checks it again
    const [
      { startEngine, toJson },
      { runTraining },
      { dirStore, requireFile },
      { sha256File },
      { readDocumentsFile },
      { claimOutputDir },
      { checkModelOutput, lockModelPath },
      { onInterrupt, reportInterrupted },
      { readTextInput },
      { claimRunDir, RUN_KIND },
    ] = await Promise.all([
      import("../common.ts"),
      import("../../../experiments/train.ts"),
      import("../../node/disk.ts"),
      import("../../node/atomic.ts"),
      import("../../node/files.ts"),
      import("../../node/output_dir.ts"),
      import("../../node/model_output.ts"),
      import("../interrupt.ts"),
      import("../../node/text_files.ts"),
      import("../../lab/run_dir.ts"),
    ]);
    const { checkOutputDir } = await import("../../node/writable.ts");
    const dataPath = data === undefined ? undefined : requireFile(data, "documents file");
    const outDir = s.out;
    const savePath = saveModel ?? (text ? join(outDir!, "model.safetensors") : undefined);
    const inputs = { paths: [...(text ? [["--text", text] as const] : []), ...(dataPath ? [["--data", dataPath] as const] : [])] };
    if (outDir) checkOutputDir(outDir, "--out");
    // the model file of a --text run is one of its run's files (claimRunDir's); one given is checked as a file of its own
    if (saveModel) checkModelOutput(saveModel, { option: "--save-model", replace: overwrite || given.resume, inputs, ownDir: outDir });
    // refuses bad text before the engine starts; a large text shows the MiB read on stderr
    const docs = text ? readTextInput(text, onePerLine, process.stderr) : undefined;
    const log = (line: string) => (json ? console.error(line) : console.log(line));
    // one writer per output directory and per model's directory: a second command is refused, naming the holder's pid
    const outputs = outDir
      ? claimOutputDir(outDir, { option: "--out", what: "output directory", kind: RUN_KIND, replace: true, inputs })
      : undefined;
    const locks: { release(): void }[] = outputs ? [outputs] : [];
    const interrupt = onInterrupt();
    try {
      if (savePath && !(outDir && resolve(dirname(savePath)) === resolve(outDir))) locks.push(lockModelPath(savePath));
      const out = outputs?.store();
      const saveStore = savePath ? dirStore(dirname(savePath)) : undefined;
      // under the lock and before the engine starts: a directory holding a run is refused, resumed or emptied of it
      if (out) claimRunDir(out, { resume: given.resume, overwrite }, `--out ${outDir}`);
      const engine = await startEngine({ backend, kernels, workers });
      const result = await runTraining(
        {
          ...given,
          ...s,
          modelConfig: overrides,
          out,
          engine,
          data: dataPath
            ? {
                docs: (tokenizer) => readDocumentsFile(dataPath, tokenizer),
                name: dataPath,
                identity: `file sha256:${sha256File(dataPath)}`,
              }
            : undefined,
          text: docs
            ? { docs, name: text!, tokenizer: s.tokenizer, split: { seed: splitSeed, validation: validationFraction, test: testFraction } }
            : undefined,
          saveModel: saveStore ? { store: saveStore, name: basename(savePath!) } : undefined,
          progress: quietClock(process.stderr),
        },
        log,
        console.error,
        interrupt.requested,
      );
      if (result.interrupted) reportInterrupted(result.interrupted.at, result.interrupted.state);
      else {
        for (const line of (await import("../views/train.ts")).formatTrainSummary(result.summary as never)) log(line);
        const jsonText = toJson({
          experiment: "train",
          ...result.summary,
          provenance: (await import("../../util/runtime/provenance.ts")).provenance(engine),
        });
        if (json) process.stdout.write(jsonText);
        // train.json beside the state when the run has more to say than its state: text, validation, or asked for
        if (outputs && (text || json || result.summary.validation)) log(`wrote ${outputs.write("train.json", jsonText)}`);
      }
      // last, after every file a resume reads: the history as a spreadsheet table
      if (out) (await import("../../lab/history_events.ts")).writeHistoryCsv(out);
    } finally {
      interrupt.dispose();
      for (const l of locks.reverse()) l.release();
    }
  },
};
